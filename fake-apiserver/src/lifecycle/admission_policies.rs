//! The ValidatingAdmissionPolicy admission plugin, as kube-apiserver runs it from 1.30
//! (`apiserver/pkg/admission/plugin/policy/validating/dispatcher.go`: `Dispatch`;
//! `validator.go`: `Validate`; `policy_decision.go`): every policy with a binding whose
//! constraints and binding's resources both match the request is evaluated per binding and
//! param; a failed validation denies, warns or is audited as the binding says; the first
//! denial answers the request. It runs in the validating phase, after the resource's own
//! validation. Policies act as soon as they are stored (kube-apiserver's take about a second).
//! Policies and bindings are evaluated in name order (Go's map order is random).

use std::sync::Arc;

use serde_json::{Value, json};

pub(crate) use crate::lifecycle::policy_matching::Request;
use crate::lifecycle::policy_matching::{admission_request, collect_params, matches, namespace_object, param_resource};
use crate::semantics::cel::admission_runtime::{Activation, Inputs, Outcome};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

const GROUP: &str = "admissionregistration.k8s.io";
/// `celconfig.MaxEvaluatedMessageExpressionSizeBytes`.
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// A failed validation that denies: the policy, the binding, why and its reason.
struct Denial {
    policy: String,
    binding: String,
    message: String,
    reason: Option<String>,
}

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn named(mut objects: Vec<Arc<Value>>) -> Vec<Arc<Value>> {
    objects.sort_by(|a, b| object::name(a).cmp(object::name(b)));
    objects
}

/// `shouldIgnoreResource` and the resources excluded from admission: the policies
/// themselves and the reviews that store nothing.
fn excluded(info: &ResourceInfo) -> bool {
    match info.group.as_str() {
        GROUP => {
            info.plural.starts_with("validatingadmissionpolic") || info.plural.starts_with("mutatingadmissionpolic")
        }
        "authentication.k8s.io" | "authorization.k8s.io" => true,
        _ => false,
    }
}

/// `Dispatch`: refuses the request as the first denying policy binding does; the warnings of
/// `Warn` bindings are added to `warnings`.
pub(crate) fn validate(
    state: &State,
    info: &ResourceInfo,
    request: &Request<'_>,
    warnings: &mut Vec<String>,
) -> Result<(), ApiStatus> {
    let Some(policies_info) = state.registry.find(GROUP, "v1", "validatingadmissionpolicies").cloned() else {
        return Ok(());
    };
    if excluded(info) {
        return Ok(());
    }
    let bindings_info = state.info(GROUP, "v1", "validatingadmissionpolicybindings");
    let bindings = named(state.objects_everywhere(&bindings_info));
    // Only a bound policy acts: without bindings, nothing to match on this hot path.
    if bindings.is_empty() {
        return Ok(());
    }
    let mut denials = Vec::new();
    for policy in named(state.objects_everywhere(&policies_info)) {
        let name = object::name(&policy);
        let bound: Vec<&Arc<Value>> = bindings
            .iter()
            .filter(|b| b.pointer("/spec/policyName").and_then(Value::as_str) == Some(name))
            .collect();
        if !bound.is_empty() {
            dispatch_policy(state, info, request, &policy, &bound, &mut denials, warnings);
        }
    }
    match denials.into_iter().next() {
        None => Ok(()),
        Some(denial) => Err(refusal(info, request, denial)),
    }
}

/// One policy's bindings (`Dispatch`'s loop body).
fn dispatch_policy(
    state: &State,
    info: &ResourceInfo,
    request: &Request<'_>,
    policy: &Value,
    bindings: &[&Arc<Value>],
    denials: &mut Vec<Denial>,
    warnings: &mut Vec<String>,
) {
    let spec = policy.get("spec").unwrap_or(&Value::Null);
    let policy_name = object::name(policy);
    let fail = text(spec, "failurePolicy") != "Ignore";
    let config_error = |denials: &mut Vec<Denial>, binding: Option<&str>, error: String| {
        if fail {
            let (prefix, binding) = match binding {
                Some(binding) => ("binding", binding.to_owned()),
                None => ("policy", String::new()),
            };
            let message = format!("failed to configure {prefix}: {error}");
            denials.push(Denial {
                policy: policy_name.to_owned(),
                binding,
                message,
                reason: None,
            });
        }
    };
    let constraints = spec.get("matchConstraints").filter(|c| c.is_object());
    let Some(constraints) = constraints else {
        config_error(
            denials,
            None,
            "policy contained no match constraints, a required field".into(),
        );
        return;
    };
    match matches(state, info, request, constraints) {
        Ok(true) => {}
        Ok(false) => return,
        Err(error) => return config_error(denials, None, error),
    }
    let param_kind = spec.get("paramKind").filter(|k| k.is_object());
    let param_info = match param_kind.map(|kind| param_resource(state, kind)).transpose() {
        Ok(found) => found,
        Err(error) => return config_error(denials, None, error),
    };
    for binding in bindings {
        let binding_name = object::name(binding);
        if let Some(resources) = binding.pointer("/spec/matchResources").filter(|r| r.is_object()) {
            match matches(state, info, request, resources) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(error) => {
                    config_error(denials, Some(binding_name), error);
                    continue;
                }
            }
        }
        let params = match &param_info {
            None => vec![None],
            Some(resource) => {
                match collect_params(state, resource, binding.pointer("/spec/paramRef"), request.namespace) {
                    Ok(params) => params,
                    Err(error) => {
                        config_error(denials, Some(binding_name), error);
                        continue;
                    }
                }
            }
        };
        let actions: Vec<&str> = binding
            .pointer("/spec/validationActions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for param in params {
            for decision in evaluate(state, info, request, spec, param.as_deref(), fail) {
                let Decision {
                    message,
                    reason,
                    always_denies,
                } = decision;
                if always_denies {
                    denials.push(Denial {
                        policy: policy_name.to_owned(),
                        binding: binding_name.to_owned(),
                        message,
                        reason,
                    });
                    continue;
                }
                if actions.contains(&"Warn") {
                    warnings.push(format!(
                        "Validation failed for ValidatingAdmissionPolicy '{policy_name}' with binding '{binding_name}': {message}"
                    ));
                }
                if actions.contains(&"Deny") {
                    denials.push(Denial {
                        policy: policy_name.to_owned(),
                        binding: binding_name.to_owned(),
                        message,
                        reason,
                    });
                }
            }
        }
    }
}

/// A validation that did not admit the request.
struct Decision {
    message: String,
    /// The validation's reason; none for an error.
    reason: Option<String>,
    /// An audit annotation's error, which denies whatever the binding's actions.
    always_denies: bool,
}

/// `validator.Validate` of one binding and param: the match conditions, then every
/// validation in order, then the audit annotations.
fn evaluate(
    state: &State,
    info: &ResourceInfo,
    request: &Request<'_>,
    spec: &Value,
    params: Option<&Value>,
    fail: bool,
) -> Vec<Decision> {
    let admission_request = admission_request(info, request);
    let variables: Vec<(String, String)> = spec
        .get("variables")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|v| (text(v, "name").to_owned(), text(v, "expression").to_owned()))
        .collect();
    let namespace_object = namespace_object(state, info, request);
    let mut inputs = Inputs {
        object: request.object,
        old_object: request.old,
        request: &admission_request,
        params,
        namespace_object: None,
        variables: &variables,
    };
    let error = |message: String| Decision {
        message,
        reason: None,
        always_denies: false,
    };
    // Match conditions see no namespace object: the first false skips the policy, else an error.
    let conditions = Activation::new(&inputs);
    let mut condition_errors = Vec::new();
    for condition in spec
        .get("matchConditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match conditions.evaluate(text(condition, "expression")) {
            Outcome::Bool(false) => return Vec::new(),
            Outcome::Error(why) => condition_errors.push(why),
            _ => {}
        }
    }
    if !condition_errors.is_empty() {
        return match fail {
            true => vec![error(aggregate(&condition_errors))],
            false => Vec::new(),
        };
    }
    inputs.namespace_object = namespace_object.as_ref();
    let activation = Activation::new(&inputs);
    let mut decisions = Vec::new();
    for validation in spec.get("validations").and_then(Value::as_array).into_iter().flatten() {
        let expression = text(validation, "expression");
        match activation.evaluate(expression) {
            Outcome::Bool(true) => {}
            Outcome::Error(why) if fail => decisions.push(error(why)),
            Outcome::Error(_) => {}
            _ => decisions.push(Decision {
                message: denial_message(&activation, validation, expression),
                reason: Some(text(validation, "reason"))
                    .filter(|r| !r.is_empty())
                    .map(str::to_owned),
                always_denies: false,
            }),
        }
    }
    for annotation in spec
        .get("auditAnnotations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let expression = text(annotation, "valueExpression");
        let failure = match activation.evaluate(expression) {
            Outcome::Error(why) => why,
            Outcome::String(_) | Outcome::Null => continue,
            _ => format!(
                "valueExpression '{expression}' resulted in unsupported return type: {}. Return type must be either string or null.",
                "dyn"
            ),
        };
        if fail {
            decisions.push(Decision {
                message: failure,
                reason: None,
                always_denies: true,
            });
        }
    }
    decisions
}

/// The message of a validation that failed: its message expression's string when usable
/// (one line, not blank, at most 5 KiB), else its message, else the expression.
fn denial_message(activation: &Activation, validation: &Value, expression: &str) -> String {
    let message_expression = text(validation, "messageExpression");
    if !message_expression.is_empty()
        && let Outcome::String(message) = activation.evaluate(message_expression)
    {
        let message = message.trim();
        if !message.is_empty() && !message.contains('\n') && message.len() <= MAX_MESSAGE_BYTES {
            return message.to_owned();
        }
    }
    match text(validation, "message").trim() {
        "" => format!("failed expression: {}", expression.trim()),
        message => message.to_owned(),
    }
}

/// `utilerrors.NewAggregate(...).Error()`: one error as it is, several in brackets.
fn aggregate(errors: &[String]) -> String {
    let mut unique: Vec<&String> = Vec::new();
    for error in errors {
        if !unique.contains(&error) {
            unique.push(error);
        }
    }
    match unique.as_slice() {
        [one] => (*one).clone(),
        many => format!("[{}]", many.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", ")),
    }
}

/// `admission.NewForbidden` of the denial, with its reason's code and the one cause the
/// dispatcher adds.
fn refusal(info: &ResourceInfo, request: &Request<'_>, denial: Denial) -> ApiStatus {
    let message = match denial.binding.is_empty() {
        true => format!(
            "ValidatingAdmissionPolicy '{}' denied request: {}",
            denial.policy, denial.message
        ),
        false => format!(
            "ValidatingAdmissionPolicy '{}' with binding '{}' denied request: {}",
            denial.policy, denial.binding, denial.message
        ),
    };
    let name = match request.name {
        "" => request
            .object
            .and_then(|o| {
                o.pointer("/metadata/name")
                    .or_else(|| o.pointer("/metadata/generateName"))
            })
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .unwrap_or("Unknown"),
        name => name,
    };
    let mut status = ApiStatus::forbidden_object(info, name, &message);
    let reason = denial.reason.unwrap_or_else(|| "Invalid".to_owned());
    status.code = match reason.as_str() {
        "Forbidden" => 403,
        "Unauthorized" => 401,
        "RequestEntityTooLarge" => 413,
        _ => 422,
    };
    status.reason = reason;
    if let Some(details) = status.details.as_mut() {
        details["causes"] = json!([{"message": message}]);
    }
    status
}
