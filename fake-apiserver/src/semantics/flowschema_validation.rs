//! FlowSchema validation (`pkg/apis/flowcontrol/validation/validation.go`: `ValidateFlowSchema`,
//! `ValidateFlowSchemaSpec`, `ValidateFlowSchemaStatus` and their update forms, the same in
//! 1.28 and 1.31) after the object metadata: the precedence, the distinguisher method, the
//! priority level's name, the rules (`flowschema_rules_validation`), and for the mandatory
//! schemas `exempt` and `catch-all` a spec equal to the fixed one (`flowcontrol_bootstrap`),
//! semantically: nil and empty lists alike.
//!
//! The strategy resets the status on create and keeps the stored one on update
//! (`pkg/registry/flowcontrol/flowschema/strategy.go`), so only a write of `/status` has a
//! status of its own to check.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::flowcontrol_bootstrap::mandatory_flow_schema;
use crate::semantics::flowcontrol_go_dump::{distinguisher_method, flow_schema_spec};
use crate::semantics::flowcontrol_types::{FlowSchemaSpec, semantically_equal};
use crate::semantics::flowschema_rules_validation::policy_rules_errors;
use crate::semantics::names::dns1123_subdomain_errors;
use crate::storage::object;

/// `FlowSchemaMaxMatchingPrecedence`.
const MAX_MATCHING_PRECEDENCE: i64 = 10000;

/// `supportedDistinguisherMethods`, sorted.
const DISTINGUISHER_METHODS: [&str; 2] = ["ByNamespace", "ByUser"];

/// `ValidateFlowSchema` (and `ValidateFlowSchemaUpdate`, the same) past the object metadata.
pub(crate) fn flow_schema_errors(object: &Value) -> Vec<FieldError> {
    let name = object::name(object);
    let spec = FlowSchemaSpec::of(object);
    let mut errors = spec_errors(name, &spec);
    if let Some(mandatory) = mandatory_flow_schema(name)
        && !semantically_equal(&spec, &FlowSchemaSpec::of(&mandatory))
    {
        errors.push(FieldError::invalid(
            "spec",
            BadValue::Raw(flow_schema_spec(&spec)),
            format!("spec of '{name}' must equal the fixed value"),
        ));
    }
    errors
}

/// `ValidateFlowSchemaSpec`.
fn spec_errors(name: &str, spec: &FlowSchemaSpec) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let precedence = spec.matching_precedence;
    let precedence_error = |why: String| FieldError::invalid("spec.matchingPrecedence", BadValue::Int(precedence), why);
    if precedence <= 0 {
        errors.push(precedence_error("must be a positive value".to_owned()));
    }
    if precedence > MAX_MATCHING_PRECEDENCE {
        errors.push(precedence_error(format!(
            "must not be greater than {MAX_MATCHING_PRECEDENCE}"
        )));
    }
    if precedence == 1 && name != "exempt" {
        errors.push(precedence_error(
            "only the schema named 'exempt' may have matchingPrecedence 1".to_owned(),
        ));
    }
    if let Some(method) = &spec.distinguisher
        && !DISTINGUISHER_METHODS.contains(&method.as_str())
    {
        let supported: Vec<String> = DISTINGUISHER_METHODS.iter().map(|m| (*m).to_owned()).collect();
        errors.push(FieldError::not_supported(
            "spec.distinguisherMethod.type",
            BadValue::Raw(distinguisher_method(method)),
            &supported,
        ));
    }
    let level = &spec.priority_level;
    if level.is_empty() {
        errors.push(FieldError::required(
            "spec.priorityLevelConfiguration.name",
            "must reference a priority level",
        ));
    } else {
        for why in dns1123_subdomain_errors(level) {
            errors.push(FieldError::invalid(
                "spec.priorityLevelConfiguration.name",
                level.as_str().into(),
                why,
            ));
        }
    }
    for (i, rule) in spec.rules.iter().flatten().enumerate() {
        errors.extend(policy_rules_errors(rule, &format!("spec.rules[{i}]")));
    }
    errors
}

/// `ValidateFlowSchemaStatus` (and `ValidateFlowSchemaStatusUpdate`), which a PriorityLevel-
/// Configuration's status shares (`ValidatePriorityLevelConfigurationStatus`): every condition
/// has a type, and each type once.
pub(crate) fn status_errors(object: &Value) -> Vec<FieldError> {
    let conditions = object.pointer("/status/conditions").and_then(Value::as_array);
    let mut seen: Vec<&str> = Vec::new();
    let mut errors = Vec::new();
    for (i, condition) in conditions.into_iter().flatten().enumerate() {
        let kind = condition.get("type").and_then(Value::as_str).unwrap_or_default();
        let field = format!("status.conditions[{i}].type");
        if seen.contains(&kind) {
            errors.push(FieldError::duplicate(field.clone(), kind.into()));
        }
        seen.push(kind);
        if kind.is_empty() {
            errors.push(FieldError::required(field, "must not be empty"));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema(name: &str, spec: Value) -> Value {
        json!({"metadata": {"name": name}, "spec": spec})
    }

    fn valid_spec() -> Value {
        json!({
            "priorityLevelConfiguration": {"name": "system-bar"},
            "matchingPrecedence": 50,
            "rules": [{
                "subjects": [{"kind": "Group", "group": {"name": "noxu"}}],
                "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": ["*"]}],
            }],
        })
    }

    fn rendered(object: &Value) -> Vec<String> {
        flow_schema_errors(object).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_normal_flow_schema_should_pass() {
        // TestFlowSchemaValidation: "normal flow-schema w/ * verbs/apiGroups/resources should work".
        assert!(rendered(&schema("system-foo", valid_spec())).is_empty());
    }

    #[test]
    fn precedence_one_should_be_the_exempt_schemas_alone() {
        let mut spec = valid_spec();
        spec["matchingPrecedence"] = json!(1);
        assert_eq!(
            rendered(&schema("system-foo", spec)),
            ["spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"]
        );
    }

    #[test]
    fn a_rule_without_subjects_or_rules_should_fail_twice() {
        // "flow-schema mixes * verbs/apiGroups/resources should fail" and friends.
        let spec = json!({"priorityLevelConfiguration": {"name": "p"}, "matchingPrecedence": 50, "rules": [{}]});
        assert_eq!(
            rendered(&schema("f", spec)),
            [
                "spec.rules[0].subjects: Required value: subjects must contain at least one value",
                "spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty",
            ]
        );
    }

    #[test]
    fn the_mandatory_schemas_should_keep_their_fixed_spec() {
        let exempt = mandatory_flow_schema("exempt").unwrap_or_default();
        assert!(rendered(&exempt).is_empty());
        let mut changed = mandatory_flow_schema("catch-all").unwrap_or_default();
        changed["spec"]["matchingPrecedence"] = json!(9000);
        let errors = rendered(&changed);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].starts_with(
            "spec: Invalid value: flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{Name:\"catch-all\"}, MatchingPrecedence:9000, DistinguisherMethod:(*flowcontrol.FlowDistinguisherMethod)(0xc000000000), Rules:[]flowcontrol.PolicyRulesWithSubjects{"
        ));
        assert!(errors[0].ends_with(": spec of 'catch-all' must equal the fixed value"));
    }

    #[test]
    fn a_bad_distinguisher_and_priority_level_should_be_named() {
        let mut spec = valid_spec();
        spec["distinguisherMethod"] = json!({"type": "ByGroup"});
        spec["priorityLevelConfiguration"] = json!({"name": "Bad_Name"});
        let errors = rendered(&schema("f", spec));
        assert_eq!(
            errors[0],
            "spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:\"ByGroup\"}: supported values: \"ByNamespace\", \"ByUser\""
        );
        assert!(errors[1].starts_with(
            "spec.priorityLevelConfiguration.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"
        ));
    }

    #[test]
    fn status_conditions_should_have_distinct_types() {
        // TestValidateFlowSchemaStatus.
        let status = |conditions: Value| json!({"status": {"conditions": conditions}});
        assert!(status_errors(&json!({"status": {}})).is_empty());
        let errors: Vec<String> = status_errors(&status(json!([{"type": "1"}, {"type": "1"}])))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(errors, ["status.conditions[1].type: Duplicate value: \"1\""]);
        let errors: Vec<String> = status_errors(&status(json!([{"type": ""}])))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(errors, ["status.conditions[0].type: Required value: must not be empty"]);
    }
}
