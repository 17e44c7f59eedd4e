//! Failure answers of the fake API server, shaped as the `Status` bodies kube-apiserver sends.

use serde_json::{Value, json};

use crate::semantics::field_error::FieldError;
use crate::storage::resource::ResourceInfo;

/// A failed request, answered as a `meta.k8s.io/v1` `Status` with the code and reason the real
/// API server uses, so that `kube::Error::Api` on the client side carries the same values.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{code} {reason}: {message}")]
pub struct ApiStatus {
    /// HTTP status code, e.g. 404.
    pub code: u16,
    /// Machine-readable reason, e.g. `NotFound`.
    pub reason: String,
    /// Human-readable message, worded like kube-apiserver's.
    pub message: String,
    /// `details` of the Status (name, group, kind, causes), when the real server sends them.
    pub details: Option<Value>,
    /// Answered as Go's `http.Error` answers (the message as `text/plain`, no Status object),
    /// as kube-apiserver's filters answer before a request reaches the API handlers.
    pub plain_text: bool,
    /// Not answered at all: the connection is closed, as Go's server closes it when a handler
    /// panics (kube-apiserver's timeout filter re-raises the panic with `http.ErrAbortHandler`).
    pub abort_connection: bool,
}

impl ApiStatus {
    /// A status with any code, reason and message.
    pub fn new(code: u16, reason: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code,
            reason: reason.into(),
            message: message.into(),
            details: None,
            plain_text: false,
            abort_connection: false,
        }
    }

    /// The request a kube-apiserver handler panics on: no answer, the connection closed.
    /// `message` says what panicked, for this server's logs.
    pub fn handler_panicked(message: impl Into<String>) -> Self {
        let mut status = Self::new(500, "InternalError", message);
        status.abort_connection = true;
        status
    }

    fn with_details(self, info: &ResourceInfo, name: &str) -> Self {
        self.with_kind_details(&info.group, &info.plural, name)
    }

    /// Sets `details` as Go's `StatusDetails` encodes them: an empty group is left out.
    fn with_kind_details(mut self, group: &str, kind: &str, name: &str) -> Self {
        let mut details = json!({ "name": name, "kind": kind });
        if !group.is_empty() {
            details["group"] = json!(group);
        }
        self.details = Some(details);
        self
    }

    /// 404 NotFound for `name` of the resource `info`.
    pub fn not_found(info: &ResourceInfo, name: &str) -> Self {
        Self::new(
            404,
            "NotFound",
            format!("{} \"{name}\" not found", info.group_resource()),
        )
        .with_details(info, name)
    }

    /// 404 NotFound for a namespace that does not exist.
    pub fn namespace_not_found(namespace: &str) -> Self {
        let mut status = Self::new(404, "NotFound", format!("namespaces \"{namespace}\" not found"));
        status.details = Some(json!({ "name": namespace, "kind": "namespaces" }));
        status
    }

    /// 404 NotFound for a path that names no registered resource. kube-apiserver's REST handlers
    /// name neither the path nor the resource, and send empty details.
    pub fn no_route() -> Self {
        let mut status = Self::new(404, "NotFound", "the server could not find the requested resource");
        status.details = Some(json!({}));
        status
    }

    /// 409 AlreadyExists for `name` of the resource `info`.
    pub fn already_exists(info: &ResourceInfo, name: &str) -> Self {
        Self::new(
            409,
            "AlreadyExists",
            format!("{} \"{name}\" already exists", info.group_resource()),
        )
        .with_details(info, name)
    }

    /// 409 Conflict: the object changed since the client read it.
    pub fn conflict(info: &ResourceInfo, name: &str, why: &str) -> Self {
        let message = format!(
            "Operation cannot be fulfilled on {} \"{name}\": {why}",
            info.group_resource()
        );
        Self::new(409, "Conflict", message).with_details(info, name)
    }

    /// 409 Conflict for a failed delete precondition. kube-apiserver's `BeforeDelete` names the
    /// kind where other conflicts name the resource, qualified by the group as a group-resource
    /// prints (`Deployment.apps`).
    pub fn precondition_failed(info: &ResourceInfo, name: &str, why: &str) -> Self {
        let qualified = if info.group.is_empty() {
            info.kind.clone()
        } else {
            format!("{}.{}", info.kind, info.group)
        };
        let message = format!("Operation cannot be fulfilled on {qualified} \"{name}\": {why}");
        Self::new(409, "Conflict", message).with_kind_details(&info.group, &info.kind, name)
    }

    /// 409 Conflict for a stale `metadata.resourceVersion`.
    pub fn stale(info: &ResourceInfo, name: &str) -> Self {
        Self::conflict(
            info,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// 422 Invalid, with one cause per `(field, message)`.
    pub fn invalid(info: &ResourceInfo, name: &str, causes: &[(String, String)]) -> Self {
        Self::invalid_kind(&info.kind, &info.group, name, causes)
    }

    /// 422 Invalid about an object of `kind` in `group` (which may be the kind the body claims,
    /// not the resource's): kube-apiserver names it `Kind.group "name"`, or `Kind "name"` for core.
    pub fn invalid_kind(kind: &str, group: &str, name: &str, causes: &[(String, String)]) -> Self {
        let errors: Vec<(&str, &str, &str)> = causes
            .iter()
            .map(|(field, msg)| (cause_reason(msg), field.as_str(), msg.as_str()))
            .collect();
        Self::invalid_causes(kind, group, name, &errors)
    }

    /// 422 Invalid about an object of `info` with typed field errors: each cause's reason is its
    /// error's type (`errors.NewInvalid`).
    pub(crate) fn invalid_fields(info: &ResourceInfo, name: &str, errors: &[FieldError]) -> Self {
        let bodies: Vec<String> = errors.iter().map(FieldError::body).collect();
        let causes: Vec<(&str, &str, &str)> = errors
            .iter()
            .zip(&bodies)
            .map(|(error, body)| (error.kind.reason(), error.field.as_str(), body.as_str()))
            .collect();
        Self::invalid_causes(&info.kind, &info.group, name, &causes)
    }

    /// `errors.NewInvalid`: every `(reason, field, message)` a cause, the message their
    /// aggregate, distinct messages in brackets when there are several.
    fn invalid_causes(kind: &str, group: &str, name: &str, causes: &[(&str, &str, &str)]) -> Self {
        let mut summary: Vec<String> = Vec::new();
        for (_, field, msg) in causes {
            let line = format!("{field}: {msg}");
            if !summary.contains(&line) {
                summary.push(line);
            }
        }
        let summary = match &summary[..] {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        let qualified = if group.is_empty() {
            kind.to_owned()
        } else {
            format!("{kind}.{group}")
        };
        let message = format!("{qualified} \"{name}\" is invalid: {summary}");
        let causes: Vec<Value> = causes
            .iter()
            .map(|(reason, field, msg)| json!({ "reason": reason, "message": msg, "field": field }))
            .collect();
        let mut status = Self::new(422, "Invalid", message);
        // Go's StatusDetails leave empty strings out.
        let mut details = json!({ "causes": causes });
        for (key, value) in [("name", name), ("group", group), ("kind", kind)] {
            if !value.is_empty() {
                details[key] = json!(value);
            }
        }
        status.details = Some(details);
        status
    }

    /// 400 BadRequest for a body that does not decode as `info`'s kind (Go's
    /// `transformDecodeError`): `Kind in version "v1" cannot be handled as a Kind: <why>`.
    pub(crate) fn cannot_handle(info: &ResourceInfo, why: &str) -> Self {
        Self::bad_request(format!(
            "{} in version {:?} cannot be handled as a {}: {why}",
            info.kind, info.version, info.kind
        ))
    }

    /// 410 Gone with reason `Expired`: a resourceVersion older than the retained history.
    pub fn expired(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    /// 504 Timeout for a resourceVersion the server has not reached: kube-apiserver's
    /// `ResourceVersionTooLarge`, which clients retry after a second.
    pub fn resource_version_too_large(requested: u64, current: u64) -> Self {
        let mut status = Self::new(
            504,
            "Timeout",
            format!("Timeout: Too large resource version: {requested}, current: {current}"),
        );
        status.details = Some(json!({
            "causes": [{ "reason": "ResourceVersionTooLarge", "message": "Too large resource version" }],
            "retryAfterSeconds": 1,
        }));
        status
    }

    /// 400 BadRequest.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    /// 401 Unauthorized: credentials no authenticator accepts (kube-apiserver says no more).
    pub fn unauthorized() -> Self {
        Self::new(401, "Unauthorized", "Unauthorized")
    }

    /// 403 Forbidden.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(403, "Forbidden", message)
    }

    /// `errors.NewForbidden` of the object `name` of `info`: why it may not be done.
    pub(crate) fn forbidden_object(info: &ResourceInfo, name: &str, why: &str) -> Self {
        let message = format!("{} \"{name}\" is forbidden: {why}", info.group_resource());
        Self::forbidden(message).with_details(info, name)
    }

    /// 403 Forbidden for a create into a namespace being deleted, with the `NamespaceTerminating`
    /// cause kube-apiserver's lifecycle admission gives.
    pub fn namespace_terminating(info: &ResourceInfo, name: &str, namespace: &str) -> Self {
        let message = format!(
            "{} \"{name}\" is forbidden: unable to create new content in namespace {namespace} because it is being terminated",
            info.group_resource()
        );
        let mut status = Self::forbidden(message).with_details(info, name);
        status.details.as_mut().expect("details just set")["causes"] = json!([{
            "reason": "NamespaceTerminating",
            "message": format!("namespace {namespace} is being terminated"),
            "field": "metadata.namespace",
        }]);
        status
    }

    /// `errors.HasStatusCause`: whether a cause of the details has this reason.
    pub(crate) fn has_cause(&self, reason: &str) -> bool {
        let causes = self
            .details
            .as_ref()
            .and_then(|d| d.get("causes"))
            .and_then(Value::as_array);
        causes
            .into_iter()
            .flatten()
            .any(|cause| cause.get("reason").and_then(Value::as_str) == Some(reason))
    }

    /// 405 MethodNotAllowed for a verb the resource does not serve, with kube-apiserver's empty
    /// details.
    pub fn method_not_allowed() -> Self {
        let mut status = Self::new(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
        );
        status.details = Some(json!({}));
        status
    }

    /// 405 MethodNotAllowed for a verb a handler has no storage for: a watch on a resource that
    /// is listed but not watched, a delete on a custom resource's `/status` or `/scale`
    /// (`errors.NewMethodNotSupported`: the details name the resource, not the kind).
    pub fn method_not_supported(info: &ResourceInfo, verb: &str) -> Self {
        let resource = info.group_resource();
        let mut status = Self::new(
            405,
            "MethodNotAllowed",
            format!("{verb} is not supported on resources of kind {resource:?}"),
        );
        let mut details = json!({ "kind": info.plural });
        if !info.group.is_empty() {
            details["group"] = json!(info.group);
        }
        status.details = Some(details);
        status
    }

    /// 415 UnsupportedMediaType for a patch type the resource does not accept, listing those it
    /// does.
    pub fn unsupported_media_type(accepted: &[&str]) -> Self {
        Self::new(
            415,
            "UnsupportedMediaType",
            format!(
                "the body of the request was in an unknown format - accepted media types include: {}",
                accepted.join(", ")
            ),
        )
    }

    /// 406 NotAcceptable: the response cannot take the form the client asked for.
    pub fn not_acceptable(message: impl Into<String>) -> Self {
        Self::new(406, "NotAcceptable", message)
    }

    /// 500 InternalError.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(500, "InternalError", message)
    }

    /// `responsewriters.InternalError` of a filter: `Internal Server Error: "<uri>": <why>`,
    /// as text with `&`, `<` and `>` escaped.
    pub(crate) fn filter_internal_error(request_uri: &str, why: &str) -> Self {
        let text = format!(
            "Internal Server Error: {}: {why}",
            crate::semantics::field_error::go_quote(request_uri)
        );
        let escaped = text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        Self {
            plain_text: true,
            ..Self::new(500, "", escaped)
        }
    }

    /// 503 ServiceUnavailable, the usual answer of an overloaded or restarting server.
    pub fn service_unavailable(message: impl Into<String>) -> Self {
        Self::new(503, "ServiceUnavailable", message)
    }

    /// The `Status` object sent as the response body or inside a watch `ERROR` event.
    pub fn to_json(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        // Go's `omitempty`: an error kube-apiserver did not convert has no reason.
        if self.reason.is_empty() {
            status.as_object_mut().expect("a JSON object").remove("reason");
        }
        if let Some(details) = &self.details {
            status["details"] = details.clone();
        }
        status
    }
}

/// The cause reason kube-apiserver gives a field error, read off the message's leading words
/// (Go's `field.Error` writes them from its type). A type error reads like an invalid value; it
/// is the OpenAPI validator's, whose detail always says `in body must be of type`.
fn cause_reason(message: &str) -> &'static str {
    if message.starts_with("Invalid value") && message.contains(" in body must be of type ") {
        "FieldValueTypeInvalid"
    } else if message.starts_with("Duplicate value") {
        "FieldValueDuplicate"
    } else if message.starts_with("Not found") {
        "FieldValueNotFound"
    } else if message.starts_with("Too long") {
        "FieldValueTooLong"
    } else if message.starts_with("Too many") {
        "FieldValueTooMany"
    } else if message.starts_with("Internal error") {
        "InternalError"
    } else if message.starts_with("Required value") {
        "FieldValueRequired"
    } else if message.starts_with("Unsupported value") {
        "FieldValueNotSupported"
    } else if message.starts_with("Forbidden") {
        "FieldValueForbidden"
    } else {
        "FieldValueInvalid"
    }
}

/// The `Status` kube-apiserver answers an immediate delete with, for resources that do not
/// return the deleted object.
pub(crate) fn deleted_status(info: &ResourceInfo, deleted: &Value) -> Value {
    let meta = deleted.get("metadata");
    let text = |key: &str| meta.and_then(|m| m.get(key)).cloned().unwrap_or(Value::Null);
    json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
        "details": { "name": text("name"), "group": info.group, "kind": info.plural, "uid": text("uid") },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_should_name_group_resource_like_kube_apiserver() {
        let info = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let status = ApiStatus::not_found(&info, "web");
        assert_eq!(status.message, "deployments.apps \"web\" not found");
        let body = status.to_json();
        assert_eq!(body["reason"], "NotFound");
        assert_eq!(body["code"], 404);
        assert_eq!(body["details"]["kind"], "deployments");
    }

    #[test]
    fn an_error_without_a_reason_should_have_none_in_its_status() {
        let body = ApiStatus::new(500, "", "unconverted").to_json();
        assert_eq!(body.get("reason"), None);
        assert_eq!(body["code"], 500);
    }
}
