//! The rules of an admission webhook validated as kube-apiserver validates them
//! (`pkg/apis/admissionregistration/validation/validation.go`: `validateRuleWithOperations`,
//! `validateRule`, `validateResources`): operations, API groups and versions, resources with
//! their subresource wildcards, and the scope.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, go_quote};

fn strings<'v>(object: &'v Value, key: &str) -> Vec<&'v str> {
    object
        .get(key)
        .and_then(Value::as_array)
        .map(|items| items.iter().map(|s| s.as_str().unwrap_or_default()).collect())
        .unwrap_or_default()
}

/// `validateRuleWithOperations` then `validateRule` (subresources allowed).
pub(crate) fn rule_errors(rule: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let operations = strings(rule, "operations");
    if operations.is_empty() {
        errors.push(FieldError::required(format!("{at}.operations"), ""));
    }
    if operations.len() > 1 && operations.contains(&"*") {
        errors.push(FieldError::invalid(
            format!("{at}.operations"),
            typed_strings("admissionregistration.OperationType", &operations),
            "if '*' is present, must not specify other operations",
        ));
    }
    let supported = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"].map(str::to_owned);
    for (i, operation) in operations.iter().enumerate() {
        if !supported.iter().any(|s| s == operation) {
            errors.push(FieldError::not_supported(
                format!("{at}.operations[{i}]"),
                (*operation).into(),
                &supported,
            ));
        }
    }
    let groups = strings(rule, "apiGroups");
    if groups.is_empty() {
        errors.push(FieldError::required(format!("{at}.apiGroups"), ""));
    }
    if groups.len() > 1 && groups.contains(&"*") {
        errors.push(FieldError::invalid(
            format!("{at}.apiGroups"),
            owned(&groups),
            "if '*' is present, must not specify other API groups",
        ));
    }
    let versions = strings(rule, "apiVersions");
    if versions.is_empty() {
        errors.push(FieldError::required(format!("{at}.apiVersions"), ""));
    }
    if versions.len() > 1 && versions.contains(&"*") {
        errors.push(FieldError::invalid(
            format!("{at}.apiVersions"),
            owned(&versions),
            "if '*' is present, must not specify other API versions",
        ));
    }
    for (i, version) in versions.iter().enumerate() {
        if version.is_empty() {
            errors.push(FieldError::required(format!("{at}.apiVersions[{i}]"), ""));
        }
    }
    errors.extend(resources_errors(
        &strings(rule, "resources"),
        &format!("{at}.resources"),
    ));
    if let Some(scope) = rule.get("scope").and_then(Value::as_str)
        && !matches!(scope, "*" | "Cluster" | "Namespaced")
    {
        let supported = ["*", "Cluster", "Namespaced"].map(str::to_owned);
        errors.push(FieldError::not_supported(
            format!("{at}.scope"),
            scope.into(),
            &supported,
        ));
    }
    errors
}

pub(crate) fn owned(items: &[&str]) -> BadValue {
    BadValue::Strings(items.iter().map(|s| (*s).to_owned()).collect())
}

/// Go's `%#v` of a named string slice type.
pub(crate) fn typed_strings(ty: &str, items: &[&str]) -> BadValue {
    let quoted: Vec<String> = items.iter().map(|s| go_quote(s)).collect();
    BadValue::Raw(format!("[]{ty}{{{}}}", quoted.join(", ")))
}

/// `validateResources`: `resource/subresource` pairs with their wildcards.
fn resources_errors(resources: &[&str], path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if resources.is_empty() {
        errors.push(FieldError::required(path, ""));
    }
    let (mut wildcard_subresources, mut wildcard_resources) = (BTreeSet::new(), BTreeSet::new());
    let (mut double_wildcard, mut single_wildcard, mut without_subresource) = (false, false, false);
    for (i, entry) in resources.iter().enumerate() {
        if entry.is_empty() {
            errors.push(FieldError::required(format!("{path}[{i}]"), ""));
            continue;
        }
        double_wildcard |= *entry == "*/*";
        single_wildcard |= *entry == "*";
        let Some((resource, sub)) = entry.split_once('/') else {
            // Go sets, not ors, this flag: the last plain resource decides.
            without_subresource = *entry != "*";
            continue;
        };
        if wildcard_subresources.contains(resource) {
            errors.push(FieldError::invalid(
                format!("{path}[{i}]"),
                (*entry).into(),
                format!("if '{resource}/*' is present, must not specify {entry}"),
            ));
        }
        if wildcard_resources.contains(sub) {
            errors.push(FieldError::invalid(
                format!("{path}[{i}]"),
                (*entry).into(),
                format!("if '*/{sub}' is present, must not specify {entry}"),
            ));
        }
        if sub == "*" {
            wildcard_subresources.insert(resource);
        }
        if resource == "*" {
            wildcard_resources.insert(sub);
        }
    }
    if resources.len() > 1 && double_wildcard {
        errors.push(FieldError::invalid(
            path,
            owned(resources),
            "if '*/*' is present, must not specify other resources",
        ));
    }
    if single_wildcard && without_subresource {
        errors.push(FieldError::invalid(
            path,
            owned(resources),
            "if '*' is present, must not specify other resources without subresources",
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::{reasons, rendered};

    #[test]
    fn a_rule_should_be_checked_field_by_field() {
        let rule = json!({"operations": ["CREATE", "*"], "apiGroups": ["*", "apps"], "apiVersions": ["*", ""],
                          "resources": ["*/*", "pods"], "scope": "Somewhere"});
        assert_eq!(
            reasons(rule_errors(&rule, "r")),
            [
                "FieldValueInvalid r.operations",
                "FieldValueInvalid r.apiGroups",
                "FieldValueInvalid r.apiVersions",
                "FieldValueRequired r.apiVersions[1]",
                "FieldValueInvalid r.resources",
                "FieldValueNotSupported r.scope",
            ]
        );
        assert_eq!(
            rendered(rule_errors(
                &json!({"operations": ["PATCH"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["p"]}),
                "r"
            )),
            [
                "r.operations[0]: Unsupported value: \"PATCH\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\""
            ]
        );
    }

    #[test]
    fn subresource_wildcards_should_exclude_what_they_cover() {
        assert_eq!(
            rendered(resources_errors(
                &["pods/*", "pods/status", "*/status", "deployments/status", ""],
                "r"
            )),
            [
                "r[1]: Invalid value: \"pods/status\": if 'pods/*' is present, must not specify pods/status",
                "r[3]: Invalid value: \"deployments/status\": if '*/status' is present, must not specify deployments/status",
                "r[4]: Required value",
            ]
        );
        assert_eq!(
            rendered(resources_errors(&["*", "pods"], "r")),
            [
                "r: Invalid value: []string{\"*\", \"pods\"}: if '*' is present, must not specify other resources without subresources"
            ]
        );
        assert!(resources_errors(&["*", "pods/status"], "r").is_empty());
    }
}
