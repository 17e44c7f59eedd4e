//! The ports, selector and session affinity of a Service, as kube-apiserver v1.28's
//! `ValidateService` checks them (`pkg/apis/core/validation/validation.go`:
//! `validateServicePort`, the duplicate port and node port checks, `ValidateLabels`,
//! `validateClientIPAffinityConfig`).

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::names::port_name_errors;
use crate::semantics::service_ip_validation::text;

/// `core.MaxClientIPServiceAffinitySeconds`.
const MAX_AFFINITY_SECONDS: i64 = 86400;

/// An integer field (0 when unset, as Go's zero value).
pub(crate) fn number(object: &Value, key: &str) -> i64 {
    object.get(key).and_then(Value::as_i64).unwrap_or(0)
}

/// The name of a port among several (a Service's or an Endpoints subset's): required when
/// the list has more than one, a DNS label when given.
pub(crate) fn list_port_name_errors(name: &str, require_name: bool, at: &str) -> Vec<FieldError> {
    if require_name && name.is_empty() {
        return vec![FieldError::required(format!("{at}.name"), "")];
    }
    names::dns1123_label_errors(name)
        .into_iter()
        .filter(|_| !name.is_empty())
        .map(|why| FieldError::invalid(format!("{at}.name"), name.into(), why))
        .collect()
}

/// `validateServicePort`.
pub(crate) fn port_errors(port: &Value, require_name: bool, seen: &mut Vec<String>, at: &str) -> Vec<FieldError> {
    let name = text(port, "name");
    let mut errors = list_port_name_errors(name, require_name, at);
    if !name.is_empty() {
        if seen.iter().any(|s| s == name) {
            errors.push(FieldError::duplicate(format!("{at}.name"), name.into()));
        } else {
            seen.push(name.to_owned());
        }
    }
    errors.extend(FieldError::port_number(format!("{at}.port"), number(port, "port")));
    errors.extend(FieldError::enum_string(
        &format!("{at}.protocol"),
        text(port, "protocol"),
        &["SCTP", "TCP", "UDP"],
    ));
    match port.get("targetPort") {
        Some(Value::String(target)) => {
            for why in port_name_errors(target) {
                errors.push(FieldError::invalid(
                    format!("{at}.targetPort"),
                    target.as_str().into(),
                    why,
                ));
            }
        }
        target => {
            let target = target.and_then(Value::as_i64).unwrap_or(0);
            errors.extend(FieldError::port_number(format!("{at}.targetPort"), target));
        }
    }
    if let Some(protocol) = port.get("appProtocol").and_then(Value::as_str) {
        for why in names::qualified_name_errors(protocol) {
            errors.push(FieldError::invalid(format!("{at}.appProtocol"), protocol.into(), why));
        }
    }
    errors
}

/// `ValidateLabels`: each key a qualified name, each value a label value.
pub(crate) fn label_errors(labels: &Map<String, Value>, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (key, value) in labels {
        for why in names::qualified_name_errors(key) {
            errors.push(FieldError::invalid(at, key.as_str().into(), why));
        }
        let value = value.as_str().unwrap_or_default();
        for why in names::label_value_errors(value) {
            errors.push(FieldError::invalid(at, value.into(), why));
        }
    }
    errors
}

/// The session affinity and its ClientIP timeout (`validateClientIPAffinityConfig`).
pub(crate) fn session_affinity_errors(spec: &Value) -> Vec<FieldError> {
    let affinity = text(spec, "sessionAffinity");
    let mut errors: Vec<FieldError> = FieldError::enum_string("spec.sessionAffinity", affinity, &["ClientIP", "None"])
        .into_iter()
        .collect();
    let config = spec.get("sessionAffinityConfig").filter(|c| !c.is_null());
    let at = "spec.sessionAffinityConfig";
    let when = "when session affinity type is ClientIP";
    match affinity {
        "ClientIP" => {
            let client = config.and_then(|c| c.get("clientIP")).filter(|c| !c.is_null());
            let timeout = client.and_then(|c| c.get("timeoutSeconds")).and_then(Value::as_i64);
            match (config, client, timeout) {
                (None, _, _) => errors.push(FieldError::required(at, when)),
                (Some(_), None, _) => errors.push(FieldError::required(format!("{at}.clientIP"), when)),
                (Some(_), Some(_), None) => {
                    errors.push(FieldError::required(format!("{at}.clientIP.timeoutSeconds"), when))
                }
                (Some(_), Some(_), Some(seconds)) if seconds <= 0 || seconds > MAX_AFFINITY_SECONDS => {
                    let why = format!("must be greater than 0 and less than {MAX_AFFINITY_SECONDS}");
                    errors.push(FieldError::invalid(
                        format!("{at}.clientIP.timeoutSeconds"),
                        BadValue::Int(seconds),
                        why,
                    ));
                }
                _ => {}
            }
        }
        "None" if config.is_some() => {
            errors.push(FieldError::forbidden(
                at,
                "must not be set when session affinity is None",
            ));
        }
        _ => {}
    }
    errors
}

/// Duplicate node ports per protocol, and duplicate ports per protocol.
pub(crate) fn duplicate_port_errors(ports: &[Value]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut node_ports: Vec<(&str, i64)> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let key = (text(port, "protocol"), number(port, "nodePort"));
        if key.1 == 0 {
            continue;
        }
        if node_ports.contains(&key) {
            errors.push(FieldError::duplicate(
                format!("spec.ports[{i}].nodePort"),
                BadValue::Int(key.1),
            ));
        }
        node_ports.push(key);
    }
    let mut seen: Vec<(&str, i64)> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let key = (text(port, "protocol"), number(port, "port"));
        if seen.contains(&key) {
            // Go prints the key, a core.ServicePort with only these two fields set.
            let shown = format!(
                "core.ServicePort{{Name:\"\", Protocol:{:?}, AppProtocol:(*string)(nil), Port:{}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:\"\"}}, NodePort:0}}",
                key.0, key.1
            );
            errors.push(FieldError::duplicate(format!("spec.ports[{i}]"), BadValue::Raw(shown)));
        }
        seen.push(key);
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    use crate::semantics::field_error::rendered;

    #[test]
    fn a_port_should_have_a_label_name_a_number_a_protocol_and_a_target() {
        let port = json!({"name": "Http_1", "port": 0, "protocol": "ICMP", "targetPort": "not_valid!", "appProtocol": "bad proto"});
        let errors = rendered(port_errors(&port, false, &mut Vec::new(), "spec.ports[0]"));
        let fields: Vec<&str> = errors.iter().map(|e| e.split(':').next().unwrap_or_default()).collect();
        assert_eq!(
            fields,
            [
                "spec.ports[0].name",
                "spec.ports[0].port",
                "spec.ports[0].protocol",
                "spec.ports[0].targetPort",
                "spec.ports[0].appProtocol"
            ]
        );
        assert_eq!(
            errors[3],
            "spec.ports[0].targetPort: Invalid value: \"not_valid!\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"
        );
    }

    #[test]
    fn node_ports_should_be_unique_per_protocol() {
        let ports = [
            json!({"port": 80, "protocol": "TCP", "nodePort": 31000}),
            json!({"port": 81, "protocol": "UDP", "nodePort": 31000}),
        ];
        assert!(duplicate_port_errors(&ports).is_empty());
        let ports = [
            json!({"port": 80, "protocol": "TCP", "nodePort": 31000}),
            json!({"port": 81, "protocol": "TCP", "nodePort": 31000}),
        ];
        assert_eq!(
            rendered(duplicate_port_errors(&ports)),
            ["spec.ports[1].nodePort: Duplicate value: 31000"]
        );
    }

    #[test]
    fn session_affinity_config_should_go_with_client_ip_only() {
        let spec = json!({"sessionAffinity": "None", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 60}}});
        assert_eq!(
            rendered(session_affinity_errors(&spec)),
            ["spec.sessionAffinityConfig: Forbidden: must not be set when session affinity is None"]
        );
        let spec = json!({"sessionAffinity": "ClientIP"});
        assert_eq!(
            rendered(session_affinity_errors(&spec)),
            ["spec.sessionAffinityConfig: Required value: when session affinity type is ClientIP"]
        );
    }
}
