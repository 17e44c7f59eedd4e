//! The OpenAPI schema validator kube-apiserver runs on custom resources: a port of kube-openapi's
//! `pkg/validation/validate` (`schema.go` and the validators it chains, in its order: type,
//! composition, string, format, number, slice, enum, object; `values.go` for each check).
//!
//! Values are checked as Go holds unstructured JSON: integers are `int64` (a number past its
//! range is a `float64`), other numbers `float64`. Errors are collected as kube-openapi's
//! `Result` collects them: every validator runs, an error whose text was already reported is
//! dropped, and the count of checks made (`MatchCount`) picks the closest failing branch of an
//! `anyOf` or `oneOf`.
//!
//! An update may ratchet (`apiextensions-apiserver/pkg/apiserver/validation/ratcheting.go`,
//! from 1.30): each node that correlates with the old object ([`Correlated`]) and is unchanged
//! drops the errors found in it and below, so a value that was valid when written stays
//! writable after the schema tightened. Nodes reached through a composition (`anyOf`, …) or
//! an uncorrelated item are validated plainly, their errors left to the nearest correlated
//! node.

use serde_json::{Map, Value};

use super::correlation::Correlated;
use super::go_value::{self, Number};
use super::openapi_errors::SchemaError;
use super::outcome::Outcome;
use super::scalars::{check_format, check_number, check_string};
use super::structural;
use crate::semantics::field_error::{BadValue, go_quote};

/// Validates `data` against `schema`; `path` names `data` in messages (empty at the root).
pub(crate) fn validate(schema: &Value, data: &Value, path: &str) -> Outcome {
    node(schema, data, path, None)
}

/// Validates the update of `old` to `data` with ratcheting: errors in unchanged parts are
/// dropped (`RatchetingSchemaValidator.ValidateUpdate`).
pub(crate) fn validate_update(schema: &Value, data: &Value, old: &Value) -> Outcome {
    node(schema, data, "", Some(Correlated::root(data, old, schema)))
}

/// One node: plainly when `correlated` is `None`, else as a ratcheting node.
fn node(schema: &Value, data: &Value, path: &str, correlated: Option<Correlated<'_>>) -> Outcome {
    let mut out = checks(schema, data, path, correlated);
    if !out.is_valid() && correlated.is_some_and(|c| c.unchanged()) {
        // `MergeAsWarnings`: the errors become warnings, which no one reads.
        out.errors.clear();
    }
    out
}

fn checks(schema: &Value, data: &Value, path: &str, correlated: Option<Correlated<'_>>) -> Outcome {
    let mut out = Outcome::default();
    if data.is_null() {
        out.merge(check_type(schema, data, path));
        out.merge(check_enum(schema, data, path));
        return out;
    }
    let string = data.as_str();
    let step = |out: &mut Outcome, found: Outcome| {
        out.merge(found);
        out.matches += 1;
    };
    if !structural::types(schema).is_empty() || structural::format(schema).is_some() {
        step(&mut out, check_type(schema, data, path));
    }
    step(&mut out, check_composition(schema, data, path));
    if let Some(text) = string {
        step(&mut out, check_string(schema, text, path));
        if let Some(format) = structural::format(schema) {
            step(&mut out, check_format(format, text, path));
        }
    }
    if let Some(number) = Number::of(data) {
        step(&mut out, check_number(schema, number, path));
    }
    if let Some(items) = data.as_array() {
        step(&mut out, check_slice(schema, items, path, correlated));
    }
    step(&mut out, check_enum(schema, data, path));
    if let Some(map) = data.as_object() {
        step(&mut out, check_object(schema, map, path, correlated));
    }
    out.matches += 1;
    out
}

/// `typeValidator`: the JSON type, with Go's allowances (a float holding an integer passes as
/// an integer, an integer as a number; a string passes any non-numeric type that has a format).
fn check_type(schema: &Value, data: &Value, path: &str) -> Outcome {
    let mut out = Outcome {
        matches: 1,
        ..Outcome::default()
    };
    let types = structural::types(schema);
    let format = structural::format(schema).unwrap_or_default();
    let nullable = structural::flag(schema, "nullable");
    if data.is_null() {
        if !types.is_empty() && !types.contains(&"null") && !nullable {
            out.add(SchemaError::invalid_type(
                path,
                &types.join(","),
                BadValue::Str("null".into()),
            ));
        }
        return out;
    }
    let (found, found_format) = go_type(data);
    let number = Number::of(data);
    let float_int =
        matches!(number, Some(Number::Float(f)) if go_value::is_json_integer(f)) && types.contains(&"integer");
    let int_float = matches!(number, Some(Number::Int(_))) && types.contains(&"number");
    let stringish = data.is_string() || data.is_array();
    let fits = types.contains(&found) || found_format == format || float_int || int_float;
    if !(stringish || format.is_empty() || fits) {
        out.add(SchemaError::invalid_type(
            path,
            format,
            BadValue::Str(found_format.into()),
        ));
        return out;
    }
    let numeric = types.contains(&"number") || types.contains(&"integer");
    if stringish && !(numeric || format.is_empty()) {
        return out;
    }
    if !(types.contains(&found) || float_int || int_float) {
        out.add(SchemaError::invalid_type(
            path,
            &types.join(","),
            BadValue::Str(found.into()),
        ));
    }
    out
}

/// `schemaInfoForType`: the OpenAPI type and format of a Go value.
fn go_type(data: &Value) -> (&'static str, &'static str) {
    match data {
        Value::Bool(_) => ("boolean", ""),
        Value::String(_) => ("string", ""),
        Value::Array(_) => ("array", ""),
        Value::Object(_) => ("object", ""),
        Value::Null => ("", ""),
        Value::Number(_) => match Number::of(data) {
            Some(Number::Int(_)) => ("integer", "int64"),
            _ => ("number", "float64"),
        },
    }
}

/// `schemaPropsValidator`: `anyOf`, `oneOf`, `allOf` and `not`.
fn check_composition(schema: &Value, data: &Value, path: &str) -> Outcome {
    let mut out = Outcome::default();
    let branches = |key: &str| schema.get(key).and_then(Value::as_array).filter(|b| !b.is_empty());
    let quoted = go_quote(path);
    if let Some(any_of) = branches("anyOf") {
        let mut best: Option<Outcome> = None;
        let mut first_success: Option<Outcome> = None;
        for branch in any_of {
            let result = validate(branch, data, path);
            if result.is_valid() {
                best = None;
                first_success = Some(result);
                break;
            }
            if best.as_ref().is_none_or(|b| result.matches > b.matches) {
                best = Some(result);
            }
        }
        if first_success.is_none() {
            out.add(SchemaError::composite(format!(
                "{quoted} must validate at least one schema (anyOf)"
            )));
        }
        if let Some(found) = best.or(first_success) {
            out.merge(found);
        }
    }
    if let Some(one_of) = branches("oneOf") {
        let mut best: Option<Outcome> = None;
        let mut first_success: Option<Outcome> = None;
        let mut validated = 0;
        for branch in one_of {
            let result = validate(branch, data, path);
            if result.is_valid() {
                validated += 1;
                best = None;
                first_success.get_or_insert(result);
                continue;
            }
            if validated == 0 && best.as_ref().is_none_or(|b| result.matches > b.matches) {
                best = Some(result);
            }
        }
        if validated != 1 {
            let why = if validated == 0 {
                "Found none valid".to_owned()
            } else {
                format!("Found {validated} valid alternatives")
            };
            out.add(SchemaError::composite(format!(
                "{quoted} must validate one and only one schema (oneOf). {why}"
            )));
            if let Some(found) = best {
                out.merge(found);
            }
        } else if let Some(found) = first_success {
            out.merge(found);
        }
    }
    if let Some(all_of) = branches("allOf") {
        let mut validated = 0;
        for branch in all_of {
            let result = validate(branch, data, path);
            if result.is_valid() {
                validated += 1;
            }
            out.merge(result);
        }
        if validated != all_of.len() {
            let why = if validated == 0 { ". None validated" } else { "" };
            out.add(SchemaError::composite(format!(
                "{quoted} must validate all the schemas (allOf){why}"
            )));
        }
    }
    if let Some(not) = schema.get("not").filter(|n| n.is_object())
        && validate(not, data, path).is_valid()
    {
        out.add(SchemaError::composite(format!(
            "{quoted} must not validate the schema (not)"
        )));
    }
    out.matches += 1;
    out
}

/// `schemaSliceValidator`: each item, then `minItems`, `maxItems`, `uniqueItems`.
fn check_slice(schema: &Value, items: &[Value], path: &str, correlated: Option<Correlated<'_>>) -> Outcome {
    let mut out = Outcome::default();
    if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
        for (i, item) in items.iter().enumerate() {
            let item_correlated = correlated.and_then(|c| c.index(i));
            out.merge(node(item_schema, item, &format!("{path}[{i}]"), item_correlated));
        }
    }
    let size = items.len() as i64;
    if let Some(min) = structural::int(schema, "minItems").filter(|min| size < *min) {
        out.add(SchemaError::too_few_items(path, min, size));
    }
    if let Some(max) = structural::int(schema, "maxItems").filter(|max| size > *max) {
        out.add(SchemaError::too_many_items(path, max, size));
    }
    if structural::flag(schema, "uniqueItems")
        && items
            .iter()
            .enumerate()
            .any(|(i, item)| items[..i].iter().any(|earlier| go_value::deep_equal(earlier, item)))
    {
        out.add(SchemaError::duplicate_items(path));
    }
    out.matches += 1;
    out
}

/// `basicCommonValidator`: `enum`, with Go's conversions between the value's type and each
/// allowed value's.
fn check_enum(schema: &Value, data: &Value, path: &str) -> Outcome {
    let mut out = Outcome::default();
    let Some(allowed) = schema.get("enum").and_then(Value::as_array).filter(|a| !a.is_empty()) else {
        return out;
    };
    if !data.is_null() && allowed.iter().any(|candidate| go_value::enum_matches(data, candidate)) {
        return out;
    }
    out.add(SchemaError::enum_fail(path, data, allowed));
    out
}

/// `objectValidator`: property counts, additional properties, each known property, `required`.
fn check_object(schema: &Value, map: &Map<String, Value>, path: &str, correlated: Option<Correlated<'_>>) -> Outcome {
    let mut out = Outcome::default();
    let size = map.len() as i64;
    if let Some(min) = structural::int(schema, "minProperties").filter(|min| size < *min) {
        out.add(SchemaError::too_few_properties(path, min, size));
    }
    if let Some(max) = structural::int(schema, "maxProperties").filter(|max| size > *max) {
        out.add(SchemaError::too_many_properties(path, max, size));
    }
    let properties = schema.get("properties").and_then(Value::as_object);
    // `SubPropertyValidator`: the root's type meta never ratchets (both versions read alike).
    let key_correlated = |key: &str| {
        let type_meta = path.is_empty() && (key == "kind" || key == "apiVersion");
        correlated.filter(|_| !type_meta).and_then(|c| c.key(key))
    };
    if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
        for (key, value) in map {
            if properties.is_none_or(|p| !p.contains_key(key)) {
                out.merge(node(additional, value, &format!("{path}.{key}"), key_correlated(key)));
            }
        }
    }
    for (name, property) in properties.into_iter().flatten() {
        if let Some(value) = map.get(name) {
            let child = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            out.merge(node(property, value, &child, key_correlated(name)));
        }
    }
    for key in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !map.contains_key(key) {
            out.add(SchemaError::required(&format!("{path}.{key}")));
        }
    }
    out
}
