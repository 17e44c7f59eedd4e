//! A pod spec's OS as `pkg/apis/core/validation/validation.go` checks it at the end of
//! `ValidatePodSpec`: `validateOS` (a name, `linux` or `windows`), then for a valid one
//! `validateLinux` (no Windows options) or `validateWindows` (none of the Linux-only security
//! fields; 1.31 adds the AppArmor profile and the supplemental groups policy). The containers
//! are visited as `VisitContainersWithPath` (`pkg/apis/core/pods/helpers.go`) does: init
//! containers, containers, ephemeral containers.
//!
//! Go reads the internal `PodSecurityContext`, which conversion always creates and which holds
//! the v1 spec's `hostPID`, `hostIPC`, `shareProcessNamespace` and `hostUsers`.

use serde_json::Value;

use crate::semantics::field_error::FieldError;

/// `validOS`, sorted.
const VALID_OS: [&str; 2] = ["linux", "windows"];

const LINUX_ONLY: &str = "cannot be set for a windows pod";
const WINDOWS_ONLY: &str = "windows options cannot be set for a linux pod";

/// How Go tells that a field is set.
#[derive(Clone, Copy)]
enum Test {
    /// A pointer, slice or struct pointer that is not nil (JSON: present and not `null`).
    Set,
    /// A `bool` that is true.
    True,
    /// A slice with items.
    NonEmpty,
}

/// The pod's fields a Windows pod may not set, in Go's order: the path Go reports (under the
/// v1 spec, where the field also is), how it is tested, and the minor whose `validateWindows`
/// first checks it.
const POD_FIELDS: [(&str, Test, u32); 14] = [
    ("securityContext.appArmorProfile", Test::Set, 31),
    ("securityContext.seLinuxOptions", Test::Set, 28),
    ("hostUsers", Test::Set, 28),
    ("hostPID", Test::True, 28),
    ("hostIPC", Test::True, 28),
    ("securityContext.seccompProfile", Test::Set, 28),
    ("securityContext.fsGroup", Test::Set, 28),
    ("securityContext.fsGroupChangePolicy", Test::Set, 28),
    ("securityContext.sysctls", Test::NonEmpty, 28),
    ("shareProcessNamespace", Test::Set, 28),
    ("securityContext.runAsUser", Test::Set, 28),
    ("securityContext.runAsGroup", Test::Set, 28),
    ("securityContext.supplementalGroups", Test::Set, 28),
    ("securityContext.supplementalGroupsPolicy", Test::Set, 31),
];

/// A container's security context fields in Go's order, all pointers.
const CONTAINER_FIELDS: [(&str, u32); 10] = [
    ("appArmorProfile", 31),
    ("seLinuxOptions", 28),
    ("seccompProfile", 28),
    ("capabilities", 28),
    ("readOnlyRootFilesystem", 28),
    ("privileged", 28),
    ("allowPrivilegeEscalation", 28),
    ("procMount", 28),
    ("runAsUser", 28),
    ("runAsGroup", 28),
];

/// `ValidatePodSpec`'s OS step for the spec at `path` on the Kubernetes `minor`: the OS
/// itself, and only when it is valid, the fields its kind of pod may not set.
pub(crate) fn os_errors(spec: &Value, path: &str, minor: u32) -> Vec<FieldError> {
    let Some(os) = spec.get("os").filter(|os| !os.is_null()) else {
        return Vec::new();
    };
    let name = os.get("name").and_then(Value::as_str).unwrap_or_default();
    if name.is_empty() {
        return vec![FieldError::required(format!("{path}.os.name"), "cannot be empty")];
    }
    match name {
        "linux" => linux_errors(spec, path),
        "windows" => windows_errors(spec, path, minor),
        _ => {
            let supported: Vec<String> = VALID_OS.iter().map(|os| (*os).to_owned()).collect();
            vec![FieldError::not_supported(format!("{path}.os"), name.into(), &supported)]
        }
    }
}

/// `validateLinux`: no Windows options, on the pod or any container.
fn linux_errors(spec: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if is_set(spec.pointer("/securityContext/windowsOptions"), Test::Set) {
        errors.push(FieldError::forbidden(
            format!("{path}.securityContext.windowsOptions"),
            WINDOWS_ONLY,
        ));
    }
    for (container, at) in containers(spec, path) {
        if is_set(container.pointer("/securityContext/windowsOptions"), Test::Set) {
            errors.push(FieldError::forbidden(
                format!("{at}.securityContext.windowsOptions"),
                WINDOWS_ONLY,
            ));
        }
    }
    errors
}

/// `validateWindows`: none of the pod's Linux-only fields, then none of each container's.
fn windows_errors(spec: &Value, path: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (field, test, _) in POD_FIELDS.iter().filter(|(_, _, since)| minor >= *since) {
        let pointer = format!("/{}", field.replace('.', "/"));
        if is_set(spec.pointer(&pointer), *test) {
            errors.push(FieldError::forbidden(format!("{path}.{field}"), LINUX_ONLY));
        }
    }
    for (container, at) in containers(spec, path) {
        let Some(context) = container.get("securityContext").filter(|c| !c.is_null()) else {
            continue;
        };
        for (key, _) in CONTAINER_FIELDS.iter().filter(|(_, since)| minor >= *since) {
            if is_set(context.get(*key), Test::Set) {
                errors.push(FieldError::forbidden(format!("{at}.securityContext.{key}"), LINUX_ONLY));
            }
        }
    }
    errors
}

fn is_set(value: Option<&Value>, test: Test) -> bool {
    match (value, test) {
        (None | Some(Value::Null), _) => false,
        (Some(_), Test::Set) => true,
        (Some(value), Test::True) => value.as_bool() == Some(true),
        (Some(value), Test::NonEmpty) => value.as_array().is_some_and(|items| !items.is_empty()),
    }
}

/// `VisitContainersWithPath`: every container with its path, init containers first.
fn containers<'v>(spec: &'v Value, path: &str) -> Vec<(&'v Value, String)> {
    let mut visited = Vec::new();
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        let items = spec.get(list).and_then(Value::as_array).into_iter().flatten();
        visited.extend(items.enumerate().map(|(i, c)| (c, format!("{path}.{list}[{i}]"))));
    }
    visited
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn the_os_should_be_named_and_known() {
        assert!(os_errors(&json!({}), "spec", 28).is_empty());
        assert_eq!(
            rendered(os_errors(&json!({"os": {}}), "spec", 28)),
            ["spec.os.name: Required value: cannot be empty"]
        );
        // An unknown OS stops there: its fields are not looked at.
        let spec = json!({"os": {"name": "plan9"}, "securityContext": {"windowsOptions": {}}});
        assert_eq!(
            rendered(os_errors(&spec, "spec", 31)),
            ["spec.os: Unsupported value: \"plan9\": supported values: \"linux\", \"windows\""]
        );
    }

    #[test]
    fn a_linux_pod_should_have_no_windows_options() {
        let spec = json!({"os": {"name": "linux"}, "securityContext": {"windowsOptions": {"runAsUserName": "a"}, "runAsUser": 0},
            "containers": [{"name": "c", "securityContext": {"windowsOptions": {}}}],
            "initContainers": [{"name": "i", "securityContext": {"windowsOptions": {}}}]});
        assert_eq!(
            rendered(os_errors(&spec, "spec", 28)),
            [
                "spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
                "spec.initContainers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
                "spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod",
            ]
        );
    }

    #[test]
    fn a_windows_pod_should_set_no_linux_field_and_1_31_checks_more() {
        let spec = json!({"os": {"name": "windows"}, "hostPID": false, "hostIPC": true, "shareProcessNamespace": false,
            "securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}, "sysctls": [], "supplementalGroups": [],
                "fsGroup": null},
            "ephemeralContainers": [{"name": "e", "securityContext": {"procMount": "Default", "appArmorProfile": {}}}]});
        let forbidden = |minor| {
            os_errors(&spec, "spec", minor)
                .iter()
                .map(|e| {
                    assert_eq!(
                        e.to_string(),
                        format!("{}: Forbidden: cannot be set for a windows pod", e.field)
                    );
                    e.field.clone()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            forbidden(28),
            [
                "spec.hostIPC",
                "spec.shareProcessNamespace",
                "spec.securityContext.supplementalGroups",
                "spec.ephemeralContainers[0].securityContext.procMount",
            ]
        );
        assert_eq!(
            forbidden(31),
            [
                "spec.securityContext.appArmorProfile",
                "spec.hostIPC",
                "spec.shareProcessNamespace",
                "spec.securityContext.supplementalGroups",
                "spec.ephemeralContainers[0].securityContext.appArmorProfile",
                "spec.ephemeralContainers[0].securityContext.procMount",
            ]
        );
    }
}
