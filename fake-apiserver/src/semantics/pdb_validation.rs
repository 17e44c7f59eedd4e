//! PodDisruptionBudget validation and conversion as in `pkg/apis/policy/validation/validation.go`
//! (`ValidatePodDisruptionBudget`, `ValidatePodDisruptionBudgetSpec`,
//! `ValidatePodDisruptionBudgetStatusUpdate`), `pkg/apis/policy/v1/conversion.go`
//! (`Convert_v1_PodDisruptionBudget_To_policy_PodDisruptionBudget`, `StripPDBV1beta1Label` of
//! `pkg/apis/policy/helper.go`) and the options of `pkg/registry/policy/poddisruptionbudget/strategy.go`
//! (`hasInvalidLabelValueInLabelSelector`).
//!
//! The strategy validates no object metadata: `rest.BeforeCreate` checks it (names as path
//! segments) only once the spec passed, which `builtin_validation` arranges.

use serde_json::Value;

use crate::semantics::condition_validation::conditions_errors;
use crate::semantics::deployment_strategy_validation::{int_or_percent_errors, int_or_string_go, percent_value};
use crate::semantics::field_error::{BadValue, FieldError, nonnegative};
use crate::semantics::label_selector_validation::label_selector_errors;

/// `policy.PDBV1beta1Label`: the label v1beta1 used to select nothing or everything.
const V1BETA1_LABEL: &str = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match";

/// `supportedUnhealthyPodEvictionPolicies.List()`: sorted.
const EVICTION_POLICIES: [&str; 2] = ["AlwaysAllow", "IfHealthyBudget"];

/// The v1 → internal conversion: unless the selector is exactly v1's match-all (`{}`) or
/// match-none (`Exists` of the v1beta1 label) selector, expressions on the v1beta1 label are
/// dropped, so that label never combines with what a user selects.
pub(crate) fn strip_v1beta1_label(pdb: &mut Value) {
    let Some(selector) = pdb.pointer_mut("/spec/selector").filter(|s| s.is_object()) else {
        return;
    };
    if is_match_all(selector) || is_match_none(selector) {
        return;
    }
    if let Some(expressions) = selector.get_mut("matchExpressions").and_then(Value::as_array_mut) {
        expressions.retain(|e| e.get("key").and_then(Value::as_str) != Some(V1BETA1_LABEL));
    }
}

/// Whether a list or map member is absent or empty (Go's `Semantic.DeepEqual` of nil and empty).
fn empty(selector: &Value, key: &str) -> bool {
    match selector.get(key) {
        None | Some(Value::Null) => true,
        Some(Value::Array(items)) => items.is_empty(),
        Some(Value::Object(map)) => map.is_empty(),
        Some(_) => false,
    }
}

/// `NonV1beta1MatchAllSelector`: `{}`.
fn is_match_all(selector: &Value) -> bool {
    empty(selector, "matchLabels") && empty(selector, "matchExpressions")
}

/// `NonV1beta1MatchNoneSelector`: one `Exists` expression on the v1beta1 label.
fn is_match_none(selector: &Value) -> bool {
    let expressions = selector.get("matchExpressions").and_then(Value::as_array);
    let [expression] = expressions.map_or(&[][..], Vec::as_slice) else {
        return false;
    };
    empty(selector, "matchLabels")
        && expression.get("key").and_then(Value::as_str) == Some(V1BETA1_LABEL)
        && expression.get("operator").and_then(Value::as_str) == Some("Exists")
        && empty(expression, "values")
}

/// The strategy's `Validate` (`old` absent) or `ValidateUpdate`: the spec, with selector
/// values left unchecked when the stored selector already fails.
pub(crate) fn spec_errors(pdb: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let lenient = old
        .and_then(|old| old.pointer("/spec/selector"))
        .is_some_and(|s| !s.is_null() && !label_selector_errors(s, "", false).is_empty());
    let spec = pdb.get("spec").unwrap_or(&Value::Null);
    let set = |key: &str| spec.get(key).filter(|v| !v.is_null());
    let mut errors = Vec::new();
    if set("minAvailable").is_some() && set("maxUnavailable").is_some() {
        errors.push(FieldError::invalid(
            "spec",
            spec_go(spec),
            "minAvailable and maxUnavailable cannot be both set",
        ));
    }
    for key in ["minAvailable", "maxUnavailable"] {
        if let Some(value) = set(key) {
            let path = format!("spec.{key}");
            errors.extend(int_or_percent_errors(value, &path));
            // `IsNotMoreThan100Percent`.
            if percent_value(value).is_some_and(|p| p > 100) {
                errors.push(FieldError::invalid(
                    path,
                    int_or_string_go(value),
                    "must not be greater than 100%",
                ));
            }
        }
    }
    errors.extend(label_selector_errors(
        spec.get("selector").unwrap_or(&Value::Null),
        "spec.selector",
        lenient,
    ));
    if let Some(policy) = set("unhealthyPodEvictionPolicy") {
        let policy = policy.as_str().unwrap_or_default();
        if !EVICTION_POLICIES.contains(&policy) {
            let supported = EVICTION_POLICIES.map(str::to_owned);
            errors.push(FieldError::not_supported(
                "spec.unhealthyPodEvictionPolicy",
                policy.into(),
                &supported,
            ));
        }
    }
    errors
}

/// Go's `%#v` of the internal `PodDisruptionBudgetSpec`: its members are pointers, printed as
/// addresses. The addresses are the Go heap's and differ on every request; a fixed one stands
/// for each that is set.
fn spec_go(spec: &Value) -> BadValue {
    let pointer = |key: &str, ty: &str| match spec.get(key).filter(|v| !v.is_null()) {
        Some(_) => format!("(*{ty})(0xc000000000)"),
        None => format!("(*{ty})(nil)"),
    };
    BadValue::Raw(format!(
        "policy.PodDisruptionBudgetSpec{{MinAvailable:{}, Selector:{}, MaxUnavailable:{}, UnhealthyPodEvictionPolicy:{}}}",
        pointer("minAvailable", "intstr.IntOrString"),
        pointer("selector", "v1.LabelSelector"),
        pointer("maxUnavailable", "intstr.IntOrString"),
        pointer("unhealthyPodEvictionPolicy", "policy.UnhealthyPodEvictionPolicyType"),
    ))
}

/// `ValidatePodDisruptionBudgetStatusUpdate` through policy/v1: the conditions, and counts
/// that are not negative.
pub(crate) fn status_update_errors(pdb: &Value) -> Vec<FieldError> {
    let status = pdb.get("status").unwrap_or(&Value::Null);
    let conditions = status.get("conditions").and_then(Value::as_array);
    let mut errors = conditions_errors(conditions.map_or(&[][..], Vec::as_slice), "status.conditions");
    for key in ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"] {
        let count = status.get(key).and_then(Value::as_i64).unwrap_or_default();
        errors.extend(nonnegative(count, &format!("status.{key}")));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn the_v1beta1_label_should_be_stripped_unless_it_selects_nothing() {
        let exists = json!({"key": V1BETA1_LABEL, "operator": "Exists"});
        let tier = json!({"key": "tier", "operator": "Exists"});
        let mut mixed = json!({"spec": {"selector": {"matchLabels": {"a": "b"}, "matchExpressions": [exists, tier]}}});
        strip_v1beta1_label(&mut mixed);
        assert_eq!(mixed["spec"]["selector"]["matchExpressions"], json!([tier]));
        let mut none = json!({"spec": {"selector": {"matchExpressions": [exists]}}});
        let kept = none.clone();
        strip_v1beta1_label(&mut none);
        assert_eq!(none, kept);
    }

    #[test]
    fn bounds_should_be_one_of_them_and_valid() {
        let pdb = json!({"spec": {"minAvailable": "150%", "maxUnavailable": "abc", "unhealthyPodEvictionPolicy": "Sometimes"}});
        let errors = rendered(spec_errors(&pdb, None));
        assert_eq!(
            errors[0],
            "spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000000000), Selector:(*v1.LabelSelector)(nil), MaxUnavailable:(*intstr.IntOrString)(0xc000000000), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(0xc000000000)}: minAvailable and maxUnavailable cannot be both set"
        );
        assert_eq!(
            errors[1],
            "spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"150%\"}: must not be greater than 100%"
        );
        assert!(errors[2].starts_with("spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"abc\"}: a valid percent string"));
        assert_eq!(
            errors[3],
            "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Sometimes\": supported values: \"AlwaysAllow\", \"IfHealthyBudget\""
        );
        assert_eq!(
            rendered(spec_errors(&json!({"spec": {"maxUnavailable": -3}}), None)),
            ["spec.maxUnavailable: Invalid value: -3: must be greater than or equal to 0"]
        );
        assert!(spec_errors(&json!({"spec": {}}), None).is_empty());
    }

    #[test]
    fn status_counts_should_not_be_negative() {
        let pdb = json!({"status": {"disruptionsAllowed": -1, "expectedPods": -4}});
        assert_eq!(
            rendered(status_update_errors(&pdb)),
            [
                "status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0",
                "status.expectedPods: Invalid value: -4: must be greater than or equal to 0",
            ]
        );
    }
}
