//! A custom resource's JSON as the CEL values its schema makes of it (`UnstructuredToVal`,
//! `apiserver/pkg/cel/common/values.go`): objects with the properties' escaped names, numbers
//! as doubles, integers as ints, `date-time`/`date` strings as timestamps, `duration` strings
//! as durations, `byte` strings as bytes.

use std::collections::HashMap;
use std::sync::Arc;

use cel::Value as Cel;
use cel::objects::{Key, Map};
use chrono::{DateTime, FixedOffset, NaiveDate};
use serde_json::Value;

use super::decl_type::escape;
use crate::semantics::schema::formats::time::duration_nanos;
use crate::semantics::schema::structural;

/// The value CEL sees for `value` under `schema`, or `None` where kube-apiserver's would be
/// an error value (data its schema does not describe: a rule reading it fails, as there).
pub(crate) fn to_cel(value: &Value, schema: &Value) -> Option<Cel> {
    convert(value, schema, false)
}

/// [`to_cel`] of a whole resource (the CRD's root), whose `apiVersion`, `kind` and
/// `metadata.{name,generateName}` CEL sees whatever its schema says of them.
pub(crate) fn resource_to_cel(value: &Value, schema: &Value) -> Option<Cel> {
    convert(value, schema, true)
}

fn convert(value: &Value, schema: &Value, resource: bool) -> Option<Cel> {
    if value.is_null() {
        return structural::flag(schema, "nullable").then_some(Cel::Null);
    }
    if structural::flag(schema, "x-kubernetes-int-or-string") {
        return match value {
            Value::String(s) => Some(Cel::String(Arc::new(s.clone()))),
            Value::Number(n) => n.as_i64().map(Cel::Int),
            _ => None,
        };
    }
    match schema.get("type").and_then(Value::as_str).unwrap_or_default() {
        "object" => object(value, schema, resource || structural::embedded_resource(schema)),
        "array" => {
            let items = structural::items(schema)?;
            let list = value.as_array()?;
            Some(Cel::List(Arc::new(
                list.iter().map(|v| to_cel(v, items).unwrap_or(Cel::Null)).collect(),
            )))
        }
        "string" => string(value.as_str()?, schema),
        "number" => value.as_f64().map(Cel::Float),
        "integer" => value.as_i64().map(Cel::Int),
        "boolean" => value.as_bool().map(Cel::Bool),
        _ if structural::preserves_unknown(schema) => Some(untyped(value)),
        _ => None,
    }
}

/// An object: its properties by escaped name (embedded resources with their type and object
/// meta), a map of its additional properties, or its JSON as it is where unknown fields are kept.
fn object(value: &Value, schema: &Value, resource: bool) -> Option<Cel> {
    let fields = value.as_object()?;
    if resource || schema.get("properties").is_some() {
        let mut map = HashMap::new();
        let string = serde_json::json!({"type": "string"});
        let meta = serde_json::json!({"type": "object", "properties": {"name": string, "generateName": string}});
        for (name, field) in fields {
            // `WithTypeAndObjectMeta`: a resource's type and object meta are declared anew.
            let field_schema = match name.as_str() {
                "apiVersion" | "kind" if resource => &string,
                "metadata" if resource => &meta,
                _ => match structural::property(schema, name) {
                    Some(s) => s,
                    None => continue,
                },
            };
            if let (Some(escaped), Some(converted)) = (escape(name), to_cel(field, field_schema)) {
                map.insert(Key::String(Arc::new(escaped)), converted);
            }
        }
        return Some(Cel::Map(Map { map: Arc::new(map) }));
    }
    if let Some(additional) = structural::additional(schema) {
        let map = fields
            .iter()
            .filter_map(|(k, v)| Some((Key::String(Arc::new(k.clone())), to_cel(v, additional)?)))
            .collect();
        return Some(Cel::Map(Map { map: Arc::new(map) }));
    }
    structural::preserves_unknown(schema).then(|| untyped(value))
}

/// A string by its format.
fn string(s: &str, schema: &Value) -> Option<Cel> {
    match schema.get("format").and_then(Value::as_str) {
        Some("duration") => duration_nanos(s).map(|n| Cel::Duration(chrono::Duration::nanoseconds(n))),
        Some("date") => {
            let day = NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()?;
            let utc = FixedOffset::east_opt(0)?;
            Some(Cel::Timestamp(
                day.and_hms_opt(0, 0, 0)?.and_local_timezone(utc).single()?,
            ))
        }
        Some("date-time") => date_time(s).map(Cel::Timestamp),
        Some("byte") => {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .decode(s)
                .ok()
                .map(|b| Cel::Bytes(Arc::new(b)))
        }
        _ => Some(Cel::String(Arc::new(s.to_string()))),
    }
}

/// strfmt's `ParseDateTime`: RFC 3339, with or without the offset's colon, with a `Z`.
fn date_time(s: &str) -> Option<DateTime<FixedOffset>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .or_else(|| DateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f%z").ok())
}

/// JSON no schema types (`x-kubernetes-preserve-unknown-fields`): CEL's reading of JSON.
pub(crate) fn untyped(value: &Value) -> Cel {
    match value {
        Value::Null => Cel::Null,
        Value::Bool(b) => Cel::Bool(*b),
        Value::Number(n) => n
            .as_i64()
            .map_or_else(|| Cel::Float(n.as_f64().unwrap_or_default()), Cel::Int),
        Value::String(s) => Cel::String(Arc::new(s.clone())),
        Value::Array(items) => Cel::List(Arc::new(items.iter().map(untyped).collect())),
        Value::Object(fields) => {
            let map = fields
                .iter()
                .map(|(k, v)| (Key::String(Arc::new(k.clone())), untyped(v)))
                .collect();
            Cel::Map(Map { map: Arc::new(map) })
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn numbers_should_be_doubles_and_formatted_strings_typed() {
        let schema = json!({"type": "object", "properties": {
            "ratio": {"type": "number"},
            "timeout": {"type": "string", "format": "duration"},
            "at": {"type": "string", "format": "date-time"},
            "dash-name": {"type": "string"}
        }});
        let value = to_cel(
            &json!({"ratio": 2, "timeout": "1h30m", "at": "2024-05-01T10:00:00Z", "dash-name": "x"}),
            &schema,
        )
        .expect("converted");
        let Cel::Map(map) = value else { panic!("a map") };
        let get = |k: &str| map.map.get(&Key::String(Arc::new(k.into()))).cloned();
        assert_eq!(get("ratio"), Some(Cel::Float(2.0)));
        assert_eq!(get("timeout"), Some(Cel::Duration(chrono::Duration::minutes(90))));
        assert!(matches!(get("at"), Some(Cel::Timestamp(_))));
        assert_eq!(get("dash__dash__name"), Some(Cel::String(Arc::new("x".into()))));
    }

    #[test]
    fn int_or_string_should_keep_its_kind() {
        let schema = json!({"x-kubernetes-int-or-string": true});
        assert_eq!(to_cel(&json!(3), &schema), Some(Cel::Int(3)));
        assert_eq!(to_cel(&json!("3%"), &schema), Some(Cel::String(Arc::new("3%".into()))));
    }
}
