//! The baseline checks on the kernel interfaces a pod shares with its node: `check_procMount.go`
//! (the /proc masks) and `check_sysctls.go` (the namespaced, isolated sysctls), whose allowed
//! set grows with the standard's version (1.27 on 1.28; 1.27 and 1.29 on 1.31).

use serde_json::Value;

use super::checks::{Check, CheckResult, Forbidden, VersionedCheck};
use super::pod_view::{containers, items, join_quote, name, named, security_context};
use super::policy::Level;

/// `CheckProcMount`: containers keep the default /proc masks. (1.31's relaxation for pods in a
/// user namespace sits behind the `UserNamespacesPodSecurityStandards` alpha gate, which is off.)
pub(crate) const PROC_MOUNT: Check = Check {
    id: "procMount",
    level: Level::Baseline,
    versions: &[VersionedCheck::new(0, proc_mount_1_0)],
};

/// `CheckSysctls` as Kubernetes 1.28 registers it.
pub(crate) const SYSCTLS_1_28: Check = Check {
    id: "sysctls",
    level: Level::Baseline,
    versions: &[
        VersionedCheck::new(0, sysctls_1_0),
        VersionedCheck::new(27, sysctls_1_27),
    ],
};

/// `CheckSysctls` as Kubernetes 1.31 registers it: version 1.29 allows four TCP sysctls more.
pub(crate) const SYSCTLS_1_31: Check = Check {
    id: "sysctls",
    level: Level::Baseline,
    versions: &[
        VersionedCheck::new(0, sysctls_1_0),
        VersionedCheck::new(27, sysctls_1_27),
        VersionedCheck::new(29, sysctls_1_29),
    ],
};

/// `sysctls_allowed_1_0`.
const SAFE_SYSCTLS_1_0: &[&str] = &[
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
];

/// `sysctls_allowed_1_27`: 1.0's and `net.ipv4.ip_local_reserved_ports`.
const SAFE_SYSCTLS_1_27: &[&str] = &[
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.ip_local_reserved_ports",
];

/// `sysctlsAllowedV1Dot29`: 1.27's and the TCP keepalive and FIN timeout sysctls.
const SAFE_SYSCTLS_1_29: &[&str] = &[
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
];

fn proc_mount_1_0(_meta: &Value, spec: &Value) -> CheckResult {
    let mut bad = Vec::new();
    let mut types = Vec::new();
    for container in containers(spec) {
        // Only a set value counts: an unset procMount is the default mask.
        let set = security_context(container).and_then(|context| context.get("procMount"));
        let Some(proc_mount) = set.and_then(Value::as_str) else {
            continue;
        };
        if proc_mount != "Default" {
            bad.push(name(container));
            types.push(proc_mount);
        }
    }
    if bad.is_empty() {
        return None;
    }
    // A Go `sets.String`: sorted, each type once.
    types.sort_unstable();
    types.dedup();
    let detail = format!(
        "{} must not set securityContext.procMount to {}",
        named("container", "containers", &bad),
        join_quote(&types)
    );
    Some(Forbidden::new("procMount", detail))
}

fn sysctls_1_0(meta: &Value, spec: &Value) -> CheckResult {
    sysctls(meta, spec, SAFE_SYSCTLS_1_0)
}

fn sysctls_1_27(meta: &Value, spec: &Value) -> CheckResult {
    sysctls(meta, spec, SAFE_SYSCTLS_1_27)
}

fn sysctls_1_29(meta: &Value, spec: &Value) -> CheckResult {
    sysctls(meta, spec, SAFE_SYSCTLS_1_29)
}

/// The pod's sysctls outside `safe`, in the pod's order and as often as the pod lists them.
fn sysctls(_meta: &Value, spec: &Value, safe: &[&str]) -> CheckResult {
    let forbidden: Vec<&str> = security_context(spec)
        .into_iter()
        .flat_map(|context| items(context, "sysctls"))
        .map(name)
        .filter(|sysctl| !safe.contains(sysctl))
        .collect();
    if forbidden.is_empty() {
        return None;
    }
    Some(Forbidden::new("forbidden sysctls", forbidden.join(", ")))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::pod_security::checks::assert_cases;

    #[test]
    fn proc_mount() {
        let spec = json!({"containers": [
            {"name": "a"},
            {"name": "b", "securityContext": {}},
            {"name": "c", "securityContext": {"procMount": "Default"}},
            {"name": "d", "securityContext": {"procMount": "Unmasked"}},
            {"name": "e", "securityContext": {"procMount": "other"}},
            {"name": "f", "securityContext": {"procMount": "Unmasked"}},
        ]});
        let detail = r#"containers "d", "e", "f" must not set securityContext.procMount to "Unmasked", "other""#;
        // 1.31's user-namespace relaxation is gated off: hostUsers=false changes nothing.
        let mut user_namespace = spec.clone();
        user_namespace["hostUsers"] = json!(false);
        assert_cases(
            proc_mount_1_0,
            &[
                ("procMount", spec, Some(("procMount", detail))),
                ("hostUsers=false", user_namespace, Some(("procMount", detail))),
            ],
        );
    }

    fn pod_with_sysctls(names: &[&str]) -> Value {
        let sysctls: Vec<Value> = names.iter().map(|name| json!({"name": name, "value": "1"})).collect();
        json!({"securityContext": {"sysctls": sysctls}})
    }

    #[test]
    fn sysctls_by_version() {
        let unsafe_pair = pod_with_sysctls(&["a", "b"]);
        let reserved = pod_with_sysctls(&["net.ipv4.ip_local_reserved_ports"]);
        let forbidden = Some(("forbidden sysctls", "a, b"));
        assert_cases(
            sysctls_1_0,
            &[
                ("forbidden sysctls", unsafe_pair.clone(), forbidden),
                (
                    "new supported sysctls not supported",
                    reserved.clone(),
                    Some(("forbidden sysctls", "net.ipv4.ip_local_reserved_ports")),
                ),
            ],
        );
        assert_cases(
            sysctls_1_27,
            &[
                ("forbidden sysctls", unsafe_pair.clone(), forbidden),
                ("new supported sysctls", reserved, None),
            ],
        );
        assert_cases(sysctls_1_29, &[("forbidden sysctls", unsafe_pair, forbidden)]);
        for tcp in [
            "net.ipv4.tcp_keepalive_time",
            "net.ipv4.tcp_fin_timeout",
            "net.ipv4.tcp_keepalive_intvl",
            "net.ipv4.tcp_keepalive_probes",
        ] {
            let pod = pod_with_sysctls(&[tcp]);
            let refused = Some(("forbidden sysctls", tcp));
            assert_cases(sysctls_1_0, &[("not supported before 1.29", pod.clone(), refused)]);
            assert_cases(sysctls_1_27, &[("not supported before 1.29", pod.clone(), refused)]);
            assert_eq!(sysctls_1_29(&Value::Null, &pod), None, "{tcp}");
        }
    }
}
