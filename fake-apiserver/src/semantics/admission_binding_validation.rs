//! ValidatingAdmissionPolicyBindings, and the match resources they share with policies,
//! validated as kube-apiserver validates them (`pkg/apis/admissionregistration/validation/
//! validation.go`: `ValidateValidatingAdmissionPolicyBinding`, `validateParamRef`,
//! `validateValidationActions`, `validateMatchResources`, `validateNamedRuleWithOperations`).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::semantics::field_error::FieldError;
use crate::semantics::label_selector_validation::label_selector_errors;
use crate::semantics::names::{dns1123_subdomain_errors, path_segment_errors};
use crate::semantics::webhook_rules::{rule_errors, typed_strings};

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn items<'v>(object: &'v Value, key: &str) -> &'v [Value] {
    object.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// `ValidateValidatingAdmissionPolicyBinding` (an update is validated alone), less the metadata.
pub(crate) fn binding_errors(binding: &Value) -> Vec<FieldError> {
    let spec = binding.get("spec").unwrap_or(&Value::Null);
    let mut errors = Vec::new();
    let policy_name = text(spec, "policyName");
    if policy_name.is_empty() {
        errors.push(FieldError::required("spec.policyName", ""));
    }
    for why in if policy_name.is_empty() {
        Vec::new()
    } else {
        dns1123_subdomain_errors(policy_name)
    } {
        errors.push(FieldError::invalid("spec.policyName", policy_name.into(), why));
    }
    if let Some(reference) = spec.get("paramRef").filter(|r| r.is_object()) {
        errors.extend(param_ref_errors(reference));
    }
    if let Some(resources) = spec.get("matchResources").filter(|r| r.is_object()) {
        // Sic: 1.31 names the field `matchResouces` in these paths.
        errors.extend(match_resources_errors(resources, "spec.matchResouces"));
    }
    errors.extend(validation_actions_errors(items(spec, "validationActions")));
    errors
}

/// `validateParamRef`: a name or a selector, not both, and what to do when none is found.
fn param_ref_errors(reference: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let name = text(reference, "name");
    let selector = reference.get("selector").filter(|s| s.is_object());
    let exclusive = "name and selector are mutually exclusive";
    if !name.is_empty() {
        for why in path_segment_errors(name) {
            errors.push(FieldError::invalid("spec.paramRef.name", name.into(), why));
        }
        if selector.is_some() {
            errors.push(FieldError::forbidden("spec.paramRef.name", exclusive));
        }
    }
    if let Some(selector) = selector {
        errors.extend(label_selector_errors(selector, "spec.paramRef.selector", false));
        if !name.is_empty() {
            errors.push(FieldError::forbidden("spec.paramRef.selector", exclusive));
        }
    }
    if name.is_empty() && selector.is_none() {
        errors.push(FieldError::required(
            "spec.paramRef",
            "one of name or selector must be specified",
        ));
    }
    match text(reference, "parameterNotFoundAction") {
        "" => errors.push(FieldError::required("spec.paramRef.parameterNotFoundAction", "")),
        "Deny" | "Allow" => {}
        other => errors.push(FieldError::not_supported(
            "spec.paramRef.parameterNotFoundAction",
            other.into(),
            &["Deny".to_owned(), "Allow".to_owned()],
        )),
    }
    errors
}

/// `validateValidationActions`: known actions, each once, never both Deny and Warn, at least one.
fn validation_actions_errors(actions: &[Value]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let actions: Vec<&str> = actions.iter().map(|a| a.as_str().unwrap_or_default()).collect();
    let mut seen = BTreeSet::new();
    for (i, action) in actions.iter().enumerate() {
        let at = format!("spec.validationActions[{i}]");
        errors.extend(FieldError::unless_one_of(
            at.as_str(),
            action,
            &["Audit", "Deny", "Warn"],
        ));
        if !seen.insert(*action) {
            errors.push(FieldError::duplicate(at, (*action).into()));
        }
    }
    if seen.contains("Deny") && seen.contains("Warn") {
        errors.push(FieldError::invalid(
            "spec.validationActions",
            typed_strings("admissionregistration.ValidationAction", &actions),
            "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ));
    }
    if seen.is_empty() {
        errors.push(FieldError::required(
            "spec.validationActions",
            "at least one validation action is required",
        ));
    }
    errors
}

/// `validateMatchResources` of a policy's constraints or a binding's resources.
pub(crate) fn match_resources_errors(resources: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    match resources.get("matchPolicy").and_then(Value::as_str) {
        None => errors.push(FieldError::required(format!("{path}.matchPolicy"), "")),
        Some(policy) => errors.extend(FieldError::unless_one_of(
            format!("{path}.matchPolicy"),
            policy,
            &["Equivalent", "Exact"],
        )),
    }
    for selector in ["namespaceSelector", "objectSelector"] {
        match resources.get(selector).filter(|s| s.is_object()) {
            None => errors.push(FieldError::required(format!("{path}.{selector}"), "")),
            Some(s) => errors.extend(label_selector_errors(s, &format!("{path}.{selector}"), false)),
        }
    }
    for rules in ["resourceRules", "excludeResourceRules"] {
        for (i, rule) in items(resources, rules).iter().enumerate() {
            errors.extend(named_rule_errors(rule, &format!("{path}.{rules}[{i}]")));
        }
    }
    errors
}

/// `validateNamedRuleWithOperations`: path segment resource names, each once, then the rule.
fn named_rule_errors(rule: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, name) in items(rule, "resourceNames").iter().enumerate() {
        let name = name.as_str().unwrap_or_default();
        for why in path_segment_errors(name) {
            errors.push(FieldError::invalid(
                format!("{at}.resourceNames[{i}]"),
                name.into(),
                why,
            ));
        }
        if !seen.insert(name) {
            errors.push(FieldError::duplicate(format!("{at}.resourceNames[{i}]"), name.into()));
        }
    }
    errors.extend(rule_errors(rule, at));
    errors
}
