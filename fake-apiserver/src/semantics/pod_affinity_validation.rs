//! A pod spec's affinity as `pkg/apis/core/validation/validation.go` validates it:
//! `validateAffinity`, `validateNodeAffinity` and `ValidatePreferredSchedulingTerms` (the node
//! selectors themselves are `node_selector_validation`'s), `validatePodAffinity`,
//! `validatePodAntiAffinity`, `validatePodAffinityTerms`, `validateWeightedPodAffinityTerms`,
//! `validatePodAffinityTerm` and `ValidatePodAffinityTermSelector` (apimachinery's
//! `ValidateLabelSelector`, `label_selector_validation`), and 1.31's
//! `validateMatchLabelKeysAndMismatchLabelKeys` and `validateLabelKeys` (1.28's terms have no
//! label keys).

use std::collections::HashSet;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::label_selector_validation::label_selector_errors;
use crate::semantics::names;
use crate::semantics::node_selector_validation::{node_selector_errors, node_selector_term_errors};
use crate::semantics::pod_host_validation::qualified;
use crate::storage::object;

/// The term lists of a pod affinity or anti-affinity; the `…RequiredDuringExecution` ones
/// are not implemented, and Go leaves them unchecked.
const REQUIRED: &str = "requiredDuringSchedulingIgnoredDuringExecution";
const PREFERRED: &str = "preferredDuringSchedulingIgnoredDuringExecution";

/// `validateAffinity` of the spec at `path` on the Kubernetes `minor`;
/// `allow_invalid_label_value` is `AllowInvalidLabelValueInSelector`.
pub(crate) fn affinity_errors(
    spec: &Value,
    path: &str,
    allow_invalid_label_value: bool,
    minor: u32,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let Some(affinity) = object::present(spec, "affinity") else {
        return errors;
    };
    let at = format!("{path}.affinity");
    if let Some(node) = object::present(affinity, "nodeAffinity") {
        errors.extend(node_affinity_errors(node, &format!("{at}.nodeAffinity")));
    }
    // `validatePodAffinity` and `validatePodAntiAffinity` check the same two lists alike.
    let terms = TermCheck {
        allow_invalid_label_value,
        minor,
    };
    for kind in ["podAffinity", "podAntiAffinity"] {
        if let Some(pod) = object::present(affinity, kind) {
            errors.extend(terms.pod_affinity_errors(pod, &format!("{at}.{kind}")));
        }
    }
    errors
}

/// `validateNodeAffinity`: the required node selector, then the weighted preferences.
fn node_affinity_errors(node: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(required) = object::present(node, REQUIRED) {
        errors.extend(node_selector_errors(required, &format!("{at}.{REQUIRED}")));
    }
    // `ValidatePreferredSchedulingTerms`.
    for (i, term) in items(node, PREFERRED).enumerate() {
        let term_at = format!("{at}.{PREFERRED}[{i}]");
        errors.extend(weight_errors(term, &term_at));
        let preference = term.get("preference").unwrap_or(&Value::Null);
        errors.extend(node_selector_term_errors(preference, &format!("{term_at}.preference")));
    }
    errors
}

/// A weighted term's weight, 1–100 (an unset one is Go's 0).
fn weight_errors(term: &Value, at: &str) -> Option<FieldError> {
    let weight = term.get("weight").and_then(Value::as_i64).unwrap_or(0);
    (!(1..=100).contains(&weight)).then(|| {
        FieldError::invalid(
            format!("{at}.weight"),
            BadValue::Int(weight),
            "must be in the range 1-100",
        )
    })
}

/// What every pod affinity term is checked with.
struct TermCheck {
    /// `AllowInvalidLabelValueInSelector`.
    allow_invalid_label_value: bool,
    minor: u32,
}

impl TermCheck {
    /// `validatePodAffinity` / `validatePodAntiAffinity`: the required terms, then the
    /// weighted ones.
    fn pod_affinity_errors(&self, affinity: &Value, at: &str) -> Vec<FieldError> {
        let mut errors = Vec::new();
        for (i, term) in items(affinity, REQUIRED).enumerate() {
            errors.extend(self.term_errors(term, &format!("{at}.{REQUIRED}[{i}]")));
        }
        // `validateWeightedPodAffinityTerms`.
        for (i, weighted) in items(affinity, PREFERRED).enumerate() {
            let weighted_at = format!("{at}.{PREFERRED}[{i}]");
            errors.extend(weight_errors(weighted, &weighted_at));
            let term = weighted.get("podAffinityTerm").unwrap_or(&Value::Null);
            errors.extend(self.term_errors(term, &format!("{weighted_at}.podAffinityTerm")));
        }
        errors
    }

    /// `validatePodAffinityTerm`: the selectors, the namespaces (reported on `namespace`, as
    /// Go names it), 1.31's label keys, the topology key.
    fn term_errors(&self, term: &Value, at: &str) -> Vec<FieldError> {
        let selector = object::present(term, "labelSelector");
        // `ValidatePodAffinityTermSelector`.
        let mut errors = Vec::new();
        for (key, selector) in [
            ("labelSelector", selector),
            ("namespaceSelector", object::present(term, "namespaceSelector")),
        ] {
            if let Some(selector) = selector {
                errors.extend(label_selector_errors(
                    selector,
                    &format!("{at}.{key}"),
                    self.allow_invalid_label_value,
                ));
            }
        }
        for namespace in object::string_list(term.get("namespaces")) {
            for why in names::dns1123_label_errors(&namespace) {
                errors.push(FieldError::invalid(
                    format!("{at}.namespace"),
                    namespace.as_str().into(),
                    why,
                ));
            }
        }
        if self.minor >= 31 {
            errors.extend(label_keys_errors(term, selector, at));
        }
        let topology_key = term.get("topologyKey").and_then(Value::as_str).unwrap_or_default();
        if topology_key.is_empty() {
            errors.push(FieldError::required(format!("{at}.topologyKey"), "can not be empty"));
        }
        errors.extend(qualified(topology_key, &format!("{at}.topologyKey")));
        errors
    }
}

/// 1.31's `validateMatchLabelKeysAndMismatchLabelKeys` of the term at `at`.
fn label_keys_errors(term: &Value, selector: Option<&Value>, at: &str) -> Vec<FieldError> {
    let match_keys = object::string_list(term.get("matchLabelKeys"));
    let mismatch_keys = object::string_list(term.get("mismatchLabelKeys"));
    let mut errors = Vec::new();
    for (field, keys) in [("matchLabelKeys", &match_keys), ("mismatchLabelKeys", &mismatch_keys)] {
        errors.extend(valid_label_keys(keys, selector, &format!("{at}.{field}")));
    }
    // By now the pod strategy has added an expression per matched key (`pod_affinity_strategy`):
    // a key the selector already had shows as an expression on a key seen before. Go reports
    // it at the term's own path indexed by the key's (last) place in matchLabelKeys.
    if let Some(selector) = selector {
        let mut seen: HashSet<&str> = selector
            .get("matchLabels")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(key, _)| key.as_str())
            .collect();
        for expression in items(selector, "matchExpressions") {
            let key = expression.get("key").and_then(Value::as_str).unwrap_or_default();
            let place = match_keys.iter().rposition(|k| k == key);
            if let Some(i) = place.filter(|_| seen.contains(key)) {
                errors.push(FieldError::invalid(
                    format!("{at}[{i}]"),
                    key.into(),
                    "exists in both matchLabelKeys and labelSelector",
                ));
            }
            seen.insert(key);
        }
    }
    for (i, key) in match_keys.iter().enumerate() {
        if mismatch_keys.contains(key) {
            errors.push(FieldError::invalid(
                format!("{at}.matchLabelKeys[{i}]"),
                key.as_str().into(),
                "exists in both matchLabelKeys and mismatchLabelKeys",
            ));
        }
    }
    errors
}

/// `validateLabelKeys`: keys need a label selector, and each is a label name.
fn valid_label_keys(keys: &[String], selector: Option<&Value>, at: &str) -> Vec<FieldError> {
    if keys.is_empty() {
        return Vec::new();
    }
    if selector.is_none() {
        return vec![FieldError::forbidden(
            at,
            "must not be specified when labelSelector is not set",
        )];
    }
    keys.iter()
        .enumerate()
        .flat_map(|(i, key)| qualified(key, &format!("{at}[{i}]")))
        .collect()
}

fn items<'v>(value: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    value.get(key).and_then(Value::as_array).into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    fn errors(affinity: Value, minor: u32) -> Vec<String> {
        rendered(affinity_errors(&json!({ "affinity": affinity }), "spec", false, minor))
    }

    #[test]
    fn node_affinity_should_check_the_selector_then_each_weighted_preference() {
        let affinity = json!({"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []},
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 0, "preference": {"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}},
                {"weight": 100, "preference": {}}]}});
        assert_eq!(
            errors(affinity, 28),
            [
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term",
                "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100",
                "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchFields[0].operator: Invalid value: \"Exists\": not a valid selector operator",
            ]
        );
    }

    #[test]
    fn a_pod_affinity_term_should_have_a_topology_key_and_valid_namespaces() {
        let affinity = json!({"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "", "namespaces": ["ok", "Bad"]}],
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 101, "podAffinityTerm": {
                "topologyKey": "zone", "namespaceSelector": {"matchExpressions": [{"key": "k", "operator": "Exists", "values": ["v"]}]}}}]}});
        let got = errors(affinity, 28);
        assert_eq!(got.len(), 6, "{got:#?}");
        assert!(got[0].starts_with(
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespace: Invalid value: \"Bad\": a lowercase RFC 1123 label"
        ));
        assert_eq!(
            got[1],
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty"
        );
        assert_eq!(
            got[2],
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must be non-empty"
        );
        assert_eq!(
            got[4..],
            [
                "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100",
                "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ]
        );
    }

    #[test]
    fn selector_values_should_be_lenient_only_when_allowed() {
        let spec = json!({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "zone", "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["bad value!"]}]}}]}}});
        assert_eq!(affinity_errors(&spec, "spec", false, 28).len(), 1);
        assert!(affinity_errors(&spec, "spec", true, 28).is_empty());
    }

    #[test]
    fn label_keys_should_be_checked_from_1_31_as_go_words_them() {
        // As the pod strategy leaves it: `app` was both selected and matched, so its
        // expression follows the label it duplicates.
        let term = json!({"topologyKey": "zone", "matchLabelKeys": ["bad key!", "app"], "mismatchLabelKeys": ["app"],
            "labelSelector": {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}});
        let affinity = json!({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}});
        assert!(errors(affinity.clone(), 28).is_empty());
        let at = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]";
        assert_eq!(
            errors(affinity, 31),
            [
                format!(
                    "{at}.matchLabelKeys[0]: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
                ),
                format!("{at}[1]: Invalid value: \"app\": exists in both matchLabelKeys and labelSelector"),
                format!(
                    "{at}.matchLabelKeys[1]: Invalid value: \"app\": exists in both matchLabelKeys and mismatchLabelKeys"
                ),
            ]
        );
        let without_selector = json!({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "zone", "mismatchLabelKeys": ["app"]}]}});
        assert_eq!(
            errors(without_selector, 31),
            [format!(
                "{at}.mismatchLabelKeys: Forbidden: must not be specified when labelSelector is not set"
            )]
        );
    }
}
