//! The checks on what a container may do as root: `check_privileged.go` (baseline),
//! `check_capabilities_baseline.go` (baseline), `check_allowPrivilegeEscalation.go` and
//! `check_capabilities_restricted.go` (restricted).

use std::collections::BTreeSet;

use serde_json::Value;

use super::checks::{Check, CheckResult, Forbidden, VersionedCheck};
use super::pod_view::{containers, flag, items, join_quote, name, named, object, security_context, windows_pod};
use super::policy::Level;

/// `CheckPrivileged`: no container may be privileged.
pub(crate) const PRIVILEGED: Check = Check {
    id: "privileged",
    level: Level::Baseline,
    versions: &[VersionedCheck::new(0, privileged_1_0)],
};

/// `CheckCapabilitiesBaseline`: containers may add only the container runtime's default set.
pub(crate) const CAPABILITIES_BASELINE: Check = Check {
    id: "capabilities_baseline",
    level: Level::Baseline,
    versions: &[VersionedCheck::new(0, capabilities_baseline_1_0)],
};

/// `CheckAllowPrivilegeEscalation`: the field exists from 1.8; Windows pods, which cannot set
/// it, are exempt from 1.25.
pub(crate) const ALLOW_PRIVILEGE_ESCALATION: Check = Check {
    id: "allowPrivilegeEscalation",
    level: Level::Restricted,
    versions: &[
        VersionedCheck::new(8, allow_privilege_escalation_1_8),
        VersionedCheck::new(25, allow_privilege_escalation_1_25),
    ],
};

/// `CheckCapabilitiesRestricted`: from 1.22 it replaces the baseline capability check, which
/// it is stricter than; Windows pods are exempt from 1.25.
pub(crate) const CAPABILITIES_RESTRICTED: Check = Check {
    id: "capabilities_restricted",
    level: Level::Restricted,
    versions: &[
        VersionedCheck::new(22, capabilities_restricted_1_22).overriding(&[CAPABILITIES_BASELINE.id]),
        VersionedCheck::new(25, capabilities_restricted_1_25).overriding(&[CAPABILITIES_BASELINE.id]),
    ],
};

/// `capabilities_allowed_1_0`: the capabilities container runtimes grant by default.
const DEFAULT_CAPABILITIES: [&str; 13] = [
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
];

/// A container's `securityContext.capabilities`, when set.
fn capabilities(container: &Value) -> Option<&Value> {
    security_context(container).and_then(|context| object(context, "capabilities"))
}

/// The capability names of `add` or `drop`.
fn capability_list<'v>(capabilities: &'v Value, key: &str) -> impl Iterator<Item = &'v str> {
    items(capabilities, key).filter_map(Value::as_str)
}

fn privileged_1_0(_meta: &Value, spec: &Value) -> CheckResult {
    let bad: Vec<&str> = containers(spec)
        .filter(|container| security_context(container).and_then(|context| flag(context, "privileged")) == Some(true))
        .map(name)
        .collect();
    if bad.is_empty() {
        return None;
    }
    let detail = format!(
        "{} must not set securityContext.privileged=true",
        named("container", "containers", &bad)
    );
    Some(Forbidden::new("privileged", detail))
}

fn capabilities_baseline_1_0(_meta: &Value, spec: &Value) -> CheckResult {
    let mut bad = Vec::new();
    let mut added = BTreeSet::new();
    for container in containers(spec) {
        let Some(capabilities) = capabilities(container) else {
            continue;
        };
        let extra: Vec<&str> = capability_list(capabilities, "add")
            .filter(|capability| !DEFAULT_CAPABILITIES.contains(capability))
            .collect();
        if !extra.is_empty() {
            bad.push(name(container));
            added.extend(extra);
        }
    }
    if bad.is_empty() {
        return None;
    }
    let added: Vec<&str> = added.into_iter().collect();
    let detail = format!(
        "{} must not include {} in securityContext.capabilities.add",
        named("container", "containers", &bad),
        join_quote(&added)
    );
    Some(Forbidden::new("non-default capabilities", detail))
}

fn allow_privilege_escalation_1_8(_meta: &Value, spec: &Value) -> CheckResult {
    // Unset is as bad as true: the runtime lets a process escalate unless told not to.
    let bad: Vec<&str> = containers(spec)
        .filter(|container| {
            security_context(container).and_then(|context| flag(context, "allowPrivilegeEscalation")) != Some(false)
        })
        .map(name)
        .collect();
    if bad.is_empty() {
        return None;
    }
    let detail = format!(
        "{} must set securityContext.allowPrivilegeEscalation=false",
        named("container", "containers", &bad)
    );
    Some(Forbidden::new("allowPrivilegeEscalation != false", detail))
}

fn allow_privilege_escalation_1_25(meta: &Value, spec: &Value) -> CheckResult {
    // Pod validation refuses the field on a Windows pod, so such a pod cannot set it.
    if windows_pod(spec) {
        return None;
    }
    allow_privilege_escalation_1_8(meta, spec)
}

fn capabilities_restricted_1_22(_meta: &Value, spec: &Value) -> CheckResult {
    let mut missing_drop_all = Vec::new();
    let mut adding_forbidden = Vec::new();
    let mut forbidden = BTreeSet::new();
    for container in containers(spec) {
        let Some(capabilities) = capabilities(container) else {
            missing_drop_all.push(name(container));
            continue;
        };
        if !capability_list(capabilities, "drop").any(|capability| capability == "ALL") {
            missing_drop_all.push(name(container));
        }
        let extra: Vec<&str> = capability_list(capabilities, "add")
            .filter(|&capability| capability != "NET_BIND_SERVICE")
            .collect();
        if !extra.is_empty() {
            adding_forbidden.push(name(container));
            forbidden.extend(extra);
        }
    }
    let mut details = Vec::new();
    if !missing_drop_all.is_empty() {
        details.push(format!(
            r#"{} must set securityContext.capabilities.drop=["ALL"]"#,
            named("container", "containers", &missing_drop_all)
        ));
    }
    if !adding_forbidden.is_empty() {
        let forbidden: Vec<&str> = forbidden.into_iter().collect();
        details.push(format!(
            "{} must not include {} in securityContext.capabilities.add",
            named("container", "containers", &adding_forbidden),
            join_quote(&forbidden)
        ));
    }
    if details.is_empty() {
        return None;
    }
    Some(Forbidden::new("unrestricted capabilities", details.join("; ")))
}

fn capabilities_restricted_1_25(meta: &Value, spec: &Value) -> CheckResult {
    // Pod validation refuses capabilities on a Windows pod, so such a pod cannot drop them.
    if windows_pod(spec) {
        return None;
    }
    capabilities_restricted_1_22(meta, spec)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::pod_security::checks::assert_cases;

    #[test]
    fn privileged() {
        let spec = json!({"containers": [
            {"name": "a"},
            {"name": "b", "securityContext": {}},
            {"name": "c", "securityContext": {"privileged": false}},
            {"name": "d", "securityContext": {"privileged": true}},
            {"name": "e", "securityContext": {"privileged": true}},
        ]});
        let want = Some((
            "privileged",
            r#"containers "d", "e" must not set securityContext.privileged=true"#,
        ));
        assert_cases(privileged_1_0, &[("privileged", spec, want)]);
    }

    #[test]
    fn capabilities_baseline() {
        let spec = json!({"containers": [
            {"name": "a", "securityContext": {"capabilities": {"add": ["FOO", "BAR"]}}},
            {"name": "b", "securityContext": {"capabilities": {"add": ["BAR", "BAZ"]}}},
            {"name": "c", "securityContext": {"capabilities": {"add": ["CHOWN", "KILL"]}}},
        ]});
        let detail = r#"containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add"#;
        assert_cases(
            capabilities_baseline_1_0,
            &[("multiple containers", spec, Some(("non-default capabilities", detail)))],
        );
    }

    #[test]
    fn allow_privilege_escalation() {
        let multiple = json!({"containers": [
            {"name": "a"},
            {"name": "b", "securityContext": {}},
            {"name": "c", "securityContext": {"allowPrivilegeEscalation": true}},
            {"name": "d", "securityContext": {"allowPrivilegeEscalation": false}},
        ]});
        let reason = "allowPrivilegeEscalation != false";
        let detail = r#"containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false"#;
        assert_cases(
            allow_privilege_escalation_1_8,
            &[("multiple containers", multiple.clone(), Some((reason, detail)))],
        );
        let windows = json!({"os": {"name": "windows"}, "containers": [{"name": "a"}]});
        let linux = json!({"os": {"name": "linux"}, "containers": [{"name": "a"}]});
        let single = r#"container "a" must set securityContext.allowPrivilegeEscalation=false"#;
        assert_cases(
            allow_privilege_escalation_1_25,
            &[
                ("multiple containers", multiple, Some((reason, detail))),
                (
                    "windows pod, admit without checking privilegeEscalation",
                    windows.clone(),
                    None,
                ),
                (
                    "linux pod, reject if security context is not set",
                    linux,
                    Some((reason, single)),
                ),
            ],
        );
        // Before 1.25 a Windows pod is checked like any other.
        assert_cases(
            allow_privilege_escalation_1_8,
            &[("windows before 1.25", windows, Some((reason, single)))],
        );
    }

    #[test]
    fn capabilities_restricted() {
        let multiple = json!({"containers": [
            {"name": "a", "securityContext": {"capabilities": {"add": ["FOO", "BAR"]}}},
            {"name": "b", "securityContext": {"capabilities": {"add": ["BAR", "BAZ"]}}},
            {"name": "c", "securityContext": {"capabilities": {"add": ["NET_BIND_SERVICE", "CHOWN"], "drop": ["ALL", "FOO"]}}},
        ]});
        let reason = "unrestricted capabilities";
        let detail = concat!(
            r#"containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; "#,
            r#"containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add"#
        );
        assert_cases(
            capabilities_restricted_1_22,
            &[("multiple containers", multiple.clone(), Some((reason, detail)))],
        );
        let windows = json!({"os": {"name": "windows"}, "containers": [{"name": "a"}]});
        let linux = json!({"os": {"name": "linux"}, "containers": [{"name": "a"}]});
        let drop_all = r#"container "a" must set securityContext.capabilities.drop=["ALL"]"#;
        let allowed = json!({"containers": [
            {"name": "a", "securityContext": {"capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]}}},
        ]});
        assert_cases(
            capabilities_restricted_1_25,
            &[
                ("multiple containers", multiple, Some((reason, detail))),
                ("windows pod, admit without checking capabilities", windows, None),
                (
                    "linux pod, reject if security context is not set",
                    linux,
                    Some((reason, drop_all)),
                ),
                ("drop ALL, add NET_BIND_SERVICE", allowed, None),
            ],
        );
    }
}
