//! autoscaling defaulting of HorizontalPodAutoscalers: `SetDefaults_HorizontalPodAutoscaler`
//! and `SetDefaults_HorizontalPodAutoscalerBehavior` of `pkg/apis/autoscaling/v2/defaults.go`,
//! and `pkg/apis/autoscaling/v1/defaults.go`'s, with the round trip through the internal type
//! that the decoder and the field manager see a v1 autoscaler through.

use serde_json::{Value, json};

use super::default;
use crate::semantics::hpa_conversion::{self, drop_round_trip_annotations};

/// `defaultHPAScaleUpRules`: no stabilization, the larger of 4 pods or 100% per 15 seconds.
fn scale_up_rules() -> Value {
    json!({"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ]})
}

/// `defaultHPAScaleDownRules`: 100% per 15 seconds; the window is left to the controller's flag.
fn scale_down_rules() -> Value {
    json!({"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]})
}

/// An autoscaler of `version` as decoded: v2 without v1's annotations and with its defaults;
/// v1 with its own default, as the internal object converts back to it.
pub(super) fn horizontal_pod_autoscaler(object: &mut Value, version: &str) {
    if version == "v1" {
        if let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) {
            default(spec, "minReplicas", json!(1));
        }
        *object = hpa_conversion::to_v1(&hpa_conversion::from_v1(object));
        return;
    }
    drop_round_trip_annotations(object);
    set_defaults_v2(object);
}

/// `SetDefaults_HorizontalPodAutoscaler` of autoscaling/v2: one replica at least, a CPU
/// utilization target of 80% when no metric is given, and a behavior's unset rules filled.
pub(crate) fn set_defaults_v2(object: &mut Value) {
    let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    default(spec, "minReplicas", json!(1));
    if spec.get("metrics").and_then(Value::as_array).is_none_or(Vec::is_empty) {
        spec["metrics"] = json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 80}}}]);
    }
    if let Some(behavior) = spec.get_mut("behavior").filter(|b| b.is_object()) {
        for (direction, defaults) in [("scaleUp", scale_up_rules()), ("scaleDown", scale_down_rules())] {
            behavior[direction] = copy_scaling_rules(behavior.get(direction), defaults);
        }
    }
}

/// `copyHPAScalingRules`: the set fields of `from` over the defaults.
fn copy_scaling_rules(from: Option<&Value>, mut to: Value) -> Value {
    let Some(from) = from.and_then(Value::as_object) else {
        return to;
    };
    for key in ["selectPolicy", "stabilizationWindowSeconds", "policies"] {
        if let Some(value) = from.get(key).filter(|v| !v.is_null()) {
            to[key] = value.clone();
        }
    }
    to
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_should_default_replicas_metrics_and_unset_rules() {
        let mut hpa = json!({"metadata": {"annotations": {"autoscaling.alpha.kubernetes.io/metrics": "[]"}},
                             "spec": {"maxReplicas": 3, "behavior": {"scaleDown": {"stabilizationWindowSeconds": 120}}}});
        horizontal_pod_autoscaler(&mut hpa, "v2");
        assert!(hpa["metadata"].get("annotations").is_none());
        assert_eq!(hpa["spec"]["minReplicas"], 1);
        assert_eq!(
            hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
            80
        );
        assert_eq!(hpa["spec"]["behavior"]["scaleUp"], scale_up_rules());
        assert_eq!(
            hpa["spec"]["behavior"]["scaleDown"],
            json!({"stabilizationWindowSeconds": 120, "selectPolicy": "Max",
                   "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]})
        );
    }

    #[test]
    fn v1_should_show_the_implicit_cpu_target() {
        let mut hpa = json!({"apiVersion": "autoscaling/v1", "metadata": {"name": "h"},
                             "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 2}});
        horizontal_pod_autoscaler(&mut hpa, "v1");
        assert_eq!(
            hpa["spec"],
            json!({"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "minReplicas": 1, "maxReplicas": 2,
                   "targetCPUUtilizationPercentage": 80})
        );
    }
}
