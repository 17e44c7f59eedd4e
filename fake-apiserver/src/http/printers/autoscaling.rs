//! autoscaling tables as `pkg/printers/internalversion/printers.go` prints them:
//! `printHorizontalPodAutoscaler` and `formatHPAMetrics` (1.31 names the resource of a
//! Resource or ContainerResource metric), with the column definitions it takes from
//! autoscaling/v2beta1's documentation, over the internal (v2) form of the autoscaler.

use std::borrow::Cow;

use serde_json::{Value, json};

use super::{BuiltinColumn, column, int};
use crate::semantics::hpa_conversion::{from_v1, is_v1};
use crate::semantics::quantity::Quantity;

/// How many metrics a Targets cell shows before it counts the rest.
const SHOWN: usize = 2;

/// The columns after Name of the autoscaler printer on the Kubernetes `minor`.
pub(super) fn columns(kind: &str, age: BuiltinColumn, minor: u32) -> Option<Vec<BuiltinColumn>> {
    (kind == "HorizontalPodAutoscaler").then(|| {
        let targets: fn(&Value) -> Value = if minor >= 31 {
            |o| json!(format_metrics(&internal(o), true))
        } else {
            |o| json!(format_metrics(&internal(o), false))
        };
        vec![
            column(
                "Reference",
                "string",
                "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
                |o| {
                    let text = |key: &str| o.pointer(&format!("/spec/scaleTargetRef/{key}")).and_then(Value::as_str).unwrap_or_default();
                    json!(format!("{}/{}", text("kind"), text("name")))
                },
            ),
            column(
                "Targets",
                "string",
                "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond.",
                targets,
            ),
            column(
                "MinPods",
                "string",
                "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.",
                |o| match o.pointer("/spec/minReplicas").and_then(Value::as_i64) {
                    Some(min) => json!(min.to_string()),
                    None => json!("<unset>"),
                },
            ),
            // Declared strings, printed as the Go integers they are.
            column(
                "MaxPods",
                "string",
                "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
                |o| json!(int(o, "/spec/maxReplicas")),
            ),
            column(
                "Replicas",
                "string",
                "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
                |o| json!(int(o, "/status/currentReplicas")),
            ),
            age,
        ]
    })
}

/// The internal object the printer is given: a v1 view converted back.
fn internal(object: &Value) -> Cow<'_, Value> {
    match object.get("apiVersion").and_then(Value::as_str) {
        Some(version) if is_v1(version) => Cow::Owned(from_v1(object)),
        _ => Cow::Borrowed(object),
    }
}

/// A `*resource.Quantity`'s `String()`: canonical, `<nil>` when unset.
fn quantity(value: Option<&Value>) -> String {
    match value.and_then(Value::as_str) {
        Some(text) => Quantity::parse(text).map_or_else(|_| text.to_owned(), |q| q.to_string()),
        None => "<nil>".to_owned(),
    }
}

/// `formatHPAMetrics`: each metric's current value (from the status at the same index) over
/// its target, the first two of them; `named` (1.31) prefixes resource metrics with the resource.
fn format_metrics(hpa: &Value, named: bool) -> String {
    let specs = hpa
        .pointer("/spec/metrics")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    if specs.is_empty() {
        return "<none>".to_owned();
    }
    let statuses = hpa
        .pointer("/status/currentMetrics")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut shown: Vec<String> = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let kind = spec.get("type").and_then(Value::as_str).unwrap_or_default();
            let field = match kind {
                "External" => "external",
                "Pods" => "pods",
                "Object" => "object",
                "Resource" => "resource",
                "ContainerResource" => "containerResource",
                _ => return "<unknown type>".to_owned(),
            };
            let source = spec.get(field).unwrap_or(&Value::Null);
            let target = source.get("target").unwrap_or(&Value::Null);
            let current = statuses
                .get(i)
                .and_then(|s| s.get(field))
                .filter(|s| !s.is_null())
                .map(|s| s.get("current").unwrap_or(&Value::Null));
            format_metric(field, source, target, current, named)
        })
        .collect();
    let count = shown.len();
    if count > SHOWN {
        shown.truncate(SHOWN);
        return format!("{} + {} more...", shown.join(", "), count - SHOWN);
    }
    shown.join(", ")
}

/// One metric's `current/target`.
fn format_metric(field: &str, source: &Value, target: &Value, current: Option<&Value>, named: bool) -> String {
    let unknown = || "<unknown>".to_owned();
    let average = target.get("averageValue").filter(|v| !v.is_null());
    match field {
        "external" | "object" => {
            // An average target is only shown with an average current value.
            if average.is_some() {
                let now = current
                    .and_then(|c| c.get("averageValue").filter(|v| !v.is_null()))
                    .map_or_else(unknown, |v| quantity(Some(v)));
                format!("{now}/{} (avg)", quantity(average))
            } else {
                let now = current.map_or_else(unknown, |c| quantity(c.get("value")));
                format!("{now}/{}", quantity(target.get("value")))
            }
        }
        "pods" => {
            let now = current.map_or_else(unknown, |c| quantity(c.get("averageValue")));
            format!("{now}/{}", quantity(average))
        }
        _ => {
            let prefix = if named {
                format!("{}: ", source.get("name").and_then(Value::as_str).unwrap_or_default())
            } else {
                String::new()
            };
            if average.is_some() {
                let now = current.map_or_else(unknown, |c| quantity(c.get("averageValue")));
                return format!("{prefix}{now}/{}", quantity(average));
            }
            let now = current
                .and_then(|c| c.get("averageUtilization"))
                .and_then(Value::as_i64)
                .map_or_else(unknown, |u| format!("{u}%"));
            let goal = target
                .get("averageUtilization")
                .and_then(Value::as_i64)
                .map_or_else(|| "<auto>".to_owned(), |u| format!("{u}%"));
            format!("{prefix}{now}/{goal}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hpa(metrics: Value, current: Value) -> Value {
        json!({"spec": {"metrics": metrics}, "status": {"currentMetrics": current}})
    }

    #[test]
    fn targets_should_show_current_over_target_for_the_first_two() {
        let metrics = json!([
            {"type": "Pods", "pods": {"target": {"averageValue": "10"}}},
            {"type": "External", "external": {"target": {"value": "5"}}},
            {"type": "Resource", "resource": {"name": "memory", "target": {"averageValue": "1Gi"}}},
        ]);
        assert_eq!(
            format_metrics(&hpa(metrics, json!([])), false),
            "<unknown>/10, <unknown>/5 + 1 more..."
        );
        let cpu = json!([{"type": "Resource", "resource": {"name": "cpu", "target": {"averageUtilization": 70}}}]);
        let current = json!([{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 65}}}]);
        assert_eq!(format_metrics(&hpa(cpu.clone(), current.clone()), false), "65%/70%");
        assert_eq!(format_metrics(&hpa(cpu, current), true), "cpu: 65%/70%");
        assert_eq!(format_metrics(&hpa(json!([]), json!([])), false), "<none>");
    }

    #[test]
    fn average_object_targets_should_be_marked() {
        let metrics = json!([{"type": "Object", "object": {"target": {"averageValue": "3"}}}, {"type": "Foo"}]);
        assert_eq!(
            format_metrics(&hpa(metrics, json!([])), false),
            "<unknown>/3 (avg), <unknown type>"
        );
    }
}
