//! IngressClass validation as in `pkg/apis/networking/validation/validation.go`:
//! `ValidateIngressClass`, `ValidateIngressClassUpdate`, `validateIngressClassSpec`,
//! `validateIngressClassParametersReference` and `validateIngressTypedLocalObjectReference`
//! (shared with an Ingress's resource backends), with apimachinery's `IsDomainPrefixedPath`.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names::{dns1123_label_errors, dns1123_subdomain_errors, path_segment_errors};

/// `maxLenIngressClassController`.
const MAX_CONTROLLER_LENGTH: usize = 250;

/// `supportedIngressClassParametersReferenceScopes.List()`: sorted.
const SCOPES: [&str; 2] = ["Cluster", "Namespace"];

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The string a Go `*string` field points to, if it is set.
fn pointer<'v>(object: &'v Value, key: &str) -> Option<&'v str> {
    object
        .get(key)
        .filter(|v| !v.is_null())
        .map(|v| v.as_str().unwrap_or_default())
}

/// `ValidateIngressClass` less metadata: `validateIngressClassSpec`.
pub(crate) fn class_errors(class: &Value) -> Vec<FieldError> {
    let spec = class.get("spec").unwrap_or(&Value::Null);
    let controller = text(spec, "controller");
    let mut errors = Vec::new();
    if controller.len() > MAX_CONTROLLER_LENGTH {
        errors.push(FieldError::too_long(
            "spec.controller",
            controller.into(),
            MAX_CONTROLLER_LENGTH as i64,
        ));
    }
    errors.extend(domain_prefixed_path_errors("spec.controller", controller));
    if let Some(parameters) = spec.get("parameters").filter(|p| !p.is_null()) {
        errors.extend(parameters_errors(parameters, "spec.parameters"));
    }
    errors
}

/// `ValidateIngressClassUpdate` less metadata: the controller is immutable, then the class is
/// validated as on create.
pub(crate) fn class_update_errors(class: &Value, old: &Value) -> Vec<FieldError> {
    let controller = |class: &Value| {
        class
            .pointer("/spec/controller")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut errors = Vec::new();
    let new_controller = controller(class);
    if new_controller != controller(old) {
        errors.push(FieldError::invalid(
            "spec.controller",
            BadValue::Str(new_controller),
            "field is immutable",
        ));
    }
    errors.extend(class_errors(class));
    errors
}

/// `IsDomainPrefixedPath`: `host/path`, the host a DNS subdomain, the path HTTP path characters.
pub(crate) fn domain_prefixed_path_errors(field: &str, value: &str) -> Vec<FieldError> {
    if value.is_empty() {
        return vec![FieldError::required(field, "")];
    }
    let Some((host, path)) = value.split_once('/').filter(|(h, p)| !h.is_empty() && !p.is_empty()) else {
        return vec![FieldError::invalid(
            field,
            value.into(),
            "must be a domain-prefixed path (such as \"acme.io/foo\")",
        )];
    };
    let mut errors: Vec<FieldError> = dns1123_subdomain_errors(host)
        .into_iter()
        .map(|why| FieldError::invalid(field, host.into(), why))
        .collect();
    // `httpPathFmt`: RFC 3986's path characters.
    let http_path = path
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/-._~%!$&'()*+,;=:".contains(&b));
    if !http_path {
        errors.push(FieldError::invalid(
            field,
            path.into(),
            "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
        ));
    }
    errors
}

/// `validateIngressTypedLocalObjectReference`: an optional API group that is a subdomain, a
/// kind and a name that are path segments.
pub(crate) fn typed_reference_errors(reference: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(group) = pointer(reference, "apiGroup") {
        for why in dns1123_subdomain_errors(group) {
            errors.push(FieldError::invalid(format!("{at}.apiGroup"), group.into(), why));
        }
    }
    for key in ["kind", "name"] {
        let value = text(reference, key);
        if value.is_empty() {
            errors.push(FieldError::required(
                format!("{at}.{key}"),
                format!("{key} is required"),
            ));
        } else {
            for why in path_segment_errors(value) {
                errors.push(FieldError::invalid(format!("{at}.{key}"), value.into(), why));
            }
        }
    }
    errors
}

/// `validateIngressClassParametersReference`: the reference, and a scope with a namespace
/// exactly when it is `Namespace`.
fn parameters_errors(parameters: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = typed_reference_errors(parameters, at);
    let Some(scope) = pointer(parameters, "scope") else {
        errors.push(FieldError::required(format!("{at}.scope"), ""));
        return errors;
    };
    let namespace = pointer(parameters, "namespace");
    match scope {
        "Namespace" => match namespace {
            None => errors.push(FieldError::required(
                format!("{at}.namespace"),
                "`parameters.scope` is set to 'Namespace'",
            )),
            Some(namespace) => {
                for why in dns1123_label_errors(namespace) {
                    errors.push(FieldError::invalid(format!("{at}.namespace"), namespace.into(), why));
                }
            }
        },
        "Cluster" => {
            if namespace.is_some() {
                errors.push(FieldError::forbidden(
                    format!("{at}.namespace"),
                    "`parameters.scope` is set to 'Cluster'",
                ));
            }
        }
        other => {
            let supported = SCOPES.map(str::to_owned);
            errors.push(FieldError::not_supported(
                format!("{at}.scope"),
                other.into(),
                &supported,
            ));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn controllers_should_be_domain_prefixed_paths() {
        assert!(class_errors(&json!({"spec": {"controller": "example.com/ingress"}})).is_empty());
        assert_eq!(
            rendered(&class_errors(&json!({"spec": {}}))),
            ["spec.controller: Required value"]
        );
        assert_eq!(
            rendered(&class_errors(&json!({"spec": {"controller": "nodomain"}}))),
            ["spec.controller: Invalid value: \"nodomain\": must be a domain-prefixed path (such as \"acme.io/foo\")"]
        );
        let errors = rendered(&class_errors(&json!({"spec": {"controller": "Not A Domain/x y"}})));
        assert!(errors[0].starts_with("spec.controller: Invalid value: \"Not A Domain\": a lowercase RFC 1123"));
        assert_eq!(
            errors[1],
            "spec.controller: Invalid value: \"x y\": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"
        );
        let long = format!("a.io/{}", "x".repeat(250));
        assert_eq!(
            rendered(&class_errors(&json!({"spec": {"controller": long}}))),
            ["spec.controller: Too long: must have at most 250 bytes"]
        );
    }

    #[test]
    fn parameters_should_name_a_scope_and_its_namespace() {
        let class = |parameters: Value| json!({"spec": {"controller": "a.io/b", "parameters": parameters}});
        assert_eq!(
            rendered(&class_errors(&class(
                json!({"kind": "", "name": "", "scope": "Namespace"})
            ))),
            [
                "spec.parameters.kind: Required value: kind is required",
                "spec.parameters.name: Required value: name is required",
                "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
            ]
        );
        assert_eq!(
            rendered(&class_errors(&class(
                json!({"kind": "K", "name": "..", "scope": "Galaxy"})
            ))),
            [
                "spec.parameters.name: Invalid value: \"..\": may not be '..'",
                "spec.parameters.scope: Unsupported value: \"Galaxy\": supported values: \"Cluster\", \"Namespace\"",
            ]
        );
        assert_eq!(
            rendered(&class_errors(&class(
                json!({"kind": "K", "name": "n", "scope": "Cluster", "namespace": "x"})
            ))),
            ["spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"]
        );
        assert_eq!(
            rendered(&class_errors(&class(json!({"kind": "K", "name": "n"})))),
            ["spec.parameters.scope: Required value"]
        );
    }

    #[test]
    fn the_controller_should_be_immutable() {
        let old = json!({"spec": {"controller": "a.io/b"}});
        let new = json!({"spec": {"controller": "a.io/c"}});
        assert_eq!(
            rendered(&class_update_errors(&new, &old)),
            ["spec.controller: Invalid value: \"a.io/c\": field is immutable"]
        );
    }
}
