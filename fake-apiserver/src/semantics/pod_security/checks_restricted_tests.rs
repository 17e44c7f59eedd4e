//! Tests of `checks_restricted`: the cases of `check_runAsNonRoot_test.go`,
//! `check_runAsUser_test.go` and `check_restrictedVolumes_test.go` (1.31's user-namespace cases
//! expect the gate on; with it off, as here, such pods are judged like any other).

use serde_json::{Value, json};

use super::*;
use crate::semantics::pod_security::checks::assert_cases;

fn non_root(value: bool) -> Value {
    json!({"runAsNonRoot": value})
}

fn user(uid: i64) -> Value {
    json!({"runAsUser": uid})
}

#[test]
fn run_as_non_root() {
    let reason = "runAsNonRoot != true";
    assert_cases(
        run_as_non_root_1_0,
        &[
            (
                "no explicit runAsNonRoot",
                json!({"containers": [{"name": "a"}]}),
                Some((
                    reason,
                    r#"pod or container "a" must set securityContext.runAsNonRoot=true"#,
                )),
            ),
            (
                "pod runAsNonRoot=false",
                json!({"securityContext": non_root(false), "containers": [{"name": "a"}]}),
                Some((reason, "pod must not set securityContext.runAsNonRoot=false")),
            ),
            (
                "containers runAsNonRoot=false",
                json!({"securityContext": non_root(true), "containers": [
                    {"name": "a"},
                    {"name": "b", "securityContext": {}},
                    {"name": "c", "securityContext": non_root(false)},
                    {"name": "d", "securityContext": non_root(false)},
                    {"name": "e", "securityContext": non_root(true)},
                    {"name": "f", "securityContext": non_root(true)},
                ]}),
                Some((
                    reason,
                    r#"containers "c", "d" must not set securityContext.runAsNonRoot=false"#,
                )),
            ),
            (
                "pod nil, container fallthrough",
                json!({"containers": [
                    {"name": "a"},
                    {"name": "b", "securityContext": {}},
                    {"name": "d", "securityContext": non_root(true)},
                    {"name": "e", "securityContext": non_root(true)},
                ]}),
                Some((
                    reason,
                    r#"pod or containers "a", "b" must set securityContext.runAsNonRoot=true"#,
                )),
            ),
            (
                "pod false overrides nothing a container says, both reported",
                json!({"securityContext": non_root(false), "initContainers": [{"name": "i", "securityContext": non_root(false)}]}),
                Some((
                    reason,
                    r#"pod and container "i" must not set securityContext.runAsNonRoot=false"#,
                )),
            ),
            (
                "user namespace pods are not relaxed with the gate off",
                json!({"hostUsers": false, "containers": [{"name": "a"}]}),
                Some((
                    reason,
                    r#"pod or container "a" must set securityContext.runAsNonRoot=true"#,
                )),
            ),
            (
                "pod true covers every container",
                json!({"securityContext": non_root(true), "containers": [{"name": "a"}]}),
                None,
            ),
            (
                "no containers, nothing to run as root",
                json!({"hostUsers": false}),
                None,
            ),
        ],
    );
}

#[test]
fn run_as_user() {
    let reason = "runAsUser=0";
    assert_cases(
        run_as_user_1_23,
        &[
            (
                "pod runAsUser=0",
                json!({"securityContext": user(0), "containers": [{"name": "a"}]}),
                Some((reason, "pod must not set runAsUser=0")),
            ),
            (
                "pod runAsUser=non-zero",
                json!({"securityContext": user(1000), "containers": [{"name": "a"}]}),
                None,
            ),
            (
                "pod runAsUser=nil",
                json!({"securityContext": {}, "containers": [{"name": "a"}]}),
                None,
            ),
            (
                "containers runAsUser=0",
                json!({"securityContext": user(1000), "containers": [
                    {"name": "a"},
                    {"name": "b", "securityContext": {}},
                    {"name": "c", "securityContext": user(0)},
                    {"name": "d", "securityContext": user(0)},
                    {"name": "e", "securityContext": user(1)},
                    {"name": "f", "securityContext": user(1)},
                ]}),
                Some((reason, r#"containers "c", "d" must not set runAsUser=0"#)),
            ),
            (
                "containers runAsUser=non-zero",
                json!({"containers": [
                    {"name": "c", "securityContext": user(1)},
                    {"name": "d", "securityContext": user(2)},
                    {"name": "e", "securityContext": user(3)},
                    {"name": "f", "securityContext": user(4)},
                ]}),
                None,
            ),
            (
                "user namespace pods are not relaxed with the gate off",
                json!({"hostUsers": false, "securityContext": user(0), "containers": [{"name": "a"}]}),
                Some((reason, "pod must not set runAsUser=0")),
            ),
        ],
    );
}

#[test]
fn restricted_volumes() {
    let allowed = [
        "emptyDir",
        "secret",
        "persistentVolumeClaim",
        "downwardAPI",
        "configMap",
        "projected",
        "csi",
        "ephemeral",
    ];
    let mut volumes: Vec<Value> = allowed
        .iter()
        .enumerate()
        .map(|(i, source)| json!({"name": format!("a{}", i + 1), (*source): {}}))
        .collect();
    volumes.extend(
        RESTRICTED_VOLUME_SOURCES
            .iter()
            .enumerate()
            .map(|(i, source)| json!({"name": format!("b{}", i + 1), (*source): {}})),
    );
    volumes.push(json!({"name": "c1"}));
    let detail = concat!(
        r#"volumes "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11", "b12", "b13", "b14", "b15", "b16", "b17", "b18", "b19", "b20", "b21", "c1""#,
        r#" use restricted volume types "#,
        r#""awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", "#,
        r#""hostPath", "iscsi", "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "unknown", "vsphereVolume""#
    );
    let one = json!({"volumes": [{"name": "n", "nfs": {"server": "example.com", "path": "/x"}}, {"name": "e", "emptyDir": {}}]});
    // 1.31's image volumes are not among the sources Go names.
    let image = json!({"volumes": [{"name": "i", "image": {"reference": "busybox"}}]});
    assert_cases(
        restricted_volumes_1_0,
        &[
            (
                "host path volumes",
                json!({"volumes": volumes}),
                Some(("restricted volume types", detail)),
            ),
            (
                "one volume",
                one,
                Some((
                    "restricted volume types",
                    r#"volume "n" uses restricted volume type "nfs""#,
                )),
            ),
            (
                "image volume",
                image,
                Some((
                    "restricted volume types",
                    r#"volume "i" uses restricted volume type "unknown""#,
                )),
            ),
            (
                "only allowed volumes",
                json!({"volumes": [{"name": "s", "secret": {}}]}),
                None,
            ),
        ],
    );
}
