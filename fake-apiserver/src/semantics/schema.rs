//! Admission of custom resources against their CRD's structural schema: pruning of unknown
//! fields, defaulting, and validation, in that order, as kube-apiserver does.

use serde_json::{Map, Value};

use crate::semantics::{list_types, scale_checks};
use crate::status::ApiStatus;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// What admission found besides the object it fixed up.
#[derive(Default)]
struct Findings {
    /// `(field, message)` for each violation.
    errors: Vec<(String, String)>,
}

/// What a write validates: the whole object, or (a `/status` write) its status, whose errors
/// kube-apiserver names relative to `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    Object,
    Status,
}

/// Prunes, defaults and validates `object` when `info` carries a schema; Invalid lists every
/// violation found, in kube-apiserver's order: the schema's, the scale fields', the list
/// types'. Unknown fields are dropped silently here: the decoder has already reported them
/// ([`prune_unknown`]).
pub(crate) fn admit(info: &ResourceInfo, object: &mut Value, scope: Scope) -> Result<(), ApiStatus> {
    let Some(schema) = &info.schema else { return Ok(()) };
    prune(schema, object, "", &mut Vec::new());
    let mut found = Findings::default();
    if let Some(map) = object.as_object_mut() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, value) in map.iter_mut() {
            if let Some(child) = properties.and_then(|p| p.get(key)) {
                check(child, value, key, &mut found);
            }
        }
        apply_defaults(schema, map, "", &mut found);
        required(schema, map, "", &mut found);
    }
    let mut errors = match scope {
        Scope::Object => found.errors,
        Scope::Status => status_errors(schema, object),
    };
    if let Some(scale) = &info.scale {
        errors.extend(scale_checks::errors(scale, object, scope == Scope::Object));
    }
    errors.extend(list_types::duplicates(schema, object, ""));
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiStatus::invalid(info, object::name(object), &errors))
    }
}

/// Removes the fields of a custom resource its schema does not know (pruning, part of
/// decoding); returns their paths.
pub(crate) fn prune_unknown(info: &ResourceInfo, object: &mut Value) -> Vec<String> {
    let mut unknown = Vec::new();
    if let Some(schema) = &info.schema {
        prune(schema, object, "", &mut unknown);
    }
    unknown
}

/// The schema of the field `key` of an object of `schema` (its property, or the schema of
/// every additional property); `None` when the schema does not describe it.
fn field_schema<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    let additional = schema.get("additionalProperties").filter(|a| a.is_object());
    schema.get("properties").and_then(|p| p.get(key)).or(additional)
}

/// Whether an object of `schema` keeps fields it has no schema for.
fn keeps_unknown(schema: &Value) -> bool {
    preserves_unknown(schema)
        || schema.get("additionalProperties") == Some(&Value::Bool(true))
        || (schema.get("properties").is_none()
            && schema.get("additionalProperties").is_none()
            && schema.get("type").is_none())
}

/// Removes the fields below `value` that `schema` does not know, noting their paths. At the
/// root, `apiVersion`, `kind` and `metadata` are the server's.
fn prune(schema: &Value, value: &mut Value, path: &str, unknown: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            let keep_all = if path.is_empty() {
                preserves_unknown(schema)
            } else {
                keeps_unknown(schema)
            };
            map.retain(|key, child| {
                if path.is_empty() && matches!(key.as_str(), "apiVersion" | "kind" | "metadata") {
                    return true;
                }
                let child_path = join(path, key);
                match field_schema(schema, key) {
                    Some(child_schema) => {
                        prune(child_schema, child, &child_path, unknown);
                        true
                    }
                    None if keep_all => true,
                    None => {
                        unknown.push(child_path);
                        false
                    }
                }
            });
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    prune(item_schema, item, &format!("{path}[{i}]"), unknown);
                }
            }
        }
        _ => {}
    }
}

/// The schema's errors of the status alone, named from the status down.
fn status_errors(schema: &Value, object: &mut Value) -> Vec<(String, String)> {
    let mut found = Findings::default();
    let status_schema = schema.pointer("/properties/status");
    if let (Some(status_schema), Some(status)) = (status_schema, object.get_mut("status")) {
        check(status_schema, status, "", &mut found);
    }
    found.errors
}

fn preserves_unknown(schema: &Value) -> bool {
    schema
        .get("x-kubernetes-preserve-unknown-fields")
        .and_then(Value::as_bool)
        == Some(true)
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn check(schema: &Value, value: &mut Value, path: &str, found: &mut Findings) {
    if value.is_null() && schema.get("nullable").and_then(Value::as_bool) == Some(true) {
        return;
    }
    let int_or_string = schema.get("x-kubernetes-int-or-string").and_then(Value::as_bool) == Some(true);
    if let Some(expected) = schema.get("type").and_then(Value::as_str) {
        let ok = match expected {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string() || (int_or_string && (value.is_i64() || value.is_u64())),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            _ => true,
        };
        if !ok {
            let actual = match value {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(n) if n.is_f64() => "number",
                Value::Number(_) => "integer",
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
            };
            // A type error shows the type found where other errors show the value.
            found.errors.push((
                path.to_owned(),
                format!("Invalid value: \"{actual}\": {path} in body must be of type {expected}: \"{actual}\""),
            ));
            return;
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
        found.errors.push((
            path.to_owned(),
            format!("Unsupported value: {value}: supported values: {}", list.join(", ")),
        ));
    }
    bounds(schema, value, path, found);
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if let Some(child_schema) = field_schema(schema, key) {
                    check(child_schema, child, &join(path, key), found);
                }
            }
            apply_defaults(schema, map, path, found);
            required(schema, map, path, found);
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    check(item_schema, item, &format!("{path}[{i}]"), found);
                }
            }
        }
        _ => {}
    }
}

fn apply_defaults(schema: &Value, map: &mut Map<String, Value>, path: &str, found: &mut Findings) {
    for (key, child) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let (false, Some(default)) = (map.contains_key(key), child.get("default")) {
            let mut value = default.clone();
            check(child, &mut value, &join(path, key), found);
            map.insert(key.clone(), value);
        }
    }
}

fn required(schema: &Value, map: &Map<String, Value>, path: &str, found: &mut Findings) {
    for key in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !map.contains_key(key) {
            found.errors.push((join(path, key), "Required value".to_owned()));
        }
    }
}

fn bounds(schema: &Value, value: &Value, path: &str, found: &mut Findings) {
    let limit = |key: &str| schema.get(key).and_then(Value::as_f64);
    let mut fail = |message: String| {
        found.errors.push((
            path.to_owned(),
            format!("Invalid value: {value}: {path} in body {message}"),
        ))
    };
    if let Some(n) = value.as_f64() {
        if let Some(min) = limit("minimum").filter(|min| n < *min) {
            fail(format!("should be greater than or equal to {min}"));
        }
        if let Some(max) = limit("maximum").filter(|max| n > *max) {
            fail(format!("should be less than or equal to {max}"));
        }
    }
    let length = value
        .as_str()
        .map(|s| s.chars().count())
        .or_else(|| value.as_array().map(Vec::len));
    if let Some(len) = length {
        let (min_key, max_key) = if value.is_string() {
            ("minLength", "maxLength")
        } else {
            ("minItems", "maxItems")
        };
        if let Some(min) = limit(min_key).filter(|min| (len as f64) < *min) {
            fail(format!(
                "should have at least {min} {}",
                if value.is_string() { "chars long" } else { "items" }
            ));
        }
        if let Some(max) = limit(max_key).filter(|max| (len as f64) > *max) {
            fail(format!(
                "may not have more than {max} {}",
                if value.is_string() { "chars" } else { "items" }
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn info() -> ResourceInfo {
        let mut info = ResourceInfo::builtin("cloudnative.tw", "v1alpha1", "VirtualMachine", "virtualmachines");
        info.schema = Some(json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "required": ["cpu"],
                    "properties": {
                        "cpu": { "type": "integer", "minimum": 1 },
                        "memory": { "type": "string", "default": "1Gi" },
                        "mode": { "type": "string", "enum": ["fast", "slow"] },
                        "labels": { "type": "object", "additionalProperties": { "type": "string" } }
                    }
                },
                "status": { "type": "object", "x-kubernetes-preserve-unknown-fields": true }
            }
        }));
        info
    }

    #[test]
    fn admit_should_prune_unknown_fields_and_apply_defaults() {
        let mut object = json!({
            "metadata": { "name": "vm" },
            "spec": { "cpu": 2, "bogus": true, "labels": { "a": "b" } },
            "status": { "anything": 1 },
            "extra": 1
        });
        admit(&info(), &mut object, Scope::Object).unwrap();
        assert_eq!(
            object["spec"],
            json!({ "cpu": 2, "memory": "1Gi", "labels": { "a": "b" } })
        );
        assert_eq!(object["status"], json!({ "anything": 1 }));
        assert!(object.get("extra").is_none());
    }

    #[test]
    fn prune_unknown_should_name_what_the_decoder_drops() {
        let mut object = json!({ "metadata": { "name": "vm" }, "spec": { "cpu": 2, "bogus": true },
                                 "status": { "kept": 1 }, "extra": 1 });
        let unknown = prune_unknown(&info(), &mut object);
        assert_eq!(unknown, ["extra", "spec.bogus"]);
        assert_eq!(
            object,
            json!({ "metadata": { "name": "vm" }, "spec": { "cpu": 2 }, "status": { "kept": 1 } })
        );
    }

    #[test]
    fn admit_should_report_every_violation() {
        let mut object = json!({ "metadata": { "name": "vm" }, "spec": { "cpu": "two", "mode": "medium" } });
        let status = admit(&info(), &mut object, Scope::Object).unwrap_err();
        assert_eq!(status.code, 422);
        assert!(
            status.message.contains("spec.cpu in body must be of type integer"),
            "{}",
            status.message
        );
        assert!(
            status.message.contains("spec.mode: Unsupported value"),
            "{}",
            status.message
        );
        let mut zero = json!({ "metadata": { "name": "vm" }, "spec": { "cpu": 0 } });
        assert!(
            admit(&info(), &mut zero, Scope::Object)
                .unwrap_err()
                .message
                .contains("greater than or equal to 1")
        );
        let mut missing = json!({ "metadata": { "name": "vm" }, "spec": {} });
        assert!(
            admit(&info(), &mut missing, Scope::Object)
                .unwrap_err()
                .message
                .contains("spec.cpu: Required value")
        );
    }
}
