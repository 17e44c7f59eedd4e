//! A CRD's schema read as kube-apiserver reads it: the keywords of a structural schema
//! (`apiextensions-apiserver/pkg/apiserver/schema/structural.go`) and their conversion for the
//! validator (`ConvertJSONSchemaPropsWithPostProcess` in `apiserver/validation/validation.go`:
//! `x-kubernetes-int-or-string` is the type `integer,string`, unsupported formats are dropped).

use serde_json::Value;

use super::formats;

/// The types the validator accepts: `type`, or `integer` and `string` for int-or-string.
pub(crate) fn types(schema: &Value) -> Vec<&str> {
    if flag(schema, "x-kubernetes-int-or-string") {
        return vec!["integer", "string"];
    }
    match schema.get("type").and_then(Value::as_str) {
        Some(t) if !t.is_empty() => vec![t],
        _ => Vec::new(),
    }
}

/// The `format` the validator checks: `None` for formats kube-apiserver strips.
pub(crate) fn format(schema: &Value) -> Option<&str> {
    schema
        .get("format")
        .and_then(Value::as_str)
        .filter(|f| formats::is_checked(f))
}

/// A boolean keyword (`nullable`, `exclusiveMaximum`, `x-kubernetes-…`); absent is false.
pub(crate) fn flag(schema: &Value, key: &str) -> bool {
    schema.get(key).and_then(Value::as_bool) == Some(true)
}

/// An integer keyword (`maxLength`, `minItems`, …).
pub(crate) fn int(schema: &Value, key: &str) -> Option<i64> {
    let value = schema.get(key)?;
    value.as_i64().or_else(|| value.as_f64().map(|f| f as i64))
}

/// A number keyword (`minimum`, `multipleOf`, …).
pub(crate) fn float(schema: &Value, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

/// The schema of the field `key` of an object: its property, else the schema of every
/// additional property.
pub(crate) fn field<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    property(schema, key).or_else(|| additional(schema))
}

/// The schema of the property `key`.
pub(crate) fn property<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    schema.get("properties").and_then(|p| p.get(key))
}

/// `additionalProperties` when it is a schema (a structural schema has no other kind).
pub(crate) fn additional(schema: &Value) -> Option<&Value> {
    schema.get("additionalProperties").filter(|a| a.is_object())
}

/// The schema of a list's items.
pub(crate) fn items(schema: &Value) -> Option<&Value> {
    schema.get("items").filter(|i| i.is_object())
}

/// `default`, when set (a `null` default is no default, as Go's nil `Default.Object`).
pub(crate) fn default(schema: &Value) -> Option<&Value> {
    schema.get("default").filter(|d| !d.is_null())
}

/// `x-kubernetes-preserve-unknown-fields: true`.
pub(crate) fn preserves_unknown(schema: &Value) -> bool {
    flag(schema, "x-kubernetes-preserve-unknown-fields")
}

/// `x-kubernetes-embedded-resource: true`: the object is a whole resource, whose `apiVersion`,
/// `kind` and `metadata` need no schema.
pub(crate) fn embedded_resource(schema: &Value) -> bool {
    flag(schema, "x-kubernetes-embedded-resource")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn types_should_read_int_or_string_as_two_types() {
        assert_eq!(
            types(&json!({ "x-kubernetes-int-or-string": true })),
            ["integer", "string"]
        );
        assert_eq!(types(&json!({ "type": "object" })), ["object"]);
        assert!(types(&json!({})).is_empty());
    }

    #[test]
    fn format_should_drop_what_kube_apiserver_strips() {
        assert_eq!(format(&json!({ "format": "uuid" })), Some("uuid"));
        assert_eq!(format(&json!({ "format": "date-time" })), Some("date-time"));
        assert_eq!(format(&json!({ "format": "int32" })), None);
    }
}
