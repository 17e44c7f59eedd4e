//! An autoscaler's metrics and conditions converted between autoscaling/v1's annotation types
//! and autoscaling/v2's fields, as `pkg/apis/autoscaling/v1/conversion.go` converts them with
//! the internal type (whose fields are v2's): targets' types are inferred from what v1 sets,
//! and v1's non-pointer quantities come back as set values ("0" when v2 had none).

use serde_json::{Map, Value, json};

use crate::semantics::go_json_fields::Fields;
use crate::semantics::hpa_v1_types::{
    Condition, ExternalSource, ExternalStatus, LabelSelector, MetricSpec, MetricStatus, ObjectSource, ObjectStatus,
    PodsSource, PodsStatus, Reference, ResourceSource, ResourceStatus,
};
use crate::semantics::quantity::Quantity;

/// Builds a JSON object of the fields given, leaving out the unset ones (Go's `omitempty`
/// pointers).
fn object(fields: impl IntoIterator<Item = (&'static str, Option<Value>)>) -> Value {
    let map: Map<String, Value> = fields
        .into_iter()
        .filter_map(|(key, value)| Some((key.to_owned(), value?)))
        .collect();
    Value::Object(map)
}

fn text(value: &Value, key: &str) -> String {
    value.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
}

fn set<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get(key).filter(|v| !v.is_null())
}

/// A stored quantity in its canonical form, as the Go value's `String()` writes it.
fn quantity(value: &Value, key: &str) -> Option<String> {
    let stored = set(value, key)?.as_str()?;
    Some(Quantity::parse(stored).map_or_else(|_| stored.to_owned(), |q| q.to_string()))
}

fn reference_from_v2(value: Option<&Value>) -> Reference {
    let value = value.unwrap_or(&Value::Null);
    Reference {
        kind: text(value, "kind"),
        name: text(value, "name"),
        api_version: text(value, "apiVersion"),
    }
}

fn reference_to_v2(reference: &Reference) -> Value {
    let api_version = (!reference.api_version.is_empty()).then(|| json!(reference.api_version));
    object([
        ("kind", Some(json!(reference.kind))),
        ("name", Some(json!(reference.name))),
        ("apiVersion", api_version),
    ])
}

/// The selector of a v2 metric identifier; the stored object was decoded, so it reads.
fn selector_from_v2(identifier: Option<&Value>) -> Option<LabelSelector> {
    let selector = set(identifier?, "selector")?;
    Fields::of(selector, "selector")
        .ok()
        .flatten()
        .map(|fields| LabelSelector::read(fields).unwrap_or_default())
}

fn identifier_to_v2(name: &str, selector: Option<&LabelSelector>) -> Value {
    object([
        ("name", Some(json!(name))),
        (
            "selector",
            selector.map(|s| serde_json::to_value(s).unwrap_or_default()),
        ),
    ])
}

fn int(value: &Value, key: &str) -> Option<i64> {
    set(value, key).and_then(Value::as_i64)
}

/// `Convert_autoscaling_MetricSpec_To_v1_MetricSpec`.
pub(crate) fn spec_from_v2(metric: &Value) -> MetricSpec {
    let source = |key: &str| set(metric, key);
    let target = |source: &Value| source.get("target").cloned().unwrap_or(Value::Null);
    let resource = |source: &Value, container: bool| {
        let target = target(source);
        ResourceSource {
            name: text(source, "name"),
            target_average_utilization: int(&target, "averageUtilization"),
            target_average_value: quantity(&target, "averageValue"),
            container: container.then(|| text(source, "container")),
        }
    };
    MetricSpec {
        kind: text(metric, "type"),
        object: source("object").map(|source| {
            let target = target(source);
            ObjectSource {
                target: reference_from_v2(source.get("describedObject")),
                metric_name: source
                    .pointer("/metric/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                target_value: quantity(&target, "value").unwrap_or_else(|| "0".to_owned()),
                selector: selector_from_v2(source.get("metric")),
                average_value: quantity(&target, "averageValue"),
            }
        }),
        pods: source("pods").map(|source| PodsSource {
            metric_name: source
                .pointer("/metric/name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            target_average_value: quantity(&target(source), "averageValue").unwrap_or_else(|| "0".to_owned()),
            selector: selector_from_v2(source.get("metric")),
        }),
        resource: source("resource").map(|source| resource(source, false)),
        container_resource: source("containerResource").map(|source| resource(source, true)),
        external: source("external").map(|source| {
            let target = target(source);
            ExternalSource {
                metric_name: source
                    .pointer("/metric/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                metric_selector: selector_from_v2(source.get("metric")),
                target_value: quantity(&target, "value"),
                target_average_value: quantity(&target, "averageValue"),
            }
        }),
    }
}

/// `Convert_v1_MetricSpec_To_autoscaling_MetricSpec`.
pub(crate) fn spec_to_v2(metric: &MetricSpec) -> Value {
    let resource = |source: &ResourceSource| {
        let kind = match source.target_average_utilization {
            Some(_) => "Utilization",
            None => "AverageValue",
        };
        let target = object([
            ("type", Some(json!(kind))),
            ("averageValue", source.target_average_value.as_ref().map(|q| json!(q))),
            (
                "averageUtilization",
                source.target_average_utilization.map(|u| json!(u)),
            ),
        ]);
        object([
            ("name", Some(json!(source.name))),
            ("target", Some(target)),
            ("container", source.container.as_ref().map(|c| json!(c))),
        ])
    };
    object([
        ("type", Some(json!(metric.kind))),
        (
            "object",
            metric.object.as_ref().map(|source| {
                let kind = if source.average_value.is_some() {
                    "AverageValue"
                } else {
                    "Value"
                };
                let target = object([
                    ("type", Some(json!(kind))),
                    ("value", Some(json!(source.target_value))),
                    ("averageValue", source.average_value.as_ref().map(|q| json!(q))),
                ]);
                json!({
                    "describedObject": reference_to_v2(&source.target),
                    "target": target,
                    "metric": identifier_to_v2(&source.metric_name, source.selector.as_ref()),
                })
            }),
        ),
        (
            "pods",
            metric.pods.as_ref().map(|source| {
                json!({
                    "metric": identifier_to_v2(&source.metric_name, source.selector.as_ref()),
                    "target": {"type": "AverageValue", "averageValue": source.target_average_value},
                })
            }),
        ),
        ("resource", metric.resource.as_ref().map(resource)),
        ("containerResource", metric.container_resource.as_ref().map(resource)),
        (
            "external",
            metric.external.as_ref().map(|source| {
                let kind = if source.target_value.is_some() {
                    "Value"
                } else {
                    "AverageValue"
                };
                let target = object([
                    ("type", Some(json!(kind))),
                    ("value", source.target_value.as_ref().map(|q| json!(q))),
                    ("averageValue", source.target_average_value.as_ref().map(|q| json!(q))),
                ]);
                json!({
                    "metric": identifier_to_v2(&source.metric_name, source.metric_selector.as_ref()),
                    "target": target,
                })
            }),
        ),
    ])
}

/// `Convert_autoscaling_MetricStatus_To_v1_MetricStatus`.
pub(crate) fn status_from_v2(metric: &Value) -> MetricStatus {
    let source = |key: &str| set(metric, key);
    let current = |source: &Value| source.get("current").cloned().unwrap_or(Value::Null);
    let name_of = |source: &Value| {
        source
            .pointer("/metric/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let zero = || "0".to_owned();
    let resource = |source: &Value, container: bool| {
        let current = current(source);
        ResourceStatus {
            name: text(source, "name"),
            current_average_utilization: int(&current, "averageUtilization"),
            current_average_value: quantity(&current, "averageValue").unwrap_or_else(zero),
            container: container.then(|| text(source, "container")),
        }
    };
    MetricStatus {
        kind: text(metric, "type"),
        object: source("object").map(|source| {
            let current = current(source);
            ObjectStatus {
                target: reference_from_v2(source.get("describedObject")),
                metric_name: name_of(source),
                current_value: quantity(&current, "value").unwrap_or_else(zero),
                selector: selector_from_v2(source.get("metric")),
                average_value: quantity(&current, "averageValue"),
            }
        }),
        pods: source("pods").map(|source| PodsStatus {
            metric_name: name_of(source),
            current_average_value: quantity(&current(source), "averageValue").unwrap_or_else(zero),
            selector: selector_from_v2(source.get("metric")),
        }),
        resource: source("resource").map(|source| resource(source, false)),
        container_resource: source("containerResource").map(|source| resource(source, true)),
        external: source("external").map(|source| {
            let current = current(source);
            ExternalStatus {
                metric_name: name_of(source),
                metric_selector: selector_from_v2(source.get("metric")),
                current_value: quantity(&current, "value").unwrap_or_else(zero),
                current_average_value: quantity(&current, "averageValue"),
            }
        }),
    }
}

/// `Convert_v1_MetricStatus_To_autoscaling_MetricStatus`: v1's non-pointer current values
/// come back set.
pub(crate) fn status_to_v2(metric: &MetricStatus) -> Value {
    let resource = |source: &ResourceStatus| {
        let current = object([
            ("averageValue", Some(json!(source.current_average_value))),
            (
                "averageUtilization",
                source.current_average_utilization.map(|u| json!(u)),
            ),
        ]);
        object([
            ("name", Some(json!(source.name))),
            ("current", Some(current)),
            ("container", source.container.as_ref().map(|c| json!(c))),
        ])
    };
    object([
        ("type", Some(json!(metric.kind))),
        (
            "object",
            metric.object.as_ref().map(|source| {
                let current = object([
                    ("value", Some(json!(source.current_value))),
                    ("averageValue", source.average_value.as_ref().map(|q| json!(q))),
                ]);
                json!({
                    "metric": identifier_to_v2(&source.metric_name, source.selector.as_ref()),
                    "current": current,
                    "describedObject": reference_to_v2(&source.target),
                })
            }),
        ),
        (
            "pods",
            metric.pods.as_ref().map(|source| {
                json!({
                    "metric": identifier_to_v2(&source.metric_name, source.selector.as_ref()),
                    "current": {"averageValue": source.current_average_value},
                })
            }),
        ),
        ("resource", metric.resource.as_ref().map(resource)),
        ("containerResource", metric.container_resource.as_ref().map(resource)),
        (
            "external",
            metric.external.as_ref().map(|source| {
                let current = object([
                    ("value", Some(json!(source.current_value))),
                    ("averageValue", source.current_average_value.as_ref().map(|q| json!(q))),
                ]);
                json!({
                    "metric": identifier_to_v2(&source.metric_name, source.metric_selector.as_ref()),
                    "current": current,
                })
            }),
        ),
    ])
}

/// A v2 condition as v1's type holds it.
pub(crate) fn condition_from_v2(condition: &Value) -> Condition {
    Condition {
        kind: text(condition, "type"),
        status: text(condition, "status"),
        last_transition_time: set(condition, "lastTransitionTime")
            .and_then(Value::as_str)
            .map(str::to_owned),
        reason: text(condition, "reason"),
        message: text(condition, "message"),
    }
}

/// A v1 condition as v2's fields (`lastTransitionTime`, `reason`, `message` omitted empty).
pub(crate) fn condition_to_v2(condition: &Condition) -> Value {
    let nonempty = |s: &str| (!s.is_empty()).then(|| json!(s));
    object([
        ("type", Some(json!(condition.kind))),
        ("status", Some(json!(condition.status))),
        (
            "lastTransitionTime",
            condition.last_transition_time.as_ref().map(|t| json!(t)),
        ),
        ("reason", nonempty(&condition.reason)),
        ("message", nonempty(&condition.message)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::go_json_writer;

    fn annotation<T: serde::Serialize>(value: &T) -> String {
        String::from_utf8(go_json_writer::to_vec(value)).unwrap_or_default()
    }

    #[test]
    fn v2_metrics_should_be_written_as_v1_annotations_in_go_field_order() {
        let object = json!({"type": "Object", "object": {"describedObject": {"kind": "Ingress", "name": "main", "apiVersion": "networking.k8s.io/v1"},
                             "metric": {"name": "requests"}, "target": {"type": "Value", "value": "10k"}}});
        assert_eq!(
            annotation(&spec_from_v2(&object)),
            r#"{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},"metricName":"requests","targetValue":"10k"}}"#
        );
        let pods = json!({"type": "Pods", "pods": {"metric": {"name": "p", "selector": {"matchLabels": {"a": "b"}}},
                          "target": {"type": "AverageValue", "averageValue": "1000"}}});
        assert_eq!(
            annotation(&spec_from_v2(&pods)),
            r#"{"type":"Pods","pods":{"metricName":"p","targetAverageValue":"1k","selector":{"matchLabels":{"a":"b"}}}}"#
        );
    }

    #[test]
    fn v1_metrics_should_infer_their_v2_target_types() {
        let external = ExternalSource {
            metric_name: "q".into(),
            target_value: Some("5".into()),
            ..Default::default()
        };
        let metric = MetricSpec {
            kind: "External".into(),
            external: Some(external),
            ..Default::default()
        };
        assert_eq!(
            spec_to_v2(&metric),
            json!({"type": "External", "external": {"metric": {"name": "q"}, "target": {"type": "Value", "value": "5"}}})
        );
        let status = json!({"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 65}}});
        // v1's current average value is not a pointer: it comes back as zero.
        assert_eq!(
            status_to_v2(&status_from_v2(&status)),
            json!({"type": "Resource", "resource": {"name": "cpu", "current": {"averageValue": "0", "averageUtilization": 65}}})
        );
    }
}
