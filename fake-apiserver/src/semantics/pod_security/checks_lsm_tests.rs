//! Tests of `checks_lsm`: the cases of `check_appArmorProfile_test.go` and
//! `check_seLinuxOptions_test.go` from Kubernetes 1.28 and 1.31.

use serde_json::{Value, json};

use super::*;
use crate::semantics::pod_security::checks::{Case, assert_cases};

/// The annotations of `TestAppArmorProfile`'s "multiple containers": three forbidden profiles.
fn app_armor_annotations() -> Value {
    json!({"annotations": {
        "container.apparmor.security.beta.kubernetes.io/": "bogus",
        "container.apparmor.security.beta.kubernetes.io/a": "",
        "container.apparmor.security.beta.kubernetes.io/b": "runtime/default",
        "container.apparmor.security.beta.kubernetes.io/c": "localhost/",
        "container.apparmor.security.beta.kubernetes.io/d": "localhost/foo",
        "container.apparmor.security.beta.kubernetes.io/e": "unconfined",
        "container.apparmor.security.beta.kubernetes.io/f": "unknown",
    }})
}

/// Metadata both minors allow (`TestCheckAppArmor`, `TestCheckAppArmor_Allowed`).
fn allowed_metadata() -> [Value; 4] {
    [
        json!({"annotations": {"container.apparmor.security.beta.kubernetes.io/test": "runtime/default", "env": "prod"}}),
        json!({"annotations": {"container.apparmor.security.beta.kubernetes.io/test": "localhost/sec-profile01", "env": "dev"}}),
        json!({"annotations": {"env": "dev"}}),
        json!({}),
    ]
}

#[test]
fn app_armor_on_1_28_reads_the_annotations() {
    for meta in allowed_metadata() {
        assert_eq!(app_armor_profile_1_0_on_1_28(&meta, &Value::Null), None, "{meta}");
    }
    let detail = [
        r#"container.apparmor.security.beta.kubernetes.io/="bogus""#,
        r#"container.apparmor.security.beta.kubernetes.io/e="unconfined""#,
        r#"container.apparmor.security.beta.kubernetes.io/f="unknown""#,
    ]
    .join(", ");
    assert_eq!(
        app_armor_profile_1_0_on_1_28(&app_armor_annotations(), &json!({})),
        Some(Forbidden::new("forbidden AppArmor profiles", detail))
    );
    // 1.28 has no appArmorProfile field to check.
    let unconfined = json!({"securityContext": {"appArmorProfile": {"type": "Unconfined"}}});
    assert_eq!(app_armor_profile_1_0_on_1_28(&json!({}), &unconfined), None);
    let one = json!({"annotations": {"container.apparmor.security.beta.kubernetes.io/x": "unconfined"}});
    assert_eq!(
        app_armor_profile_1_0_on_1_28(&one, &json!({})),
        Some(Forbidden::new(
            "forbidden AppArmor profile",
            r#"container.apparmor.security.beta.kubernetes.io/x="unconfined""#
        ))
    );
}

#[test]
fn app_armor_on_1_31_reads_fields_and_annotations() {
    for meta in allowed_metadata() {
        assert_eq!(app_armor_profile_1_0_on_1_31(&meta, &json!({})), None, "{meta}");
    }
    let runtime_default = json!({"appArmorProfile": {"type": "RuntimeDefault"}});
    let unconfined = json!({"appArmorProfile": {"type": "Unconfined"}});
    let allowed = [
        json!({"securityContext": runtime_default}),
        json!({"containers": [{"name": "foo", "securityContext": runtime_default}]}),
        json!({"containers": [{"name": "foo", "securityContext": {"appArmorProfile": {"type": "Localhost"}}}]}),
    ];
    for spec in allowed {
        assert_eq!(app_armor_profile_1_0_on_1_31(&json!({}), &spec), None, "{spec}");
    }
    let reason = "forbidden AppArmor profile";
    assert_cases(
        app_armor_profile_1_0_on_1_31,
        &[
            (
                "unconfined pod",
                json!({"securityContext": unconfined}),
                Some((reason, r#"pod must not set AppArmor profile type to "Unconfined""#)),
            ),
            (
                "unconfined container",
                json!({"securityContext": runtime_default, "containers": [{"name": "foo", "securityContext": unconfined}]}),
                Some((
                    reason,
                    r#"container "foo" must not set AppArmor profile type to "Unconfined""#,
                )),
            ),
            (
                "unconfined init container",
                json!({
                    "securityContext": runtime_default,
                    "containers": [{"name": "foo"}],
                    "initContainers": [{"name": "bar", "securityContext": unconfined}],
                }),
                Some((
                    reason,
                    r#"container "bar" must not set AppArmor profile type to "Unconfined""#,
                )),
            ),
            (
                "a profile without a type",
                json!({"securityContext": {"appArmorProfile": {}}, "ephemeralContainers": [{"name": "e", "securityContext": unconfined}]}),
                Some((
                    "forbidden AppArmor profiles",
                    r#"pod and container "e" must not set AppArmor profile type to "", "Unconfined""#,
                )),
            ),
        ],
    );
    let detail = String::from("annotations must not set AppArmor profile type to ")
        + &[
            r#""container.apparmor.security.beta.kubernetes.io/="bogus"""#,
            r#""container.apparmor.security.beta.kubernetes.io/e="unconfined"""#,
            r#""container.apparmor.security.beta.kubernetes.io/f="unknown"""#,
        ]
        .join(", ");
    assert_eq!(
        app_armor_profile_1_0_on_1_31(&app_armor_annotations(), &json!({})),
        Some(Forbidden::new("forbidden AppArmor profiles", detail))
    );
    let both = json!({"containers": [{"name": "c", "securityContext": unconfined}]});
    let one = json!({"annotations": {"container.apparmor.security.beta.kubernetes.io/c": "unconfined"}});
    assert_eq!(
        app_armor_profile_1_0_on_1_31(&one, &both),
        Some(Forbidden::new(
            "forbidden AppArmor profiles",
            r#"container "c" and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/c="unconfined"""#
        ))
    );
}

fn se_linux(kind: &str, user: &str, role: &str) -> Value {
    let mut options = serde_json::Map::new();
    for (key, value) in [("type", kind), ("user", user), ("role", role)] {
        if !value.is_empty() {
            options.insert(key.to_owned(), json!(value));
        }
    }
    json!({"seLinuxOptions": options})
}

fn container(name: &str, kind: &str, user: &str, role: &str) -> Value {
    json!({"name": name, "securityContext": se_linux(kind, user, role)})
}

/// The containers of `TestSELinuxOptions`, named from `a`: the allowed types (1.31's test adds
/// `container_engine_t`), then a bad type, a user and a role.
fn se_linux_containers(with_engine: bool) -> Vec<Value> {
    let mut options = vec![
        ("container_t", "", ""),
        ("container_init_t", "", ""),
        ("container_kvm_t", "", ""),
    ];
    if with_engine {
        options.push(("container_engine_t", "", ""));
    }
    options.extend([("bar", "", ""), ("", "bar", ""), ("", "", "baz")]);
    options
        .into_iter()
        .zip('a'..)
        .map(|((kind, user, role), name)| container(&name.to_string(), kind, user, role))
        .collect()
}

/// `TestSELinuxOptions`'s cases, where `bad` names the three bad containers.
fn se_linux_cases(with_engine: bool, bad: &str) -> Vec<Case<'static, String>> {
    let pod_bad = se_linux("foo", "bar", "baz");
    let all = se_linux_containers(with_engine);
    let good = all[..all.len() - 3].to_vec();
    let reason = "seLinuxOptions";
    let all_three = "user may not be set; role may not be set";
    vec![
        (
            "invalid pod and containers",
            json!({"securityContext": pod_bad, "containers": all}),
            Some((
                reason,
                format!(
                    r#"pod and containers {bad} set forbidden securityContext.seLinuxOptions: types "bar", "foo"; {all_three}"#
                ),
            )),
        ),
        (
            "invalid pod",
            json!({"securityContext": pod_bad, "containers": good}),
            Some((
                reason,
                format!(r#"pod set forbidden securityContext.seLinuxOptions: type "foo"; {all_three}"#),
            )),
        ),
        (
            "invalid containers",
            json!({"securityContext": {"seLinuxOptions": {}}, "containers": all}),
            Some((
                reason,
                format!(r#"containers {bad} set forbidden securityContext.seLinuxOptions: type "bar"; {all_three}"#),
            )),
        ),
        (
            "bad type",
            json!({"securityContext": se_linux("bad", "", "")}),
            Some((
                reason,
                r#"pod set forbidden securityContext.seLinuxOptions: type "bad""#.to_owned(),
            )),
        ),
        (
            "bad user",
            json!({"securityContext": se_linux("", "bad", "")}),
            Some((
                reason,
                "pod set forbidden securityContext.seLinuxOptions: user may not be set".to_owned(),
            )),
        ),
        (
            "bad role",
            json!({"securityContext": se_linux("", "", "bad")}),
            Some((
                reason,
                "pod set forbidden securityContext.seLinuxOptions: role may not be set".to_owned(),
            )),
        ),
    ]
}

#[test]
fn se_linux_options_1_0_cases() {
    assert_cases(se_linux_options_1_0, &se_linux_cases(false, r#""d", "e", "f""#));
    // Before 1.31 the container engine's type is refused.
    let engine = json!({"containers": [container("d", "container_engine_t", "", "")]});
    assert_cases(
        se_linux_options_1_0,
        &[(
            "container_engine_t",
            engine,
            Some((
                "seLinuxOptions",
                r#"container "d" set forbidden securityContext.seLinuxOptions: type "container_engine_t""#,
            )),
        )],
    );
}

#[test]
fn se_linux_options_1_31_cases() {
    assert_cases(se_linux_options_1_31, &se_linux_cases(true, r#""e", "f", "g""#));
}
