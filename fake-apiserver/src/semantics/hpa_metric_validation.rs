//! An autoscaler's metric specs as `validateMetricSpec` and its source checks in
//! `pkg/apis/autoscaling/validation/validation.go` validate them: the source type, exactly one
//! source populated (only the first present one is checked, the others are forbidden), each
//! source's identifier and target.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names::{dns1123_label_errors, path_segment_errors};
use crate::semantics::quantity::Quantity;
use crate::semantics::resource_names::container_resource_name_errors;

/// `validMetricSourceTypesList`: a sorted set.
const SOURCE_TYPES: [&str; 5] = ["ContainerResource", "External", "Object", "Pods", "Resource"];

/// The JSON field of each source, in the order `validateMetricSpec` looks at them.
const SOURCES: [&str; 5] = ["object", "external", "pods", "resource", "containerResource"];

/// A string field, empty when absent (Go's zero value).
fn text<'a>(object: &'a Value, key: &str) -> &'a str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A set (non-null) field.
fn set<'a>(object: &'a Value, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

/// `validateMetricSpec` of the metric at `at` (`spec.metrics[0]`).
pub(crate) fn metric_spec_errors(metric: &Value, at: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let kind = text(metric, "type");
    let unsupported = || {
        let supported: Vec<String> = SOURCE_TYPES.iter().map(|s| (*s).to_owned()).collect();
        FieldError::not_supported(format!("{at}.type"), kind.into(), &supported)
    };
    if kind.is_empty() {
        errors.push(FieldError::required(
            format!("{at}.type"),
            "must specify a metric source type",
        ));
    }
    if !SOURCE_TYPES.contains(&kind) {
        errors.push(unsupported());
    }
    let present: Vec<&str> = SOURCES.into_iter().filter(|s| set(metric, s).is_some()).collect();
    // Only the first source present is validated: the others are refused below.
    if let Some(first) = present.first()
        && let Some(source) = set(metric, first)
    {
        let path = format!("{at}.{first}");
        errors.extend(match *first {
            "object" => object_source_errors(source, &path),
            "external" => external_source_errors(source, &path),
            "pods" => pods_source_errors(source, &path),
            "resource" => resource_source_errors(source, &path, None),
            _ => resource_source_errors(source, &path, Some(minor)),
        });
    }
    let expected = match kind {
        "Object" => Some("object"),
        "Pods" => Some("pods"),
        "Resource" => Some("resource"),
        "External" => Some("external"),
        "ContainerResource" => Some("containerResource"),
        _ => None,
    };
    match expected {
        Some(field) if set(metric, field).is_none() => errors.push(FieldError::required(
            format!("{at}.{field}"),
            "must populate information for the given metric source",
        )),
        Some(_) => {}
        None => errors.push(unsupported()),
    }
    if present.len() != 1 {
        // Go ranges over a set here: the order of these is random there.
        for field in present.iter().filter(|f| Some(**f) != expected) {
            errors.push(FieldError::forbidden(
                format!("{at}.{field}"),
                "must populate the given metric source only",
            ));
        }
    }
    errors
}

/// `ValidateCrossVersionObjectReference`: kind and name required, each a path segment.
pub(crate) fn cross_version_reference_errors(reference: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for key in ["kind", "name"] {
        let value = text(reference, key);
        let path = format!("{at}.{key}");
        if value.is_empty() {
            errors.push(FieldError::required(path, ""));
        } else {
            for why in path_segment_errors(value) {
                errors.push(FieldError::invalid(path.clone(), value.into(), why));
            }
        }
    }
    errors
}

fn object_source_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let target = set(source, "target").unwrap_or(&Value::Null);
    let mut errors = cross_version_reference_errors(
        source.get("describedObject").unwrap_or(&Value::Null),
        &format!("{at}.describedObject"),
    );
    errors.extend(metric_identifier_errors(source, at));
    errors.extend(metric_target_errors(target, &format!("{at}.target")));
    if set(target, "value").is_none() && set(target, "averageValue").is_none() {
        errors.push(FieldError::required(
            format!("{at}.target.averageValue"),
            "must set either a target value or averageValue",
        ));
    }
    errors
}

fn external_source_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let target = set(source, "target").unwrap_or(&Value::Null);
    let mut errors = metric_identifier_errors(source, at);
    errors.extend(metric_target_errors(target, &format!("{at}.target")));
    let (value, average) = (set(target, "value"), set(target, "averageValue"));
    if value.is_none() && average.is_none() {
        errors.push(FieldError::required(
            format!("{at}.target.averageValue"),
            "must set either a target value for metric or a per-pod target",
        ));
    }
    if value.is_some() && average.is_some() {
        errors.push(FieldError::forbidden(
            format!("{at}.target.value"),
            "may not set both a target value for metric and a per-pod target",
        ));
    }
    errors
}

fn pods_source_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let target = set(source, "target").unwrap_or(&Value::Null);
    let mut errors = metric_identifier_errors(source, at);
    errors.extend(metric_target_errors(target, &format!("{at}.target")));
    if set(target, "averageValue").is_none() {
        errors.push(FieldError::required(
            format!("{at}.target.averageValue"),
            "must specify a positive target averageValue",
        ));
    }
    errors
}

/// `validateResourceSource`, or with the Kubernetes `minor` of a container's
/// `validateContainerResourceSource` (which checks the name and the container too).
fn resource_source_errors(source: &Value, at: &str, container: Option<u32>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let name = text(source, "name");
    if name.is_empty() {
        errors.push(FieldError::required(
            format!("{at}.name"),
            "must specify a resource name",
        ));
    } else if let Some(minor) = container {
        errors.extend(container_resource_name_errors(name, &format!("{at}.name"), minor));
    }
    if container.is_some() {
        let name = text(source, "container");
        let path = format!("{at}.container");
        if name.is_empty() {
            errors.push(FieldError::required(path, "must specify a container"));
        } else {
            for why in dns1123_label_errors(name) {
                errors.push(FieldError::invalid(path.clone(), name.into(), why));
            }
        }
    }
    let target = set(source, "target").unwrap_or(&Value::Null);
    errors.extend(metric_target_errors(target, &format!("{at}.target")));
    let (utilization, average) = (set(target, "averageUtilization"), set(target, "averageValue"));
    if utilization.is_none() && average.is_none() {
        errors.push(FieldError::required(
            format!("{at}.target.averageUtilization"),
            "must set either a target raw value or a target utilization",
        ));
    }
    if utilization.is_some() && average.is_some() {
        errors.push(FieldError::forbidden(
            format!("{at}.target.averageValue"),
            "may not set both a target raw value and a target utilization",
        ));
    }
    errors
}

/// `validateMetricTarget`: a known type, positive quantities, a utilization of at least 1.
fn metric_target_errors(target: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let kind = text(target, "type");
    if kind.is_empty() {
        errors.push(FieldError::required(
            format!("{at}.type"),
            "must specify a metric target type",
        ));
    }
    if !matches!(kind, "Utilization" | "Value" | "AverageValue") {
        errors.push(FieldError::invalid(
            format!("{at}.type"),
            kind.into(),
            "must be either Utilization, Value, or AverageValue",
        ));
    }
    for key in ["value", "averageValue"] {
        // The decoder parsed the quantity already; one it could not parse was refused there.
        let Some(quantity) = set(target, key)
            .and_then(Value::as_str)
            .and_then(|q| Quantity::parse(q).ok())
        else {
            continue;
        };
        let (mantissa, _, _) = quantity.amount();
        if mantissa <= 0 {
            errors.push(FieldError::invalid(
                format!("{at}.{key}"),
                BadValue::Raw(quantity.go_syntax()),
                "must be positive",
            ));
        }
    }
    if let Some(utilization) = set(target, "averageUtilization").and_then(Value::as_i64)
        && utilization < 1
    {
        errors.push(FieldError::invalid(
            format!("{at}.averageUtilization"),
            BadValue::Int(utilization),
            "must be greater than 0",
        ));
    }
    errors
}

/// `validateMetricIdentifier` of the source's `metric`: a name, a path segment.
fn metric_identifier_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let name = source
        .pointer("/metric/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let path = format!("{at}.metric.name");
    if name.is_empty() {
        return vec![FieldError::required(path, "must specify a metric name")];
    }
    path_segment_errors(name)
        .into_iter()
        .map(|why| FieldError::invalid(path.clone(), name.into(), why))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::{reasons, rendered};

    #[test]
    fn a_metric_should_name_a_known_type_and_populate_its_source_only() {
        let errors = metric_spec_errors(&json!({"type": ""}), "m", 28);
        assert_eq!(
            reasons(&errors),
            [
                "FieldValueRequired m.type",
                "FieldValueNotSupported m.type",
                "FieldValueNotSupported m.type"
            ]
        );
        let both = json!({"type": "Pods", "pods": {"metric": {"name": "p"}, "target": {"type": "AverageValue", "averageValue": "1"}},
                          "external": {"metric": {"name": "e"}, "target": {"type": "Value", "value": "1"}}});
        // Only the first source present (external) is validated; the other is forbidden.
        assert_eq!(
            reasons(metric_spec_errors(&both, "m", 28)),
            ["FieldValueForbidden m.external"]
        );
        assert_eq!(
            reasons(metric_spec_errors(&json!({"type": "Object"}), "m", 28)),
            ["FieldValueRequired m.object"]
        );
    }

    #[test]
    fn targets_should_be_positive_and_of_a_known_type() {
        let metric = json!({"type": "Resource", "resource": {"name": "cpu",
                            "target": {"type": "Percent", "averageUtilization": 0, "averageValue": "-1"}}});
        assert_eq!(
            rendered(metric_spec_errors(&metric, "m", 28)),
            [
                "m.resource.target.type: Invalid value: \"Percent\": must be either Utilization, Value, or AverageValue",
                "m.resource.target.averageValue: Invalid value: resource.Quantity{i:resource.int64Amount{value:-1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"-1\", Format:\"DecimalSI\"}: must be positive",
                "m.resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
                "m.resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization",
            ]
        );
    }

    #[test]
    fn sources_should_check_their_references_and_names() {
        let object = json!({"type": "Object", "object": {"describedObject": {"kind": "", "name": "a/b"},
                            "metric": {"name": ".."}, "target": {"type": "Value"}}});
        assert_eq!(
            reasons(metric_spec_errors(&object, "m", 28)),
            [
                "FieldValueRequired m.object.describedObject.kind",
                "FieldValueInvalid m.object.describedObject.name",
                "FieldValueInvalid m.object.metric.name",
                "FieldValueRequired m.object.target.averageValue",
            ]
        );
        let container = json!({"type": "ContainerResource", "containerResource": {"name": "storage", "container": "Bad_C",
                               "target": {"type": "AverageValue", "averageValue": "1"}}});
        assert_eq!(
            reasons(metric_spec_errors(&container, "m", 28)),
            [
                "FieldValueInvalid m.containerResource.name",
                "FieldValueInvalid m.containerResource.container"
            ]
        );
        let external = json!({"type": "External", "external": {"metric": {"name": "e"},
                              "target": {"type": "Value", "value": "1", "averageValue": "2"}}});
        assert_eq!(
            reasons(metric_spec_errors(&external, "m", 28)),
            ["FieldValueForbidden m.external.target.value"]
        );
    }
}
