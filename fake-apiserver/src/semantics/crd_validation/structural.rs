//! Structural schemas as apiextensions requires them of every CRD version
//! (`apiextensions-apiserver/pkg/apiserver/schema`): `NewStructural` (`convert.go`) refuses the
//! keywords a structural schema cannot hold, and `ValidateStructural` (`validation.go`,
//! `complete.go`) names every place where the schema leaves a field untyped, puts types or
//! extensions inside value validations (`allOf`, `anyOf`, `oneOf`, `not`), or restricts `metadata`.
//!
//! The port reads the v1 `JSONSchemaProps` JSON as Go decodes and converts it: `null` is absent, a
//! missing string is empty, `items` is a schema only as an object, and the keywords Go drops while
//! converting (`example`, `externalDocs`, …) count for nothing.

mod completeness;
mod go_pattern;
mod junctors;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};

/// The errors that make `schema` (a version's `openAPIV3Schema` as JSON, i.e. the v1
/// `JSONSchemaProps`) non-structural, named under `path` (e.g. "spec.validation.openAPIV3Schema"),
/// in kube-apiserver's order.
///
/// When `NewStructural` refuses the schema this is that one error alone, worded as
/// `validateCustomResourceDefinitionValidation` words it (`field.Invalid(path, "", err.Error())`);
/// kube-apiserver holds that error back while its other schema checks find any, so callers that
/// must do the same ask [`init_error`] first. Otherwise this is `ValidateStructural`'s list, and an
/// empty list means the schema is structural (what `schemaIsNonStructural` asks).
pub(crate) fn structural_errors(schema: &Value, path: &str) -> Vec<FieldError> {
    if let Some(why) = init_error(schema) {
        return vec![FieldError::invalid(path, BadValue::Str(String::new()), why)];
    }
    let mut errors = Vec::new();
    invariants(schema, Level::Root, path, &mut errors);
    completeness::check(schema, path, &mut errors);
    // Go sorts by `Error()` because its walks over maps come in random order; sorting also makes
    // the order of this port's walks (properties by name) irrelevant.
    errors.sort_by_cached_key(|error| error.to_string());
    errors
}

/// Why `NewStructural` refuses the schema `s` (its `err.Error()`), if it does; the OpenAPI checks refuse
/// the same keywords in their own words, all but `$schema`. The walk is Go's: the unsupported
/// keywords, then the junctors (`not` first), `additionalProperties`, the extensions, `items` and
/// the properties. Go visits the properties in map order, so which of two refusals in two
/// properties wins is random there; here the first property by name wins.
pub(crate) fn init_error(s: &Value) -> Option<&'static str> {
    // validateUnsupportedFields
    let unsupported = [
        (!string(s, "id").is_empty(), "OpenAPIV3Schema 'id' is not supported"),
        (
            !string(s, "$schema").is_empty(),
            "OpenAPIV3Schema 'schema' is not supported",
        ),
        (!string(s, "$ref").is_empty(), "OpenAPIV3Schema '$ref' is not supported"),
        (
            map_len(s, "patternProperties") > 0,
            "OpenAPIV3Schema 'patternProperties' is not supported",
        ),
        (
            map_len(s, "dependencies") > 0,
            "OpenAPIV3Schema 'dependencies' is not supported",
        ),
        (
            set(s, "additionalItems").is_some(),
            "OpenAPIV3Schema 'additionalItems' is not supported",
        ),
        (
            map_len(s, "definitions") > 0,
            "OpenAPIV3Schema 'definitions' is not supported",
        ),
    ];
    if let Some((_, why)) = unsupported.into_iter().find(|(refused, _)| *refused) {
        return Some(why);
    }
    // newValueValidation
    let mut clauses = set(s, "not")
        .into_iter()
        .chain(list(s, "allOf"))
        .chain(list(s, "anyOf"))
        .chain(list(s, "oneOf"));
    if let Some(why) = clauses.find_map(init_error) {
        return Some(why);
    }
    // newGenerics
    if let Some(why) = set(s, "additionalProperties")
        .filter(|a| a.is_object())
        .and_then(init_error)
    {
        return Some(why);
    }
    // newExtensions
    if s.get("x-kubernetes-preserve-unknown-fields").and_then(Value::as_bool) == Some(false) {
        return Some("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined");
    }
    match s.get("items") {
        Some(Value::Array(schemas)) if !schemas.is_empty() => {
            return Some("OpenAPIV3Schema 'items' must be a schema, but is an array");
        }
        Some(items @ Value::Object(_)) => {
            if let Some(why) = init_error(items) {
                return Some(why);
            }
        }
        _ => {}
    }
    properties(s).into_iter().find_map(|(_, property)| init_error(property))
}

/// Go's `level`: where in the skeleton a schema sits, which words its missing `type`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

/// `validateStructuralInvariants` (with `validateGeneric` and `validateExtensions`) of the
/// schema `s` at `path`.
fn invariants(s: &Value, level: Level, path: &str, errors: &mut Vec<FieldError>) {
    let ty = string(s, "type");
    let items = items(s);
    if ty == "array" && items.is_none() {
        errors.push(FieldError::required(child(path, "items"), "must be specified"));
    }
    if let Some(items) = items {
        invariants(items, Level::Item, &child(path, "items"), errors);
    }
    for (name, property) in properties(s) {
        invariants(property, Level::Field, &key(&child(path, "properties"), name), errors);
    }

    // validateGeneric: `additionalProperties: false` counts as set too.
    let additional = set(s, "additionalProperties");
    if let Some(additional) = additional {
        if level == Level::Root {
            errors.push(FieldError::forbidden(
                child(path, "additionalProperties"),
                "must not be used at the root",
            ));
        }
        if additional.is_object() {
            invariants(additional, Level::Field, &child(path, "additionalProperties"), errors);
        }
    }

    // validateExtensions
    let int_or_string = flag(s, "x-kubernetes-int-or-string");
    let preserves_unknown = flag(s, "x-kubernetes-preserve-unknown-fields");
    let embedded = flag(s, "x-kubernetes-embedded-resource");
    for (extension, conflicts) in [
        ("x-kubernetes-preserve-unknown-fields", preserves_unknown),
        ("x-kubernetes-embedded-resource", embedded),
    ] {
        if int_or_string && conflicts {
            errors.push(FieldError::invalid(
                child(path, extension),
                BadValue::Json(Value::Bool(true)),
                "must be false if x-kubernetes-int-or-string is true",
            ));
        }
    }

    // The two int-or-string shapes may carry types inside `anyOf`.
    let skip_any_of = junctors::is_int_or_string_any_of(s);
    let skip_first_all_of_any_of = junctors::is_int_or_string_all_of(s);
    junctors::value_validation(s, skip_any_of, skip_first_all_of_any_of, path, errors);

    let type_path = child(path, "type");
    if embedded && ty != "object" {
        let detail = "must be object if x-kubernetes-embedded-resource is true";
        errors.push(if ty.is_empty() {
            FieldError::required(type_path.clone(), detail)
        } else {
            FieldError::invalid(type_path.clone(), BadValue::Str(ty.to_owned()), detail)
        });
    } else if ty.is_empty() && !int_or_string && !preserves_unknown {
        let detail = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errors.push(FieldError::required(type_path.clone(), detail));
    }
    if embedded && additional.is_some() {
        errors.push(FieldError::forbidden(
            child(path, "additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if level == Level::Root && !ty.is_empty() && ty != "object" {
        errors.push(FieldError::invalid(
            type_path,
            BadValue::Str(ty.to_owned()),
            "must be object at the root",
        ));
    }

    // The root and embedded resources hold a real TypeMeta and ObjectMeta.
    let check_metadata = level == Level::Root || embedded;
    let properties_path = child(path, "properties");
    if check_metadata {
        for name in ["kind", "apiVersion"] {
            let Some(property) = property(s, name) else {
                continue;
            };
            let property_type = string(property, "type");
            if property_type != "string" {
                errors.push(FieldError::invalid(
                    child(&key(&properties_path, name), "type"),
                    BadValue::Str(property_type.to_owned()),
                    "must be string",
                ));
            }
        }
    }
    if let Some(metadata) = property(s, "metadata") {
        let metadata_path = key(&properties_path, "metadata");
        if check_metadata && string(metadata, "type") != "object" {
            errors.push(FieldError::invalid(
                child(&metadata_path, "type"),
                BadValue::Str(string(metadata, "type").to_owned()),
                "must be object",
            ));
        }
        if level == Level::Root && !junctors::restricts_only_names(metadata) {
            errors.push(FieldError::forbidden(
                metadata_path,
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
            ));
        }
    }

    if embedded && !preserves_unknown && properties(s).is_empty() {
        errors.push(FieldError::required(
            properties_path,
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

/// `fldPath.Child(name)` (a nil path, given as "", starts with the name).
fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// `fldPath.Key(name)`.
fn key(path: &str, name: &str) -> String {
    format!("{path}[{name}]")
}

/// `fldPath.Index(i)`.
fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// A keyword Go keeps as a pointer, slice or map: set unless absent or `null`, even when empty.
fn set<'s>(s: &'s Value, keyword: &str) -> Option<&'s Value> {
    s.get(keyword).filter(|value| !value.is_null())
}

/// A string keyword: "" when absent (Go decodes `null` into a string as nothing).
fn string<'s>(s: &'s Value, keyword: &str) -> &'s str {
    s.get(keyword).and_then(Value::as_str).unwrap_or_default()
}

/// A boolean keyword: false when absent.
fn flag(s: &Value, keyword: &str) -> bool {
    s.get(keyword).and_then(Value::as_bool) == Some(true)
}

/// A list keyword (`allOf`, `enum`, …): empty when absent. A `null` entry stays, as Go's zero schema.
fn list<'s>(s: &'s Value, keyword: &str) -> &'s [Value] {
    s.get(keyword)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// How many entries a map keyword (`patternProperties`, …) has.
fn map_len(s: &Value, keyword: &str) -> usize {
    s.get(keyword)
        .and_then(Value::as_object)
        .map_or(0, serde_json::Map::len)
}

/// `items` as a schema: only an object is one (`[]` and other shapes leave Go's `Items.Schema` nil).
fn items(s: &Value) -> Option<&Value> {
    s.get("items").filter(|items| items.is_object())
}

/// The property `name`, when listed (a `null` schema is Go's zero schema, so still listed).
fn property<'s>(s: &'s Value, name: &str) -> Option<&'s Value> {
    s.get("properties").and_then(|properties| properties.get(name))
}

/// The properties, by name.
fn properties(s: &Value) -> Vec<(&str, &Value)> {
    let mut properties: Vec<(&str, &Value)> = s
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, schema)| (name.as_str(), schema))
                .collect()
        })
        .unwrap_or_default();
    properties.sort_by_key(|(name, _)| *name);
    properties
}

// The tests, checked against kube-apiserver v1.28.7, are long enough for a file of their own.
#[cfg(test)]
mod tests;
