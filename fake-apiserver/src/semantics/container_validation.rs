//! Validation of a pod's containers as `pkg/apis/core/validation/validation.go` has it, for its
//! main rules: `validateContainerCommon` (name, image, termination message policy, ports,
//! environment, volume mounts, pull policy, resources), `validateContainers`,
//! `validateInitContainers` and `validateEphemeralContainers` (names unique across the three
//! lists, the target container, the fields an ephemeral container may not set), with Go's
//! fields and messages. Probes, lifecycle hooks and security contexts are not checked.

use serde_json::{Map, Value};

use crate::semantics::field_error::FieldError;
use crate::semantics::names;
use crate::semantics::quantity::Quantity;
use crate::semantics::quantity_validation::resource_quantity_errors;
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

const ENV_VAR_NAME: &str = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

/// The three container lists of a pod spec at `path` (`spec`, `spec.template.spec`), checked
/// against the spec's volumes.
pub(crate) fn containers_errors(spec: &Value, path: &str, volumes: &[MountableVolume]) -> Vec<FieldError> {
    let list = |key: &str| spec.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    let (containers, init, ephemeral) = (list("containers"), list("initContainers"), list("ephemeralContainers"));
    let name = |c: &Value| c.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut errors = Vec::new();
    let field = format!("{path}.containers");
    if containers.is_empty() {
        errors.push(FieldError::required(&field, ""));
    }
    let mut names: Vec<String> = Vec::new();
    for (i, container) in containers.iter().enumerate() {
        let at = format!("{field}[{i}]");
        errors.extend(common_errors(container, &at, volumes));
        if names.contains(&name(container)) {
            errors.push(FieldError::duplicate(
                format!("{at}.name"),
                name(container).as_str().into(),
            ));
        } else {
            names.push(name(container));
        }
        if container.get("restartPolicy").is_some_and(|p| !p.is_null()) {
            errors.push(FieldError::forbidden(
                format!("{at}.restartPolicy"),
                "may not be set for non-init containers",
            ));
        }
    }
    for (i, container) in init.iter().enumerate() {
        let at = format!("{path}.initContainers[{i}]");
        errors.extend(common_errors(container, &at, volumes));
        if names.contains(&name(container)) {
            errors.push(FieldError::duplicate(
                format!("{at}.name"),
                name(container).as_str().into(),
            ));
        } else if !name(container).is_empty() {
            names.push(name(container));
        }
        let restart_always = container.get("restartPolicy").and_then(Value::as_str) == Some("Always");
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
        errors.extend(common_errors(container, &at, volumes));
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

/// `validateContainerCommon`.
fn common_errors(container: &Value, at: &str, volumes: &[MountableVolume]) -> Vec<FieldError> {
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
    for (i, env) in array(container.get("env")).iter().enumerate() {
        let name = env.get("name").and_then(Value::as_str).unwrap_or_default();
        let field = format!("{at}.env[{i}].name");
        if name.is_empty() {
            errors.push(FieldError::required(field, ""));
        } else if !is_env_var_name(name) {
            errors.push(FieldError::invalid(field, name.into(), ENV_VAR_NAME));
        }
    }
    errors.extend(container_volume_errors(container, at, volumes));
    errors.extend(choice(
        text("imagePullPolicy"),
        &format!("{at}.imagePullPolicy"),
        &["Always", "IfNotPresent", "Never"],
    ));
    errors.extend(resource_errors(container.get("resources"), &format!("{at}.resources")));
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
            let why = port_name_errors(name);
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

/// `validation.IsValidPortName`: an IANA service name.
pub(crate) fn port_name_errors(name: &str) -> Vec<&'static str> {
    let mut errors = Vec::new();
    if name.len() > 15 {
        errors.push("must be no more than 15 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        errors.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if name.contains("--") {
        errors.push("must not contain consecutive hyphens");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        errors.push("must contain at least one letter (a-z)");
    }
    if name.starts_with('-') || name.ends_with('-') {
        errors.push("must not begin or end with a hyphen");
    }
    errors
}

/// `validation.IsEnvVarName`: `[-._a-zA-Z][-._a-zA-Z0-9]*`.
fn is_env_var_name(name: &str) -> bool {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_');
    name.bytes().all(allowed) && !name.starts_with(|c: char| c.is_ascii_digit())
}

/// `ValidateResourceRequirements`, for its quantities: each limit and request valid, and no
/// request above its limit.
fn resource_errors(resources: Option<&Value>, field: &str) -> Vec<FieldError> {
    let empty = Map::new();
    let section = |key: &str| {
        resources
            .and_then(|r| r.get(key))
            .and_then(Value::as_object)
            .unwrap_or(&empty)
            .clone()
    };
    let (limits, requests) = (section("limits"), section("requests"));
    let mut errors = Vec::new();
    for (resource, value) in &limits {
        let text = value.as_str().unwrap_or_default();
        errors.extend(resource_quantity_errors(
            resource,
            text,
            &format!("{field}.limits[{resource}]"),
        ));
    }
    for (resource, value) in &requests {
        let text = value.as_str().unwrap_or_default();
        let at = format!("{field}.requests[{resource}]");
        errors.extend(resource_quantity_errors(resource, text, &at));
        let limit = limits
            .get(resource)
            .and_then(Value::as_str)
            .and_then(|l| Quantity::parse(l).ok());
        if let (Some(limit), Ok(request)) = (limit, Quantity::parse(text))
            && request.cmp_value(&limit) == std::cmp::Ordering::Greater
        {
            errors.push(FieldError::invalid(
                at,
                text.into(),
                format!("must be less than or equal to {resource} limit of {limit}"),
            ));
        }
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
        assert!(errors.contains(&"spec.containers[0].resources.requests[cpu]: Invalid value: \"2\": must be less than or equal to cpu limit of 1".to_owned()));
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
