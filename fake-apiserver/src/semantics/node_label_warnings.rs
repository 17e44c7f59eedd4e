//! The deprecated node labels of kube-apiserver's `pkg/api/node/util.go`
//! (`GetNodeLabelDeprecatedMessage`, `GetWarningsForNodeSelectorTerm`), which pod warnings name.

use serde_json::Value;

/// The labels deprecated since v1.28 (and before), with what to say of them.
const DEPRECATED: [(&str, &str); 5] = [
    (
        "beta.kubernetes.io/arch",
        r#"deprecated since v1.14; use "kubernetes.io/arch" instead"#,
    ),
    (
        "beta.kubernetes.io/os",
        r#"deprecated since v1.14; use "kubernetes.io/os" instead"#,
    ),
    (
        "failure-domain.beta.kubernetes.io/region",
        r#"deprecated since v1.17; use "topology.kubernetes.io/region" instead"#,
    ),
    (
        "failure-domain.beta.kubernetes.io/zone",
        r#"deprecated since v1.17; use "topology.kubernetes.io/zone" instead"#,
    ),
    (
        "beta.kubernetes.io/instance-type",
        r#"deprecated since v1.17; use "node.kubernetes.io/instance-type" instead"#,
    ),
];

/// The labels v1.31 added to the table. The v1.28 source has none of them and v1.31 has all
/// three; the change is dated to v1.31 (a warning "added in Kube 1.31", as users reported it),
/// so 1.29 and 1.30 keep the v1.28 table.
const DEPRECATED_SINCE_31: [(&str, &str); 3] = [
    ("app.kubernetes.io/created-by", "deprecated since v1.9"),
    (
        "scheduler.alpha.kubernetes.io/preferAvoidPods",
        "deprecated since v1.22; use Taints and Tolerations instead",
    ),
    (
        "node-role.kubernetes.io/master",
        r#"use "node-role.kubernetes.io/control-plane" instead"#,
    ),
];

/// `GetNodeLabelDeprecatedMessage` on the Kubernetes `minor`: what to say of a deprecated node
/// label, `None` for one that is not.
pub(crate) fn deprecated_message(key: &str, minor: u32) -> Option<&'static str> {
    let newer: &[(&str, &str)] = if minor >= 31 { &DEPRECATED_SINCE_31 } else { &[] };
    DEPRECATED
        .iter()
        .chain(newer)
        .find(|(label, _)| *label == key)
        .map(|(_, message)| *message)
}

/// `GetWarningsForNodeSelectorTerm`: the term's match expressions on deprecated labels, `at`
/// naming the term.
pub(crate) fn node_selector_term_warnings(term: &Value, at: &str, minor: u32) -> Vec<String> {
    let expressions = term.get("matchExpressions").and_then(Value::as_array);
    let mut warnings = Vec::new();
    for (i, expression) in expressions.into_iter().flatten().enumerate() {
        let key = expression.get("key").and_then(Value::as_str).unwrap_or_default();
        if let Some(message) = deprecated_message(key, minor) {
            warnings.push(format!("{at}.matchExpressions[{i}].key: {key} is {message}"));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn node_labels_should_be_deprecated_as_the_minor_has_them() {
        assert_eq!(
            deprecated_message("beta.kubernetes.io/os", 28),
            Some(r#"deprecated since v1.14; use "kubernetes.io/os" instead"#)
        );
        assert_eq!(deprecated_message("node-role.kubernetes.io/master", 30), None);
        assert_eq!(
            deprecated_message("node-role.kubernetes.io/master", 31),
            Some(r#"use "node-role.kubernetes.io/control-plane" instead"#)
        );
        assert_eq!(deprecated_message("kubernetes.io/os", 33), None);
        let term = json!({"matchExpressions": [
            {"key": "kubernetes.io/os", "operator": "Exists"},
            {"key": "failure-domain.beta.kubernetes.io/zone", "operator": "Exists"},
        ]});
        assert_eq!(
            node_selector_term_warnings(&term, "spec.x[0]", 28),
            [
                r#"spec.x[0].matchExpressions[1].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead"#
            ]
        );
    }
}
