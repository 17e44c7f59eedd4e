//! ValidatingAdmissionPolicies and their bindings validated as kube-apiserver validates them
//! (`pkg/apis/admissionregistration/validation/validation.go`:
//! `ValidateValidatingAdmissionPolicy(Update)`, `…StatusUpdate`, `validateParamKind`,
//! `validateValidation`, `validateAuditAnnotation`, `validateVariable`), every expression
//! compiled as `CompileCELExpression` does (`crate::semantics::cel::admission`); the match
//! resources and the bindings are `crate::semantics::admission_binding_validation`'s.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::semantics::admission_binding_validation::match_resources_errors;
use crate::semantics::cel::admission::{self, Composition, Declared, Returns};
use crate::semantics::condition_validation::conditions_errors;
use crate::semantics::field_error::{BadValue, FieldError, go_quote};
use crate::semantics::names::{dns1035_label_errors, dns1123_subdomain_errors, qualified_name_errors};
use crate::semantics::webhook_validation::match_conditions_errors;
use crate::storage::object;

/// `maxAuditAnnotations` and `maxAuditAnnotationValueExpressionLength`.
const MAX_AUDIT_ANNOTATIONS: usize = 20;
const MAX_VALUE_EXPRESSION_BYTES: usize = 5 * 1024;

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn items<'v>(object: &'v Value, key: &str) -> &'v [Value] {
    object.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The expressions a stored policy already had, which an update compiles with every option of
/// the server's minor (`findValidatingPolicyPreexistingExpressions`).
#[derive(Default)]
struct Preexisting {
    match_conditions: BTreeSet<String>,
    validations: BTreeSet<String>,
    messages: BTreeSet<String>,
    audit_values: BTreeSet<String>,
}

impl Preexisting {
    fn of(old: &Value) -> Self {
        let spec = old.get("spec").unwrap_or(&Value::Null);
        let collect = |list: &str, key: &str| -> BTreeSet<String> {
            items(spec, list)
                .iter()
                .map(|item| text(item, key).to_owned())
                .filter(|e| !e.is_empty() || key == "expression")
                .collect()
        };
        Self {
            match_conditions: collect("matchConditions", "expression"),
            validations: collect("validations", "expression"),
            messages: collect("validations", "messageExpression"),
            audit_values: collect("auditAnnotations", "valueExpression"),
        }
    }
}

/// `ValidateValidatingAdmissionPolicy` (`old: None`) or `…Update`, less the metadata.
pub(crate) fn policy_errors(policy: &Value, old: Option<&Value>, server: u32) -> Vec<FieldError> {
    let spec = policy.get("spec").unwrap_or(&Value::Null);
    let old_spec = old.and_then(|o| o.get("spec"));
    // An update that keeps the param kind and the match conditions does not check those again.
    let ignore_match_conditions = old_spec.is_some_and(|o| {
        o.get("paramKind") == spec.get("paramKind") && o.get("matchConditions") == spec.get("matchConditions")
    });
    let preexisting = old.map(Preexisting::of).unwrap_or_default();
    let mut errors = Vec::new();
    match spec.get("failurePolicy").and_then(Value::as_str) {
        None => errors.push(FieldError::required("spec.failurePolicy", "")),
        Some(policy) => errors.extend(FieldError::unless_one_of(
            "spec.failurePolicy",
            policy,
            &["Fail", "Ignore"],
        )),
    }
    let param_kind = spec.get("paramKind").filter(|p| p.is_object());
    if let Some(kind) = param_kind {
        errors.extend(param_kind_errors(kind));
    }
    match spec.get("matchConstraints").filter(|m| m.is_object()) {
        None => errors.push(FieldError::required("spec.matchConstraints", "")),
        Some(constraints) => {
            errors.extend(match_resources_errors(constraints, "spec.matchConstraints"));
            if items(constraints, "resourceRules").is_empty() {
                errors.push(FieldError::required("spec.matchConstraints.resourceRules", ""));
            }
        }
    }
    let params = param_kind.is_some();
    if !ignore_match_conditions {
        errors.extend(match_conditions_errors(
            items(spec, "matchConditions"),
            server,
            &preexisting.match_conditions,
            params,
            "spec.matchConditions",
        ));
    }
    let variables = items(spec, "variables");
    // Only a policy with variables compiles in the composition environment, which declares them.
    let mut composed: Option<Composition> = (!variables.is_empty()).then(Composition::default);
    for (i, variable) in variables.iter().enumerate() {
        let at = format!("spec.variables[{i}]");
        let name = text(variable, "name");
        if name.trim().is_empty() {
            errors.push(FieldError::required(format!("{at}.name"), "name is not specified"));
        } else if !admission::is_cel_identifier(name) {
            errors.push(FieldError::invalid(
                format!("{at}.name"),
                name.into(),
                "name is not a valid CEL identifier",
            ));
        }
        let expression = text(variable, "expression");
        if expression.trim().is_empty() {
            errors.push(FieldError::required(
                format!("{at}.expression"),
                "expression is not specified",
            ));
            continue;
        }
        let so_far = composed.as_mut().map(|c| c.variables().clone());
        let declared = Declared {
            params,
            authorizer: true,
            variables: so_far.as_ref(),
            ..Declared::default()
        };
        let stored = preexisting.validations.contains(expression);
        let compiled = admission::compile(expression, server, stored, declared, Returns::Any);
        if let Err(why) = &compiled {
            errors.push(FieldError::invalid(
                format!("{at}.expression"),
                expression.into(),
                why.clone(),
            ));
        }
        if let Some(composed) = composed.as_mut() {
            composed.add(name, compiled.as_ref().ok());
        }
    }
    let variables_type = composed.as_mut().map(|c| c.variables().clone());
    let compiler = Compiler {
        server,
        params,
        variables: variables_type.as_ref(),
        preexisting: &preexisting,
    };
    let validations = items(spec, "validations");
    let annotations = spec.get("auditAnnotations").and_then(Value::as_array);
    if validations.is_empty() && annotations.is_none_or(Vec::is_empty) {
        let why = "validations or auditAnnotations must contain at least one item";
        errors.push(FieldError::required("spec.validations", why));
        errors.push(FieldError::required("spec.auditAnnotations", why));
        return errors;
    }
    for (i, validation) in validations.iter().enumerate() {
        errors.extend(compiler.validation_errors(validation, &format!("spec.validations[{i}]")));
    }
    if let Some(annotations) = annotations {
        if annotations.len() > MAX_AUDIT_ANNOTATIONS {
            errors.push(FieldError::invalid(
                "spec.auditAnnotations",
                audit_annotations_go(annotations),
                format!("must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations"),
            ));
        }
        let policy_name = object::name(policy);
        let mut keys = BTreeSet::new();
        for (i, annotation) in annotations.iter().enumerate() {
            let at = format!("spec.auditAnnotations[{i}]");
            errors.extend(compiler.audit_annotation_errors(annotation, policy_name, &at));
            let key = text(annotation, "key");
            if !keys.insert(key) {
                errors.push(FieldError::duplicate(format!("{at}.key"), key.into()));
            }
        }
    }
    errors
}

/// What the expressions of one policy compile with.
struct Compiler<'a> {
    server: u32,
    params: bool,
    variables: Option<&'a admission::VariablesType>,
    preexisting: &'a Preexisting,
}

impl Compiler<'_> {
    fn declared(&self, authorizer: bool) -> Declared<'_> {
        Declared {
            params: self.params,
            authorizer,
            variables: self.variables,
            ..Declared::default()
        }
    }

    /// `validateValidation`.
    fn validation_errors(&self, validation: &Value, at: &str) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let expression = text(validation, "expression");
        if expression.trim().is_empty() {
            errors.push(FieldError::required(
                format!("{at}.expression"),
                "expression is not specified",
            ));
        } else {
            let stored = self.preexisting.validations.contains(expression);
            if let Err(why) = admission::compile(expression, self.server, stored, self.declared(true), Returns::Bool) {
                errors.push(FieldError::invalid(format!("{at}.expression"), expression.into(), why));
            }
        }
        let message_expression = text(validation, "messageExpression");
        if !message_expression.is_empty() && message_expression.trim().is_empty() {
            errors.push(FieldError::invalid(
                format!("{at}.messageExpression"),
                message_expression.into(),
                "must be non-empty if specified",
            ));
        } else if !message_expression.trim().is_empty() {
            // A message expression has no authorizer.
            let stored = self.preexisting.messages.contains(message_expression);
            let compiled = admission::compile(
                message_expression,
                self.server,
                stored,
                self.declared(false),
                Returns::String,
            );
            if let Err(why) = compiled {
                errors.push(FieldError::invalid(
                    format!("{at}.messageExpression"),
                    message_expression.into(),
                    why,
                ));
            }
        }
        let message = text(validation, "message");
        if !message.is_empty() && message.trim().is_empty() {
            errors.push(FieldError::invalid(
                format!("{at}.message"),
                message.into(),
                "message must be non-empty if specified",
            ));
        } else if message.trim().contains(['\n', '\r']) {
            errors.push(FieldError::invalid(
                format!("{at}.message"),
                message.into(),
                "message must not contain line breaks",
            ));
        }
        if let Some(reason) = validation.get("reason").and_then(Value::as_str) {
            let supported = ["Forbidden", "Invalid", "RequestEntityTooLarge"];
            errors.extend(FieldError::unless_one_of(format!("{at}.reason"), reason, &supported));
        }
        errors
    }

    /// `validateAuditAnnotation`: the key qualifies the policy's name; the value expression
    /// gives a string or null.
    fn audit_annotation_errors(&self, annotation: &Value, policy_name: &str, at: &str) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let key = text(annotation, "key");
        if policy_name.is_empty() {
            errors.push(FieldError::invalid(
                format!("{at}.key"),
                key.into(),
                "requires metadata.name be non-empty",
            ));
        } else {
            let qualified = format!("{policy_name}/{key}");
            for why in qualified_name_errors(&qualified) {
                errors.push(FieldError::invalid(format!("{at}.key"), qualified.as_str().into(), why));
            }
        }
        let value = text(annotation, "valueExpression");
        let trimmed = value.trim();
        if trimmed.is_empty() {
            errors.push(FieldError::required(
                format!("{at}.valueExpression"),
                "valueExpression is not specified",
            ));
        } else if trimmed.len() > MAX_VALUE_EXPRESSION_BYTES {
            let why = format!("must not exceed {MAX_VALUE_EXPRESSION_BYTES} bytes in length");
            errors.push(FieldError::required(format!("{at}.valueExpression"), why));
        } else {
            let stored = self.preexisting.audit_values.contains(value);
            let compiled = admission::compile(trimmed, self.server, stored, self.declared(true), Returns::StringOrNull);
            if let Err(why) = compiled {
                errors.push(FieldError::invalid(format!("{at}.valueExpression"), value.into(), why));
            }
        }
        errors
    }
}

/// Go's `%#v` of an audit annotation slice.
fn audit_annotations_go(annotations: &[Value]) -> BadValue {
    let shown: Vec<String> = annotations
        .iter()
        .map(|a| {
            format!(
                "admissionregistration.AuditAnnotation{{Key:{}, ValueExpression:{}}}",
                go_quote(text(a, "key")),
                go_quote(text(a, "valueExpression"))
            )
        })
        .collect();
    BadValue::Raw(format!(
        "[]admissionregistration.AuditAnnotation{{{}}}",
        shown.join(", ")
    ))
}

/// `validateParamKind`: an API version that parses to a valid group and version, a kind.
fn param_kind_errors(kind: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let at = "spec.paramKind.apiVersion";
    let api_version = text(kind, "apiVersion");
    if api_version.is_empty() {
        errors.push(FieldError::required(at, ""));
    } else if api_version.matches('/').count() > 1 {
        let why = format!("unexpected GroupVersion string: {api_version}");
        errors.push(FieldError::invalid(at, api_version.into(), why));
    } else {
        let (group, version) = match api_version {
            "/" => ("", ""),
            _ => api_version.split_once('/').unwrap_or(("", api_version)),
        };
        let group_errors = if group.is_empty() {
            Vec::new()
        } else {
            dns1123_subdomain_errors(group)
        };
        if !group_errors.is_empty() {
            errors.push(FieldError::invalid(at, group.into(), group_errors.join(",")));
        }
        if version.is_empty() {
            errors.push(FieldError::invalid(at, api_version.into(), "version must be specified"));
        } else {
            let version_errors = dns1035_label_errors(version);
            if !version_errors.is_empty() {
                errors.push(FieldError::invalid(at, version.into(), version_errors.join(",")));
            }
        }
    }
    let kind_name = text(kind, "kind");
    if kind_name.is_empty() {
        errors.push(FieldError::required("spec.paramKind.kind", ""));
    } else {
        let kind_errors = dns1035_label_errors(&kind_name.to_lowercase());
        if !kind_errors.is_empty() {
            errors.push(FieldError::invalid(
                "spec.paramKind.kind",
                kind_name.into(),
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    kind_errors.join(",")
                ),
            ));
        }
    }
    errors
}

/// `ValidateValidatingAdmissionPolicyStatusUpdate`: type checking warnings with their field
/// references, and the conditions.
pub(crate) fn status_errors(policy: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let warnings = policy
        .pointer("/status/typeChecking/expressionWarnings")
        .and_then(Value::as_array);
    for (i, warning) in warnings.into_iter().flatten().enumerate() {
        let at = format!("status.typeChecking.expressionWarnings[{i}]");
        if text(warning, "warning").is_empty() {
            errors.push(FieldError::required(format!("{at}.warning"), ""));
        }
        if text(warning, "fieldRef").trim().is_empty() {
            errors.push(FieldError::required(format!("{at}.fieldRef"), ""));
        }
    }
    let conditions = policy.pointer("/status/conditions").and_then(Value::as_array);
    errors.extend(conditions_errors(
        conditions.map_or(&[], Vec::as_slice),
        "status.conditions",
    ));
    errors
}

#[cfg(test)]
#[path = "admission_policy_validation_tests.rs"]
mod tests;
