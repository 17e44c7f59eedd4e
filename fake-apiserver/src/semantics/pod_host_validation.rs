//! The host-facing and scheduling parts of `ValidatePodSpec` (`pkg/apis/core/validation/validation.go`):
//! `validatePodHostNetworkDeps` (with the host network a pod's host ports are its container
//! ports), `ValidateHostAliases` (1.28 names the list without indexes and words a bad IP its own
//! way; 1.31 indexes both and words it as `IsValidIP` does), `validateReadinessGates` and
//! `validateSchedulingGates` (qualified names, no duplicate gate).

use std::collections::HashSet;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::service_ip_validation::parse_ip;

/// `validatePodHostNetworkDeps` of the spec at `path`; `is_pod` says it is a Pod's own (a
/// template's host ports may be left 0, the pod's defaulting fills them).
pub(crate) fn host_network_errors(spec: &Value, path: &str, is_pod: bool) -> Vec<FieldError> {
    if spec.get("hostNetwork").and_then(Value::as_bool) != Some(true) {
        return Vec::new();
    }
    let mut errors = Vec::new();
    for (i, container) in items(spec, "containers").enumerate() {
        for (j, port) in items(container, "ports").enumerate() {
            let number = |key: &str| port.get(key).and_then(Value::as_i64).unwrap_or(0);
            let (host, container_port) = (number("hostPort"), number("containerPort"));
            if (is_pod || host != 0) && host != container_port {
                errors.push(FieldError::invalid(
                    format!("{path}.containers[{i}].ports[{j}].hostPort"),
                    BadValue::Int(host),
                    "must match `containerPort` when `hostNetwork` is true",
                ));
            }
        }
    }
    errors
}

/// `validateReadinessGates`: each condition type a qualified name.
pub(crate) fn readiness_gate_errors(spec: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (i, gate) in items(spec, "readinessGates").enumerate() {
        let condition = gate.get("conditionType").and_then(Value::as_str).unwrap_or_default();
        let at = format!("{path}.readinessGates[{i}].conditionType");
        errors.extend(qualified(condition, &at));
    }
    errors
}

/// `validateSchedulingGates`: qualified names, each once.
pub(crate) fn scheduling_gate_errors(spec: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut seen = HashSet::new();
    for (i, gate) in items(spec, "schedulingGates").enumerate() {
        let name = gate.get("name").and_then(Value::as_str).unwrap_or_default();
        let at = format!("{path}.schedulingGates[{i}]");
        errors.extend(qualified(name, &at));
        if !seen.insert(name) {
            errors.push(FieldError::duplicate(at, name.into()));
        }
    }
    errors
}

/// `ValidateHostAliases`: an IP and DNS subdomain host names, on the Kubernetes `minor`.
pub(crate) fn host_alias_errors(spec: &Value, path: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (i, alias) in items(spec, "hostAliases").enumerate() {
        // 1.28 forgot the indexes.
        let at = if minor >= 31 {
            format!("{path}.hostAliases[{i}]")
        } else {
            format!("{path}.hostAliases")
        };
        let ip = alias.get("ip").and_then(Value::as_str).unwrap_or_default();
        if parse_ip(ip).is_none() {
            let why = if minor >= 31 {
                "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
            } else {
                "must be valid IP address"
            };
            errors.push(FieldError::invalid(format!("{at}.ip"), ip.into(), why));
        }
        for (j, host) in items(alias, "hostnames").enumerate() {
            let host = host.as_str().unwrap_or_default();
            let field = if minor >= 31 {
                format!("{at}.hostnames[{j}]")
            } else {
                format!("{at}.hostnames")
            };
            for why in names::dns1123_subdomain_errors(host) {
                errors.push(FieldError::invalid(&field, host.into(), why));
            }
        }
    }
    errors
}

/// `ValidateQualifiedName` at `at` (apimachinery's `ValidateLabelName` is the same check).
pub(crate) fn qualified(value: &str, at: &str) -> Vec<FieldError> {
    names::qualified_name_errors(value)
        .into_iter()
        .map(|why| FieldError::invalid(at, value.into(), why))
        .collect()
}

fn items<'v>(value: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    value.get(key).and_then(Value::as_array).into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn host_network_ports_should_match_in_a_pod_and_may_be_unset_in_a_template() {
        let spec = json!({"hostNetwork": true, "containers": [{"ports": [{"containerPort": 80}, {"containerPort": 81, "hostPort": 90}]}]});
        let pod = rendered(host_network_errors(&spec, "spec", true));
        assert_eq!(pod.len(), 2);
        let template = rendered(host_network_errors(&spec, "spec", false));
        assert_eq!(
            template,
            [
                "spec.containers[0].ports[1].hostPort: Invalid value: 90: must match `containerPort` when `hostNetwork` is true"
            ]
        );
    }

    #[test]
    fn host_aliases_should_be_indexed_from_1_31() {
        let spec = json!({"hostAliases": [{"ip": "999.1.1.1", "hostnames": ["ok.local"]}]});
        assert_eq!(
            rendered(host_alias_errors(&spec, "spec", 28)),
            ["spec.hostAliases.ip: Invalid value: \"999.1.1.1\": must be valid IP address"]
        );
        assert_eq!(
            rendered(host_alias_errors(&spec, "spec", 31)),
            [
                "spec.hostAliases[0].ip: Invalid value: \"999.1.1.1\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
            ]
        );
    }

    #[test]
    fn scheduling_gates_should_be_named_once() {
        let spec = json!({"schedulingGates": [{"name": "example.com/wait"}, {"name": "example.com/wait"}]});
        assert_eq!(
            rendered(scheduling_gate_errors(&spec, "spec")),
            ["spec.schedulingGates[1]: Duplicate value: \"example.com/wait\""]
        );
    }
}
