//! Tests of `checks_seccomp`: the cases of `check_seccompProfile_baseline_test.go` and
//! `check_seccompProfile_restricted_test.go` (the same on 1.28 and 1.31).

use serde_json::{Value, json};

use super::*;
use crate::semantics::pod_security::checks::{Case, assert_cases};

fn seccomp(kind: &str) -> Value {
    json!({"seccompProfile": {"type": kind}})
}

/// Containers `a`..`f`: none and an empty context (both unset), two Unconfined, two RuntimeDefault.
fn mixed_containers() -> Value {
    json!([
        {"name": "a"},
        {"name": "b", "securityContext": {}},
        {"name": "c", "securityContext": seccomp("Unconfined")},
        {"name": "d", "securityContext": seccomp("Unconfined")},
        {"name": "e", "securityContext": seccomp("RuntimeDefault")},
        {"name": "f", "securityContext": seccomp("RuntimeDefault")},
    ])
}

/// Containers where only `a` and `b` leave the profile unset.
fn fallthrough_containers() -> Value {
    json!([
        {"name": "a"},
        {"name": "b", "securityContext": {}},
        {"name": "d", "securityContext": seccomp("RuntimeDefault")},
        {"name": "e", "securityContext": seccomp("RuntimeDefault")},
    ])
}

#[test]
fn baseline_1_0_reads_the_alpha_annotations() {
    let three = json!({"containers": [{"name": "a"}, {"name": "b"}, {"name": "c"}]});
    let cases = [
        (
            "pod seccomp invalid",
            json!({"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}}),
            json!({}),
            r#"forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined""#,
        ),
        (
            "containers seccomp invalid",
            json!({"annotations": {
                "container.seccomp.security.alpha.kubernetes.io/a": "unconfined",
                "container.seccomp.security.alpha.kubernetes.io/b": "unknown",
            }}),
            three.clone(),
            r#"forbidden annotations container.seccomp.security.alpha.kubernetes.io/a="unconfined", container.seccomp.security.alpha.kubernetes.io/b="unknown""#,
        ),
        (
            "pod and containers seccomp invalid",
            json!({"annotations": {
                "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
                "container.seccomp.security.alpha.kubernetes.io/a": "unconfined",
                "container.seccomp.security.alpha.kubernetes.io/b": "unknown",
            }}),
            three.clone(),
            r#"forbidden annotations container.seccomp.security.alpha.kubernetes.io/a="unconfined", container.seccomp.security.alpha.kubernetes.io/b="unknown", seccomp.security.alpha.kubernetes.io/pod="unconfined""#,
        ),
    ];
    for (case, meta, spec, detail) in cases {
        let want = Some(Forbidden::new("seccompProfile", detail));
        assert_eq!(seccomp_profile_baseline_1_0(&meta, &spec), want, "{case}");
    }
    // Allowed values, an annotation for a container the pod does not have, and the fields
    // (which 1.0 does not read) pass.
    let allowed = json!({"annotations": {
        "seccomp.security.alpha.kubernetes.io/pod": "docker/default",
        "container.seccomp.security.alpha.kubernetes.io/a": "localhost/profile.json",
        "container.seccomp.security.alpha.kubernetes.io/b": "runtime/default",
        "container.seccomp.security.alpha.kubernetes.io/z": "unconfined",
    }});
    let mut spec = three;
    spec["securityContext"] = seccomp("Unconfined");
    assert_eq!(seccomp_profile_baseline_1_0(&allowed, &spec), None);
}

#[test]
fn baseline_1_19_reads_the_fields() {
    let unconfined = r#"must not set securityContext.seccompProfile.type to "Unconfined""#;
    assert_cases(
        seccomp_profile_baseline_1_19,
        &[
            (
                "pod seccomp invalid",
                json!({"securityContext": seccomp("Unconfined"), "containers": [{"name": "a"}]}),
                Some(("seccompProfile", format!("pod {unconfined}"))),
            ),
            (
                "containers seccomp invalid",
                json!({"securityContext": seccomp("RuntimeDefault"), "containers": mixed_containers()}),
                Some(("seccompProfile", format!(r#"containers "c", "d" {unconfined}"#))),
            ),
            (
                "pod and containers seccomp invalid",
                json!({"securityContext": seccomp("Unconfined"), "containers": mixed_containers()}),
                Some(("seccompProfile", format!(r#"pod and containers "c", "d" {unconfined}"#))),
            ),
            (
                "unset is allowed at baseline",
                json!({"containers": fallthrough_containers()}),
                None,
            ),
        ],
    );
}

/// `TestSeccompProfileRestricted_1_19`'s cases, which 1.25 answers alike.
fn restricted_cases() -> Vec<Case<'static, String>> {
    let unconfined = r#"must not set securityContext.seccompProfile.type to "Unconfined""#;
    let must_set = r#"must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost""#;
    vec![
        (
            "no explicit seccomp",
            json!({"containers": [{"name": "a"}]}),
            Some(("seccompProfile", format!(r#"pod or container "a" {must_set}"#))),
        ),
        (
            "pod seccomp invalid",
            json!({"securityContext": seccomp("Unconfined"), "containers": [{"name": "a"}]}),
            Some(("seccompProfile", format!("pod {unconfined}"))),
        ),
        (
            "containers seccomp invalid",
            json!({"securityContext": seccomp("RuntimeDefault"), "containers": mixed_containers()}),
            Some(("seccompProfile", format!(r#"containers "c", "d" {unconfined}"#))),
        ),
        (
            "pod nil, container fallthrough",
            json!({"containers": fallthrough_containers()}),
            Some(("seccompProfile", format!(r#"pod or containers "a", "b" {must_set}"#))),
        ),
        (
            "no explicit seccomp, linux pod",
            json!({"os": {"name": "linux"}, "containers": [{"name": "a"}]}),
            Some(("seccompProfile", format!(r#"pod or container "a" {must_set}"#))),
        ),
        (
            "pod-level RuntimeDefault",
            json!({"securityContext": seccomp("RuntimeDefault"), "containers": [{"name": "a"}]}),
            None,
        ),
        (
            "container-level Localhost",
            json!({"containers": [{"name": "a", "securityContext": seccomp("Localhost")}]}),
            None,
        ),
    ]
}

#[test]
fn restricted_requires_a_profile() {
    assert_cases(seccomp_profile_restricted_1_19, &restricted_cases());
    assert_cases(seccomp_profile_restricted_1_25, &restricted_cases());
}

#[test]
fn restricted_exempts_windows_pods_from_1_25() {
    let windows = json!({"os": {"name": "windows"}, "containers": [{"name": "a"}]});
    assert_eq!(seccomp_profile_restricted_1_25(&Value::Null, &windows), None);
    let must_set =
        r#"pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost""#;
    assert_eq!(
        seccomp_profile_restricted_1_19(&Value::Null, &windows),
        Some(Forbidden::new("seccompProfile", must_set))
    );
}
