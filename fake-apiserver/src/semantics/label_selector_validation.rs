//! A `metav1.LabelSelector` in a built-in kind's spec, as apimachinery checks and reads it
//! (`staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go`:
//! `ValidateLabelSelector`, `ValidateLabelSelectorRequirement`, `ValidateLabels`;
//! `pkg/apis/meta/v1/helpers.go`: `LabelSelectorAsSelector`), and Go's `%#v` of one, which the
//! field errors about a whole selector print.

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names::{label_value_errors, qualified_name_errors};
use crate::semantics::selector::{LabelSelector, label_selector_text};

/// `ValidateLabelSelector` of the selector at `path`; `lenient_values` is
/// `AllowInvalidLabelValueInSelector` (expression values are then not checked).
pub(crate) fn label_selector_errors(selector: &Value, path: &str, lenient_values: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if selector.is_null() {
        return errors;
    }
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        errors.extend(labels_errors(labels, &format!("{path}.matchLabels")));
    }
    let expressions = selector.get("matchExpressions").and_then(Value::as_array);
    for (i, expression) in expressions.into_iter().flatten().enumerate() {
        let at = format!("{path}.matchExpressions[{i}]");
        errors.extend(requirement_errors(expression, &at, lenient_values));
    }
    errors
}

/// `ValidateLabels`: every key a qualified name and every value a label value, each error on
/// the map's own path (Go does not index it by key).
fn labels_errors(labels: &Map<String, Value>, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    // Go ranges over the map in random order; sorting keeps answers stable.
    let mut keys: Vec<&String> = labels.keys().collect();
    keys.sort();
    for key in keys {
        for why in qualified_name_errors(key) {
            errors.push(FieldError::invalid(path, key.as_str().into(), why));
        }
        let value = labels[key].as_str().unwrap_or_default();
        for why in label_value_errors(value) {
            errors.push(FieldError::invalid(path, value.into(), why));
        }
    }
    errors
}

/// `ValidateLabelSelectorRequirement`: the operator and its values, the key, the values.
fn requirement_errors(expression: &Value, path: &str, lenient_values: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let text = |key: &str| expression.get(key).and_then(Value::as_str).unwrap_or_default();
    let values: Vec<&str> = expression
        .get("values")
        .and_then(Value::as_array)
        .map(|items| items.iter().map(|v| v.as_str().unwrap_or_default()).collect())
        .unwrap_or_default();
    match text("operator") {
        "In" | "NotIn" if values.is_empty() => errors.push(FieldError::required(
            format!("{path}.values"),
            "must be specified when `operator` is 'In' or 'NotIn'",
        )),
        "Exists" | "DoesNotExist" if !values.is_empty() => errors.push(FieldError::forbidden(
            format!("{path}.values"),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        )),
        "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
        other => errors.push(FieldError::invalid(
            format!("{path}.operator"),
            other.into(),
            "not a valid selector operator",
        )),
    }
    for why in qualified_name_errors(text("key")) {
        errors.push(FieldError::invalid(format!("{path}.key"), text("key").into(), why));
    }
    if !lenient_values {
        for (i, value) in values.iter().enumerate() {
            for why in label_value_errors(value) {
                errors.push(FieldError::invalid(format!("{path}.values[{i}]"), (*value).into(), why));
            }
        }
    }
    errors
}

/// Whether `LabelSelectorAsSelector` fails: it builds one requirement per label and
/// expression and refuses exactly what the strict `ValidateLabelSelector` refuses (a key that
/// is no qualified name, a value that is no label value, an unknown operator, values missing
/// for `In`/`NotIn` or given for `Exists`/`DoesNotExist`).
pub(crate) fn selector_fails(selector: &Value) -> bool {
    !selector.is_null() && !label_selector_errors(selector, "", false).is_empty()
}

/// `LabelSelectorHasInvalidLabelValue`: an expression value that is no label value (what
/// `AllowInvalidLabelValueInSelector` lets a stored selector keep).
pub(crate) fn has_invalid_label_value(selector: &Value) -> bool {
    let strict = label_selector_errors(selector, "", false).len();
    strict != label_selector_errors(selector, "", true).len()
}

/// Whether the selector at hand selects `labels` the way the workload validations use it:
/// a missing selector is `labels.Nothing()` (selects nothing), an empty one
/// `labels.Everything()`.
pub(crate) fn selects(selector: Option<&Value>, labels: &Map<String, Value>) -> bool {
    as_selector(selector).is_some_and(|s| s.matches(Some(labels)))
}

/// `LabelSelectorAsSelector`, once, for a controller that matches many objects against one
/// selector; `None` for a missing or unparsable selector, which selects nothing.
pub(crate) fn as_selector(selector: Option<&Value>) -> Option<LabelSelector> {
    let selector = selector.filter(|s| !s.is_null())?;
    LabelSelector::parse(&label_selector_text(selector)).ok()
}

/// Whether a present selector is empty (`selector.Empty()`: no labels and no expressions).
pub(crate) fn is_empty_selector(selector: &Value) -> bool {
    let count = |key: &str| {
        selector.get(key).map_or(0, |v| match v {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        })
    };
    count("matchLabels") + count("matchExpressions") == 0
}

/// Go's `%#v` of a `map[string]string`, keys sorted as fmt sorts them; `nil` for none.
pub(crate) fn string_map_go(map: Option<&Map<String, Value>>) -> String {
    let Some(map) = map else {
        return "map[string]string(nil)".to_owned();
    };
    let mut entries: Vec<(&String, &str)> = map.iter().map(|(k, v)| (k, v.as_str().unwrap_or_default())).collect();
    entries.sort();
    let shown: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{}:{}", go_str(k), go_str(v)))
        .collect();
    format!("map[string]string{{{}}}", shown.join(", "))
}

/// Go's `%#v` of a `[]string` that may be nil (absent) or empty.
fn strings_go(value: Option<&Value>) -> String {
    match value.and_then(Value::as_array) {
        None => "[]string(nil)".to_owned(),
        Some(items) => {
            let shown: Vec<String> = items.iter().map(|v| go_str(v.as_str().unwrap_or_default())).collect();
            format!("[]string{{{}}}", shown.join(", "))
        }
    }
}

fn go_str(s: &str) -> String {
    crate::semantics::field_error::go_quote(s)
}

/// Go's `%#v` of a `v1.LabelSelector` (field errors dereference the pointer they are given).
pub(crate) fn label_selector_go(selector: &Value) -> BadValue {
    let labels = string_map_go(selector.get("matchLabels").and_then(Value::as_object));
    let expressions = match selector.get("matchExpressions").and_then(Value::as_array) {
        None => "[]v1.LabelSelectorRequirement(nil)".to_owned(),
        Some(items) => {
            let shown: Vec<String> = items
                .iter()
                .map(|e| {
                    let text = |key: &str| go_str(e.get(key).and_then(Value::as_str).unwrap_or_default());
                    format!(
                        "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{}}}",
                        text("key"),
                        text("operator"),
                        strings_go(e.get("values"))
                    )
                })
                .collect();
            format!("[]v1.LabelSelectorRequirement{{{}}}", shown.join(", "))
        }
    };
    BadValue::Raw(format!(
        "v1.LabelSelector{{MatchLabels:{labels}, MatchExpressions:{expressions}}}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn expressions_should_be_checked_by_operator() {
        let selector = json!({"matchExpressions": [
            {"key": "app", "operator": "In", "values": []},
            {"key": "tier", "operator": "Maybe"},
            {"key": "zone", "operator": "Exists", "values": ["a"]}]});
        let fields: Vec<String> = label_selector_errors(&selector, "spec.selector", false)
            .iter()
            .map(|e| e.field.clone())
            .collect();
        assert_eq!(
            fields,
            [
                "spec.selector.matchExpressions[0].values",
                "spec.selector.matchExpressions[1].operator",
                "spec.selector.matchExpressions[2].values"
            ]
        );
        assert!(selector_fails(&selector));
        assert!(!selector_fails(&json!({"matchLabels": {"a": "b"}})));
    }

    #[test]
    fn a_missing_selector_should_select_nothing_and_an_empty_one_everything() {
        let labels = json!({"app": "x"}).as_object().cloned().unwrap_or_default();
        assert!(!selects(None, &labels));
        assert!(selects(Some(&json!({})), &labels));
        assert!(is_empty_selector(&json!({"matchLabels": {}})));
        assert_eq!(
            label_selector_go(&json!({"matchLabels": {"b": "2", "a": "1"}})),
            BadValue::Raw(
                "v1.LabelSelector{MatchLabels:map[string]string{\"a\":\"1\", \"b\":\"2\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}"
                    .to_owned()
            )
        );
    }
}
