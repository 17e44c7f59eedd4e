//! Objects a CRD schema marks `x-kubernetes-embedded-resource`: their `metadata` is decoded as an
//! `ObjectMeta` (unknown keys dropped and reported), and they must name an `apiVersion` and a
//! `kind` and carry valid metadata, as kube-apiserver checks them
//! (`apiextensions-apiserver/pkg/apiserver/schema/objectmeta/{coerce,validation}.go`).

use serde_json::Value;

use super::{object_meta, structural};
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;

/// `Coerce` (the decoder's part): an embedded resource's `apiVersion` and `kind` must be
/// strings and its `metadata` must decode as an `ObjectMeta`, whose unknown keys are dropped.
/// Returns their paths (`spec.template.metadata.bogus`), sorted; the first failure refuses the
/// whole body, as a decoding error. The root's metadata is the decoder's.
pub(crate) fn coerce(schema: &Value, object: &mut Value) -> Result<Vec<String>, FieldError> {
    coerce_at(schema, object, "", false)
}

/// [`coerce`] of `value` at `path`, itself an embedded resource when `resource` says so.
pub(crate) fn coerce_at(
    schema: &Value,
    value: &mut Value,
    path: &str,
    resource: bool,
) -> Result<Vec<String>, FieldError> {
    let mut unknown = Vec::new();
    let mut failure = None;
    walk_mut(schema, value, path, start(resource), &mut |path, map| {
        if failure.is_some() {
            return;
        }
        for key in ["apiVersion", "kind"] {
            if let Some(value) = map.get(key).filter(|v| !v.is_string()) {
                failure = Some(FieldError::invalid(
                    format!("{path}.{key}"),
                    BadValue::Json(value.clone()),
                    "must be a string",
                ));
                return;
            }
        }
        let Some(meta) = map.get_mut("metadata") else { return };
        if let Some(why) = object_meta::decode_error(meta) {
            failure = Some(FieldError::invalid(
                format!("{path}.metadata"),
                BadValue::Json(meta.clone()),
                why,
            ));
            return;
        }
        if let Some(fields) = meta.as_object_mut() {
            fields.retain(|key, _| {
                let known = object_meta::is_field(key);
                if !known {
                    unknown.push(format!("{path}.metadata.{key}"));
                }
                known
            });
        }
    });
    match failure {
        Some(error) => Err(error),
        None => {
            unknown.sort();
            Ok(unknown)
        }
    }
}

/// The errors of every embedded resource below the root.
pub(crate) fn validate(schema: &Value, object: &Value) -> Vec<FieldError> {
    validate_at(schema, object, "", false)
}

/// [`validate`] of `value` at `path`, itself an embedded resource when `resource` says so.
pub(crate) fn validate_at(schema: &Value, value: &Value, path: &str, resource: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut value = value.clone();
    walk_mut(schema, &mut value, path, start(resource), &mut |path, map| {
        errors.extend(resource_errors(path, map))
    });
    errors
}

type Visit<'v> = dyn FnMut(&str, &mut serde_json::Map<String, Value>) + 'v;

/// Whether the walk visits the value it starts from.
#[derive(Clone, Copy, PartialEq)]
enum Start {
    /// The resource root: never (its metadata is the decoder's).
    Skip,
    /// A value that is a resource itself (an embedded resource's default).
    Visit,
    /// As any value below: when its schema marks it an embedded resource.
    ByFlag,
}

/// Visits every embedded resource in `value` with its field path (`spec.items[0]`,
/// `spec.m[key]`).
fn walk_mut(schema: &Value, value: &mut Value, path: &str, start: Start, visit: &mut Visit<'_>) {
    match value {
        Value::Object(map) => {
            if start == Start::Visit || start == Start::ByFlag && structural::embedded_resource(schema) {
                visit(path, map);
            }
            for (key, child) in map.iter_mut() {
                if let Some(property) = structural::property(schema, key) {
                    let child_path = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    walk_mut(property, child, &child_path, Start::ByFlag, visit);
                } else if let Some(additional) = structural::additional(schema) {
                    walk_mut(additional, child, &format!("{path}[{key}]"), Start::ByFlag, visit);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = structural::items(schema) {
                for (i, item) in items.iter_mut().enumerate() {
                    walk_mut(item_schema, item, &format!("{path}[{i}]"), Start::ByFlag, visit);
                }
            }
        }
        _ => {}
    }
}

/// Where a walk of `value` at a resource root (`resource` false) or of a resource starts.
fn start(resource: bool) -> Start {
    if resource { Start::Visit } else { Start::Skip }
}

/// `validateEmbeddedResource`.
fn resource_errors(path: &str, map: &serde_json::Map<String, Value>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let child = |key: &str| format!("{path}.{key}");
    for key in ["apiVersion", "kind"] {
        if !map.contains_key(key) {
            errors.push(FieldError::required(child(key), "must not be empty"));
        }
    }
    for (key, value) in map {
        match key.as_str() {
            "apiVersion" | "kind" => {
                let Some(text) = value.as_str() else {
                    errors.push(FieldError::invalid(
                        child(key),
                        BadValue::Json(value.clone()),
                        "must be a string",
                    ));
                    continue;
                };
                let why = if text.is_empty() {
                    Some("must not be empty".to_owned())
                } else if key == "apiVersion" {
                    (text.matches('/').count() > 1).then(|| format!("unexpected GroupVersion string: {text}"))
                } else {
                    let reasons = names::object_name_errors("Service", &text.to_lowercase());
                    (!reasons.is_empty())
                        .then(|| format!("may have mixed case, but should otherwise match: {}", reasons.join(",")))
                };
                if let Some(why) = why {
                    errors.push(FieldError::invalid(child(key), BadValue::Str(text.to_owned()), why));
                }
            }
            "metadata" => errors.extend(metadata_errors(&child("metadata"), value)),
            _ => {}
        }
    }
    errors
}

/// `ValidateObjectMeta` with path-segment names, on an embedded resource's metadata.
fn metadata_errors(path: &str, meta: &Value) -> Vec<FieldError> {
    // Decoding refused metadata that is no object.
    let Some(fields) = meta.as_object() else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    let text = |key: &str| fields.get(key).and_then(Value::as_str).unwrap_or_default();
    if !text("generateName").is_empty() {
        for why in path_segment_errors(text("generateName"), true) {
            errors.push(FieldError::invalid(
                format!("{path}.generateName"),
                BadValue::Str(text("generateName").to_owned()),
                why,
            ));
        }
    }
    // An empty name is allowed here: kube-apiserver checks "fakename" in its place.
    if !text("name").is_empty() {
        for why in path_segment_errors(text("name"), false) {
            errors.push(FieldError::invalid(
                format!("{path}.name"),
                BadValue::Str(text("name").to_owned()),
                why,
            ));
        }
    }
    let map = |key: &str| fields.get(key).and_then(Value::as_object);
    for (key, value) in map("labels").into_iter().flatten() {
        for why in names::qualified_name_errors(key) {
            errors.push(FieldError::invalid(
                format!("{path}.labels"),
                BadValue::Str(key.clone()),
                why,
            ));
        }
        for why in names::label_value_errors(value.as_str().unwrap_or_default()) {
            errors.push(FieldError::invalid(
                format!("{path}.labels"),
                BadValue::Json(value.clone()),
                why,
            ));
        }
    }
    for key in map("annotations").into_iter().flatten().map(|(k, _)| k) {
        for why in names::qualified_name_errors(&key.to_lowercase()) {
            errors.push(FieldError::invalid(
                format!("{path}.annotations"),
                BadValue::Str(key.clone()),
                why,
            ));
        }
    }
    errors
}

/// `IsValidPathSegmentName` (or, for a prefix, `IsValidPathSegmentPrefix`).
fn path_segment_errors(name: &str, prefix: bool) -> Vec<String> {
    if !prefix && let Some(bad) = [".", ".."].into_iter().find(|bad| name == *bad) {
        return vec![format!("may not be '{bad}'")];
    }
    ["/", "%"]
        .into_iter()
        .filter(|bad| name.contains(bad))
        .map(|bad| format!("may not contain '{bad}'"))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({ "type": "object", "properties": { "spec": { "type": "object", "properties": {
            "template": { "type": "object", "x-kubernetes-embedded-resource": true,
                          "x-kubernetes-preserve-unknown-fields": true },
            "many": { "type": "object", "additionalProperties": {
                "type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true } }
        } } } })
    }

    #[test]
    fn validate_should_require_type_meta_and_valid_names() {
        let object = json!({ "spec": {
            "template": { "kind": "Pod", "metadata": { "name": "a/b" } },
            "many": { "k": { "apiVersion": "a/b/c", "kind": "Bad_Kind" } }
        } });
        let shown: Vec<String> = validate(&schema(), &object).iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "spec.many[k].apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c",
                "spec.many[k].kind: Invalid value: \"Bad_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
                "spec.template.apiVersion: Required value: must not be empty",
                "spec.template.metadata.name: Invalid value: \"a/b\": may not contain '/'",
            ]
        );
    }

    #[test]
    fn coerce_should_drop_and_name_unknown_metadata_keys() {
        let mut object = json!({ "spec": { "template": { "apiVersion": "v1", "kind": "Pod",
            "metadata": { "name": "x", "bogus": 1 } } } });
        assert_eq!(
            coerce(&schema(), &mut object).unwrap(),
            ["spec.template.metadata.bogus"]
        );
        assert_eq!(object["spec"]["template"]["metadata"], json!({ "name": "x" }));
    }

    #[test]
    fn coerce_should_refuse_type_meta_and_metadata_of_the_wrong_type() {
        let mut object = json!({ "spec": { "template": { "apiVersion": 1, "kind": "Pod" } } });
        let error = coerce(&schema(), &mut object).unwrap_err();
        assert_eq!(
            error.to_string(),
            "spec.template.apiVersion: Invalid value: 1: must be a string"
        );
        let mut object = json!({ "spec": { "template": { "metadata": { "labels": "notamap" } } } });
        let error = coerce(&schema(), &mut object).unwrap_err();
        assert_eq!(
            error.to_string(),
            "spec.template.metadata: Invalid value: map[string]interface {}{\"labels\":\"notamap\"}: json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string"
        );
    }
}
