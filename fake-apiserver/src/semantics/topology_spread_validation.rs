//! A pod spec's topology spread constraints as `pkg/apis/core/validation/validation.go`
//! validates them: `validateTopologySpreadConstraints` with `ValidateMaxSkew`,
//! `ValidateTopologyKey`, `ValidateWhenUnsatisfiable`, `ValidateSpreadConstraintNotRepeat`,
//! `validateMinDomains`, `validateNodeInclusionPolicy` and the label keys (1.28's
//! `validateMatchLabelKeys`, renamed `validateMatchLabelKeysInTopologySpread` by 1.31 with the
//! same rules), and apimachinery's `ValidateLabelSelector`. The two minors check alike.

use std::collections::HashSet;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::label_selector_validation::label_selector_errors;
use crate::semantics::pod_host_validation::qualified;
use crate::storage::object;

/// `isNotPositiveErrorMsg`.
const NOT_POSITIVE: &str = "must be greater than zero";

/// `supportedScheduleActions`, sorted as `sets.List` gives them.
const SCHEDULE_ACTIONS: [&str; 2] = ["DoNotSchedule", "ScheduleAnyway"];

/// `supportedPodTopologySpreadNodePolicies`, sorted.
const NODE_POLICIES: [&str; 2] = ["Honor", "Ignore"];

/// `validateTopologySpreadConstraints` of the spec at `path`; `allow_invalid_selector` is
/// `AllowInvalidTopologySpreadConstraintLabelSelector` (the selectors are then not checked).
pub(crate) fn topology_spread_errors(spec: &Value, path: &str, allow_invalid_selector: bool) -> Vec<FieldError> {
    let constraints: Vec<&Value> = spec
        .get("topologySpreadConstraints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let mut errors = Vec::new();
    for (i, constraint) in constraints.iter().enumerate() {
        let at = format!("{path}.topologySpreadConstraints[{i}]");
        let (key, action) = (text(constraint, "topologyKey"), text(constraint, "whenUnsatisfiable"));
        let max_skew = constraint.get("maxSkew").and_then(Value::as_i64).unwrap_or(0);
        if max_skew <= 0 {
            errors.push(FieldError::invalid(
                format!("{at}.maxSkew"),
                BadValue::Int(max_skew),
                NOT_POSITIVE,
            ));
        }
        if key.is_empty() {
            errors.push(FieldError::required(format!("{at}.topologyKey"), "can not be empty"));
        }
        errors.extend(FieldError::unless_one_of(
            format!("{at}.whenUnsatisfiable"),
            action,
            &SCHEDULE_ACTIONS,
        ));
        // The pair {topologyKey, whenUnsatisfiable} is one kind of constraint: it is reported on
        // its first occurrence, once.
        let repeated = constraints[i + 1..]
            .iter()
            .any(|rest| text(rest, "topologyKey") == key && text(rest, "whenUnsatisfiable") == action);
        if repeated {
            errors.push(FieldError::duplicate(
                format!("{at}.{{topologyKey, whenUnsatisfiable}}"),
                format!("{{{key}, {action}}}").as_str().into(),
            ));
        }
        if let Some(min_domains) = object::present(constraint, "minDomains") {
            errors.extend(min_domains_errors(min_domains, action, &format!("{at}.minDomains")));
        }
        for policy in ["nodeAffinityPolicy", "nodeTaintsPolicy"] {
            if let Some(value) = object::present(constraint, policy) {
                let value = value.as_str().unwrap_or_default();
                errors.extend(FieldError::unless_one_of(
                    format!("{at}.{policy}"),
                    value,
                    &NODE_POLICIES,
                ));
            }
        }
        let selector = object::present(constraint, "labelSelector");
        errors.extend(match_label_keys_errors(
            constraint,
            selector,
            &format!("{at}.matchLabelKeys"),
        ));
        if !allow_invalid_selector && let Some(selector) = selector {
            errors.extend(label_selector_errors(selector, &format!("{at}.labelSelector"), false));
        }
    }
    errors
}

/// `validateMinDomains` of a set `minDomains`: positive, and only with `DoNotSchedule`.
fn min_domains_errors(min_domains: &Value, action: &str, at: &str) -> Vec<FieldError> {
    let value = min_domains.as_i64().unwrap_or(0);
    let mut errors = Vec::new();
    if value <= 0 {
        errors.push(FieldError::invalid(at, BadValue::Int(value), NOT_POSITIVE));
    }
    if action != "DoNotSchedule" {
        errors.push(FieldError::invalid(
            at,
            BadValue::Int(value),
            format!("can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"),
        ));
    }
    errors
}

/// `validateMatchLabelKeys`: keys need a label selector, are label names, and are not among
/// the selector's own keys.
fn match_label_keys_errors(constraint: &Value, selector: Option<&Value>, at: &str) -> Vec<FieldError> {
    let keys = object::string_list(constraint.get("matchLabelKeys"));
    if keys.is_empty() {
        return Vec::new();
    }
    let mut errors = Vec::new();
    let mut selector_keys = HashSet::new();
    match selector {
        Some(selector) => {
            let labels = selector.get("matchLabels").and_then(Value::as_object);
            selector_keys.extend(labels.into_iter().flatten().map(|(key, _)| key.as_str()));
            let expressions = selector.get("matchExpressions").and_then(Value::as_array);
            selector_keys.extend(expressions.into_iter().flatten().map(|e| text(e, "key")));
        }
        None => errors.push(FieldError::forbidden(
            at,
            "must not be specified when labelSelector is not set",
        )),
    }
    for (i, key) in keys.iter().enumerate() {
        let key_at = format!("{at}[{i}]");
        errors.extend(qualified(key, &key_at));
        if selector_keys.contains(key.as_str()) {
            errors.push(FieldError::invalid(
                key_at,
                key.as_str().into(),
                "exists in both matchLabelKeys and labelSelector",
            ));
        }
    }
    errors
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    fn errors(constraints: Value) -> Vec<String> {
        rendered(topology_spread_errors(
            &json!({ "topologySpreadConstraints": constraints }),
            "spec",
            false,
        ))
    }

    #[test]
    fn each_constraint_should_be_checked_in_gos_order() {
        let got = errors(json!([
            {"topologyKey": "", "whenUnsatisfiable": "", "minDomains": 0, "nodeTaintsPolicy": ""},
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "nodeAffinityPolicy": "Honor"}
        ]));
        assert_eq!(
            got,
            [
                "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
                "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty",
                "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: \"\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
                "spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: must be greater than zero",
                "spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ",
                "spec.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported value: \"\": supported values: \"Honor\", \"Ignore\"",
            ]
        );
    }

    #[test]
    fn a_repeated_pair_should_be_reported_on_its_first_constraint_only() {
        let one = json!({"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"});
        let other = json!({"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"});
        assert_eq!(
            errors(json!([one, other, one, one])),
            [
                "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: \"{zone, ScheduleAnyway}\"",
                "spec.topologySpreadConstraints[2].{topologyKey, whenUnsatisfiable}: Duplicate value: \"{zone, ScheduleAnyway}\"",
            ]
        );
    }

    #[test]
    fn match_label_keys_should_need_a_selector_without_them() {
        let base = json!({"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"});
        let mut without = base.clone();
        without["matchLabelKeys"] = json!(["app"]);
        assert_eq!(
            errors(json!([without])),
            [
                "spec.topologySpreadConstraints[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"
            ]
        );
        let mut with = base;
        with["matchLabelKeys"] = json!(["ver", "tier"]);
        with["labelSelector"] = json!({"matchExpressions": [{"key": "tier", "operator": "Exists"}, {"key": "Bad Key", "operator": "Exists"}]});
        let got = errors(json!([with.clone()]));
        assert_eq!(got.len(), 2, "{got:#?}");
        assert_eq!(
            got[0],
            "spec.topologySpreadConstraints[0].matchLabelKeys[1]: Invalid value: \"tier\": exists in both matchLabelKeys and labelSelector"
        );
        assert!(got[1].starts_with(
            "spec.topologySpreadConstraints[0].labelSelector.matchExpressions[1].key: Invalid value: \"Bad Key\""
        ));
        let lenient = topology_spread_errors(&json!({ "topologySpreadConstraints": [with] }), "spec", true);
        assert_eq!(lenient.len(), 1);
    }
}
