//! rbac.authorization.k8s.io/v1 Roles, ClusterRoles, RoleBindings and ClusterRoleBindings, as
//! kube-apiserver v1.28 validates them (`pkg/apis/rbac/validation/validation.go`:
//! `ValidatePolicyRule`, `ValidateClusterRole`'s aggregation rule, `ValidateRoleBinding`,
//! `ValidateClusterRoleBinding`, `ValidateRoleBindingSubject`, the `…Update` functions; the
//! strategies in `pkg/registry/rbac/*/strategy.go`). On update every strategy runs the create
//! validation and then the update one, which runs it again: an updated object's errors come
//! twice. Names are path segments (checked with the object metadata, elsewhere); a subject's
//! API group is defaulted before this runs (`SetDefaults_Subject`).

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, go_quote};
use crate::semantics::label_selector_validation::{label_selector_errors, selector_fails};
use crate::semantics::names::path_segment_errors;
use crate::semantics::names::{dns1123_subdomain_errors, label_value_errors};

const GROUP: &str = "rbac.authorization.k8s.io";

/// The create validation of a Role (`namespaced`) or ClusterRole; a ClusterRole's update may
/// keep selector values it already had (`lenient_values`).
pub(crate) fn role_errors(role: &Value, namespaced: bool, lenient_values: bool) -> Vec<FieldError> {
    let rules = role.get("rules").and_then(Value::as_array);
    let mut errors: Vec<FieldError> = rules
        .into_iter()
        .flatten()
        .enumerate()
        .flat_map(|(i, rule)| policy_rule_errors(rule, namespaced, &format!("rules[{i}]")))
        .collect();
    if !namespaced {
        errors.extend(aggregation_errors(role.get("aggregationRule"), lenient_values));
    }
    errors
}

/// The strategies' `ValidateUpdate` of a Role or ClusterRole: its rules twice.
pub(crate) fn role_update_errors(role: &Value, old: &Value, namespaced: bool) -> Vec<FieldError> {
    // `hasInvalidLabelValueInLabelSelector` of the old ClusterRole.
    let lenient = !namespaced && has_invalid_selector_value(old);
    let mut errors = role_errors(role, namespaced, lenient);
    errors.extend(role_errors(role, namespaced, lenient));
    errors
}

/// The create validation of a RoleBinding (`namespaced`) or ClusterRoleBinding.
pub(crate) fn binding_errors(binding: &Value, namespaced: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let text = |path: &str| binding.pointer(path).and_then(Value::as_str).unwrap_or_default();
    let group = text("/roleRef/apiGroup");
    if group != GROUP {
        errors.push(FieldError::not_supported(
            "roleRef.apiGroup",
            group.into(),
            &[GROUP.to_owned()],
        ));
    }
    let kinds: &[&str] = if namespaced {
        &["Role", "ClusterRole"]
    } else {
        &["ClusterRole"]
    };
    let kind = text("/roleRef/kind");
    if !kinds.contains(&kind) {
        let supported: Vec<String> = kinds.iter().map(|k| (*k).to_owned()).collect();
        errors.push(FieldError::not_supported("roleRef.kind", kind.into(), &supported));
    }
    let name = text("/roleRef/name");
    if name.is_empty() {
        errors.push(FieldError::required("roleRef.name", ""));
    }
    for why in path_segment_errors(name) {
        errors.push(FieldError::invalid("roleRef.name", name.into(), why));
    }
    let subjects = binding.get("subjects").and_then(Value::as_array);
    for (i, subject) in subjects.into_iter().flatten().enumerate() {
        errors.extend(subject_errors(subject, namespaced, &format!("subjects[{i}]")));
    }
    errors
}

/// The strategies' `ValidateUpdate` of a binding: its rules twice, and a roleRef that never
/// changes.
pub(crate) fn binding_update_errors(binding: &Value, old: &Value, namespaced: bool) -> Vec<FieldError> {
    let mut errors = binding_errors(binding, namespaced);
    errors.extend(binding_errors(binding, namespaced));
    let role_ref = |object: &Value| {
        let text = |key: &str| {
            object
                .pointer(&format!("/roleRef/{key}"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        [text("apiGroup"), text("kind"), text("name")]
    };
    let now = role_ref(binding);
    if now != role_ref(old) {
        let shown = format!(
            "rbac.RoleRef{{APIGroup:{}, Kind:{}, Name:{}}}",
            go_quote(&now[0]),
            go_quote(&now[1]),
            go_quote(&now[2])
        );
        errors.push(FieldError::invalid(
            "roleRef",
            BadValue::Raw(shown),
            "cannot change roleRef",
        ));
    }
    errors
}

/// `ValidatePolicyRule`: verbs, and either non-resource URLs (cluster-wide, alone) or API
/// groups with resources.
fn policy_rule_errors(rule: &Value, namespaced: bool, path: &str) -> Vec<FieldError> {
    let list = |key: &str| -> Vec<String> {
        rule.get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .map(|v| v.as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut errors = Vec::new();
    if list("verbs").is_empty() {
        errors.push(FieldError::required(
            format!("{path}.verbs"),
            "verbs must contain at least one value",
        ));
    }
    let urls = list("nonResourceURLs");
    if !urls.is_empty() {
        let field = format!("{path}.nonResourceURLs");
        if namespaced {
            errors.push(FieldError::invalid(
                &field,
                BadValue::Strings(urls.clone()),
                "namespaced rules cannot apply to non-resource URLs",
            ));
        }
        if ["apiGroups", "resources", "resourceNames"]
            .iter()
            .any(|key| !list(key).is_empty())
        {
            errors.push(FieldError::invalid(
                field,
                BadValue::Strings(urls),
                "rules cannot apply to both regular resources and non-resource URLs",
            ));
        }
        return errors;
    }
    if list("apiGroups").is_empty() {
        errors.push(FieldError::required(
            format!("{path}.apiGroups"),
            "resource rules must supply at least one api group",
        ));
    }
    if list("resources").is_empty() {
        errors.push(FieldError::required(
            format!("{path}.resources"),
            "resource rules must supply at least one resource",
        ));
    }
    errors
}

/// A ClusterRole's aggregation rule: at least one selector, each valid and usable.
fn aggregation_errors(rule: Option<&Value>, lenient_values: bool) -> Vec<FieldError> {
    let Some(rule) = rule.filter(|r| !r.is_null()) else {
        return Vec::new();
    };
    let selectors = rule.get("clusterRoleSelectors").and_then(Value::as_array);
    let path = "aggregationRule.clusterRoleSelectors";
    if selectors.is_none_or(Vec::is_empty) {
        return vec![FieldError::required(
            path,
            "at least one clusterRoleSelector required if aggregationRule is non-nil",
        )];
    }
    let mut errors = Vec::new();
    for (i, selector) in selectors.into_iter().flatten().enumerate() {
        let at = format!("{path}[{i}]");
        errors.extend(label_selector_errors(selector, &at, lenient_values));
        if selector_fails(selector) {
            // Go shows the selector the failed conversion returned: nil.
            errors.push(FieldError::invalid(
                at,
                BadValue::Json(Value::Null),
                "invalid label selector.",
            ));
        }
    }
    errors
}

/// Whether a ClusterRole's aggregation selectors hold an expression value that is no label
/// value (such roles were accepted before 1.27 and may keep them).
fn has_invalid_selector_value(role: &Value) -> bool {
    let selectors = role
        .pointer("/aggregationRule/clusterRoleSelectors")
        .and_then(Value::as_array);
    selectors
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("matchExpressions").and_then(Value::as_array))
        .flatten()
        .filter_map(|e| e.get("values").and_then(Value::as_array))
        .flatten()
        .any(|v| !label_value_errors(v.as_str().unwrap_or_default()).is_empty())
}

/// `ValidateRoleBindingSubject`.
fn subject_errors(subject: &Value, namespaced: bool, path: &str) -> Vec<FieldError> {
    let text = |key: &str| subject.get(key).and_then(Value::as_str).unwrap_or_default();
    let mut errors = Vec::new();
    let name = text("name");
    if name.is_empty() {
        errors.push(FieldError::required(format!("{path}.name"), ""));
    }
    let group = text("apiGroup");
    match text("kind") {
        "ServiceAccount" => {
            if !name.is_empty() {
                for why in dns1123_subdomain_errors(name) {
                    errors.push(FieldError::invalid(format!("{path}.name"), name.into(), why));
                }
            }
            if !group.is_empty() {
                errors.push(FieldError::not_supported(
                    format!("{path}.apiGroup"),
                    group.into(),
                    &[String::new()],
                ));
            }
            if !namespaced && text("namespace").is_empty() {
                errors.push(FieldError::required(format!("{path}.namespace"), ""));
            }
        }
        "User" | "Group" => {
            if group != GROUP {
                errors.push(FieldError::not_supported(
                    format!("{path}.apiGroup"),
                    group.into(),
                    &[GROUP.to_owned()],
                ));
            }
        }
        other => {
            let supported = ["ServiceAccount".to_owned(), "User".to_owned(), "Group".to_owned()];
            errors.push(FieldError::not_supported(
                format!("{path}.kind"),
                other.into(),
                &supported,
            ));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::semantics::field_error::reasons as fields;

    #[test]
    fn rules_should_have_verbs_and_either_resources_or_urls() {
        let role = json!({"rules": [
            {"resources": ["pods"]},
            {"verbs": ["get"], "nonResourceURLs": ["/x"], "apiGroups": [""], "resources": ["pods"]}]});
        assert_eq!(
            fields(role_errors(&role, true, false)),
            [
                "FieldValueRequired rules[0].verbs",
                "FieldValueRequired rules[0].apiGroups",
                "FieldValueInvalid rules[1].nonResourceURLs",
                "FieldValueInvalid rules[1].nonResourceURLs"
            ]
        );
        assert_eq!(fields(role_errors(&role, false, false)).len(), 3);
        let aggregated = json!({"aggregationRule": {"clusterRoleSelectors": []}});
        assert_eq!(
            fields(role_errors(&aggregated, false, false)),
            ["FieldValueRequired aggregationRule.clusterRoleSelectors"]
        );
    }

    #[test]
    fn a_binding_should_keep_its_role_ref_and_name_known_subjects() {
        let old = json!({"roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "ServiceAccount", "name": "sa"}]});
        assert_eq!(
            fields(binding_errors(&old, false)),
            ["FieldValueRequired subjects[0].namespace"]
        );
        assert!(binding_errors(&old, true).is_empty());
        let mut new = old.clone();
        new["roleRef"]["name"] = json!("edit");
        let errors = binding_update_errors(&new, &old, true);
        assert_eq!(fields(&errors), ["FieldValueInvalid roleRef"]);
        assert!(
            errors[0]
                .body()
                .contains("rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\"")
        );
    }
}
