//! ValidatingAdmissionPolicies and their bindings decoded as kube-apiserver decodes them
//! (`pkg/apis/admissionregistration/v1/defaults.go`: `SetDefaults_ValidatingAdmissionPolicySpec`,
//! `SetDefaults_MatchResources`, `SetDefaults_Rule`, through `zz_generated.defaults.go`), with
//! the fields their Go types write even when empty.

use serde_json::{Value, json};

use super::default;
use crate::semantics::zero;

/// A policy: fail closed; its match constraints defaulted; its expressions' named fields
/// written even when unset (`expression`, `name`, `key`, `valueExpression` have no
/// `omitempty`).
pub(crate) fn policy(object: &mut Value) {
    zero::fill_unset(object, "admissionregistration.k8s.io", "ValidatingAdmissionPolicy");
    let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    default(spec, "failurePolicy", json!("Fail"));
    if let Some(constraints) = spec.get_mut("matchConstraints").filter(|m| m.is_object()) {
        match_resources(constraints);
    }
    let unset_strings: [(&str, &[&str]); 4] = [
        ("validations", &["expression"]),
        ("variables", &["name", "expression"]),
        ("auditAnnotations", &["key", "valueExpression"]),
        ("matchConditions", &["name", "expression"]),
    ];
    for (list, keys) in unset_strings {
        let items = spec.get_mut(list).and_then(Value::as_array_mut);
        for item in items.into_iter().flatten() {
            for key in keys {
                default(item, key, json!(""));
            }
        }
    }
}

/// A binding: its match resources defaulted, when it has any.
pub(crate) fn binding(object: &mut Value) {
    zero::fill_unset(
        object,
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
    );
    if let Some(resources) = object.pointer_mut("/spec/matchResources").filter(|m| m.is_object()) {
        match_resources(resources);
    }
}

/// Equivalent matching, empty selectors (which select everything), every rule's scope `*`.
fn match_resources(resources: &mut Value) {
    default(resources, "namespaceSelector", json!({}));
    default(resources, "objectSelector", json!({}));
    default(resources, "matchPolicy", json!("Equivalent"));
    for rules in ["resourceRules", "excludeResourceRules"] {
        let rules = resources.get_mut(rules).and_then(Value::as_array_mut);
        for rule in rules.into_iter().flatten() {
            default(rule, "scope", json!("*"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_should_be_defaulted_as_go_defaults_it() {
        let mut policy = json!({"spec": {
            "matchConstraints": {"resourceRules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]},
            "validations": [{"message": "m"}],
        }});
        super::policy(&mut policy);
        assert_eq!(
            policy,
            json!({"spec": {
                "matchConstraints": {
                    "resourceRules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "scope": "*"}],
                    "namespaceSelector": {}, "objectSelector": {}, "matchPolicy": "Equivalent",
                },
                "validations": [{"message": "m", "expression": ""}],
                "failurePolicy": "Fail",
            }, "status": {}})
        );
    }

    #[test]
    fn a_binding_without_match_resources_should_keep_none() {
        let mut binding = json!({"metadata": {"name": "b"}});
        super::binding(&mut binding);
        assert_eq!(binding, json!({"metadata": {"name": "b"}, "spec": {}}));
    }
}
