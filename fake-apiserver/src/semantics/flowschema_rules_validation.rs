//! The checks of a FlowSchema's rules (`pkg/apis/flowcontrol/validation/validation.go`:
//! `ValidateFlowSchemaPolicyRulesWithSubjects`, `ValidateFlowSchemaSubject` and the
//! `Validate*Subject` functions, `ValidateFlowSchemaResourcePolicyRule`,
//! `ValidateFlowSchemaNonResourcePolicyRule`, `ValidateNonResourceURLPath`), the same in 1.28
//! and 1.31.

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::flowcontrol_types::{NonResourceRule, PolicyRules, ResourceRule, ServiceAccountSubject, Subject};
use crate::semantics::names::{dns1123_label_errors, dns1123_subdomain_errors};

/// `supportedVerbs`, as `sets.String.List()` lists them (sorted).
const SUPPORTED_VERBS: [&str; 9] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "proxy",
    "update",
    "watch",
];

/// `supportedSubjectKinds`, sorted.
const SUPPORTED_SUBJECT_KINDS: [&str; 3] = ["Group", "ServiceAccount", "User"];

/// `nsErrIntro`.
const NAMESPACE_ERROR_INTRO: &str = "each member of this list must be '*' or a DNS-1123 label; ";

fn owned(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| (*v).to_owned()).collect()
}

fn has_wildcard(items: &[String]) -> bool {
    items.iter().any(|i| i == "*")
}

/// `ValidateFlowSchemaPolicyRulesWithSubjects` of the rule at `path` (`spec.rules[0]`).
pub(crate) fn policy_rules_errors(rule: &PolicyRules, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    match rule.subjects.as_deref() {
        Some(subjects) if !subjects.is_empty() => {
            for (i, subject) in subjects.iter().enumerate() {
                errors.extend(subject_errors(subject, &format!("{path}.subjects[{i}]")));
            }
        }
        _ => errors.push(FieldError::required(
            format!("{path}.subjects"),
            "subjects must contain at least one value",
        )),
    }
    let resource_rules = rule.resource_rules.as_deref().unwrap_or_default();
    let non_resource_rules = rule.non_resource_rules.as_deref().unwrap_or_default();
    if resource_rules.is_empty() && non_resource_rules.is_empty() {
        errors.push(FieldError::required(
            path,
            "at least one of resourceRules and nonResourceRules has to be non-empty",
        ));
    }
    for (i, resource_rule) in resource_rules.iter().enumerate() {
        errors.extend(resource_rule_errors(
            resource_rule,
            &format!("{path}.resourceRules[{i}]"),
        ));
    }
    for (i, non_resource_rule) in non_resource_rules.iter().enumerate() {
        errors.extend(non_resource_rule_errors(
            non_resource_rule,
            &format!("{path}.nonResourceRules[{i}]"),
        ));
    }
    errors
}

/// `ValidateFlowSchemaSubject`: the kind's own subject, and none of the others.
fn subject_errors(subject: &Subject, path: &str) -> Vec<FieldError> {
    let forbidden_user = || {
        FieldError::forbidden(
            format!("{path}.user"),
            "user is forbidden when subject kind is not 'User'",
        )
    };
    let forbidden_group = || {
        FieldError::forbidden(
            format!("{path}.group"),
            "group is forbidden when subject kind is not 'Group'",
        )
    };
    let forbidden_account = || {
        FieldError::forbidden(
            format!("{path}.serviceAccount"),
            "serviceAccount is forbidden when subject kind is not 'ServiceAccount'",
        )
    };
    let mut errors = Vec::new();
    match subject.kind.as_str() {
        "ServiceAccount" => {
            errors.extend(service_account_errors(
                subject.service_account.as_ref(),
                &format!("{path}.serviceAccount"),
            ));
            errors.extend(subject.user.as_ref().map(|_| forbidden_user()));
            errors.extend(subject.group.as_ref().map(|_| forbidden_group()));
        }
        "User" => {
            errors.extend(named_subject_errors(
                subject.user.as_deref(),
                &format!("{path}.user"),
                "user",
                "User",
            ));
            errors.extend(subject.service_account.as_ref().map(|_| forbidden_account()));
            errors.extend(subject.group.as_ref().map(|_| forbidden_group()));
        }
        "Group" => {
            errors.extend(named_subject_errors(
                subject.group.as_deref(),
                &format!("{path}.group"),
                "group",
                "Group",
            ));
            errors.extend(subject.service_account.as_ref().map(|_| forbidden_account()));
            errors.extend(subject.user.as_ref().map(|_| forbidden_user()));
        }
        kind => errors.push(FieldError::not_supported(
            format!("{path}.kind"),
            kind.into(),
            &owned(&SUPPORTED_SUBJECT_KINDS),
        )),
    }
    errors
}

/// `ValidateUserSubject`, `ValidateGroupSubject`: set, with a name.
fn named_subject_errors(name: Option<&str>, path: &str, field: &str, kind: &str) -> Vec<FieldError> {
    match name {
        None => vec![FieldError::required(
            path,
            format!("{field} is required when subject kind is '{kind}'"),
        )],
        Some("") => vec![FieldError::required(format!("{path}.name"), "")],
        Some(_) => Vec::new(),
    }
}

/// `ValidateServiceAccountSubject`: a name (`*` for every account) and a namespace.
fn service_account_errors(subject: Option<&ServiceAccountSubject>, path: &str) -> Vec<FieldError> {
    let Some(subject) = subject else {
        return vec![FieldError::required(
            path,
            "serviceAccount is required when subject kind is 'ServiceAccount'",
        )];
    };
    let mut errors = Vec::new();
    if subject.name.is_empty() {
        errors.push(FieldError::required(format!("{path}.name"), ""));
    } else if subject.name != "*" {
        for why in dns1123_subdomain_errors(&subject.name) {
            errors.push(FieldError::invalid(
                format!("{path}.name"),
                subject.name.as_str().into(),
                why,
            ));
        }
    }
    if subject.namespace.is_empty() {
        errors.push(FieldError::required(
            format!("{path}.namespace"),
            "must specify namespace for service account",
        ));
    } else {
        for why in dns1123_label_errors(&subject.namespace) {
            errors.push(FieldError::invalid(
                format!("{path}.namespace"),
                subject.namespace.as_str().into(),
                why,
            ));
        }
    }
    errors
}

/// The verbs of a rule: at least one, `*` alone, or only supported ones.
fn verbs_errors(verbs: &[String], path: &str) -> Option<FieldError> {
    let field = format!("{path}.verbs");
    if verbs.is_empty() {
        Some(FieldError::required(field, "verbs must contain at least one value"))
    } else if has_wildcard(verbs) {
        (verbs.len() > 1).then(|| {
            FieldError::invalid(
                field,
                BadValue::Strings(verbs.to_vec()),
                "if '*' is present, must not specify other verbs",
            )
        })
    } else if !verbs.iter().all(|v| SUPPORTED_VERBS.contains(&v.as_str())) {
        Some(FieldError::not_supported(
            field,
            BadValue::Strings(verbs.to_vec()),
            &owned(&SUPPORTED_VERBS),
        ))
    } else {
        None
    }
}

/// `ValidateFlowSchemaNonResourcePolicyRule`.
fn non_resource_rule_errors(rule: &NonResourceRule, path: &str) -> Vec<FieldError> {
    let mut errors: Vec<FieldError> = verbs_errors(rule.verbs.as_deref().unwrap_or_default(), path)
        .into_iter()
        .collect();
    let urls = rule.non_resource_urls.as_deref().unwrap_or_default();
    let field = format!("{path}.nonResourceURLs");
    if urls.is_empty() {
        errors.push(FieldError::required(
            field,
            "nonResourceURLs must contain at least one value",
        ));
    } else if has_wildcard(urls) {
        if urls.len() > 1 {
            errors.push(FieldError::invalid(
                field,
                BadValue::Strings(urls.to_vec()),
                "if '*' is present, must not specify other non-resource URLs",
            ));
        }
    } else {
        for (i, url) in urls.iter().enumerate() {
            errors.extend(non_resource_url_error(url, &format!("{field}[{i}]")));
        }
    }
    errors
}

/// A list of a resource rule (API groups, resources) that must not be empty and in which `*`
/// must stand alone.
fn wildcard_list_errors(items: &[String], field: String, what: &str) -> Option<FieldError> {
    if items.is_empty() {
        Some(FieldError::required(
            field,
            format!("resource rules must supply at least one {what}"),
        ))
    } else if items.len() > 1 && has_wildcard(items) {
        Some(FieldError::invalid(
            field,
            BadValue::Strings(items.to_vec()),
            format!("if '*' is present, must not specify other {what}s"),
        ))
    } else {
        None
    }
}

/// `ValidateFlowSchemaResourcePolicyRule`.
fn resource_rule_errors(rule: &ResourceRule, path: &str) -> Vec<FieldError> {
    let mut errors: Vec<FieldError> = verbs_errors(rule.verbs.as_deref().unwrap_or_default(), path)
        .into_iter()
        .collect();
    let api_groups = rule.api_groups.as_deref().unwrap_or_default();
    errors.extend(wildcard_list_errors(
        api_groups,
        format!("{path}.apiGroups"),
        "api group",
    ));
    let resources = rule.resources.as_deref().unwrap_or_default();
    errors.extend(wildcard_list_errors(resources, format!("{path}.resources"), "resource"));
    let namespaces = rule.namespaces.as_deref().unwrap_or_default();
    let field = format!("{path}.namespaces");
    if namespaces.is_empty() && !rule.cluster_scope {
        errors.push(FieldError::required(
            field,
            "resource rules that are not cluster scoped must supply at least one namespace",
        ));
    } else if has_wildcard(namespaces) {
        if namespaces.len() > 1 {
            errors.push(FieldError::invalid(
                field,
                BadValue::Strings(namespaces.to_vec()),
                "if '*' is present, must not specify other namespaces",
            ));
        }
    } else {
        for (i, namespace) in namespaces.iter().enumerate() {
            for why in dns1123_label_errors(namespace) {
                errors.push(FieldError::invalid(
                    format!("{field}[{i}]"),
                    namespace.as_str().into(),
                    format!("{NAMESPACE_ERROR_INTRO}{why}"),
                ));
            }
        }
    }
    errors
}

/// `ValidateNonResourceURLPath`: `/`, or a path from the root without white-space or `//`,
/// whose one wildcard, if any, is its last segment.
pub(crate) fn non_resource_url_error(path: &str, field: &str) -> Option<FieldError> {
    let why = if path.is_empty() {
        "must not be empty"
    } else if path == "/" {
        return None;
    } else if !path.starts_with('/') {
        "must start with slash"
    } else if path.contains(' ') {
        "must not contain white-space"
    } else if path.contains("//") {
        "must not contain double slash"
    } else {
        let wildcards = path.matches('*').count();
        if wildcards > 1 || (wildcards == 1 && !path.ends_with("/*")) {
            "wildcard can only do suffix matching"
        } else {
            return None;
        }
    };
    Some(FieldError::invalid(field, path.into(), why))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_resource_url_paths_should_be_checked_as_validation_test_go_does() {
        // TestValidateNonResourceURLPath.
        let cases = [
            ("", true),
            ("foo", true),
            ("/", false),
            ("//", true),
            ("/foo", false),
            ("/////", true),
            ("/apis/", false),
            ("/healthz/*", false),
            ("/healthz/*/foo", true),
            ("/healthz/foo bar", true),
            ("/health*", true),
            ("/health*/foo", true),
            ("/*/*", true),
        ];
        for (path, fails) in cases {
            assert_eq!(non_resource_url_error(path, "").is_some(), fails, "{path:?}");
        }
    }

    fn subject(kind: &str) -> Subject {
        Subject {
            kind: kind.to_owned(),
            ..Subject::default()
        }
    }

    #[test]
    fn a_subject_should_carry_its_own_kind_and_no_other() {
        let mut user = subject("User");
        user.group = Some("g".to_owned());
        let errors = subject_errors(&user, "s");
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["s.user", "s.group"]);
        assert_eq!(
            errors[0].body(),
            "Required value: user is required when subject kind is 'User'"
        );
        let errors = subject_errors(&subject("Robot"), "s");
        assert_eq!(
            errors[0].body(),
            "Unsupported value: \"Robot\": supported values: \"Group\", \"ServiceAccount\", \"User\""
        );
    }

    #[test]
    fn resource_rules_should_refuse_unknown_verbs_and_crowded_wildcards() {
        let rule = ResourceRule {
            verbs: Some(vec!["get".to_owned(), "fly".to_owned()]),
            api_groups: Some(vec!["*".to_owned(), "apps".to_owned()]),
            resources: Some(vec!["pods".to_owned()]),
            cluster_scope: false,
            namespaces: Some(vec!["Bad".to_owned()]),
        };
        let errors: Vec<String> = resource_rule_errors(&rule, "r")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(errors.len(), 3);
        assert!(
            errors[0]
                .starts_with("r.verbs: Unsupported value: []string{\"get\", \"fly\"}: supported values: \"create\"")
        );
        assert_eq!(
            errors[1],
            "r.apiGroups: Invalid value: []string{\"*\", \"apps\"}: if '*' is present, must not specify other api groups"
        );
        assert!(errors[2].starts_with(
            "r.namespaces[0]: Invalid value: \"Bad\": each member of this list must be '*' or a DNS-1123 label; "
        ));
    }
}
