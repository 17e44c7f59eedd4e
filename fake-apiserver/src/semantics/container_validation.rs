//! Validation of a pod's containers as `pkg/apis/core/validation/validation.go` has it:
//! `validateContainerCommon` (name, image, termination message policy, ports, environment —
//! `container_env_validation` —, volume mounts, pull policy, resources —
//! `container_resources_validation`), `validateContainers` and `validateInitContainers` (probes
//! and lifecycle hooks — `container_probe_validation` — where a container may have them, host
//! port conflicts), `validateEphemeralContainers` (names unique across the three lists, the
//! target container, the fields an ephemeral container may not set), with Go's fields and
//! messages; each container's security context last (`security_context_validation`). Resize
//! policies and resource claims are dropped by their gates (off on the minors emulated) before
//! validation.

use std::collections::HashSet;

use serde_json::Value;

use crate::semantics::container_env_validation::env_errors;
use crate::semantics::container_probe_validation::probes_and_hooks_errors;
use crate::semantics::container_resources_validation::resources_errors;
use crate::semantics::field_error::FieldError;
use crate::semantics::names;
use crate::semantics::security_context_validation::{container_security_context_errors, host_users};
use crate::semantics::volume_mount_validation::container_volume_errors;
use crate::semantics::volume_validation::MountableVolume;

/// The container fields an ephemeral container may not set, as `allowedEphemeralContainerFields`
/// lists them false (`resources` only when not empty).
const FORBIDDEN_FOR_EPHEMERAL: &[&str] = &[
    "ports",
    "resources",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "resizePolicy",
    "restartPolicy",
];

/// The three container lists of a pod spec at `path` (`spec`, `spec.template.spec`), checked
/// against the spec's volumes, on the Kubernetes `minor`.
pub(crate) fn containers_errors(spec: &Value, path: &str, volumes: &[MountableVolume], minor: u32) -> Vec<FieldError> {
    let list = |key: &str| spec.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    let (containers, init, ephemeral) = (list("containers"), list("initContainers"), list("ephemeralContainers"));
    let name = |c: &Value| c.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
    let grace_period = spec.get("terminationGracePeriodSeconds").and_then(Value::as_i64);
    let host_users = host_users(spec);
    let mut errors = Vec::new();
    let field = format!("{path}.containers");
    if containers.is_empty() {
        errors.push(FieldError::required(&field, ""));
    }
    let mut names: Vec<String> = Vec::new();
    for (i, container) in containers.iter().enumerate() {
        let at = format!("{field}[{i}]");
        errors.extend(common_errors(container, &at, volumes, host_users, minor));
        if names.contains(&name(container)) {
            errors.push(FieldError::duplicate(
                format!("{at}.name"),
                name(container).as_str().into(),
            ));
        } else {
            names.push(name(container));
        }
        errors.extend(probes_and_hooks_errors(container, &at, grace_period, minor));
        if container.get("restartPolicy").is_some_and(|p| !p.is_null()) {
            errors.push(FieldError::forbidden(
                format!("{at}.restartPolicy"),
                "may not be set for non-init containers",
            ));
        }
    }
    errors.extend(host_port_conflicts(&containers, &field));
    for (i, container) in init.iter().enumerate() {
        let at = format!("{path}.initContainers[{i}]");
        errors.extend(common_errors(container, &at, volumes, host_users, minor));
        let restart = container.get("restartPolicy").filter(|p| !p.is_null());
        if let Some(policy) = restart {
            let policy = policy.as_str().unwrap_or_default();
            if policy != "Always" {
                errors.push(FieldError::not_supported(
                    format!("{at}.restartPolicy"),
                    policy.into(),
                    &["Always".to_owned()],
                ));
            }
        }
        if names.contains(&name(container)) {
            errors.push(FieldError::duplicate(
                format!("{at}.name"),
                name(container).as_str().into(),
            ));
        } else if !name(container).is_empty() {
            names.push(name(container));
        }
        // Init containers run one by one: each one's host ports are checked alone, and Go
        // names them by the list's first index whichever container it is.
        errors.extend(host_port_conflicts(
            std::slice::from_ref(container),
            &format!("{path}.initContainers"),
        ));
        let restart_always = restart.and_then(Value::as_str) == Some("Always");
        if restart_always {
            errors.extend(probes_and_hooks_errors(container, &at, grace_period, minor));
        }
        for hook in ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"] {
            if !restart_always && container.get(hook).is_some_and(|h| !h.is_null()) {
                errors.push(FieldError::forbidden(
                    format!("{at}.{hook}"),
                    "may not be set for init containers without restartPolicy=Always",
                ));
            }
        }
    }
    let regular: Vec<String> = names.clone();
    for (i, container) in ephemeral.iter().enumerate() {
        let at = format!("{path}.ephemeralContainers[{i}]");
        errors.extend(common_errors(container, &at, volumes, host_users, minor));
        errors.extend(image_whitespace_errors(container, &at));
        if names.contains(&name(container)) {
            errors.push(FieldError::duplicate(
                format!("{at}.name"),
                name(container).as_str().into(),
            ));
        } else {
            names.push(name(container));
        }
        let target = container
            .get("targetContainerName")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !target.is_empty() && !regular.iter().any(|n| n == target) {
            errors.push(FieldError::not_found(
                format!("{at}.targetContainerName"),
                target.into(),
            ));
        }
        for field in FORBIDDEN_FOR_EPHEMERAL {
            if container.get(*field).is_some_and(is_set) {
                errors.push(FieldError::forbidden(
                    format!("{at}.{field}"),
                    "cannot be set for an Ephemeral Container",
                ));
            }
        }
        let mounts = container.get("volumeMounts").and_then(Value::as_array);
        for (j, mount) in mounts.into_iter().flatten().enumerate() {
            for sub in ["subPath", "subPathExpr"] {
                if mount.get(sub).and_then(Value::as_str).is_some_and(|s| !s.is_empty()) {
                    errors.push(FieldError::forbidden(
                        format!("{at}.volumeMounts[{j}].{sub}"),
                        "cannot be set for an Ephemeral Container",
                    ));
                }
            }
        }
    }
    errors
}

/// `validateContainerOnlyForPod`: a pod's (not a template's) images have no surrounding space.
pub(crate) fn image_whitespace_errors(container: &Value, at: &str) -> Vec<FieldError> {
    let image = container.get("image").and_then(Value::as_str).unwrap_or_default();
    if image.trim() == image {
        return Vec::new();
    }
    vec![FieldError::invalid(
        format!("{at}.image"),
        image.into(),
        "must not have leading or trailing whitespace",
    )]
}

/// Whether a field holds something Go's zero value does not (an empty struct or list is unset).
fn is_set(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Object(map) => map.values().any(is_set),
        Value::Array(items) => !items.is_empty(),
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        Value::Number(_) => true,
    }
}

/// `checkHostPortConflicts`: no two ports of `containers` (the list at `field`) take the same
/// host port, protocol and host IP.
fn host_port_conflicts(containers: &[Value], field: &str) -> Vec<FieldError> {
    let mut seen = HashSet::new();
    let mut errors = Vec::new();
    for (i, container) in containers.iter().enumerate() {
        for (j, port) in array(container.get("ports")).iter().enumerate() {
            let host_port = port.get("hostPort").and_then(Value::as_i64).unwrap_or(0);
            if host_port == 0 {
                continue;
            }
            let text = |key: &str| port.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            let key = format!("{}/{}/{host_port}", text("protocol"), text("hostIP"));
            if !seen.insert(key.clone()) {
                errors.push(FieldError::duplicate(
                    format!("{field}[{i}].ports[{j}].hostPort"),
                    key.as_str().into(),
                ));
            }
        }
    }
    errors
}

/// `validateContainerCommon`, in a pod with the `volumes` that runs in the host's user
/// namespace or not (`host_users`).
fn common_errors(
    container: &Value,
    at: &str,
    volumes: &[MountableVolume],
    host_users: bool,
    minor: u32,
) -> Vec<FieldError> {
    let text = |key: &str| container.get(key).and_then(Value::as_str).unwrap_or_default();
    let mut errors = Vec::new();
    let name = text("name");
    if name.is_empty() {
        errors.push(FieldError::required(format!("{at}.name"), ""));
    } else {
        for why in names::dns1123_label_errors(name) {
            errors.push(FieldError::invalid(format!("{at}.name"), name.into(), why));
        }
    }
    if text("image").is_empty() {
        errors.push(FieldError::required(format!("{at}.image"), ""));
    }
    errors.extend(choice(
        text("terminationMessagePolicy"),
        &format!("{at}.terminationMessagePolicy"),
        &["File", "FallbackToLogsOnError"],
    ));
    errors.extend(port_errors(container.get("ports"), &format!("{at}.ports")));
    errors.extend(env_errors(container, at, minor));
    errors.extend(container_volume_errors(container, at, volumes));
    errors.extend(choice(
        text("imagePullPolicy"),
        &format!("{at}.imagePullPolicy"),
        &["Always", "IfNotPresent", "Never"],
    ));
    errors.extend(resources_errors(
        container.get("resources"),
        &format!("{at}.resources"),
        minor,
    ));
    errors.extend(container_security_context_errors(
        container.get("securityContext"),
        &format!("{at}.securityContext"),
        host_users,
        minor,
    ));
    errors
}

/// A required enumeration: Required when empty, NotSupported when unknown.
pub(crate) fn choice(value: &str, field: &str, supported: &[&str]) -> Option<FieldError> {
    FieldError::enum_string(field, value, supported)
}

fn array(value: Option<&Value>) -> Vec<Value> {
    value.and_then(Value::as_array).cloned().unwrap_or_default()
}

/// `validateContainerPorts`.
fn port_errors(ports: Option<&Value>, field: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let ports = array(ports);
    for (i, port) in ports.iter().enumerate() {
        let at = format!("{field}[{i}]");
        let name = port.get("name").and_then(Value::as_str).unwrap_or_default();
        if !name.is_empty() {
            let why = names::port_name_errors(name);
            if !why.is_empty() {
                errors.extend(
                    why.into_iter()
                        .map(|w| FieldError::invalid(format!("{at}.name"), name.into(), w)),
                );
            } else if names.contains(&name) {
                errors.push(FieldError::duplicate(format!("{at}.name"), name.into()));
            } else {
                names.push(name);
            }
        }
        for key in ["containerPort", "hostPort"] {
            let number = port.get(key).and_then(Value::as_i64).unwrap_or(0);
            if number == 0 && key == "containerPort" {
                errors.push(FieldError::required(format!("{at}.{key}"), ""));
            } else if number != 0 {
                errors.extend(FieldError::port_number(format!("{at}.{key}"), number));
            }
        }
        let protocol = port.get("protocol").and_then(Value::as_str).unwrap_or_default();
        errors.extend(choice(protocol, &format!("{at}.protocol"), &["SCTP", "TCP", "UDP"]));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(spec: &Value) -> Vec<String> {
        containers_errors(
            spec,
            "spec",
            &[MountableVolume {
                name: "data".to_owned(),
                claim: false,
            }],
            28,
        )
        .iter()
        .map(ToString::to_string)
        .collect()
    }

    #[test]
    fn containers_should_be_checked_as_validate_pod_spec_checks_them() {
        let good =
            json!({"name": "c", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"});
        assert!(rendered(&json!({"containers": [good.clone()]})).is_empty());
        assert_eq!(rendered(&json!({})), ["spec.containers: Required value"]);
        let errors = rendered(&json!({"containers": [good.clone(), good.clone()]}));
        assert_eq!(errors, ["spec.containers[1].name: Duplicate value: \"c\""]);
        let mut bad = good.clone();
        bad["ports"] = json!([{"containerPort": 70000, "protocol": "HTTP", "name": "Web"}]);
        bad["volumeMounts"] = json!([{"name": "missing", "mountPath": "/x"}]);
        bad["resources"] = json!({"limits": {"cpu": "1"}, "requests": {"cpu": "2"}});
        let errors = rendered(&json!({"containers": [bad]}));
        assert!(errors.contains(&"spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive".to_owned()));
        assert!(errors.contains(&"spec.containers[0].volumeMounts[0].name: Not found: \"missing\"".to_owned()));
        assert!(errors.contains(&"spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1".to_owned()));
    }

    #[test]
    fn ephemeral_containers_should_keep_to_their_allowed_fields() {
        let container =
            json!({"name": "c", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"});
        let mut debug = container.clone();
        debug["name"] = json!("debug");
        debug["ports"] = json!([{"containerPort": 80, "protocol": "TCP"}]);
        debug["resources"] = json!({});
        debug["targetContainerName"] = json!("nope");
        let errors = rendered(&json!({"containers": [container.clone()], "ephemeralContainers": [debug, container]}));
        assert_eq!(
            errors,
            [
                "spec.ephemeralContainers[0].targetContainerName: Not found: \"nope\"",
                "spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container",
                "spec.ephemeralContainers[1].name: Duplicate value: \"c\"",
            ]
        );
    }
}
