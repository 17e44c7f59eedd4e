//! Node selectors as `pkg/apis/core/validation/validation.go` validates them
//! (`ValidateNodeSelector`, `ValidateNodeSelectorTerm`, `ValidateNodeSelectorRequirement`,
//! `ValidateNodeFieldSelectorRequirement`), for a PersistentVolume's node affinity and a pod's
//! (`pod_affinity_validation`).

use serde_json::Value;

use crate::semantics::field_error::FieldError;
use crate::semantics::names;
use crate::storage::object;

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `ValidateNodeSelector` of the selector at `at`.
pub(crate) fn node_selector_errors(selector: &Value, at: &str) -> Vec<FieldError> {
    let terms_at = format!("{at}.nodeSelectorTerms");
    let terms = selector.get("nodeSelectorTerms").and_then(Value::as_array);
    let Some(terms) = terms.filter(|t| !t.is_empty()) else {
        return vec![FieldError::required(
            terms_at,
            "must have at least one node selector term",
        )];
    };
    let mut errors = Vec::new();
    for (i, term) in terms.iter().enumerate() {
        errors.extend(node_selector_term_errors(term, &format!("{terms_at}[{i}]")));
    }
    errors
}

/// `ValidateNodeSelectorTerm` of the term at `at`: its label expressions, then its field ones.
pub(crate) fn node_selector_term_errors(term: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let list = |key: &str| term.get(key).and_then(Value::as_array).into_iter().flatten();
    for (j, requirement) in list("matchExpressions").enumerate() {
        errors.extend(requirement_errors(requirement, &format!("{at}.matchExpressions[{j}]")));
    }
    for (j, requirement) in list("matchFields").enumerate() {
        errors.extend(field_requirement_errors(requirement, &format!("{at}.matchFields[{j}]")));
    }
    errors
}

/// `ValidateNodeSelectorRequirement`: the values its operator takes, and the key a label name.
fn requirement_errors(requirement: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let values = object::string_list(requirement.get("values"));
    let operator = text(requirement, "operator");
    match operator {
        "In" | "NotIn" if values.is_empty() => errors.push(FieldError::required(
            format!("{at}.values"),
            "must be specified when `operator` is 'In' or 'NotIn'",
        )),
        "Exists" | "DoesNotExist" if !values.is_empty() => errors.push(FieldError::forbidden(
            format!("{at}.values"),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        )),
        "Gt" | "Lt" if values.len() != 1 => errors.push(FieldError::required(
            format!("{at}.values"),
            "must be specified single value when `operator` is 'Lt' or 'Gt'",
        )),
        "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
        other => errors.push(FieldError::invalid(
            format!("{at}.operator"),
            other.into(),
            "not a valid selector operator",
        )),
    }
    // `ValidateLabelName`.
    let key = text(requirement, "key");
    for why in names::qualified_name_errors(key) {
        errors.push(FieldError::invalid(format!("{at}.key"), key.into(), why));
    }
    errors
}

/// `ValidateNodeFieldSelectorRequirement`: one value of `In`/`NotIn`, on `metadata.name`, a
/// node name.
fn field_requirement_errors(requirement: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let values = object::string_list(requirement.get("values"));
    match text(requirement, "operator") {
        "In" | "NotIn" if values.len() != 1 => errors.push(FieldError::required(
            format!("{at}.values"),
            "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        )),
        "In" | "NotIn" => {}
        other => errors.push(FieldError::invalid(
            format!("{at}.operator"),
            other.into(),
            "not a valid selector operator",
        )),
    }
    let key = text(requirement, "key");
    if key == "metadata.name" {
        for (i, value) in values.iter().enumerate() {
            for why in names::dns1123_subdomain_errors(value) {
                errors.push(FieldError::invalid(
                    format!("{at}.values[{i}]"),
                    value.as_str().into(),
                    why,
                ));
            }
        }
    } else {
        errors.push(FieldError::invalid(
            format!("{at}.key"),
            key.into(),
            "not a valid field selector key",
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(|e| e.field.clone()).collect()
    }

    #[test]
    fn node_selectors_should_be_checked_term_by_term() {
        let selector = json!({"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Gt", "values": []}],
            "matchFields": [{"key": "spec.x", "operator": "In", "values": ["a"]}]}]});
        assert_eq!(
            fields(&node_selector_errors(&selector, "r")),
            [
                "r.nodeSelectorTerms[0].matchExpressions[0].values",
                "r.nodeSelectorTerms[0].matchFields[0].key"
            ]
        );
        assert_eq!(fields(&node_selector_errors(&json!({}), "r")), ["r.nodeSelectorTerms"]);
    }
}
