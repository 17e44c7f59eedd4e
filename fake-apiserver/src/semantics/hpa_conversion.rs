//! A HorizontalPodAutoscaler converted between autoscaling/v1 and the autoscaling/v2 it is
//! stored as (whose fields are the internal type's), as `pkg/apis/autoscaling/v1/conversion.go`
//! and `pkg/apis/autoscaling/v2/conversion.go` convert it: v1 shows the first CPU utilization
//! target as `targetCPUUtilizationPercentage` and the rest of the metrics, the behavior, the
//! current metrics and the conditions in `autoscaling.alpha.kubernetes.io/*` annotations, which
//! v1 reads back and v2 drops (`DropRoundTripHorizontalPodAutoscalerAnnotations`).

use serde_json::{Map, Value, json};

use crate::semantics::go_json_fields::Fields;
use crate::semantics::go_json_writer;
use crate::semantics::hpa_behavior;
use crate::semantics::hpa_v1_metrics::{
    condition_from_v2, condition_to_v2, spec_from_v2, spec_to_v2, status_from_v2, status_to_v2,
};
use crate::semantics::hpa_v1_types::{Condition, MetricSpec, MetricStatus, read_list};
use crate::storage::object::meta_mut;

/// `MetricSpecsAnnotation`: the metrics other than the CPU utilization target.
pub(crate) const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";
/// `BehaviorSpecsAnnotation`.
pub(crate) const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";
/// `MetricStatusesAnnotation`.
pub(crate) const CURRENT_METRICS: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
/// `HorizontalPodAutoscalerConditionsAnnotation`.
pub(crate) const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";

/// `autoscaling.DefaultCPUUtilization`: v1's implicit target.
const DEFAULT_CPU_UTILIZATION: i64 = 80;

/// `DropRoundTripHorizontalPodAutoscalerAnnotations`: the four annotations removed (and the
/// map with them, when it is left empty, as `omitempty` writes it).
pub(crate) fn drop_round_trip_annotations(hpa: &mut Value) {
    let meta = meta_mut(hpa);
    if let Some(annotations) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
        for key in [METRICS, BEHAVIOR, CURRENT_METRICS, CONDITIONS] {
            annotations.remove(key);
        }
        if annotations.is_empty() {
            meta.remove("annotations");
        }
    }
}

/// Whether a v2 metric is a CPU utilization target, which v1 holds in its own field.
fn is_cpu_utilization(metric: &Value, current: &str) -> bool {
    metric.get("type").and_then(Value::as_str) == Some("Resource")
        && metric.pointer("/resource/name").and_then(Value::as_str) == Some("cpu")
        && metric
            .pointer(&format!("/resource/{current}/averageUtilization"))
            .is_some_and(|u| !u.is_null())
}

fn list<'a>(object: &'a Value, pointer: &str) -> &'a [Value] {
    object
        .pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
}

/// The spec fields both versions have alike: the target, the replica bounds.
fn shared_spec(spec: &Value) -> Map<String, Value> {
    let mut shared = Map::new();
    let target = spec.get("scaleTargetRef").cloned();
    shared.insert(
        "scaleTargetRef".to_owned(),
        target.unwrap_or_else(|| json!({"kind": "", "name": ""})),
    );
    if let Some(min) = spec.get("minReplicas").filter(|m| !m.is_null()) {
        shared.insert("minReplicas".to_owned(), min.clone());
    }
    let max = spec.get("maxReplicas").cloned().unwrap_or(json!(0));
    shared.insert("maxReplicas".to_owned(), max);
    shared
}

/// The status fields both versions have alike and omit empty.
fn shared_status(status: &Value) -> Map<String, Value> {
    ["observedGeneration", "lastScaleTime"]
        .into_iter()
        .filter_map(|key| Some((key.to_owned(), status.get(key).filter(|v| !v.is_null())?.clone())))
        .collect()
}

/// `Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler`: the v1 view of
/// a stored autoscaler.
pub(crate) fn to_v1(hpa: &Value) -> Value {
    let mut out = hpa.clone();
    out["apiVersion"] = json!("autoscaling/v1");
    drop_round_trip_annotations(&mut out);
    let spec = hpa.get("spec").unwrap_or(&Value::Null);
    let status = hpa.get("status").unwrap_or(&Value::Null);
    let metrics = list(spec, "/metrics");
    let mut v1_spec = shared_spec(spec);
    // The first CPU utilization target is v1's own field.
    if let Some(cpu) = metrics.iter().find(|m| is_cpu_utilization(m, "target")) {
        v1_spec.insert(
            "targetCPUUtilizationPercentage".to_owned(),
            cpu.pointer("/resource/target/averageUtilization")
                .cloned()
                .unwrap_or(json!(0)),
        );
    }
    let mut v1_status = shared_status(status);
    for key in ["currentReplicas", "desiredReplicas"] {
        v1_status.insert(key.to_owned(), status.get(key).cloned().unwrap_or(json!(0)));
    }
    let current = list(status, "/currentMetrics");
    // The last CPU utilization reported wins: the loop has no break.
    if let Some(cpu) = current.iter().rev().find(|m| is_cpu_utilization(m, "current")) {
        v1_status.insert(
            "currentCPUUtilizationPercentage".to_owned(),
            cpu.pointer("/resource/current/averageUtilization")
                .cloned()
                .unwrap_or(json!(0)),
        );
    }
    out["spec"] = Value::Object(v1_spec);
    out["status"] = Value::Object(v1_status);
    // Every CPU utilization target is left out of the annotation, not only the first.
    let others: Vec<MetricSpec> = metrics
        .iter()
        .filter(|m| !is_cpu_utilization(m, "target"))
        .map(spec_from_v2)
        .collect();
    let mut annotations = Vec::new();
    if !others.is_empty() {
        annotations.push((METRICS, go_json_writer::to_vec(&others)));
    }
    if !current.is_empty() {
        let statuses: Vec<MetricStatus> = current.iter().map(status_from_v2).collect();
        annotations.push((CURRENT_METRICS, go_json_writer::to_vec(&statuses)));
    }
    if let Some(behavior) = spec.get("behavior").filter(|b| !b.is_null()) {
        annotations.push((BEHAVIOR, hpa_behavior::encode(behavior)));
    }
    let conditions = list(status, "/conditions");
    if !conditions.is_empty() {
        let conditions: Vec<Condition> = conditions.iter().map(condition_from_v2).collect();
        annotations.push((CONDITIONS, go_json_writer::to_vec(&conditions)));
    }
    if !annotations.is_empty() {
        let meta = meta_mut(&mut out);
        let map = meta.entry("annotations").or_insert_with(|| json!({}));
        for (key, bytes) in annotations {
            map[key] = json!(String::from_utf8_lossy(&bytes));
        }
    }
    out
}

/// A v1 annotation's list, when it decodes (`json.Unmarshal` into the v1 slice type); an
/// annotation that does not is ignored.
fn annotation_list<T: Default>(
    hpa: &Value,
    key: &str,
    read: impl Fn(Fields<'_>) -> Result<T, crate::semantics::go_json_fields::FieldsError>,
) -> Option<Vec<T>> {
    let text = hpa.pointer("/metadata/annotations")?.get(key)?.as_str()?;
    match serde_json::from_str::<Value>(text).ok()? {
        Value::Null => Some(Vec::new()),
        Value::Array(items) => read_list(&items, read).ok(),
        _ => None,
    }
}

/// `Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`: the v2 form of
/// a v1 autoscaler, before v2's defaults.
pub(crate) fn from_v1(hpa: &Value) -> Value {
    let mut out = hpa.clone();
    out["apiVersion"] = json!("autoscaling/v2");
    let spec = hpa.get("spec").unwrap_or(&Value::Null);
    let status = hpa.get("status").unwrap_or(&Value::Null);
    let mut v2_spec = shared_spec(spec);
    let cpu = |utilization: &Value, current: &str| json!({"type": "Resource", "resource": {"name": "cpu", current: {"averageUtilization": utilization}}});
    let mut metrics: Vec<Value> = Vec::new();
    if let Some(target) = spec.get("targetCPUUtilizationPercentage").filter(|t| !t.is_null()) {
        let mut metric = cpu(target, "target");
        metric["resource"]["target"]["type"] = json!("Utilization");
        metrics.push(metric);
    }
    // The annotated metrics come first, the CPU target from the field after them.
    if let Some(others) = annotation_list(hpa, METRICS, MetricSpec::read) {
        let mut converted: Vec<Value> = others.iter().map(spec_to_v2).collect();
        converted.append(&mut metrics);
        metrics = converted;
    }
    if let Some(behavior) = annotation_text(hpa, BEHAVIOR).and_then(hpa_behavior::decode) {
        v2_spec.insert("behavior".to_owned(), behavior);
    }
    if metrics.is_empty() {
        // v1's implicit default, explicit from v2 on.
        let mut metric = cpu(&json!(DEFAULT_CPU_UTILIZATION), "target");
        metric["resource"]["target"]["type"] = json!("Utilization");
        metrics.push(metric);
    }
    v2_spec.insert("metrics".to_owned(), Value::Array(metrics));
    let mut v2_status = shared_status(status);
    // v2's current replicas are `omitempty`, its desired ones not.
    if let Some(current) = status
        .get("currentReplicas")
        .filter(|c| c.as_i64().is_some_and(|c| c != 0))
    {
        v2_status.insert("currentReplicas".to_owned(), current.clone());
    }
    v2_status.insert(
        "desiredReplicas".to_owned(),
        status.get("desiredReplicas").cloned().unwrap_or(json!(0)),
    );
    let mut current = Vec::new();
    if let Some(utilization) = status.get("currentCPUUtilizationPercentage").filter(|u| !u.is_null()) {
        current.push(cpu(utilization, "current"));
    }
    if let Some(annotated) = annotation_list(hpa, CURRENT_METRICS, MetricStatus::read) {
        // The annotation has more than the field: it replaces it.
        current = annotated.iter().map(status_to_v2).collect();
    }
    if !current.is_empty() {
        v2_status.insert("currentMetrics".to_owned(), Value::Array(current));
    }
    if let Some(conditions) = annotation_list(hpa, CONDITIONS, Condition::read)
        && !conditions.is_empty()
    {
        let conditions: Vec<Value> = conditions.iter().map(condition_to_v2).collect();
        v2_status.insert("conditions".to_owned(), Value::Array(conditions));
    }
    out["spec"] = Value::Object(v2_spec);
    out["status"] = Value::Object(v2_status);
    drop_round_trip_annotations(&mut out);
    out
}

fn annotation_text<'a>(hpa: &'a Value, key: &str) -> Option<&'a str> {
    hpa.pointer("/metadata/annotations")?.get(key)?.as_str()
}

/// Whether `api_version` is autoscaling/v1, whose autoscalers these conversions concern.
pub(crate) fn is_v1(api_version: &str) -> bool {
    api_version == "autoscaling/v1"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v2(spec: Value, status: Value) -> Value {
        json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
               "spec": spec, "status": status})
    }

    #[test]
    fn v1_should_show_the_cpu_target_in_its_field_and_the_rest_in_annotations() {
        let spec = json!({"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 3, "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
            {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 75}}}]});
        let shown = to_v1(&v2(spec, json!({"desiredReplicas": 0})));
        assert_eq!(shown["spec"]["targetCPUUtilizationPercentage"], 60);
        assert_eq!(
            shown["metadata"]["annotations"][METRICS],
            r#"[{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":75}}]"#
        );
        assert_eq!(shown["status"], json!({"currentReplicas": 0, "desiredReplicas": 0}));
        // Back in v2, the annotated metrics come first.
        let back = from_v1(&shown);
        assert_eq!(back["spec"]["metrics"][0]["resource"]["name"], "memory");
        assert_eq!(
            back["spec"]["metrics"][1]["resource"]["target"]["averageUtilization"],
            60
        );
        assert!(back["metadata"].get("annotations").is_none());
    }

    #[test]
    fn v1_without_metrics_should_target_80_percent_cpu_and_ignore_bad_annotations() {
        let hpa = json!({"apiVersion": "autoscaling/v1", "metadata": {"name": "h", "annotations": {METRICS: "not json", "keep": "me"}},
                         "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 2},
                         "status": {"currentReplicas": 0, "desiredReplicas": 0, "currentCPUUtilizationPercentage": 40}});
        let converted = from_v1(&hpa);
        assert_eq!(
            converted["spec"]["metrics"],
            json!([{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}])
        );
        assert_eq!(converted["metadata"]["annotations"], json!({"keep": "me"}));
        assert_eq!(
            converted["status"],
            json!({"desiredReplicas": 0, "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 40}}}]})
        );
    }

    #[test]
    fn status_and_conditions_should_round_trip_through_annotations() {
        let status = json!({"currentReplicas": 2, "desiredReplicas": 3, "currentMetrics": [
            {"type": "Pods", "pods": {"metric": {"name": "qps"}, "current": {"averageValue": "7"}}}],
            "conditions": [{"type": "ScalingActive", "status": "True", "reason": "R"}]});
        let shown = to_v1(&v2(json!({"maxReplicas": 1}), status.clone()));
        assert_eq!(
            shown["metadata"]["annotations"][CONDITIONS],
            r#"[{"type":"ScalingActive","status":"True","lastTransitionTime":null,"reason":"R"}]"#
        );
        assert_eq!(from_v1(&shown)["status"], status);
    }
}
