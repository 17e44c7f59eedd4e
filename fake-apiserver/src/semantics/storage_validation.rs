//! StorageClasses and CSIStorageCapacities validated as kube-apiserver validates them
//! (`pkg/apis/storage/validation/validation.go`: `ValidateStorageClass(Update)`,
//! `ValidateCSIStorageCapacity(Update)`, with `ValidateTopologySelectorTerm` of
//! `pkg/apis/core/validation`); object names are checked with every kind's metadata.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::semantics::config_validation::too_long;
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::label_selector_validation::{label_selector_errors, label_selector_go, selector_fails};
use crate::semantics::names::{dns1123_subdomain_errors, qualified_name_errors};
use crate::semantics::quantity::Quantity;

/// `maxProvisionerParameterLen` and `maxProvisionerParameterSize`.
const MAX_PARAMETERS: usize = 512;
const MAX_PARAMETERS_SIZE: usize = 256 * (1 << 10);

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `ValidateStorageClass` less its metadata.
pub(crate) fn storage_class_errors(class: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let provisioner = text(class, "provisioner");
    if provisioner.is_empty() {
        errors.push(FieldError::required("provisioner", ""));
    } else {
        let lowered = provisioner.to_lowercase();
        for why in qualified_name_errors(&lowered) {
            errors.push(FieldError::invalid("provisioner", lowered.as_str().into(), why));
        }
    }
    errors.extend(parameters_errors(class.get("parameters").and_then(Value::as_object)));
    // Defaulting set both: an empty reclaim policy is the only unset one left.
    let reclaim = text(class, "reclaimPolicy");
    if !reclaim.is_empty() && !matches!(reclaim, "Delete" | "Retain") {
        errors.push(FieldError::not_supported(
            "reclaimPolicy",
            reclaim.into(),
            &["Delete".to_owned(), "Retain".to_owned()],
        ));
    }
    match class.get("volumeBindingMode").and_then(Value::as_str) {
        None => errors.push(FieldError::required("volumeBindingMode", "")),
        Some("Immediate" | "WaitForFirstConsumer") => {}
        Some(mode) => errors.push(FieldError::not_supported(
            "volumeBindingMode",
            mode.into(),
            &["Immediate".to_owned(), "WaitForFirstConsumer".to_owned()],
        )),
    }
    let topologies = class.get("allowedTopologies").and_then(Value::as_array);
    errors.extend(allowed_topologies_errors(topologies.map_or(&[][..], Vec::as_slice)));
    errors
}

/// `validateParameters` (a StorageClass may have none): no more than 512, no empty key, 256 kB
/// in all.
fn parameters_errors(parameters: Option<&serde_json::Map<String, Value>>) -> Vec<FieldError> {
    let Some(parameters) = parameters else {
        return Vec::new();
    };
    if parameters.len() > MAX_PARAMETERS {
        return vec![too_long("parameters", MAX_PARAMETERS)];
    }
    let mut errors = Vec::new();
    let mut size = 0;
    for (key, value) in parameters {
        if key.is_empty() {
            errors.push(FieldError::invalid("parameters", "".into(), "field can not be empty."));
        }
        size += key.len() + value.as_str().map_or(0, str::len);
    }
    if size > MAX_PARAMETERS_SIZE {
        errors.push(too_long("parameters", MAX_PARAMETERS_SIZE));
    }
    errors
}

/// `validateAllowedTopologies`. Go seeds its list of seen terms with one nil map per term
/// before appending (`make(…, len(topologies))`), and nil equals an empty map semantically: a
/// term without expressions is a duplicate once for each term of the class.
fn allowed_topologies_errors(terms: &[Value]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut seen: Vec<BTreeMap<String, BTreeSet<String>>> = vec![BTreeMap::new(); terms.len()];
    for (i, term) in terms.iter().enumerate() {
        let at = format!("allowedTopologies[{i}]");
        let (expressions, term_errors) = topology_selector_term(term, &at);
        errors.extend(term_errors);
        for earlier in &seen {
            if *earlier == expressions {
                errors.push(FieldError::duplicate(format!("{at}.matchLabelExpressions"), "".into()));
            }
        }
        seen.push(expressions);
    }
    errors
}

/// `ValidateTopologySelectorTerm`: each requirement's values (required, a set) and key, no key
/// twice; returns the term's key → values map.
fn topology_selector_term(term: &Value, at: &str) -> (BTreeMap<String, BTreeSet<String>>, Vec<FieldError>) {
    let mut errors = Vec::new();
    let mut expressions = BTreeMap::new();
    let requirements = term.get("matchLabelExpressions").and_then(Value::as_array);
    for (i, requirement) in requirements.into_iter().flatten().enumerate() {
        let path = format!("{at}.matchLabelExpressions[{i}]");
        let values: Vec<&str> = requirement
            .get("values")
            .and_then(Value::as_array)
            .map(|v| v.iter().map(|s| s.as_str().unwrap_or_default()).collect())
            .unwrap_or_default();
        if values.is_empty() {
            errors.push(FieldError::required(format!("{path}.values"), ""));
        }
        let mut set = BTreeSet::new();
        for (j, value) in values.iter().enumerate() {
            if !set.insert((*value).to_owned()) {
                errors.push(FieldError::duplicate(format!("{path}.values[{j}]"), (*value).into()));
            }
        }
        let key = text(requirement, "key");
        for why in qualified_name_errors(key) {
            errors.push(FieldError::invalid(format!("{path}.key"), key.into(), why));
        }
        if expressions.insert(key.to_owned(), set).is_some() {
            errors.push(FieldError::duplicate(format!("{path}.key"), key.into()));
        }
    }
    (expressions, errors)
}

/// `ValidateStorageClassUpdate`: parameters, provisioner and reclaim policy may not change,
/// nor the binding mode.
pub(crate) fn storage_class_update_errors(class: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = storage_class_errors(class);
    let empty = |v: Option<&Value>| v.is_none_or(|v| v.as_object().is_some_and(serde_json::Map::is_empty));
    let (parameters, old_parameters) = (class.get("parameters"), old.get("parameters"));
    if parameters != old_parameters && !(empty(parameters) && empty(old_parameters)) {
        errors.push(FieldError::forbidden(
            "parameters",
            "updates to parameters are forbidden.",
        ));
    }
    if text(class, "provisioner") != text(old, "provisioner") {
        errors.push(FieldError::forbidden(
            "provisioner",
            "updates to provisioner are forbidden.",
        ));
    }
    if text(class, "reclaimPolicy") != text(old, "reclaimPolicy") {
        errors.push(FieldError::forbidden(
            "reclaimPolicy",
            "updates to reclaimPolicy are forbidden.",
        ));
    }
    let mode = class.get("volumeBindingMode").and_then(Value::as_str);
    if mode != old.get("volumeBindingMode").and_then(Value::as_str) {
        // `ValidateImmutableField` of a `*VolumeBindingMode`: the pointer is dereferenced.
        let shown = mode.map_or(
            BadValue::Raw("(*storage.VolumeBindingMode)(nil)".to_owned()),
            BadValue::from,
        );
        errors.push(FieldError::invalid("volumeBindingMode", shown, "field is immutable"));
    }
    errors
}

/// `ValidateCSIStorageCapacity` less its metadata; `lenient_values` is
/// `AllowInvalidLabelValueInSelector`.
pub(crate) fn csi_storage_capacity_errors(capacity: &Value, lenient_values: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(topology) = capacity.get("nodeTopology").filter(|t| t.is_object()) {
        errors.extend(label_selector_errors(topology, "nodeTopology", lenient_values));
    }
    let class = text(capacity, "storageClassName");
    for why in dns1123_subdomain_errors(class) {
        errors.push(FieldError::invalid("storageClassName", class.into(), why));
    }
    if let Some(quantity) = capacity
        .get("capacity")
        .and_then(Value::as_str)
        .and_then(|q| Quantity::parse(q).ok())
        && quantity.is_negative()
    {
        errors.push(FieldError::invalid(
            "capacity",
            BadValue::Str(quantity.to_string()),
            "must be greater than or equal to 0",
        ));
    }
    errors
}

/// The CSIStorageCapacity strategy's `ValidateUpdate`: the create's rules (lenient with label
/// values the stored selector already had wrong) and `ValidateCSIStorageCapacityUpdate` (the
/// topology and class are immutable).
pub(crate) fn csi_storage_capacity_update_errors(capacity: &Value, old: &Value) -> Vec<FieldError> {
    let lenient = old
        .get("nodeTopology")
        .filter(|t| t.is_object())
        .is_some_and(selector_fails);
    let mut errors = csi_storage_capacity_errors(capacity, lenient);
    let topology = capacity.get("nodeTopology").filter(|t| !t.is_null());
    if !same_selector(topology, old.get("nodeTopology").filter(|t| !t.is_null())) {
        let shown = topology.map_or(BadValue::Raw("(*v1.LabelSelector)(nil)".to_owned()), label_selector_go);
        errors.push(FieldError::invalid("nodeTopology", shown, "field is immutable"));
    }
    let class = text(capacity, "storageClassName");
    if class != text(old, "storageClassName") {
        errors.push(FieldError::invalid(
            "storageClassName",
            class.into(),
            "field is immutable",
        ));
    }
    errors
}

/// `apiequality.Semantic.DeepEqual` of two label selectors: empty and absent lists and maps
/// are equal.
fn same_selector(a: Option<&Value>, b: Option<&Value>) -> bool {
    let part = |s: Option<&Value>, key: &str| {
        s.and_then(|s| s.get(key))
            .filter(|v| v.as_object().is_none_or(|m| !m.is_empty()) && v.as_array().is_none_or(|l| !l.is_empty()))
            .filter(|v| !v.is_null())
            .cloned()
    };
    a.is_some() == b.is_some()
        && part(a, "matchLabels") == part(b, "matchLabels")
        && part(a, "matchExpressions") == part(b, "matchExpressions")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::{reasons, rendered};

    #[test]
    fn a_storage_class_should_be_checked_rule_by_rule() {
        let class = json!({
            "provisioner": "Bad Provisioner!", "parameters": {"": "x"}, "reclaimPolicy": "Recycle",
            "volumeBindingMode": "Later",
            "allowedTopologies": [
                {"matchLabelExpressions": [{"key": "zone", "values": []}, {"key": "x", "values": ["a", "a"]}]},
                {"matchLabelExpressions": []},
            ],
        });
        assert_eq!(
            reasons(storage_class_errors(&class)),
            [
                "FieldValueInvalid provisioner",
                "FieldValueInvalid parameters",
                "FieldValueNotSupported reclaimPolicy",
                "FieldValueNotSupported volumeBindingMode",
                "FieldValueRequired allowedTopologies[0].matchLabelExpressions[0].values",
                "FieldValueDuplicate allowedTopologies[0].matchLabelExpressions[1].values[1]",
                "FieldValueDuplicate allowedTopologies[1].matchLabelExpressions",
                "FieldValueDuplicate allowedTopologies[1].matchLabelExpressions",
            ]
        );
        assert_eq!(
            rendered(storage_class_errors(&json!({"volumeBindingMode": "Immediate"}))),
            ["provisioner: Required value"]
        );
    }

    #[test]
    fn a_storage_class_update_may_not_change_what_provisioning_used() {
        let old = json!({"provisioner": "a", "parameters": {"t": "1"}, "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate"});
        let new = json!({"provisioner": "b", "reclaimPolicy": "Retain", "volumeBindingMode": "WaitForFirstConsumer"});
        assert_eq!(
            rendered(storage_class_update_errors(&new, &old)),
            [
                "parameters: Forbidden: updates to parameters are forbidden.",
                "provisioner: Forbidden: updates to provisioner are forbidden.",
                "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.",
                "volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is immutable",
            ]
        );
    }

    #[test]
    fn a_capacity_keeps_its_topology_and_class() {
        let old = json!({"storageClassName": "fast", "nodeTopology": {"matchLabels": {"a": "b"}}, "capacity": "1Gi"});
        let new = json!({"storageClassName": "slow", "nodeTopology": {"matchLabels": {"a": "c"}}, "capacity": "-1Gi"});
        assert_eq!(
            rendered(csi_storage_capacity_update_errors(&new, &old)),
            [
                "capacity: Invalid value: \"-1Gi\": must be greater than or equal to 0",
                "nodeTopology: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"a\":\"c\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable",
                "storageClassName: Invalid value: \"slow\": field is immutable",
            ]
        );
    }
}
