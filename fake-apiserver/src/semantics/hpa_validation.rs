//! HorizontalPodAutoscaler validation as in `pkg/apis/autoscaling/validation/validation.go`:
//! `ValidateHorizontalPodAutoscaler(+Update, +StatusUpdate)`, `validateHorizontalPodAutoscalerSpec`,
//! `validateMetrics`, `validateBehavior`, `validateScalingRules` and `validateScalingPolicy`, over
//! the autoscaling/v2 form of the object (the internal type's fields); the metric sources are
//! `hpa_metric_validation`'s.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, nonnegative};
use crate::semantics::hpa_metric_validation::{cross_version_reference_errors, metric_spec_errors};

/// `MaxPeriodSeconds`: the longest scaling policy period.
const MAX_PERIOD_SECONDS: i64 = 1800;
/// `MaxStabilizationWindowSeconds`: the longest stabilization window.
const MAX_STABILIZATION_WINDOW_SECONDS: i64 = 3600;
/// `validSelectPolicyTypesList`: a sorted set.
const SELECT_POLICIES: [&str; 3] = ["Disabled", "Max", "Min"];
/// `validPolicyTypesList`: a sorted set.
const POLICY_TYPES: [&str; 2] = ["Percent", "Pods"];

/// `ValidateHorizontalPodAutoscaler`'s spec checks (the metadata is checked for every kind).
/// `HPAScaleToZero` is alpha and off on the minors served, so replicas start at 1.
pub(crate) fn create_errors(hpa: &Value, minor: u32) -> Vec<FieldError> {
    spec_errors(hpa.get("spec").unwrap_or(&Value::Null), 1, minor)
}

/// `ValidateHorizontalPodAutoscalerUpdate`: as on create, but an autoscaler already at
/// `minReplicas: 0` may stay there.
pub(crate) fn update_errors(hpa: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let lower_bound = match old.pointer("/spec/minReplicas").and_then(Value::as_i64) {
        Some(0) => 0,
        _ => 1,
    };
    spec_errors(hpa.get("spec").unwrap_or(&Value::Null), lower_bound, minor)
}

/// `ValidateHorizontalPodAutoscalerStatusUpdate`: non-negative replica counts.
pub(crate) fn status_update_errors(hpa: &Value) -> Vec<FieldError> {
    let count = |key: &str| {
        hpa.pointer(&format!("/status/{key}"))
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    let mut errors = nonnegative(count("currentReplicas"), "status.currentReplicas");
    errors.extend(nonnegative(count("desiredReplicas"), "status.desiredReplicas"));
    errors
}

/// `validateHorizontalPodAutoscalerSpec`.
fn spec_errors(spec: &Value, min_replicas_lower_bound: i64, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let min_replicas = spec.get("minReplicas").and_then(Value::as_i64);
    let max_replicas = spec.get("maxReplicas").and_then(Value::as_i64).unwrap_or(0);
    if let Some(min) = min_replicas
        && min < min_replicas_lower_bound
    {
        errors.push(FieldError::invalid(
            "spec.minReplicas",
            BadValue::Int(min),
            format!("must be greater than or equal to {min_replicas_lower_bound}"),
        ));
    }
    if max_replicas < 1 {
        errors.push(FieldError::invalid(
            "spec.maxReplicas",
            BadValue::Int(max_replicas),
            "must be greater than 0",
        ));
    }
    if min_replicas.is_some_and(|min| max_replicas < min) {
        errors.push(FieldError::invalid(
            "spec.maxReplicas",
            BadValue::Int(max_replicas),
            "must be greater than or equal to `minReplicas`",
        ));
    }
    errors.extend(cross_version_reference_errors(
        spec.get("scaleTargetRef").unwrap_or(&Value::Null),
        "spec.scaleTargetRef",
    ));
    errors.extend(metrics_errors(spec, min_replicas, minor));
    if let Some(behavior) = spec.get("behavior").filter(|b| !b.is_null()) {
        for (key, path) in [
            ("scaleUp", "spec.behavior.scaleUp"),
            ("scaleDown", "spec.behavior.scaleDown"),
        ] {
            if let Some(rules) = behavior.get(key).filter(|r| !r.is_null()) {
                errors.extend(scaling_rules_errors(rules, path));
            }
        }
    }
    errors
}

/// `validateMetrics`: each metric, and scaling to zero only on an Object or External metric.
fn metrics_errors(spec: &Value, min_replicas: Option<i64>, minor: u32) -> Vec<FieldError> {
    let metrics = spec
        .get("metrics")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut errors = Vec::new();
    for (i, metric) in metrics.iter().enumerate() {
        errors.extend(metric_spec_errors(metric, &format!("spec.metrics[{i}]"), minor));
    }
    let scales_on_objects = metrics
        .iter()
        .any(|m| matches!(m.get("type").and_then(Value::as_str), Some("Object" | "External")));
    if min_replicas == Some(0) && !scales_on_objects {
        errors.push(FieldError::forbidden(
            "spec.metrics",
            "must specify at least one Object or External metric to support scaling to zero replicas",
        ));
    }
    errors
}

/// `validateScalingRules` of one direction at `at`.
fn scaling_rules_errors(rules: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(window) = rules.get("stabilizationWindowSeconds").and_then(Value::as_i64) {
        let path = format!("{at}.stabilizationWindowSeconds");
        if window < 0 {
            errors.push(FieldError::invalid(
                path.clone(),
                BadValue::Int(window),
                "must be greater than or equal to zero",
            ));
        }
        if window > MAX_STABILIZATION_WINDOW_SECONDS {
            errors.push(FieldError::invalid(
                path,
                BadValue::Int(window),
                format!("must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}"),
            ));
        }
    }
    if let Some(policy) = rules.get("selectPolicy").and_then(Value::as_str)
        && !SELECT_POLICIES.contains(&policy)
    {
        errors.push(FieldError::not_supported(
            format!("{at}.selectPolicy"),
            policy.into(),
            &SELECT_POLICIES.map(str::to_owned),
        ));
    }
    let policies = rules
        .get("policies")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    if policies.is_empty() {
        errors.push(FieldError::required(
            format!("{at}.policies"),
            "must specify at least one Policy",
        ));
    }
    for (i, policy) in policies.iter().enumerate() {
        errors.extend(scaling_policy_errors(policy, &format!("{at}.policies[{i}]")));
    }
    errors
}

/// `validateScalingPolicy`: a known type, a positive value and a period of up to 30 minutes.
fn scaling_policy_errors(policy: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let kind = policy.get("type").and_then(Value::as_str).unwrap_or_default();
    if !POLICY_TYPES.contains(&kind) {
        errors.push(FieldError::not_supported(
            format!("{at}.type"),
            kind.into(),
            &POLICY_TYPES.map(str::to_owned),
        ));
    }
    let number = |key: &str| policy.get(key).and_then(Value::as_i64).unwrap_or(0);
    let value = number("value");
    if value <= 0 {
        errors.push(FieldError::invalid(
            format!("{at}.value"),
            BadValue::Int(value),
            "must be greater than zero",
        ));
    }
    let period = number("periodSeconds");
    if period <= 0 {
        errors.push(FieldError::invalid(
            format!("{at}.periodSeconds"),
            BadValue::Int(period),
            "must be greater than zero",
        ));
    }
    if period > MAX_PERIOD_SECONDS {
        errors.push(FieldError::invalid(
            format!("{at}.periodSeconds"),
            BadValue::Int(period),
            format!("must be less than or equal to {MAX_PERIOD_SECONDS}"),
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::{reasons, rendered};

    fn hpa(spec: Value) -> Value {
        json!({"spec": spec})
    }

    #[test]
    fn replicas_should_be_bounded_and_ordered() {
        let spec = json!({"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "minReplicas": -1, "maxReplicas": -2,
                          "metrics": [{"type": "External", "external": {"metric": {"name": "m"}, "target": {"type": "Value", "value": "1"}}}]});
        assert_eq!(
            rendered(create_errors(&hpa(spec), 28)),
            [
                "spec.minReplicas: Invalid value: -1: must be greater than or equal to 1",
                "spec.maxReplicas: Invalid value: -2: must be greater than 0",
                "spec.maxReplicas: Invalid value: -2: must be greater than or equal to `minReplicas`",
            ]
        );
    }

    #[test]
    fn zero_replicas_should_need_an_object_metric_and_stay_only_where_they_were() {
        let spec = json!({"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "minReplicas": 0, "maxReplicas": 2});
        assert_eq!(
            reasons(create_errors(&hpa(spec.clone()), 28)),
            ["FieldValueInvalid spec.minReplicas", "FieldValueForbidden spec.metrics"]
        );
        let old = hpa(json!({"minReplicas": 0}));
        assert_eq!(
            reasons(update_errors(&hpa(spec), &old, 28)),
            ["FieldValueForbidden spec.metrics"]
        );
    }

    #[test]
    fn behavior_rules_should_be_checked_in_both_directions() {
        let spec = json!({"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 2, "behavior": {
            "scaleUp": {"stabilizationWindowSeconds": -1, "selectPolicy": "Sometimes", "policies": []},
            "scaleDown": {"stabilizationWindowSeconds": 3601, "policies": [{"type": "Bogus", "value": 0, "periodSeconds": 1801}]}}});
        assert_eq!(
            rendered(create_errors(&hpa(spec), 28)),
            [
                "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: -1: must be greater than or equal to zero",
                "spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Sometimes\": supported values: \"Disabled\", \"Max\", \"Min\"",
                "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy",
                "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600",
                "spec.behavior.scaleDown.policies[0].type: Unsupported value: \"Bogus\": supported values: \"Percent\", \"Pods\"",
                "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero",
                "spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
            ]
        );
    }

    #[test]
    fn the_target_reference_should_be_named_by_path_segments() {
        let spec = json!({"scaleTargetRef": {"kind": "..", "name": ""}, "maxReplicas": 1});
        assert_eq!(
            rendered(create_errors(&hpa(spec), 28)),
            [
                "spec.scaleTargetRef.kind: Invalid value: \"..\": may not be '..'",
                "spec.scaleTargetRef.name: Required value",
            ]
        );
    }

    #[test]
    fn status_counts_should_not_be_negative() {
        let status = json!({"status": {"currentReplicas": -1, "desiredReplicas": 2}});
        assert_eq!(
            reasons(status_update_errors(&status)),
            ["FieldValueInvalid status.currentReplicas"]
        );
    }
}
