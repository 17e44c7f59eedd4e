//! Pod and container security contexts as `pkg/apis/core/validation/validation.go` checks them:
//! `validatePodSpecSecurityContext` (user and group ids, process namespace sharing, sysctls —
//! `sysctl_validation` —, the fsGroup change policy, seccomp, Windows options —
//! `windows_security_validation` —, and on 1.31 AppArmor and the supplemental groups policy),
//! `ValidateSecurityContext` of a container (privileged only by cluster policy, which
//! kube-apiserver's `--allow-privileged` leaves off, ids, proc mount, seccomp, no privilege
//! escalation refused beside `privileged` or CAP_SYS_ADMIN, Windows options, AppArmor),
//! `ValidateProcMountType` and `validateHostUsers`; the seccomp and AppArmor profiles are
//! `security_profile_validation`'s. A field of a gate that is off never gets here (`pod_gates`: a
//! `procMount` is `Default`, `hostUsers` and `supplementalGroupsPolicy` are dropped), unless an
//! update's stored object used it.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names::go_pointer;
use crate::semantics::security_profile_validation::{apparmor_errors, seccomp_errors};
use crate::semantics::sysctl_validation::sysctls_errors;
use crate::semantics::windows_security_validation::windows_options_errors;
use crate::storage::object::present;

/// `validation.InclusiveRangeError(0, math.MaxInt32)` of `IsValidUserID` and `IsValidGroupID`.
fn id_errors(value: &Value, field: &str) -> Option<FieldError> {
    let id = value.as_i64().unwrap_or_default();
    (!(0..=i64::from(i32::MAX)).contains(&id)).then(|| {
        let why = format!("must be between 0 and {}, inclusive", i32::MAX);
        FieldError::invalid(field, BadValue::Int(id), why)
    })
}

/// A named string type's value, as `NotSupported` shows it.
fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// `validatePodSpecSecurityContext` of the pod spec `spec` at `path` (`spec`,
/// `spec.template.spec`); `host_sysctls` when an update's stored spec already had namespaced
/// sysctls beside host namespaces; on the Kubernetes `minor`.
pub(crate) fn pod_security_context_errors(spec: &Value, path: &str, host_sysctls: bool, minor: u32) -> Vec<FieldError> {
    let Some(context) = present(spec, "securityContext") else {
        return Vec::new();
    };
    let at = format!("{path}.securityContext");
    let mut errors = Vec::new();
    for key in ["fsGroup", "runAsUser", "runAsGroup"] {
        if let Some(id) = present(context, key) {
            errors.extend(id_errors(id, &format!("{at}.{key}")));
        }
    }
    let groups = context.get("supplementalGroups").and_then(Value::as_array);
    for (i, group) in groups.into_iter().flatten().enumerate() {
        errors.extend(id_errors(group, &format!("{at}.supplementalGroups[{i}]")));
    }
    // The host namespaces live in the internal type's pod security context.
    let flag = |key: &str| spec.get(key).and_then(Value::as_bool).unwrap_or_default();
    if spec.get("shareProcessNamespace").and_then(Value::as_bool) == Some(true) && flag("hostPID") {
        errors.push(FieldError::invalid(
            format!("{at}.shareProcessNamespace"),
            BadValue::Json(Value::Bool(true)),
            "ShareProcessNamespace and HostPID cannot both be enabled",
        ));
    }
    errors.extend(sysctls_errors(spec, &format!("{at}.sysctls"), host_sysctls, minor));
    if let Some(policy) = present(context, "fsGroupChangePolicy") {
        errors.extend(FieldError::unless_one_of(
            format!("{at}.fsGroupChangePolicy"),
            text(policy),
            &["Always", "OnRootMismatch"],
        ));
    }
    errors.extend(seccomp_errors(
        present(context, "seccompProfile"),
        &format!("{at}.seccompProfile"),
    ));
    errors.extend(windows_options_errors(
        present(context, "windowsOptions"),
        &format!("{at}.windowsOptions"),
    ));
    if minor >= 31 {
        errors.extend(apparmor_errors(
            present(context, "appArmorProfile"),
            &format!("{at}.appArmorProfile"),
        ));
        if let Some(policy) = present(context, "supplementalGroupsPolicy") {
            errors.extend(FieldError::unless_one_of(
                format!("{at}.supplementalGroupsPolicy"),
                text(policy),
                &["Merge", "Strict"],
            ));
        }
    }
    errors
}

/// Whether the pod runs in the host's user namespace: `hostUsers` (the v1 spec's field; the
/// internal type keeps it in the security context) defaults to true.
pub(crate) fn host_users(spec: &Value) -> bool {
    spec.get("hostUsers").and_then(Value::as_bool) != Some(false)
}

/// `validateHostUsers`: a pod in its own user namespace shares no other namespace with the
/// host (Go names the fields `HostPID` and `HostIPC`).
pub(crate) fn host_users_errors(spec: &Value, path: &str) -> Vec<FieldError> {
    if host_users(spec) {
        return Vec::new();
    }
    [
        ("hostNetwork", "hostNetwork"),
        ("hostPID", "HostPID"),
        ("hostIPC", "HostIPC"),
    ]
    .into_iter()
    .filter(|(key, _)| spec.get(*key).and_then(Value::as_bool) == Some(true))
    .map(|(_, shown)| FieldError::forbidden(format!("{path}.{shown}"), "when `pod.Spec.HostUsers` is false"))
    .collect()
}

/// `ValidateSecurityContext` of a container's `securityContext` at `at`; `host_users` as
/// [`host_users`] reads the pod; on the Kubernetes `minor`.
pub(crate) fn container_security_context_errors(
    context: Option<&Value>,
    at: &str,
    host_users: bool,
    minor: u32,
) -> Vec<FieldError> {
    let Some(context) = context.filter(|c| !c.is_null()) else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    let privileged = context.get("privileged").and_then(Value::as_bool) == Some(true);
    if privileged {
        // `capabilities.Get().AllowPrivileged`: kube-apiserver's `--allow-privileged` is off.
        errors.push(FieldError::forbidden(
            format!("{at}.privileged"),
            "disallowed by cluster policy",
        ));
    }
    for key in ["runAsUser", "runAsGroup"] {
        if let Some(id) = present(context, key) {
            errors.extend(id_errors(id, &format!("{at}.{key}")));
        }
    }
    if let Some(mount) = present(context, "procMount") {
        let mount = text(mount);
        errors.extend(FieldError::unless_one_of(
            format!("{at}.procMount"),
            mount,
            &["Default", "Unmasked"],
        ));
        if minor >= 31 && host_users && mount == "Unmasked" {
            errors.push(FieldError::invalid(
                format!("{at}.procMount"),
                mount.into(),
                "`hostUsers` must be false to use `Unmasked`",
            ));
        }
    }
    errors.extend(seccomp_errors(
        present(context, "seccompProfile"),
        &format!("{at}.seccompProfile"),
    ));
    if context.get("allowPrivilegeEscalation").and_then(Value::as_bool) == Some(false) {
        if privileged {
            errors.push(FieldError::invalid(
                at,
                BadValue::Raw(go_security_context(context, minor)),
                "cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
            ));
        }
        let added = context.pointer("/capabilities/add").and_then(Value::as_array);
        for _ in added
            .into_iter()
            .flatten()
            .filter(|c| c.as_str() == Some("CAP_SYS_ADMIN"))
        {
            errors.push(FieldError::invalid(
                at,
                BadValue::Raw(go_security_context(context, minor)),
                "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN",
            ));
        }
    }
    errors.extend(windows_options_errors(
        present(context, "windowsOptions"),
        &format!("{at}.windowsOptions"),
    ));
    if minor >= 31 {
        errors.extend(apparmor_errors(
            present(context, "appArmorProfile"),
            &format!("{at}.appArmorProfile"),
        ));
    }
    errors
}

/// `%#v` of the internal `core.SecurityContext` (1.31 added its AppArmor profile).
fn go_security_context(context: &Value, minor: u32) -> String {
    let mut fields = vec![
        ("Capabilities", "core.Capabilities", "capabilities"),
        ("Privileged", "bool", "privileged"),
        ("SELinuxOptions", "core.SELinuxOptions", "seLinuxOptions"),
        ("WindowsOptions", "core.WindowsSecurityContextOptions", "windowsOptions"),
        ("RunAsUser", "int64", "runAsUser"),
        ("RunAsGroup", "int64", "runAsGroup"),
        ("RunAsNonRoot", "bool", "runAsNonRoot"),
        ("ReadOnlyRootFilesystem", "bool", "readOnlyRootFilesystem"),
        ("AllowPrivilegeEscalation", "bool", "allowPrivilegeEscalation"),
        ("ProcMount", "core.ProcMountType", "procMount"),
        ("SeccompProfile", "core.SeccompProfile", "seccompProfile"),
    ];
    if minor >= 31 {
        fields.push(("AppArmorProfile", "core.AppArmorProfile", "appArmorProfile"));
    }
    let shown: Vec<String> = fields
        .iter()
        .map(|(name, ty, key)| format!("{name}:{}", go_pointer(ty, context.get(*key))))
        .collect();
    format!("core.SecurityContext{{{}}}", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn a_pod_security_context_should_keep_ids_in_range_and_policies_known() {
        let spec = json!({"hostPID": true, "shareProcessNamespace": true, "securityContext": {
            "runAsUser": -1, "runAsGroup": 2_147_483_648_i64, "fsGroup": -2, "supplementalGroups": [1, -3],
            "fsGroupChangePolicy": "Sometimes", "seccompProfile": {"type": "Localhost"},
            "appArmorProfile": {"type": "Localhost", "localhostProfile": " padded"},
            "supplementalGroupsPolicy": "Loose",
        }});
        let expected = [
            "spec.securityContext.fsGroup: Invalid value: -2: must be between 0 and 2147483647, inclusive",
            "spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
            "spec.securityContext.runAsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive",
            "spec.securityContext.supplementalGroups[1]: Invalid value: -3: must be between 0 and 2147483647, inclusive",
            "spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled",
            r#"spec.securityContext.fsGroupChangePolicy: Unsupported value: "Sometimes": supported values: "Always", "OnRootMismatch""#,
            "spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost",
        ];
        assert_eq!(
            rendered(pod_security_context_errors(&spec, "spec", false, 28)),
            expected
        );
        let newer = rendered(pod_security_context_errors(&spec, "spec", false, 31));
        assert_eq!(newer[..expected.len()], expected);
        assert_eq!(
            newer[expected.len()..],
            [
                r#"spec.securityContext.appArmorProfile.localhostProfile: Invalid value: " padded": must not be padded with whitespace"#,
                r#"spec.securityContext.supplementalGroupsPolicy: Unsupported value: "Loose": supported values: "Merge", "Strict""#,
            ]
        );
        assert!(pod_security_context_errors(&json!({"containers": []}), "spec", false, 31).is_empty());
    }

    #[test]
    fn a_container_should_not_escalate_what_it_was_denied() {
        let context = json!({"privileged": true, "allowPrivilegeEscalation": false, "runAsGroup": -4,
            "capabilities": {"add": ["CAP_SYS_ADMIN"]}, "procMount": "Unmasked",
            "windowsOptions": {"runAsUserName": "a\\b\\c"}});
        let shown = "core.SecurityContext{Capabilities:(*core.Capabilities)(0xc000000000), Privileged:(*bool)(0xc000000000), SELinuxOptions:(*core.SELinuxOptions)(nil), WindowsOptions:(*core.WindowsSecurityContextOptions)(0xc000000000), RunAsUser:(*int64)(nil), RunAsGroup:(*int64)(0xc000000000), RunAsNonRoot:(*bool)(nil), ReadOnlyRootFilesystem:(*bool)(nil), AllowPrivilegeEscalation:(*bool)(0xc000000000), ProcMount:(*core.ProcMountType)(0xc000000000), SeccompProfile:(*core.SeccompProfile)(nil)";
        assert_eq!(
            rendered(container_security_context_errors(Some(&context), "c", true, 28)),
            [
                "c.privileged: Forbidden: disallowed by cluster policy".to_owned(),
                "c.runAsGroup: Invalid value: -4: must be between 0 and 2147483647, inclusive".to_owned(),
                format!("c: Invalid value: {shown}}}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true"),
                format!("c: Invalid value: {shown}}}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"),
                r#"c.windowsOptions.runAsUserName: Invalid value: "a\\b\\c": runAsUserName cannot contain more than one backslash"#.to_owned(),
            ]
        );
        let newer = rendered(container_security_context_errors(Some(&context), "c", true, 31));
        assert_eq!(
            newer[2],
            "c.procMount: Invalid value: \"Unmasked\": `hostUsers` must be false to use `Unmasked`"
        );
        assert!(
            newer[3]
                .contains("SeccompProfile:(*core.SeccompProfile)(nil), AppArmorProfile:(*core.AppArmorProfile)(nil)}")
        );
        assert_eq!(
            rendered(container_security_context_errors(Some(&context), "c", false, 31)).len(),
            5
        );
        let weird = json!({"procMount": "Weird"});
        assert_eq!(
            rendered(container_security_context_errors(Some(&weird), "c", true, 28)),
            [r#"c.procMount: Unsupported value: "Weird": supported values: "Default", "Unmasked""#]
        );
    }

    #[test]
    fn a_pod_in_its_own_user_namespace_should_share_no_host_namespace() {
        let spec = json!({"hostNetwork": true, "hostPID": true, "hostIPC": true, "hostUsers": false});
        assert_eq!(
            rendered(host_users_errors(&spec, "spec")),
            [
                "spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false",
                "spec.HostPID: Forbidden: when `pod.Spec.HostUsers` is false",
                "spec.HostIPC: Forbidden: when `pod.Spec.HostUsers` is false",
            ]
        );
        assert!(host_users(&json!({})));
        assert!(host_users_errors(&json!({"hostNetwork": true}), "spec").is_empty());
    }
}
