//! Tests of `admission_policy_validation`: refusals as kube-apiserver v1.31.2 gave them.

use serde_json::json;

use super::*;
use crate::semantics::admission_binding_validation::binding_errors;
use crate::semantics::defaults::admission_policies;
use crate::semantics::field_error::rendered;

fn policy(spec: Value) -> Value {
    let mut policy = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                            "metadata": {"name": "p"}, "spec": spec});
    admission_policies::policy(&mut policy);
    policy
}

#[test]
fn an_empty_policy_should_need_constraints_and_validations() {
    assert_eq!(
        rendered(policy_errors(&policy(json!({})), None, 31)),
        [
            "spec.matchConstraints: Required value",
            "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
            "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
        ]
    );
}

#[test]
fn every_part_of_a_policy_should_be_checked_in_order() {
    let bad = policy(json!({
        "failurePolicy": "Maybe",
        "paramKind": {"apiVersion": "v1/x", "kind": ""},
        "matchConstraints": {"matchPolicy": "Sometimes", "resourceRules": [
            {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["PATCH"], "resources": ["deployments/*", "*"], "scope": "Everywhere"}]},
        "variables": [{"name": "1bad", "expression": "1"}, {"name": "ok", "expression": "object.spec."}],
        "validations": [
            {"expression": "object.spec.replicas <", "reason": "Teapot"},
            {"expression": "1 + 1", "messageExpression": "1"},
            {"expression": "true", "message": "line\nbreak"},
        ],
        "auditAnnotations": [{"key": "Bad Key!", "valueExpression": "1"}, {"key": "", "valueExpression": ""}],
        "matchConditions": [{"name": "dup", "expression": "true"}, {"name": "dup", "expression": "'x'"}],
    }));
    let fields: Vec<String> = policy_errors(&bad, None, 31).iter().map(|e| e.field.clone()).collect();
    assert_eq!(
        fields,
        [
            "spec.failurePolicy",
            "spec.paramKind.kind",
            "spec.matchConstraints.matchPolicy",
            "spec.matchConstraints.resourceRules[0].operations[0]",
            "spec.matchConstraints.resourceRules[0].scope",
            "spec.matchConditions[1].expression",
            "spec.matchConditions[1].name",
            "spec.variables[0].name",
            "spec.variables[1].expression",
            "spec.validations[0].expression",
            "spec.validations[0].reason",
            "spec.validations[1].expression",
            "spec.validations[1].messageExpression",
            "spec.validations[2].message",
            "spec.auditAnnotations[0].key",
            "spec.auditAnnotations[0].valueExpression",
            "spec.auditAnnotations[1].key",
            "spec.auditAnnotations[1].key",
            "spec.auditAnnotations[1].valueExpression",
        ]
    );
    let shown = rendered(policy_errors(&bad, None, 31));
    assert_eq!(
        shown[5],
        "spec.matchConditions[1].expression: Invalid value: \"'x'\": must evaluate to bool"
    );
    assert_eq!(
        shown[12],
        "spec.validations[1].messageExpression: Invalid value: \"1\": must evaluate to string"
    );
    assert_eq!(
        shown[15],
        "spec.auditAnnotations[0].valueExpression: Invalid value: \"1\": must evaluate to one of [string null_type]"
    );
    assert!(
        shown[14].starts_with("spec.auditAnnotations[0].key: Invalid value: \"p/Bad Key!\": name part must consist")
    );
}

#[test]
fn variables_should_be_seen_by_validations_but_not_by_match_conditions() {
    let good = policy(json!({
        "matchConstraints": {"resourceRules": [{"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}]},
        "variables": [{"name": "replicas", "expression": "object.spec.replicas"}],
        "validations": [{"expression": "variables.replicas <= 5", "messageExpression": "'too many: ' + string(variables.replicas)"}],
    }));
    assert_eq!(rendered(policy_errors(&good, None, 31)), Vec::<String>::new());
    let mut conditions = good.clone();
    conditions["spec"]["matchConditions"] = json!([{"name": "v", "expression": "variables.replicas > 0"}]);
    let shown = rendered(policy_errors(&conditions, None, 31));
    assert!(shown[0].contains("undeclared reference to 'variables'"), "{shown:?}");
    // An update that keeps the match conditions does not check them again.
    assert_eq!(
        rendered(policy_errors(&conditions, Some(&conditions), 31)),
        Vec::<String>::new()
    );
}

#[test]
fn a_binding_should_be_refused_as_kube_apiserver_refuses_it() {
    let bad = json!({"metadata": {"name": "b"}, "spec": {
        "validationActions": ["Deny", "Warn", "Audit", "Audit", "Log"],
        "paramRef": {"name": "x", "selector": {"matchLabels": {"a": "b"}}},
        "matchResources": {"namespaceSelector": {}, "objectSelector": {}, "matchPolicy": "Equivalent",
                           "excludeResourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": [], "scope": "*"}]},
    }});
    assert_eq!(
        rendered(binding_errors(&bad)),
        [
            "spec.policyName: Required value",
            "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
            "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
            "spec.paramRef.parameterNotFoundAction: Required value",
            "spec.matchResouces.excludeResourceRules[0].resources: Required value",
            "spec.validationActions[3]: Duplicate value: \"Audit\"",
            "spec.validationActions[4]: Unsupported value: \"Log\": supported values: \"Audit\", \"Deny\", \"Warn\"",
            "spec.validationActions: Invalid value: []admissionregistration.ValidationAction{\"Deny\", \"Warn\", \"Audit\", \"Audit\", \"Log\"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ]
    );
    let bare = json!({"spec": {"policyName": "missing-policy", "paramRef": {"selector": {}}}});
    assert_eq!(
        rendered(binding_errors(&bare)),
        [
            "spec.paramRef.parameterNotFoundAction: Required value",
            "spec.validationActions: Required value: at least one validation action is required",
        ]
    );
}
