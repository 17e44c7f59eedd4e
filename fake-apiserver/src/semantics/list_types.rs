//! The invariants of `x-kubernetes-list-type` in a CRD schema, as apiextensions-apiserver's
//! `ValidateListSetsAndMaps` checks them (`apiserver/schema/listtype/validation.go`): a `set`
//! holds no value twice, a `map` no key twice (an item without the key has the "unspecified"
//! key, which two items can share) and only objects.

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::go_json_writer;

/// The errors of every set and list-map anywhere in `value`; `path` is where `value` sits
/// (empty for the object itself). Map values are named by key (`spec.m[k]`), as `field.Path`
/// does.
pub(crate) fn duplicates(schema: &Value, value: &Value, path: &str) -> Vec<FieldError> {
    let mut found = Vec::new();
    walk(schema, value, path, &mut found);
    found
}

/// Whether two items are the same as `ValidateListSetsAndMaps` compares them: as Go map keys
/// (an `int64` is no `float64`), compounds by their JSON as Go writes it (where `1.0` is `1`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(_) | Value::Array(_), Value::Object(_) | Value::Array(_)) => {
            go_json_writer::to_vec(a) == go_json_writer::to_vec(b)
        }
        _ => a == b,
    }
}

fn walk(schema: &Value, value: &Value, path: &str, found: &mut Vec<FieldError>) {
    match value {
        Value::Object(map) => {
            // Go checks every key against additionalProperties, then the known properties.
            if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                for (key, child) in map {
                    walk(additional, child, &format!("{path}[{key}]"), found);
                }
            }
            let properties = schema.get("properties").and_then(Value::as_object);
            for (key, child) in map {
                if let Some(property) = properties.and_then(|p| p.get(key)) {
                    let child_path = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    walk(property, child, &child_path, found);
                }
            }
        }
        Value::Array(items) => {
            match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
                Some("set") => {
                    for i in repeated(items) {
                        found.push(FieldError::duplicate(
                            format!("{path}[{i}]"),
                            BadValue::Json(items[i].clone()),
                        ));
                    }
                }
                Some("map") => found.extend(map_errors(schema, items, path)),
                _ => {}
            }
            if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
                for (i, item) in items.iter().enumerate() {
                    walk(item_schema, item, &format!("{path}[{i}]"), found);
                }
            }
        }
        _ => {}
    }
}

/// `validateListSet`: the index of each value's second occurrence (not its third or later).
fn repeated(items: &[Value]) -> Vec<usize> {
    let mut seen: Vec<(&Value, usize)> = Vec::new();
    let mut indices = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match seen.iter_mut().find(|(earlier, _)| same(earlier, item)) {
            Some((_, times)) => {
                if *times == 1 {
                    indices.push(i);
                }
                *times += 1;
            }
            None => seen.push((item, 1)),
        }
    }
    indices
}

/// `validateListMap`: every item an object (or null), then no key twice. With one key field the
/// duplicate shows `{key: value}` (or `{}` where the key is absent), with several the key
/// fields the item has.
fn map_errors(schema: &Value, items: &[Value], path: &str) -> Vec<FieldError> {
    if let Some((i, item)) = items.iter().enumerate().find(|(_, x)| !x.is_null() && !x.is_object()) {
        return vec![FieldError::invalid(
            format!("{path}[{i}]"),
            BadValue::Json(item.clone()),
            "must be an object for an array of list-type map",
        )];
    }
    let key_fields: Vec<&str> = schema
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let keys: Vec<Value> = items
        .iter()
        .map(|item| {
            let fields = item.as_object();
            let key: Map<String, Value> = key_fields
                .iter()
                .filter_map(|k| fields.and_then(|f| f.get(*k)).map(|v| ((*k).to_owned(), v.clone())))
                .collect();
            Value::Object(key)
        })
        .collect();
    repeated(&keys)
        .into_iter()
        .map(|i| FieldError::duplicate(format!("{path}[{i}]"), BadValue::Json(keys[i].clone())))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn shown(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn repeated_set_values_and_map_keys_should_be_named_by_their_index() {
        let schema = json!({ "type": "object", "properties": { "spec": { "type": "object", "properties": {
            "tags": { "type": "array", "x-kubernetes-list-type": "set", "items": { "type": "string" } },
            "ports": { "type": "array", "x-kubernetes-list-type": "map",
                       "x-kubernetes-list-map-keys": ["name", "protocol"],
                       "items": { "type": "object" } },
        } } } });
        let object = json!({ "spec": {
            "tags": ["x", "y", "x", "x"],
            "ports": [{ "name": "http", "protocol": "TCP", "port": 80 },
                      { "name": "http", "protocol": "UDP", "port": 80 },
                      { "name": "http", "protocol": "TCP", "port": 81 }],
        } });
        assert_eq!(
            shown(&duplicates(&schema, &object, "")),
            [
                "spec.ports[2]: Duplicate value: map[string]interface {}{\"name\":\"http\", \"protocol\":\"TCP\"}",
                "spec.tags[2]: Duplicate value: \"x\"",
            ]
        );
    }

    #[test]
    fn list_maps_should_compare_missing_keys_and_refuse_non_objects() {
        let schema = json!({ "type": "object", "properties": { "l": { "type": "array",
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "items": { "type": "object" } },
            "m": { "type": "object", "additionalProperties": { "type": "array", "x-kubernetes-list-type": "set" } } } });
        let object = json!({ "l": [{ "port": 1 }, { "port": 2 }], "m": { "k": [1, 1] } });
        assert_eq!(
            shown(&duplicates(&schema, &object, "")),
            [
                "l[1]: Duplicate value: map[string]interface {}{}",
                "m[k][1]: Duplicate value: 1",
            ]
        );
        assert!(
            duplicates(&schema, &json!({ "m": { "k": [1, 1.0] } }), "").is_empty(),
            "an int64 is no float64"
        );
        let object = json!({ "l": [{ "name": "a" }, "b"] });
        assert_eq!(
            shown(&duplicates(&schema, &object, "")),
            ["l[1]: Invalid value: \"b\": must be an object for an array of list-type map"]
        );
    }
}
