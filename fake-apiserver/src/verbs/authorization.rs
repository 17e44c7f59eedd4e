//! The reviews of `authorization.k8s.io`, created and answered, never stored:
//! `subjectaccessreviews` and `localsubjectaccessreviews` (may this user do that?),
//! `selfsubjectaccessreviews` (may I?) and `selfsubjectrulesreviews` (what may I do here?), as
//! `pkg/registry/authorization/*/rest.go` answer them, validated as
//! `pkg/apis/authorization/validation/validation.go` does, asked of the server's own authorizer.

use serde_json::{Map, Value, json};

use crate::auth::attributes::Attributes;
use crate::auth::{Authenticator, UserInfo};
use crate::semantics::field_error::{BadValue, FieldError};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;
use crate::verbs::authentication::{decode, with_managed_fields};

const GROUP: &str = "authorization.k8s.io";
const RESOURCE_ATTRIBUTES: [&str; 7] = [
    "namespace",
    "verb",
    "group",
    "version",
    "resource",
    "subresource",
    "name",
];

/// Whether a create on `info` is one of these reviews.
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group == GROUP
}

/// Who asks, and with which authorizer.
pub(crate) struct Reviewer<'a> {
    pub(crate) state: &'a State,
    pub(crate) authenticator: &'a Authenticator,
    pub(crate) requester: &'a UserInfo,
}

impl Reviewer<'_> {
    /// POST of a review of `info` (in `namespace`, for the local one) by `manager`.
    pub(crate) fn review(
        &self,
        info: &ResourceInfo,
        namespace: &str,
        body: &[u8],
        manager: &str,
    ) -> Result<Value, ApiStatus> {
        let sent = decode(body, &info.group, &info.kind)?;
        if info.plural == "selfsubjectrulesreviews" {
            return self.rules_review(&sent);
        }
        let mut review = known_fields(info, &sent, namespace)?;
        let errors = validate(info, &review);
        if !errors.is_empty() {
            return Err(ApiStatus::invalid_fields(&unnamed_kind(), "", &errors));
        }
        let spec = &review["spec"];
        let user = match info.plural.as_str() {
            "selfsubjectaccessreviews" => self.requester.clone(),
            _ => UserInfo::from_review_spec(spec),
        };
        let attrs = match spec.get("resourceAttributes") {
            Some(resource) => {
                let text = |key: &str| text_of(resource, key);
                let version = Some(text("version")).filter(|v| !v.is_empty()).unwrap_or("*");
                Attributes {
                    version: version.to_owned(),
                    subresource: text("subresource").to_owned(),
                    ..Attributes::resource(
                        text("verb"),
                        text("group"),
                        text("resource"),
                        text("namespace"),
                        text("name"),
                    )
                }
            }
            None => {
                let attributes = &spec["nonResourceAttributes"];
                Attributes {
                    verb: text_of(attributes, "verb").to_owned(),
                    path: text_of(attributes, "path").to_owned(),
                    ..Attributes::default()
                }
            }
        };
        let decision = self.authenticator.authorize(self.state, &user, &attrs);
        object::meta_mut(&mut review).insert("creationTimestamp".to_owned(), Value::Null);
        let mut review = with_managed_fields(info, review, manager, None);
        let mut status = json!({ "allowed": decision.allowed });
        if !decision.reason.is_empty() {
            status["reason"] = json!(decision.reason);
        }
        review["status"] = status;
        Ok(review)
    }

    /// A SelfSubjectRulesReview: a new object with the rules alone (kube-apiserver returns
    /// neither the metadata nor the spec sent).
    fn rules_review(&self, sent: &Value) -> Result<Value, ApiStatus> {
        let namespace = sent
            .pointer("/spec/namespace")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if namespace.is_empty() {
            return Err(ApiStatus::bad_request("no namespace on request"));
        }
        Ok(json!({
            "kind": "SelfSubjectRulesReview",
            "apiVersion": "authorization.k8s.io/v1",
            "metadata": { "creationTimestamp": null },
            "spec": {},
            "status": self.authenticator.rules_review(self.state, self.requester, namespace),
        }))
    }
}

/// The review as its Go struct keeps it: the metadata, and the spec's known fields. A local
/// review takes the request's namespace, which its own must match.
fn known_fields(info: &ResourceInfo, sent: &Value, namespace: &str) -> Result<Value, ApiStatus> {
    let mut metadata = sent
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    if info.namespaced {
        match metadata.get("namespace").and_then(Value::as_str) {
            None | Some("") => {
                metadata.insert("namespace".to_owned(), json!(namespace));
            }
            Some(given) if given != namespace => {
                return Err(ApiStatus::bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request",
                ));
            }
            Some(_) => {}
        }
    }
    let sent_spec = sent.get("spec").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut spec = Map::new();
    // The attributes' known strings that are set (Go's `omitempty`).
    let kept = |attributes: &Map<String, Value>, keys: &[&str]| -> Value {
        keys.iter()
            .filter_map(|key| {
                let value = attributes.get(*key).and_then(Value::as_str).filter(|v| !v.is_empty())?;
                Some(((*key).to_owned(), json!(value)))
            })
            .collect::<Map<String, Value>>()
            .into()
    };
    if let Some(resource) = sent_spec.get("resourceAttributes").and_then(Value::as_object) {
        spec.insert("resourceAttributes".to_owned(), kept(resource, &RESOURCE_ATTRIBUTES));
    }
    if let Some(attributes) = sent_spec.get("nonResourceAttributes").and_then(Value::as_object) {
        spec.insert("nonResourceAttributes".to_owned(), kept(attributes, &["path", "verb"]));
    }
    if info.plural != "selfsubjectaccessreviews" {
        for key in ["user", "groups", "extra", "uid"] {
            if let Some(value) = sent_spec.get(key).filter(|v| !v.is_null()) {
                spec.insert(key.to_owned(), value.clone());
            }
        }
    }
    Ok(json!({
        "kind": info.kind,
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": metadata,
        "spec": spec,
    }))
}

/// `ValidateSubjectAccessReview`, `ValidateSelfSubjectAccessReview` and
/// `ValidateLocalSubjectAccessReview`.
fn validate(info: &ResourceInfo, review: &Value) -> Vec<FieldError> {
    let spec = &review["spec"];
    let resource = spec.get("resourceAttributes");
    let non_resource = spec.get("nonResourceAttributes");
    let mut errors = Vec::new();
    match (resource, non_resource) {
        (Some(_), Some(attributes)) => errors.push(FieldError::invalid(
            "spec.nonResourceAttributes",
            BadValue::Raw(go_non_resource(attributes)),
            "cannot be specified in combination with resourceAttributes",
        )),
        (None, None) => errors.push(FieldError::invalid(
            "spec.resourceAttributes",
            BadValue::Json(Value::Null),
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        )),
        _ => {}
    }
    let self_review = info.plural == "selfsubjectaccessreviews";
    let user = spec.get("user").and_then(Value::as_str).unwrap_or_default();
    let no_groups = object::string_list(spec.get("groups")).is_empty();
    if !self_review && user.is_empty() && no_groups {
        errors.push(FieldError::invalid(
            "spec.user",
            BadValue::from(user),
            "at least one of user or group must be specified",
        ));
    }
    let mut metadata = review
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    metadata.remove("managedFields");
    let local = info.plural == "localsubjectaccessreviews";
    let namespace = metadata
        .remove("namespace")
        .and_then(|n| n.as_str().map(str::to_owned))
        .unwrap_or_default();
    let must_be_empty = metadata.values().any(|v| !v.is_null()) || (!local && !namespace.is_empty());
    if must_be_empty {
        let detail = if local {
            "must be empty except for namespace"
        } else {
            "must be empty"
        };
        errors.push(FieldError::invalid(
            "metadata",
            BadValue::Raw(go_object_meta(review)),
            detail,
        ));
    }
    if local {
        if let Some(resource) = resource {
            let given = resource.get("namespace").and_then(Value::as_str).unwrap_or_default();
            if given != namespace {
                errors.push(FieldError::invalid(
                    "spec.resourceAttributes.namespace",
                    BadValue::from(given),
                    "must match metadata.namespace",
                ));
            }
        }
        if let Some(attributes) = non_resource {
            errors.push(FieldError::invalid(
                "spec.nonResourceAttributes",
                BadValue::Raw(go_non_resource(attributes)),
                "disallowed on this kind of request",
            ));
        }
    }
    errors
}

/// The string at `key` of a review's attributes; `""` when absent, as Go's zero value.
fn text_of<'a>(attributes: &'a Value, key: &str) -> &'a str {
    attributes.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The kind the reviews' errors name: the internal object's, whose kind decoding cleared.
fn unnamed_kind() -> ResourceInfo {
    ResourceInfo {
        kind: String::new(),
        ..ResourceInfo::builtin(GROUP, "v1", "SubjectAccessReview", "subjectaccessreviews")
    }
}

/// Go's `%#v` of the internal `NonResourceAttributes`.
fn go_non_resource(attributes: &Value) -> String {
    let text = |key: &str| text_of(attributes, key);
    format!(
        "authorization.NonResourceAttributes{{Path:{:?}, Verb:{:?}}}",
        text("path"),
        text("verb")
    )
}

/// Go's `%#v` of the object's `ObjectMeta`, as far as the fields a review is sent with go (a
/// managed fields entry prints a pointer, which nobody can match).
fn go_object_meta(review: &Value) -> String {
    let text = |key: &str| {
        review
            .pointer(&format!("/metadata/{key}"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let map = |key: &str| match review.pointer(&format!("/metadata/{key}")).and_then(Value::as_object) {
        Some(entries) if !entries.is_empty() => {
            let shown: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{k:?}:{:?}", v.as_str().unwrap_or_default()))
                .collect();
            format!("map[string]string{{{}}}", shown.join(", "))
        }
        _ => "map[string]string(nil)".to_owned(),
    };
    format!(
        "v1.ObjectMeta{{Name:{:?}, GenerateName:{:?}, Namespace:{:?}, SelfLink:\"\", UID:\"\", ResourceVersion:\"\", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:{}, Annotations:{}, OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ManagedFields:[]v1.ManagedFieldsEntry(nil)}}",
        text("name"),
        text("generateName"),
        text("namespace"),
        map("labels"),
        map("annotations"),
    )
}
