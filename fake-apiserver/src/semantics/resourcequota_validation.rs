//! ResourceQuotas as `pkg/apis/core/validation/validation.go` validates them:
//! `ValidateResourceQuotaSpec` (hard resources, `validateResourceQuotaScopes`,
//! `validateScopedResourceSelectorRequirement`), `ValidateResourceQuotaUpdate` (scopes are
//! immutable) and `ValidateResourceQuotaStatusUpdate`, with the scope sets of
//! `pkg/apis/core/helper/helpers.go` (`IsStandardResourceQuotaScope`,
//! `IsResourceQuotaScopeValidForResource`).

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names::go_strings;
use crate::semantics::quantity_validation::resource_quantity_errors;
use crate::semantics::resource_names::{is_standard_quota_resource, quota_resource_name_errors};
use crate::storage::object;

/// The scopes that exclude each other.
const CONFLICTING: [[&str; 2]; 2] = [["BestEffort", "NotBestEffort"], ["Terminating", "NotTerminating"]];

/// The scopes that only count non-best-effort pods by their compute (`NotBestEffort`,
/// `Terminating`, …) and `BestEffort`, which counts pods alone.
fn scope_valid_for(scope: &str, resource: &str) -> bool {
    let pods = resource == "pods";
    let compute = matches!(
        resource,
        "cpu" | "memory" | "limits.cpu" | "limits.memory" | "requests.cpu" | "requests.memory"
    );
    match scope {
        "Terminating" | "NotTerminating" | "NotBestEffort" | "PriorityClass" | "CrossNamespacePodAffinity" => {
            pods || compute
        }
        "BestEffort" => pods,
        _ => true,
    }
}

/// `IsStandardResourceQuotaScope`.
fn is_standard_scope(scope: &str) -> bool {
    matches!(
        scope,
        "Terminating"
            | "NotTerminating"
            | "BestEffort"
            | "NotBestEffort"
            | "PriorityClass"
            | "CrossNamespacePodAffinity"
    )
}

/// Go's `%#v` of the spec's `[]core.ResourceQuotaScope`.
fn scopes_go(scopes: &[String]) -> BadValue {
    if scopes.is_empty() {
        return BadValue::Raw("[]core.ResourceQuotaScope(nil)".to_owned());
    }
    let quoted: Vec<String> = scopes.iter().map(|s| format!("{s:?}")).collect();
    BadValue::Raw(format!("[]core.ResourceQuotaScope{{{}}}", quoted.join(", ")))
}

/// Go's `%#v` of the `core.ScopeSelector`.
fn scope_selector_go(expressions: &[Value]) -> BadValue {
    let items: Vec<String> = expressions
        .iter()
        .map(|e| {
            let text = |key: &str| e.get(key).and_then(Value::as_str).unwrap_or_default();
            let values = object::string_list(e.get("values"));
            let values = if values.is_empty() {
                "[]string(nil)".to_owned()
            } else {
                go_strings(&values)
            };
            format!(
                "core.ScopedResourceSelectorRequirement{{ScopeName:{:?}, Operator:{:?}, Values:{}}}",
                text("scopeName"),
                text("operator"),
                values
            )
        })
        .collect();
    BadValue::Raw(format!(
        "core.ScopeSelector{{MatchExpressions:[]core.ScopedResourceSelectorRequirement{{{}}}}}",
        items.join(", ")
    ))
}

/// The hard resources' names, sorted (`sets.String.List()`).
fn hard_names(spec: &Value) -> Vec<String> {
    let mut names: Vec<String> = spec
        .get("hard")
        .and_then(Value::as_object)
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// Each resource of the list at `at` (`spec.hard`, `status.used`…): a quota resource name and
/// a valid quantity of it.
fn resource_list_errors(list: Option<&Value>, at: &str, minor: u32) -> Vec<FieldError> {
    let mut entries: Vec<(&String, &Value)> = list.and_then(Value::as_object).into_iter().flatten().collect();
    // Go ranges over the map in random order; the causes compare as a set.
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let mut errors = Vec::new();
    for (name, value) in entries {
        let keyed = format!("{at}[{name}]");
        errors.extend(quota_resource_name_errors(name, &keyed, minor));
        errors.extend(resource_quantity_errors(
            name,
            value.as_str().unwrap_or_default(),
            &keyed,
        ));
    }
    errors
}

/// `ValidateResourceQuotaSpec`. The create's `ValidateResourceQuotaStatus` finds nothing: the
/// strategy reset the status before.
pub(crate) fn quota_errors(quota: &Value, minor: u32) -> Vec<FieldError> {
    let spec = quota.get("spec").unwrap_or(&Value::Null);
    let mut errors = resource_list_errors(spec.get("hard"), "spec.hard", minor);
    errors.extend(scopes_errors(spec));
    if let Some(selector) = spec.get("scopeSelector").filter(|s| !s.is_null()) {
        errors.extend(scope_selector_errors(spec, selector, minor));
    }
    errors
}

/// `validateResourceQuotaScopes`.
fn scopes_errors(spec: &Value) -> Vec<FieldError> {
    let scopes = object::string_list(spec.get("scopes"));
    let mut errors = Vec::new();
    let at = "spec.scopes";
    let hard = hard_names(spec);
    for scope in &scopes {
        if !is_standard_scope(scope) {
            errors.push(FieldError::invalid(at, scopes_go(&scopes), "unsupported scope"));
        }
        for resource in &hard {
            if is_standard_quota_resource(resource) && !scope_valid_for(scope, resource) {
                errors.push(FieldError::invalid(
                    at,
                    scopes_go(&scopes),
                    "unsupported scope applied to resource",
                ));
            }
        }
    }
    for pair in CONFLICTING {
        if pair.iter().all(|p| scopes.iter().any(|s| s == p)) {
            errors.push(FieldError::invalid(at, scopes_go(&scopes), "conflicting scopes"));
        }
    }
    errors
}

/// `validateScopedResourceSelectorRequirement` (its conflict error prints the spec's scopes,
/// not the selector's, as Go does).
fn scope_selector_errors(spec: &Value, selector: &Value, minor: u32) -> Vec<FieldError> {
    let at = "spec.scopeSelector.matchExpressions";
    let expressions: Vec<Value> = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let hard = hard_names(spec);
    let mut errors = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for requirement in &expressions {
        let text = |key: &str| requirement.get(key).and_then(Value::as_str).unwrap_or_default();
        let (scope, operator) = (text("scopeName"), text("operator"));
        let values = object::string_list(requirement.get("values"));
        if !is_standard_scope(scope) {
            errors.push(FieldError::invalid(
                format!("{at}.scopeName"),
                scope.into(),
                "unsupported scope",
            ));
        }
        for resource in &hard {
            if is_standard_quota_resource(resource) && !scope_valid_for(scope, resource) {
                errors.push(FieldError::invalid(
                    at,
                    scope_selector_go(&expressions),
                    "unsupported scope applied to resource",
                ));
            }
        }
        let exists_only = matches!(
            scope,
            "BestEffort" | "NotBestEffort" | "Terminating" | "NotTerminating" | "CrossNamespacePodAffinity"
        );
        if exists_only && operator != "Exists" {
            errors.push(FieldError::invalid(
                format!("{at}.operator"),
                operator.into(),
                // 1.31 corrected the operator's name in the message.
                if minor >= 31 {
                    "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
                } else {
                    "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
                },
            ));
        }
        match operator {
            "In" | "NotIn" if values.is_empty() => errors.push(FieldError::required(
                format!("{at}.values"),
                "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
            )),
            "In" | "NotIn" => {}
            "Exists" | "DoesNotExist" if !values.is_empty() => errors.push(FieldError::invalid(
                format!("{at}.values"),
                BadValue::Strings(values),
                "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
            )),
            "Exists" | "DoesNotExist" => {}
            _ => errors.push(FieldError::invalid(
                format!("{at}.operator"),
                operator.into(),
                "not a valid selector operator",
            )),
        }
        seen.push(scope);
    }
    for pair in CONFLICTING {
        if pair.iter().all(|p| seen.contains(p)) {
            errors.push(FieldError::invalid(
                at,
                scopes_go(&object::string_list(spec.get("scopes"))),
                "conflicting scopes",
            ));
        }
    }
    errors
}

/// `ValidateResourceQuotaUpdate` less the object metadata: the spec's rules, and the same
/// scopes as a set.
pub(crate) fn quota_update_errors(quota: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = quota_errors(quota, minor);
    let scopes = object::string_list(quota.pointer("/spec/scopes"));
    let set = |mut s: Vec<String>| {
        s.sort();
        s.dedup();
        s
    };
    if set(scopes.clone()) != set(object::string_list(old.pointer("/spec/scopes"))) {
        errors.push(FieldError::invalid(
            "spec.scopes",
            scopes_go(&scopes),
            "field is immutable",
        ));
    }
    errors
}

/// `ValidateResourceQuotaStatusUpdate` less the object metadata.
pub(crate) fn quota_status_errors(quota: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = resource_list_errors(quota.pointer("/status/hard"), "status.hard", minor);
    errors.extend(resource_list_errors(
        quota.pointer("/status/used"),
        "status.used",
        minor,
    ));
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn bodies(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn scopes_should_fit_the_resources_and_each_other() {
        let quota =
            json!({"spec": {"hard": {"pods": "1", "services": "1"}, "scopes": ["BestEffort", "NotBestEffort"]}});
        let errors = bodies(&quota_errors(&quota, 28));
        assert_eq!(errors.len(), 3);
        assert!(errors.iter().all(|e| {
            e.starts_with("spec.scopes: Invalid value: []core.ResourceQuotaScope{\"BestEffort\", \"NotBestEffort\"}")
        }));
    }

    #[test]
    fn a_scope_selector_should_use_exists_for_boolean_scopes() {
        let quota = json!({"spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
            {"scopeName": "Terminating", "operator": "In", "values": ["x"]}]}}});
        assert_eq!(
            quota_errors(&quota, 28)[0].field,
            "spec.scopeSelector.matchExpressions.operator"
        );
    }

    #[test]
    fn scopes_should_not_change() {
        let old = json!({"spec": {"scopes": ["Terminating"]}});
        let new = json!({"spec": {"scopes": ["NotTerminating"]}});
        assert_eq!(
            bodies(&quota_update_errors(&new, &old, 28)),
            ["spec.scopes: Invalid value: []core.ResourceQuotaScope{\"NotTerminating\"}: field is immutable"]
        );
    }
}
