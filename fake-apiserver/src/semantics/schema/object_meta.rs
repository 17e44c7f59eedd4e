//! Whether a JSON value decodes as apimachinery's `ObjectMeta`, and Go's `encoding/json` error
//! when it does not (`json: cannot unmarshal string into Go struct field ObjectMeta.labels of
//! type map[string]string`), as `objectmeta.GetObjectMeta` reports it for embedded resources.
//! Time fields and the nested structs of owner references and managed fields are checked for
//! their JSON kind only.

use serde_json::Value;

use crate::semantics::go_json;

/// Go's type of each `ObjectMeta` field, as `encoding/json` names it in its errors.
const FIELD_TYPES: [(&str, GoType); 15] = [
    ("name", GoType::String),
    ("generateName", GoType::String),
    ("namespace", GoType::String),
    ("selfLink", GoType::String),
    ("uid", GoType::String),
    ("resourceVersion", GoType::String),
    ("generation", GoType::Int64),
    ("creationTimestamp", GoType::Time),
    ("deletionTimestamp", GoType::Time),
    ("deletionGracePeriodSeconds", GoType::Int64),
    ("labels", GoType::StringMap),
    ("annotations", GoType::StringMap),
    ("ownerReferences", GoType::List("[]v1.OwnerReference")),
    ("finalizers", GoType::StringList),
    ("managedFields", GoType::List("[]v1.ManagedFieldsEntry")),
];

#[derive(Clone, Copy)]
enum GoType {
    String,
    Int64,
    /// `metav1.Time`, which decodes a JSON string itself.
    Time,
    StringMap,
    StringList,
    List(&'static str),
}

/// Whether `key` is a field of `ObjectMeta`: the decoder drops any other key of `metadata`.
pub(crate) fn is_field(key: &str) -> bool {
    FIELD_TYPES.iter().any(|(name, _)| *name == key)
}

/// The error decoding `meta` into an `ObjectMeta` gives, if any; `null` fields decode as unset.
pub(crate) fn decode_error(meta: &Value) -> Option<String> {
    let Some(fields) = meta.as_object() else {
        return (!meta.is_null()).then(|| {
            format!(
                "json: cannot unmarshal {} into Go value of type v1.ObjectMeta",
                go_json::type_name(meta)
            )
        });
    };
    FIELD_TYPES.iter().find_map(|(name, go_type)| {
        let value = fields.get(*name).filter(|v| !v.is_null())?;
        let wrong = |type_name: &str, found: &Value| {
            Some(format!(
                "json: cannot unmarshal {} into Go struct field ObjectMeta.{name} of type {type_name}",
                go_json::type_name(found)
            ))
        };
        match go_type {
            GoType::String if !value.is_string() => wrong("string", value),
            GoType::Int64 if !(value.is_i64()) => wrong("int64", value),
            GoType::Time if !value.is_string() => Some(format!(
                "json: cannot unmarshal {} into Go value of type string",
                go_json::type_name(value)
            )),
            GoType::StringMap => match value.as_object() {
                None => wrong("map[string]string", value),
                Some(map) => map
                    .values()
                    .find(|v| !v.is_string() && !v.is_null())
                    .and_then(|v| wrong("string", v)),
            },
            GoType::StringList => match value.as_array() {
                None => wrong("[]string", value),
                Some(items) => items
                    .iter()
                    .find(|v| !v.is_string() && !v.is_null())
                    .and_then(|v| wrong("string", v)),
            },
            GoType::List(type_name) if !value.is_array() => wrong(type_name, value),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn decode_error_should_word_type_mismatches_as_go() {
        assert_eq!(decode_error(&json!({ "name": "a", "labels": { "k": "v" } })), None);
        assert_eq!(
            decode_error(&json!({ "labels": "notamap" })).as_deref(),
            Some("json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string")
        );
        assert_eq!(
            decode_error(&json!({ "name": 5 })).as_deref(),
            Some("json: cannot unmarshal number into Go struct field ObjectMeta.name of type string")
        );
        assert_eq!(
            decode_error(&json!("x")).as_deref(),
            Some("json: cannot unmarshal string into Go value of type v1.ObjectMeta")
        );
        assert_eq!(
            decode_error(&json!({ "finalizers": [1] })).as_deref(),
            Some("json: cannot unmarshal number into Go struct field ObjectMeta.finalizers of type string")
        );
    }
}
