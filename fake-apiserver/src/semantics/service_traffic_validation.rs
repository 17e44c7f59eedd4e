//! The load balancer and traffic fields of a Service, as kube-apiserver v1.28's
//! `ValidateService` checks them (`pkg/apis/core/validation/validation.go`: the source ranges
//! and their annotation, `validateLoadBalancerClassField`,
//! `validateServiceExternalTrafficPolicy`, `validateServiceInternalTrafficFieldsValue`).

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::node_validation::parse_cidr;
use crate::semantics::service_ip_validation::{strings, text};
use crate::semantics::service_port_validation::number;
use crate::semantics::service_strategy::{externally_accessible, needs_health_check};

const SOURCE_RANGES_ANNOTATION: &str = "service.beta.kubernetes.io/load-balancer-source-ranges";

/// `loadBalancerSourceRanges` (or its annotation): only for a LoadBalancer, and CIDRs — up to
/// 1.30 checked as one list, from 1.31 each range by `IsValidCIDR`, space-padding allowed.
pub(crate) fn source_range_errors(spec: &Value, annotations: &Map<String, Value>, minor: u32) -> Vec<FieldError> {
    let ranges = strings(spec, "loadBalancerSourceRanges");
    let annotation = annotations.get(SOURCE_RANGES_ANNOTATION).and_then(Value::as_str);
    if ranges.is_empty() && annotation.is_none() {
        return Vec::new();
    }
    let from_field = !ranges.is_empty();
    let (at, shown, specs) = if ranges.is_empty() {
        let value = annotation.unwrap_or_default();
        let trimmed = value.trim();
        // An empty annotation is the default, allow-all range.
        let specs = if trimmed.is_empty() {
            vec!["0.0.0.0/0".to_owned()]
        } else {
            trimmed.split(',').map(str::to_owned).collect()
        };
        (
            format!("metadata.annotations[{SOURCE_RANGES_ANNOTATION}]"),
            value.to_owned(),
            specs,
        )
    } else {
        // `fmt.Sprintf("%v", ranges)`.
        (
            "spec.LoadBalancerSourceRanges".to_owned(),
            format!("[{}]", ranges.join(" ")),
            ranges,
        )
    };
    let mut errors = Vec::new();
    if text(spec, "type") != "LoadBalancer" {
        errors.push(FieldError::forbidden(
            &at,
            "may only be used when `type` is 'LoadBalancer'",
        ));
    }
    if minor >= 31 {
        let why = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";
        for (i, range) in specs.iter().enumerate() {
            let range = range.trim();
            if parse_cidr(range).is_err() {
                // The field's ranges are named by index, the annotation's by the annotation.
                let path = if from_field { format!("{at}[{i}]") } else { at.clone() };
                errors.push(FieldError::invalid(path, range.into(), why));
            }
        }
        return errors;
    }
    if specs.iter().any(|s| parse_cidr(s.trim()).is_err()) {
        let why = "must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 ";
        errors.push(FieldError::invalid(at, BadValue::Str(shown), why));
    }
    errors
}

/// `validateLoadBalancerClassField`: a class only for a LoadBalancer, a qualified name, kept
/// while the Service stays one.
pub(crate) fn load_balancer_class_errors(spec: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let balancer = |s: &Value| text(s, "type") == "LoadBalancer";
    let class = spec.get("loadBalancerClass").and_then(Value::as_str);
    if let Some(old) = old
        && balancer(old)
        && balancer(spec)
        && old.get("loadBalancerClass").and_then(Value::as_str) != class
    {
        let shown = class.map_or(BadValue::Json(Value::Null), BadValue::from);
        errors.push(FieldError::invalid(
            "spec.loadBalancerClass",
            shown,
            "may not change once set",
        ));
    }
    match class {
        Some(class) if balancer(spec) => {
            for why in names::qualified_name_errors(class) {
                errors.push(FieldError::invalid("spec.loadBalancerClass", class.into(), why));
            }
        }
        Some(_) => errors.push(FieldError::forbidden(
            "spec.loadBalancerClass",
            "may only be used when `type` is 'LoadBalancer'",
        )),
        None => {}
    }
    errors
}

/// `validateServiceExternalTrafficPolicy` and `validateServiceInternalTrafficFieldsValue`.
pub(crate) fn traffic_policy_errors(spec: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let kind = text(spec, "type");
    let external = text(spec, "externalTrafficPolicy");
    let policies = ["Cluster", "Local"];
    if !externally_accessible(spec, minor) {
        if !external.is_empty() {
            let why = if minor >= 31 {
                "may only be set for externally-accessible services"
            } else {
                "may only be set when `type` is 'NodePort' or 'LoadBalancer'"
            };
            errors.push(FieldError::invalid("spec.externalTrafficPolicy", external.into(), why));
        }
    } else {
        errors.extend(FieldError::enum_string(
            "spec.externalTrafficPolicy",
            external,
            &policies,
        ));
    }
    let health = number(spec, "healthCheckNodePort");
    if !needs_health_check(spec) {
        if health != 0 {
            let why = "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'";
            errors.push(FieldError::invalid(
                "spec.healthCheckNodePort",
                BadValue::Int(health),
                why,
            ));
        }
    } else if health == 0 {
        errors.push(FieldError::required("spec.healthCheckNodePort", ""));
    } else {
        errors.extend(FieldError::port_number("spec.healthCheckNodePort", health));
    }
    match spec.get("internalTrafficPolicy").and_then(Value::as_str) {
        None if matches!(kind, "NodePort" | "LoadBalancer" | "ClusterIP") => {
            errors.push(FieldError::required("spec.internalTrafficPolicy", ""));
        }
        Some(internal) if !policies.contains(&internal) => {
            let supported = policies.map(str::to_owned);
            errors.push(FieldError::not_supported(
                "spec.internalTrafficPolicy",
                internal.into(),
                &supported,
            ));
        }
        _ => {}
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    use crate::semantics::field_error::rendered;

    #[test]
    fn source_ranges_should_be_cidrs_of_a_load_balancer() {
        let spec = json!({"type": "LoadBalancer", "loadBalancerSourceRanges": ["not-a-cidr"]});
        assert_eq!(
            rendered(source_range_errors(&spec, &Map::new(), 28)),
            [
                "spec.LoadBalancerSourceRanges: Invalid value: \"[not-a-cidr]\": must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 "
            ]
        );
        let spec = json!({"type": "ClusterIP"});
        let annotations = json!({SOURCE_RANGES_ANNOTATION: "10.0.0.0/8"});
        let fields: Vec<String> = source_range_errors(&spec, annotations.as_object().unwrap(), 28)
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(fields, [format!("metadata.annotations[{SOURCE_RANGES_ANNOTATION}]")]);
    }

    #[test]
    fn a_load_balancer_class_should_not_change() {
        let old = json!({"type": "LoadBalancer", "loadBalancerClass": "example.com/a"});
        let new = json!({"type": "LoadBalancer", "loadBalancerClass": "example.com/b"});
        assert_eq!(
            rendered(load_balancer_class_errors(&new, Some(&old))),
            ["spec.loadBalancerClass: Invalid value: \"example.com/b\": may not change once set"]
        );
    }

    #[test]
    fn a_local_load_balancer_should_have_a_health_check_port() {
        let spec =
            json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local", "internalTrafficPolicy": "Cluster"});
        assert_eq!(
            rendered(traffic_policy_errors(&spec, 28)),
            ["spec.healthCheckNodePort: Required value"]
        );
        let spec = json!({"type": "NodePort", "externalTrafficPolicy": "Foo", "internalTrafficPolicy": "Bar"});
        assert_eq!(traffic_policy_errors(&spec, 28).len(), 2);
    }
}
