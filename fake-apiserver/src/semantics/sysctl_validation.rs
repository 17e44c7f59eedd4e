//! A pod's sysctls as `validateSysctls` (`pkg/apis/core/validation/validation.go`) checks them:
//! each name present, a sysctl name (`IsValidSysctlName`) and not repeated. On 1.31 (not 1.28)
//! a sysctl of the network or IPC namespace is refused besides when the pod shares that
//! namespace with the host (`ValidateHostSysctl`, with `GetNamespace` and `NormalizeName` of
//! `k8s.io/component-helpers/node/util/sysctl`), unless an update's stored pod already had such
//! a sysctl (`AllowNamespacedSysctlsForHostNetAndHostIPC` of `pkg/api/pod/util.go`).

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::semantics::field_error::FieldError;

/// `SysctlMaxLength`.
const MAX_LENGTH: usize = 253;

/// `sysctlContainSlashRegexp`, as Go prints it in the message.
const NAME_PATTERN: &str = r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$";

static NAME: LazyLock<Regex> = LazyLock::new(|| Regex::new(NAME_PATTERN).expect("the sysctl name pattern"));

/// `IsValidSysctlName`: at most 253 characters of dot- or slash-separated segments.
pub(crate) fn is_valid_name(name: &str) -> bool {
    name.len() <= MAX_LENGTH && NAME.is_match(name)
}

/// The kernel namespace a sysctl belongs to (`utilsysctl.Namespace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Namespace {
    Ipc,
    Net,
}

/// `NormalizeName`: a name written with slashes (`net/ipv4/conf/eno2.100/rp_filter`) is read
/// with the roles of `.` and `/` swapped.
fn normalize_name(name: &str) -> String {
    match name.find(['.', '/']) {
        Some(at) if name.as_bytes()[at] == b'/' => name
            .chars()
            .map(|c| match c {
                '.' => '/',
                '/' => '.',
                other => other,
            })
            .collect(),
        _ => name.to_owned(),
    }
}

/// `GetNamespace`: the namespace of the sysctl (or of its prefix up to a `*`), if known.
fn namespace_of(sysctl: &str) -> Option<Namespace> {
    let normalized = normalize_name(sysctl);
    let name = normalized.split('*').next().unwrap_or_default();
    // `nameToNamespace`: the IPC sysctls known by name.
    const IPC_NAMES: [&str; 10] = [
        "kernel.sem",
        "kernel.shmall",
        "kernel.shmmax",
        "kernel.shmmni",
        "kernel.shm_rmid_forced",
        "kernel.shm",
        "kernel.msgmax",
        "kernel.msgmnb",
        "kernel.msgmni",
        "kernel.msg",
    ];
    if IPC_NAMES.contains(&name) {
        return Some(Namespace::Ipc);
    }
    // `prefixToNamespace`.
    if name.starts_with("net.") {
        Some(Namespace::Net)
    } else if name.starts_with("fs.mqueue.") {
        Some(Namespace::Ipc)
    } else {
        None
    }
}

/// `ValidateHostSysctl`: why a sysctl may not be set on a pod sharing its namespace with the
/// host (`hostNetwork`, `hostIPC` of `spec`).
fn host_sysctl_error(name: &str, spec: &Value) -> Option<&'static str> {
    let shares = |key: &str| spec.get(key).and_then(Value::as_bool).unwrap_or_default();
    match namespace_of(name) {
        Some(Namespace::Net) if shares("hostNetwork") => Some("may not be specified when 'hostNetwork' is true"),
        Some(Namespace::Ipc) if shares("hostIPC") => Some("may not be specified when 'hostIPC' is true"),
        _ => None,
    }
}

fn sysctls(spec: &Value) -> impl Iterator<Item = &str> {
    spec.pointer("/securityContext/sysctls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|s| s.get("name").and_then(Value::as_str).unwrap_or_default())
}

/// `AllowNamespacedSysctlsForHostNetAndHostIPC`: an update may keep what the stored pod spec
/// `old` already had.
pub(crate) fn host_sysctls_allowed(old: Option<&Value>) -> bool {
    old.is_some_and(|old| sysctls(old).any(|name| host_sysctl_error(name, old).is_some()))
}

/// `validateSysctls` of the pod spec `spec`'s sysctls, at `field`
/// (`spec.securityContext.sysctls`), on the Kubernetes `minor`.
pub(crate) fn sysctls_errors(spec: &Value, field: &str, allow_host_sysctls: bool, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut seen = HashSet::new();
    for (i, name) in sysctls(spec).enumerate() {
        let at = format!("{field}[{i}].name");
        if name.is_empty() {
            errors.push(FieldError::required(&at, ""));
        } else if !is_valid_name(name) {
            let why = format!("must have at most {MAX_LENGTH} characters and match regex {NAME_PATTERN}");
            errors.push(FieldError::invalid(&at, name.into(), why));
        } else if seen.contains(name) {
            errors.push(FieldError::duplicate(&at, name.into()));
        }
        if minor >= 31
            && !allow_host_sysctls
            && let Some(why) = host_sysctl_error(name, spec)
        {
            errors.push(FieldError::invalid(&at, name.into(), why));
        }
        seen.insert(name);
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn names_should_be_checked_and_unique() {
        let spec = json!({"securityContext": {"sysctls": [
            {"name": "bad sysctl"}, {"name": ""}, {"name": "kernel.shm_rmid_forced"}, {"name": "kernel.shm_rmid_forced"},
            {"name": "net/ipv4/conf/eno2.100/rp_filter"},
        ]}});
        assert_eq!(
            rendered(sysctls_errors(&spec, "spec.securityContext.sysctls", false, 28)),
            [
                r#"spec.securityContext.sysctls[0].name: Invalid value: "bad sysctl": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"#,
                "spec.securityContext.sysctls[1].name: Required value",
                r#"spec.securityContext.sysctls[3].name: Duplicate value: "kernel.shm_rmid_forced""#,
            ]
        );
        assert!(!is_valid_name(&"a".repeat(254)));
    }

    #[test]
    fn namespaced_sysctls_should_be_refused_with_host_namespaces_from_1_31() {
        let spec = json!({"hostNetwork": true, "hostIPC": true, "securityContext": {"sysctls": [
            {"name": "net/ipv4/ip_forward"}, {"name": "kernel.msgmax"}, {"name": "fs.mqueue.msg_max"}, {"name": "kernel.pid_max"},
        ]}});
        assert!(sysctls_errors(&spec, "s", false, 28).is_empty());
        assert_eq!(
            rendered(sysctls_errors(&spec, "s", false, 31)),
            [
                r#"s[0].name: Invalid value: "net/ipv4/ip_forward": may not be specified when 'hostNetwork' is true"#,
                r#"s[1].name: Invalid value: "kernel.msgmax": may not be specified when 'hostIPC' is true"#,
                r#"s[2].name: Invalid value: "fs.mqueue.msg_max": may not be specified when 'hostIPC' is true"#,
            ]
        );
        assert!(host_sysctls_allowed(Some(&spec)));
        assert!(!host_sysctls_allowed(None));
        assert!(sysctls_errors(&spec, "s", true, 31).is_empty());
        assert_eq!(namespace_of("net.ipv6.neigh.*"), Some(Namespace::Net));
        assert_eq!(namespace_of("kernel.shm*"), Some(Namespace::Ipc));
    }
}
