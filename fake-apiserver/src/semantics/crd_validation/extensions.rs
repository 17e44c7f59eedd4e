//! The `x-kubernetes-*` extensions of one schema node as apiextensions checks them when a CRD is
//! written (`apiextensions/validation/validation.go`, the tail of
//! `ValidateCustomResourceDefinitionOpenAPISchema` and `validateMapListKeysMapSet`): map and
//! list types, list-map keys, and the shape of `x-kubernetes-validations` rules (not compiled:
//! CEL is not evaluated here).

use serde_json::Value;

use super::Options;
use crate::semantics::cel;
use crate::semantics::field_error::{BadValue, FieldError};

const RULE_REASONS: [&str; 4] = [
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];

/// The `x-kubernetes-*` checks of one schema node, and the static checks of its CEL rules.
pub(crate) fn errors(schema: &Value, path: &str, opts: &Options) -> Vec<FieldError> {
    let text = |key: &str| schema.get(key).and_then(Value::as_str);
    let type_name = text("type").unwrap_or_default();
    let list_type = text("x-kubernetes-list-type");
    let map_type = text("x-kubernetes-map-type");
    let keys: Vec<&str> = schema
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|k| k.as_str().unwrap_or_default())
        .collect();
    let item = schema.get("items").filter(|i| i.is_object());
    let mut errors = Vec::new();
    if schema
        .get("x-kubernetes-preserve-unknown-fields")
        .and_then(Value::as_bool)
        == Some(false)
    {
        errors.push(FieldError::invalid(
            format!("{path}.x-kubernetes-preserve-unknown-fields"),
            BadValue::Json(Value::Bool(false)),
            "must be true or undefined",
        ));
    }
    let must_be = |wanted: &str, extension: &str| {
        let why = format!("must be {wanted} if {extension} is specified");
        if type_name.is_empty() {
            FieldError::required(format!("{path}.type"), why)
        } else {
            FieldError::invalid(format!("{path}.type"), BadValue::from(type_name), why)
        }
    };
    if map_type.is_some() && type_name != "object" {
        errors.push(must_be("object", "x-kubernetes-map-type"));
    }
    if let Some(map_type) = map_type.filter(|m| *m != "atomic" && *m != "granular") {
        let supported = ["atomic".to_owned(), "granular".to_owned()];
        errors.push(FieldError::not_supported(
            format!("{path}.x-kubernetes-map-type"),
            BadValue::from(map_type),
            &supported,
        ));
    }
    if list_type.is_some() && type_name != "array" {
        errors.push(must_be("array", "x-kubernetes-list-type"));
    } else if opts.require_atomic_set
        && list_type == Some("set")
        && let Some(item) = item
    {
        let why = "must be atomic as item of a list with x-kubernetes-list-type=set";
        let item_text = |key: &str| item.get(key).and_then(Value::as_str);
        let item_list_type = || BadValue::Json(item.get("x-kubernetes-list-type").cloned().unwrap_or(Value::Null));
        match item_text("type") {
            Some("array") if item_text("x-kubernetes-list-type").is_some_and(|t| t != "atomic") => {
                errors.push(FieldError::invalid(
                    format!("{path}.items.x-kubernetes-list-type"),
                    item_list_type(),
                    why,
                ));
            }
            Some("object") if item_text("x-kubernetes-map-type") != Some("atomic") => {
                errors.push(FieldError::invalid(
                    format!("{path}.items.x-kubernetes-map-type"),
                    item_list_type(),
                    why,
                ));
            }
            _ => {}
        }
    }
    if let Some(list_type) = list_type.filter(|l| !["atomic", "set", "map"].contains(l)) {
        let supported = ["atomic".to_owned(), "set".to_owned(), "map".to_owned()];
        errors.push(FieldError::not_supported(
            format!("{path}.x-kubernetes-list-type"),
            BadValue::from(list_type),
            &supported,
        ));
    }
    let keys_value = || BadValue::Strings(keys.iter().map(|k| (*k).to_owned()).collect());
    if !keys.is_empty() {
        let why = "must be map if x-kubernetes-list-map-keys is non-empty";
        match list_type {
            None => errors.push(FieldError::required(format!("{path}.x-kubernetes-list-type"), why)),
            Some(other) if other != "map" => {
                errors.push(FieldError::invalid(
                    format!("{path}.x-kubernetes-list-type"),
                    BadValue::from(other),
                    why,
                ));
            }
            _ => {}
        }
    }
    if list_type == Some("map") {
        if keys.is_empty() {
            errors.push(FieldError::required(
                format!("{path}.x-kubernetes-list-map-keys"),
                "must not be empty if x-kubernetes-list-type is map",
            ));
        }
        match schema.get("items") {
            None | Some(Value::Null) => errors.push(FieldError::required(
                format!("{path}.items"),
                "must have a schema if x-kubernetes-list-type is map",
            )),
            Some(Value::Array(items)) => errors.push(FieldError::invalid(
                format!("{path}.items"),
                BadValue::Json(Value::Array(items.clone())),
                "must only have a single schema if x-kubernetes-list-type is map",
            )),
            Some(item) => {
                let item_type = item.get("type").and_then(Value::as_str).unwrap_or_default();
                if item_type != "object" {
                    errors.push(FieldError::invalid(
                        format!("{path}.items.type"),
                        BadValue::from(item_type),
                        "must be object if parent array's x-kubernetes-list-type is map",
                    ));
                } else {
                    let mut seen: Vec<&str> = Vec::new();
                    for key in &keys {
                        match item.get("properties").and_then(|p| p.get(*key)) {
                            Some(property) => {
                                let key_type = property.get("type").and_then(Value::as_str);
                                if matches!(key_type, Some("array" | "object")) {
                                    errors.push(FieldError::invalid(
                                        format!("{path}.items.properties[{key}].type"),
                                        BadValue::from(item_type),
                                        "must be a scalar type if parent array's x-kubernetes-list-type is map",
                                    ));
                                }
                            }
                            None => errors.push(FieldError::invalid(
                                format!("{path}.x-kubernetes-list-map-keys"),
                                keys_value(),
                                "entries must all be names of item properties",
                            )),
                        }
                        if seen.contains(key) {
                            errors.push(FieldError::invalid(
                                format!("{path}.x-kubernetes-list-map-keys"),
                                keys_value(),
                                "must not contain duplicate entries",
                            ));
                        }
                        seen.push(key);
                    }
                }
            }
        }
    }
    if opts.require_map_list_keys
        && let (Some(list_type @ ("set" | "map")), Some(item)) = (list_type, item)
    {
        errors.extend(map_list_key_errors(item, list_type, &keys, path));
    }
    errors.extend(rule_errors(schema, path));
    errors
}

/// `validateMapListKeysMapSet`.
fn map_list_key_errors(item: &Value, list_type: &str, keys: &[&str], path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let nullable = |s: &Value| s.get("nullable").and_then(Value::as_bool) == Some(true);
    if nullable(item) {
        errors.push(FieldError::forbidden(
            format!("{path}.items.nullable"),
            format!("cannot be nullable when x-kubernetes-list-type is {list_type}"),
        ));
    }
    if list_type == "map" {
        let required: Vec<&str> = item
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        for key in keys {
            let Some(property) = item.get("properties").and_then(|p| p.get(*key)) else {
                continue;
            };
            if !required.contains(key) && property.get("default").is_none_or(Value::is_null) {
                errors.push(FieldError::required(
                    format!("{path}.items.properties[{key}].default"),
                    "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                ));
            }
            if nullable(property) {
                errors.push(FieldError::forbidden(
                    format!("{path}.items.properties[{key}].nullable"),
                    "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                ));
            }
        }
    }
    errors
}

/// The checks of `x-kubernetes-validations` made before compiling: rule, message, reason and
/// fieldPath shapes.
fn rule_errors(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let newline = |s: &str| s.contains(['\n', '\r']);
    for (i, rule) in schema
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let text = |key: &str| rule.get(key).and_then(Value::as_str).unwrap_or_default();
        let at = |key: &str| format!("{path}.x-kubernetes-validations[{i}].{key}");
        let (body, message) = (text("rule").trim(), text("message").trim());
        if body.is_empty() {
            errors.push(FieldError::required(at("rule"), "rule is not specified"));
        } else if !text("message").is_empty() && message.is_empty() {
            errors.push(FieldError::invalid(
                at("message"),
                BadValue::from(text("message")),
                "message must be non-empty if specified",
            ));
        } else if newline(message) {
            errors.push(FieldError::invalid(
                at("message"),
                BadValue::from(text("message")),
                "message must not contain line breaks",
            ));
        } else if newline(body) && message.is_empty() {
            errors.push(FieldError::required(
                at("message"),
                "message must be specified if rule contains line breaks",
            ));
        }
        if !text("messageExpression").is_empty() && text("messageExpression").trim().is_empty() {
            errors.push(FieldError::required(
                at("messageExpression"),
                "messageExpression must be non-empty if specified",
            ));
        }
        if let Some(reason) = rule
            .get("reason")
            .and_then(Value::as_str)
            .filter(|r| !RULE_REASONS.contains(r))
        {
            let supported: Vec<String> = RULE_REASONS.iter().map(|r| (*r).to_owned()).collect();
            errors.push(FieldError::not_supported(
                at("reason"),
                BadValue::from(reason),
                &supported,
            ));
        }
        let field_path = text("fieldPath");
        if !field_path.is_empty() && field_path.trim().is_empty() {
            errors.push(FieldError::invalid(
                at("fieldPath"),
                BadValue::from(field_path),
                "fieldPath must be non-empty if specified",
            ));
        }
        if newline(field_path) {
            errors.push(FieldError::invalid(
                at("fieldPath"),
                BadValue::from(field_path),
                "fieldPath must not contain line breaks",
            ));
        }
        if !field_path.is_empty() && cel::normalize_field_path(field_path, schema).is_err() {
            errors.push(FieldError::invalid(
                at("fieldPath"),
                BadValue::from(field_path),
                "fieldPath must be a valid path",
            ));
        }
    }
    errors
}
