//! The warnings of the storage strategies (`pkg/api/storage/util.go`:
//! `GetWarningsForStorageClass`, `GetWarningsForCSIStorageCapacity`, with
//! `GetWarningsForNodeSelector` of `pkg/api/node/util.go`): deprecated node labels.

use serde_json::Value;

use crate::semantics::node_label_warnings::deprecated_message;

/// `GetWarningsForStorageClass`: allowed topologies keyed on deprecated node labels.
pub(crate) fn storage_class_warnings(class: &Value, minor: u32) -> Vec<String> {
    let mut warnings = Vec::new();
    let terms = class.get("allowedTopologies").and_then(Value::as_array);
    for (i, term) in terms.into_iter().flatten().enumerate() {
        let requirements = term.get("matchLabelExpressions").and_then(Value::as_array);
        for (j, requirement) in requirements.into_iter().flatten().enumerate() {
            let key = requirement.get("key").and_then(Value::as_str).unwrap_or_default();
            if let Some(message) = deprecated_message(key, minor) {
                warnings.push(format!(
                    "allowedTopologies[{i}].matchLabelExpressions[{j}].key: {message}"
                ));
            }
        }
    }
    warnings
}

/// `GetWarningsForCSIStorageCapacity`: `GetWarningsForNodeSelector` of the node topology,
/// expressions first, then labels (Go walks its map in random order; sorted here).
pub(crate) fn csi_storage_capacity_warnings(capacity: &Value, minor: u32) -> Vec<String> {
    let Some(topology) = capacity.get("nodeTopology").filter(|t| t.is_object()) else {
        return Vec::new();
    };
    let mut warnings = Vec::new();
    let expressions = topology.get("matchExpressions").and_then(Value::as_array);
    for (i, expression) in expressions.into_iter().flatten().enumerate() {
        let key = expression.get("key").and_then(Value::as_str).unwrap_or_default();
        if let Some(message) = deprecated_message(key, minor) {
            warnings.push(format!("nodeTopology.matchExpressions[{i}].key: {key} is {message}"));
        }
    }
    let labels = topology.get("matchLabels").and_then(Value::as_object);
    for label in labels.into_iter().flat_map(|l| l.keys()) {
        if let Some(message) = deprecated_message(label, minor) {
            warnings.push(format!("nodeTopology.matchLabels.{label}: {message}"));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn deprecated_node_labels_should_be_warned_of() {
        let zone = r#"deprecated since v1.17; use "topology.kubernetes.io/zone" instead"#;
        let class = json!({"allowedTopologies": [{"matchLabelExpressions": [
            {"key": "a"}, {"key": "failure-domain.beta.kubernetes.io/zone"},
        ]}]});
        assert_eq!(
            storage_class_warnings(&class, 28),
            [format!("allowedTopologies[0].matchLabelExpressions[1].key: {zone}")]
        );
        let capacity = json!({"nodeTopology": {
            "matchLabels": {"failure-domain.beta.kubernetes.io/zone": "a"},
            "matchExpressions": [{"key": "failure-domain.beta.kubernetes.io/zone", "operator": "Exists"}],
        }});
        assert_eq!(
            csi_storage_capacity_warnings(&capacity, 28),
            [
                format!("nodeTopology.matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is {zone}"),
                format!("nodeTopology.matchLabels.failure-domain.beta.kubernetes.io/zone: {zone}"),
            ]
        );
    }
}
