//! Tests of `evaluate` end to end: the answers recorded on real kube-apiservers v1.28.7 and
//! v1.31.2, the minimal valid pods of `pod-security-admission/test/fixtures.go`, and what
//! differs between the two minors.

use serde_json::{Value, json};

use super::*;
use crate::semantics::pod_security::policy::Version;

fn at(level: Level, version: Version) -> LevelVersion {
    LevelVersion { level, version }
}

const RESTRICTED: LevelVersion = LevelVersion {
    level: Level::Restricted,
    version: Version::Latest,
};

const BASELINE: LevelVersion = LevelVersion {
    level: Level::Baseline,
    version: Version::Latest,
};

/// `evaluate`'s reason and detail on each minor, which must agree.
fn verdict(level_version: LevelVersion, spec: &Value) -> (String, String) {
    let on_1_28 = evaluate(level_version, &Value::Null, spec, 28);
    let on_1_31 = evaluate(level_version, &Value::Null, spec, 31);
    assert_eq!(on_1_28, on_1_31, "{level_version} on {spec}");
    (on_1_28.forbidden_reason(), on_1_28.forbidden_detail())
}

#[test]
fn a_bare_pod_fails_restricted() {
    let spec = json!({"containers": [{"name": "c", "image": "busybox"}]});
    let (reason, detail) = verdict(RESTRICTED, &spec);
    assert_eq!(
        reason,
        "allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"
    );
    assert_eq!(
        detail,
        concat!(
            r#"allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), "#,
            r#"unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), "#,
            r#"runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), "#,
            r#"seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")"#
        )
    );
    assert!(evaluate(BASELINE, &Value::Null, &spec, 28).allowed());
    assert!(evaluate(LevelVersion::PRIVILEGED, &Value::Null, &spec, 31).allowed());
}

#[test]
fn host_path_and_host_port_fail_baseline() {
    let spec = json!({
        "volumes": [{"name": "h", "hostPath": {"path": "/var/log"}}],
        "containers": [{"name": "c", "image": "busybox", "ports": [{"containerPort": 80, "hostPort": 8080}]}],
    });
    let (reason, detail) = verdict(BASELINE, &spec);
    assert_eq!(reason, "hostPath volumes, hostPort");
    assert_eq!(
        detail,
        r#"hostPath volumes (volume "h"), hostPort (container "c" uses hostPort 8080)"#
    );
}

#[test]
fn baseline_ignores_what_only_restricted_refuses() {
    let spec = json!({
        "securityContext": {"runAsUser": 0},
        "initContainers": [{"name": "init", "securityContext": {"allowPrivilegeEscalation": true}}],
        "containers": [{"name": "c", "securityContext": {"runAsNonRoot": false, "seccompProfile": {"type": "Unconfined"}}}],
        "volumes": [{"name": "e", "emptyDir": {}}, {"name": "n", "nfs": {"server": "example.com", "path": "/x"}}],
    });
    let (reason, detail) = verdict(BASELINE, &spec);
    assert_eq!(reason, "seccompProfile");
    assert_eq!(
        detail,
        r#"seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")"#
    );
    let (_, detail) = verdict(RESTRICTED, &spec);
    assert_eq!(
        detail,
        concat!(
            r#"allowPrivilegeEscalation != false (containers "init", "c" must set securityContext.allowPrivilegeEscalation=false), "#,
            r#"unrestricted capabilities (containers "init", "c" must set securityContext.capabilities.drop=["ALL"]), "#,
            r#"restricted volume types (volume "n" uses restricted volume type "nfs"), "#,
            r#"runAsNonRoot != true (container "c" must not set securityContext.runAsNonRoot=false), "#,
            r#"runAsUser=0 (pod must not set runAsUser=0), "#,
            r#"seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")"#
        )
    );
}

#[test]
fn restricted_reports_baseline_failures_first() {
    let spec = json!({
        "hostPID": true,
        "containers": [{"name": "c", "image": "busybox", "securityContext": {"capabilities": {"add": ["SYS_ADMIN"]}}}],
    });
    let (reason, detail) = verdict(RESTRICTED, &spec);
    assert_eq!(
        reason,
        "host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"
    );
    assert_eq!(
        detail,
        concat!(
            r#"host namespaces (hostPID=true), "#,
            r#"allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), "#,
            r#"unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]; "#,
            r#"container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add), "#,
            r#"runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), "#,
            r#"seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")"#
        )
    );
    // Baseline reports the added capability through its own check, which sorts first.
    let (_, detail) = verdict(BASELINE, &spec);
    assert_eq!(
        detail,
        r#"non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add), host namespaces (hostPID=true)"#
    );
}

/// `fixtures.go`'s minimal restricted pod of 1.22 and later.
fn minimal_restricted() -> Value {
    let context = json!({"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}});
    json!({
        "securityContext": {"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}},
        "initContainers": [{"name": "initcontainer1", "image": "registry.k8s.io/pause", "securityContext": context}],
        "containers": [{"name": "container1", "image": "registry.k8s.io/pause", "securityContext": context}],
    })
}

#[test]
fn minimal_pods_pass() {
    let allowed = json!({
        "securityContext": {"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [{"name": "c", "image": "busybox", "securityContext": {
            "allowPrivilegeEscalation": false,
            "capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]},
        }}],
    });
    assert_eq!(verdict(RESTRICTED, &allowed), (String::new(), String::new()));
    for minor in [28, 31] {
        assert!(evaluate(RESTRICTED, &json!({}), &minimal_restricted(), minor).allowed());
        for version in 0..=32 {
            let pinned = at(Level::Restricted, Version::Minor(version));
            assert!(
                evaluate(pinned, &Value::Null, &minimal_restricted(), minor).allowed(),
                "v1.{version}"
            );
        }
    }
    // From 1.25 a Windows pod needs none of what restricted added since 1.0.
    let windows = json!({
        "os": {"name": "windows"},
        "securityContext": {"runAsNonRoot": true},
        "containers": [{"name": "container1", "image": "registry.k8s.io/pause"}],
    });
    assert_eq!(
        verdict(at(Level::Restricted, Version::Minor(25)), &windows),
        (String::new(), String::new())
    );
    let (reason, _) = verdict(at(Level::Restricted, Version::Minor(24)), &windows);
    assert_eq!(
        reason,
        "allowPrivilegeEscalation != false, unrestricted capabilities, seccompProfile"
    );
}

#[test]
fn the_minors_differ_where_their_checks_do() {
    let detail = |spec: &Value, meta: &Value, minor| evaluate(BASELINE, meta, spec, minor).forbidden_detail();
    let engine =
        json!({"containers": [{"name": "c", "securityContext": {"seLinuxOptions": {"type": "container_engine_t"}}}]});
    assert_eq!(
        detail(&engine, &Value::Null, 28),
        r#"seLinuxOptions (container "c" set forbidden securityContext.seLinuxOptions: type "container_engine_t")"#
    );
    assert_eq!(detail(&engine, &Value::Null, 31), "");
    // Pinned below 1.31, a 1.31 server still refuses the container engine's type.
    let pinned = at(Level::Baseline, Version::Minor(30));
    assert!(!evaluate(pinned, &Value::Null, &engine, 31).allowed());

    let keepalive = json!({"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_keepalive_time", "value": "7200"}]}});
    assert_eq!(
        detail(&keepalive, &Value::Null, 28),
        "forbidden sysctls (net.ipv4.tcp_keepalive_time)"
    );
    assert_eq!(detail(&keepalive, &Value::Null, 31), "");

    let unconfined =
        json!({"containers": [{"name": "c", "securityContext": {"appArmorProfile": {"type": "Unconfined"}}}]});
    assert_eq!(detail(&unconfined, &Value::Null, 28), "");
    assert_eq!(
        detail(&unconfined, &Value::Null, 31),
        r#"forbidden AppArmor profile (container "c" must not set AppArmor profile type to "Unconfined")"#
    );
    let annotated = json!({"annotations": {"container.apparmor.security.beta.kubernetes.io/c": "unconfined"}});
    let spec = json!({"containers": [{"name": "c"}]});
    assert_eq!(
        detail(&spec, &annotated, 28),
        r#"forbidden AppArmor profile (container.apparmor.security.beta.kubernetes.io/c="unconfined")"#
    );
    assert_eq!(
        detail(&spec, &annotated, 31),
        r#"forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/c="unconfined"")"#
    );
}

#[test]
fn malformed_pods_are_judged_without_panicking() {
    for spec in [
        json!(null),
        json!("pod"),
        json!({"containers": [null, 3, {"name": 4, "securityContext": "x"}]}),
        json!({"securityContext": {"sysctls": "x", "seccompProfile": [], "runAsUser": "0"}, "volumes": [1, {"hostPath": true}]}),
    ] {
        for minor in [28, 31] {
            for level_version in [BASELINE, RESTRICTED] {
                let _ = evaluate(level_version, &json!({"annotations": 1}), &spec, minor).forbidden_detail();
            }
        }
    }
    // A container with nothing readable is still a container: restricted refuses it, unnamed.
    let (_, detail) = verdict(RESTRICTED, &json!({"containers": [null]}));
    assert!(
        detail.starts_with(r#"allowPrivilegeEscalation != false (container "" must set"#),
        "{detail}"
    );
}
