//! Validating and mutating webhook configurations validated as kube-apiserver validates them
//! (`pkg/apis/admissionregistration/validation/validation.go`:
//! `ValidateValidatingWebhookConfiguration(Update)`, `ValidateMutatingWebhookConfiguration(Update)`
//! with the options each passes, `validateRuleWithOperations`, `validateAdmissionReviewVersions`,
//! `validateMatchConditions`), the client config checked as `apiserver/pkg/util/webhook` checks
//! it; object names are checked with every kind's metadata.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::semantics::cel::admission::match_condition_error;
use crate::semantics::crd_validation::conversion::{service_errors, url_errors};
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::label_selector_validation::{label_selector_errors, selector_fails};
use crate::semantics::names::{dns1123_subdomain_errors, object_name_errors, qualified_name_errors};
use crate::semantics::webhook_rules::{owned, rule_errors};

/// `AcceptedAdmissionReviewVersions`.
const ACCEPTED_REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];
/// `noSideEffectClasses` and `supportedSideEffectClasses`, sorted as `sets.List` gives them.
const NO_SIDE_EFFECTS: [&str; 2] = ["None", "NoneOnDryRun"];
const SIDE_EFFECTS: [&str; 4] = ["None", "NoneOnDryRun", "Some", "Unknown"];

/// `validationOptions`: what a create requires, and what an update relaxes for what the stored
/// configuration already had.
struct Options {
    ignore_match_conditions: bool,
    require_no_side_effects: bool,
    require_recognized_review_version: bool,
    require_unique_names: bool,
    allow_invalid_label_values: bool,
    /// The match condition expressions the stored configuration had (compiled with every
    /// option of the server's minor).
    preexisting: BTreeSet<String>,
    server: u32,
}

impl Options {
    fn create(server: u32) -> Self {
        Self {
            ignore_match_conditions: false,
            require_no_side_effects: true,
            require_recognized_review_version: true,
            require_unique_names: true,
            allow_invalid_label_values: false,
            preexisting: BTreeSet::new(),
            server,
        }
    }

    /// The options `Validate…WebhookConfigurationUpdate` derives from the stored `old`.
    fn update(new: &[Value], old: &[Value], server: u32) -> Self {
        let conditions = |hook: &Value| hook.get("matchConditions").cloned();
        let side_effects = |hook: &Value| {
            hook.get("sideEffects")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let names: Vec<&str> = old.iter().map(|h| text(h, "name")).collect();
        Self {
            ignore_match_conditions: new.len() == old.len()
                && new.iter().zip(old).all(|(n, o)| conditions(n) == conditions(o)),
            require_no_side_effects: old.iter().all(|h| NO_SIDE_EFFECTS.contains(&side_effects(h).as_str())),
            require_recognized_review_version: old.iter().all(|h| {
                let versions = strings(h, "admissionReviewVersions");
                versions.is_empty() || versions.iter().any(|v| ACCEPTED_REVIEW_VERSIONS.contains(v))
            }),
            require_unique_names: names.iter().collect::<BTreeSet<_>>().len() == names.len(),
            allow_invalid_label_values: old.iter().any(|h| {
                ["namespaceSelector", "objectSelector"]
                    .iter()
                    .any(|key| h.get(*key).filter(|s| s.is_object()).is_some_and(selector_fails))
            }),
            preexisting: old
                .iter()
                .flat_map(|h| {
                    h.get("matchConditions")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default()
                })
                .map(|c| text(&c, "expression").to_owned())
                .collect(),
            server,
        }
    }
}

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn strings<'v>(object: &'v Value, key: &str) -> Vec<&'v str> {
    object
        .get(key)
        .and_then(Value::as_array)
        .map(|items| items.iter().map(|s| s.as_str().unwrap_or_default()).collect())
        .unwrap_or_default()
}

fn hooks(configuration: &Value) -> Vec<Value> {
    configuration
        .get("webhooks")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// `ValidateValidatingWebhookConfiguration` or `ValidateMutatingWebhookConfiguration` (by
/// `mutating`) less its metadata, on a server of minor `server`.
pub(crate) fn configuration_errors(configuration: &Value, mutating: bool, server: u32) -> Vec<FieldError> {
    errors(&hooks(configuration), mutating, &Options::create(server))
}

/// `Validate…WebhookConfigurationUpdate` less its metadata.
pub(crate) fn configuration_update_errors(
    configuration: &Value,
    old: &Value,
    mutating: bool,
    server: u32,
) -> Vec<FieldError> {
    let hooks = hooks(configuration);
    let opts = Options::update(&hooks, &self::hooks(old), server);
    errors(&hooks, mutating, &opts)
}

fn errors(hooks: &[Value], mutating: bool, opts: &Options) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut names = BTreeSet::new();
    for (i, hook) in hooks.iter().enumerate() {
        let at = format!("webhooks[{i}]");
        errors.extend(hook_errors(hook, mutating, opts, &at));
        errors.extend(review_version_errors(
            &strings(hook, "admissionReviewVersions"),
            opts.require_recognized_review_version,
            &format!("{at}.admissionReviewVersions"),
        ));
        let name = text(hook, "name");
        if opts.require_unique_names && !name.is_empty() && !names.insert(name) {
            errors.push(FieldError::duplicate(format!("{at}.name"), name.into()));
        }
    }
    errors
}

/// `validateValidatingWebhook` / `validateMutatingWebhook` (which also checks the reinvocation
/// policy).
fn hook_errors(hook: &Value, mutating: bool, opts: &Options, at: &str) -> Vec<FieldError> {
    let mut errors = fully_qualified_name_errors(text(hook, "name"), &format!("{at}.name"));
    let rules = hook.get("rules").and_then(Value::as_array);
    for (i, rule) in rules.into_iter().flatten().enumerate() {
        errors.extend(rule_errors(rule, &format!("{at}.rules[{i}]")));
    }
    let enumerated = |key: &str, supported: &[&str]| {
        let value = hook.get(key).and_then(Value::as_str)?;
        let supported: Vec<String> = supported.iter().map(|s| (*s).to_owned()).collect();
        (!supported.iter().any(|s| s == value))
            .then(|| FieldError::not_supported(format!("{at}.{key}"), value.into(), &supported))
    };
    errors.extend(enumerated("failurePolicy", &["Fail", "Ignore"]));
    errors.extend(enumerated("matchPolicy", &["Equivalent", "Exact"]));
    let allowed: &[&str] = if opts.require_no_side_effects {
        &NO_SIDE_EFFECTS
    } else {
        &SIDE_EFFECTS
    };
    match hook.get("sideEffects").and_then(Value::as_str) {
        None => errors.push(FieldError::required(
            format!("{at}.sideEffects"),
            format!("must specify one of {}", allowed.join(", ")),
        )),
        Some(_) => errors.extend(enumerated("sideEffects", allowed)),
    }
    if let Some(timeout) = hook.get("timeoutSeconds").and_then(Value::as_i64)
        && !(1..=30).contains(&timeout)
    {
        errors.push(FieldError::invalid(
            format!("{at}.timeoutSeconds"),
            BadValue::Int(timeout),
            "the timeout value must be between 1 and 30 seconds",
        ));
    }
    for key in ["namespaceSelector", "objectSelector"] {
        if let Some(selector) = hook.get(key).filter(|s| s.is_object()) {
            errors.extend(label_selector_errors(
                selector,
                &format!("{at}.{key}"),
                opts.allow_invalid_label_values,
            ));
        }
    }
    if mutating {
        errors.extend(enumerated("reinvocationPolicy", &["IfNeeded", "Never"]));
    }
    let config = hook.get("clientConfig").cloned().unwrap_or(Value::Null);
    let url = config.get("url").and_then(Value::as_str);
    let service = config.get("service").filter(|s| s.is_object());
    match (url, service) {
        (Some(_), Some(_)) | (None, None) => errors.push(FieldError::required(
            format!("{at}.clientConfig"),
            "exactly one of url or service is required",
        )),
        (Some(url), None) => errors.extend(url_errors(url, &format!("{at}.clientConfig.url"))),
        (None, Some(service)) => errors.extend(service_errors(service, &format!("{at}.clientConfig.service"))),
    }
    if !opts.ignore_match_conditions {
        let conditions = hook.get("matchConditions").and_then(Value::as_array);
        errors.extend(match_conditions_errors(
            conditions.map_or(&[][..], Vec::as_slice),
            opts.server,
            &opts.preexisting,
            false,
            &format!("{at}.matchConditions"),
        ));
    }
    errors
}

/// `utilvalidation.IsFullyQualifiedName`: a subdomain of at least three segments.
fn fully_qualified_name_errors(name: &str, path: &str) -> Vec<FieldError> {
    if name.is_empty() {
        return vec![FieldError::required(path, "")];
    }
    let invalid = dns1123_subdomain_errors(name);
    if !invalid.is_empty() {
        return vec![FieldError::invalid(path, name.into(), invalid.join(","))];
    }
    if name.split('.').count() < 3 {
        return vec![FieldError::invalid(
            path,
            name.into(),
            "should be a domain with at least three segments separated by dots",
        )];
    }
    Vec::new()
}

/// `validateAdmissionReviewVersions`.
fn review_version_errors(versions: &[&str], require_recognized: bool, path: &str) -> Vec<FieldError> {
    if versions.is_empty() {
        let why = format!("must specify one of {}", ACCEPTED_REVIEW_VERSIONS.join(", "));
        return vec![FieldError::required(path, why)];
    }
    let mut errors = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, version) in versions.iter().enumerate() {
        if !seen.insert(*version) {
            errors.push(FieldError::invalid(
                format!("{path}[{i}]"),
                (*version).into(),
                "duplicate version",
            ));
            continue;
        }
        // `IsDNS1035Label`, the rule of a Service's name.
        for why in object_name_errors("Service", version) {
            errors.push(FieldError::invalid(format!("{path}[{i}]"), (*version).into(), why));
        }
    }
    if require_recognized && !versions.iter().any(|v| ACCEPTED_REVIEW_VERSIONS.contains(v)) {
        errors.push(FieldError::invalid(
            path,
            owned(versions),
            format!("must include at least one of {}", ACCEPTED_REVIEW_VERSIONS.join(", ")),
        ));
    }
    errors
}

/// `validateMatchConditions`: at most 64, each with a qualified name (once) and an expression
/// that compiles to a bool in the match condition environment.
/// `validateMatchConditions`: at most 64, each with an expression that compiles to a bool (in
/// the environment with `params` when the policy has a param kind; `preexisting` ones as
/// stored expressions) and a unique qualified name.
pub(crate) fn match_conditions_errors(
    conditions: &[Value],
    server: u32,
    preexisting: &BTreeSet<String>,
    params: bool,
    path: &str,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if conditions.len() > 64 {
        errors.push(FieldError::too_many(path, conditions.len() as i64, 64));
    }
    let mut names = BTreeSet::new();
    for (i, condition) in conditions.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let expression = text(condition, "expression").trim();
        if expression.is_empty() {
            errors.push(FieldError::required(format!("{at}.expression"), ""));
        } else if let Some(why) = match_condition_error(expression, server, preexisting.contains(expression), params) {
            errors.push(FieldError::invalid(format!("{at}.expression"), expression.into(), why));
        }
        let name = text(condition, "name");
        if name.is_empty() {
            errors.push(FieldError::required(format!("{at}.name"), ""));
        } else {
            for why in qualified_name_errors(name) {
                errors.push(FieldError::invalid(format!("{at}.name"), name.into(), why));
            }
        }
        if !name.is_empty() && !names.insert(name) {
            errors.push(FieldError::duplicate(format!("{at}.name"), name.into()));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::{reasons, rendered};

    fn hook(extra: Value) -> Value {
        let mut hook = json!({
            "name": "a.example.com", "clientConfig": {"service": {"namespace": "n", "name": "s", "port": 443}},
            "sideEffects": "None", "admissionReviewVersions": ["v1"], "timeoutSeconds": 10,
        });
        for (key, value) in extra.as_object().into_iter().flatten() {
            hook[key] = value.clone();
        }
        hook
    }

    #[test]
    fn a_create_requires_no_side_effects_a_known_review_version_and_unique_names() {
        let config = json!({"webhooks": [
            hook(json!({"sideEffects": "Some", "admissionReviewVersions": ["v2", "v2"]})),
            hook(json!({"name": "two.segments", "clientConfig": {}, "admissionReviewVersions": []})),
            hook(json!({"timeoutSeconds": 31})),
        ]});
        assert_eq!(
            reasons(configuration_errors(&config, false, 28)),
            [
                "FieldValueNotSupported webhooks[0].sideEffects",
                "FieldValueInvalid webhooks[0].admissionReviewVersions[1]",
                "FieldValueInvalid webhooks[0].admissionReviewVersions",
                "FieldValueInvalid webhooks[1].name",
                "FieldValueRequired webhooks[1].clientConfig",
                "FieldValueRequired webhooks[1].admissionReviewVersions",
                "FieldValueInvalid webhooks[2].timeoutSeconds",
                "FieldValueDuplicate webhooks[2].name",
            ]
        );
        let mutating = json!({"webhooks": [hook(json!({"reinvocationPolicy": "Sometimes"}))]});
        assert_eq!(
            rendered(configuration_errors(&mutating, true, 28)),
            [
                "webhooks[0].reinvocationPolicy: Unsupported value: \"Sometimes\": supported values: \"IfNeeded\", \"Never\""
            ]
        );
    }

    #[test]
    fn an_update_keeps_what_the_stored_configuration_already_had() {
        let old = json!({"webhooks": [hook(json!({"sideEffects": "Some", "matchConditions": [{"name": "c", "expression": "request.x"}]}))]});
        // The stored side effects and unchanged (invalid) match conditions are not refused again.
        assert!(configuration_update_errors(&old, &old, false, 28).is_empty());
        let mut changed = old.clone();
        changed["webhooks"][0]["matchConditions"][0]["name"] = json!("d");
        let errors = configuration_update_errors(&changed, &old, false, 28);
        assert_eq!(
            reasons(&errors),
            ["FieldValueInvalid webhooks[0].matchConditions[0].expression"]
        );
        assert!(
            errors[0]
                .detail
                .starts_with("compilation failed: ERROR: <input>:1:8: undefined field 'x'")
        );
    }

    #[test]
    fn match_conditions_need_names_and_bool_expressions() {
        let config = json!({"webhooks": [hook(json!({"matchConditions": [
            {"name": "a", "expression": "request.name"},
            {"name": "", "expression": "  "},
            {"name": "a", "expression": "true"},
        ]}))]});
        assert_eq!(
            rendered(configuration_errors(&config, false, 31)),
            [
                "webhooks[0].matchConditions[0].expression: Invalid value: \"request.name\": must evaluate to bool",
                "webhooks[0].matchConditions[1].expression: Required value",
                "webhooks[0].matchConditions[1].name: Required value",
                "webhooks[0].matchConditions[2].name: Duplicate value: \"a\"",
            ]
        );
    }
}
