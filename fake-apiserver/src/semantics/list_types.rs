//! The invariants of `x-kubernetes-list-type` in a CRD schema, as apiextensions-apiserver's
//! `ValidateListSetsAndMaps` checks them: a `set` holds no value twice, a `map` no key twice.

use serde_json::Value;

use crate::semantics::names::go_syntax;

/// `(field, message)` for every element that repeats an earlier one of its set or list-map,
/// anywhere in `value`; `path` is where `value` sits (empty for the object itself).
pub(crate) fn duplicates(schema: &Value, value: &Value, path: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    walk(schema, value, path, &mut found);
    found
}

fn walk(schema: &Value, value: &Value, path: &str, found: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (key, child) in map {
                if let Some(child_schema) = properties.and_then(|p| p.get(key)).or(additional) {
                    let child_path = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    walk(child_schema, child, &child_path, found);
                }
            }
        }
        Value::Array(items) => {
            match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
                Some("set") => set_duplicates(items, path, found),
                Some("map") => map_duplicates(schema, items, path, found),
                _ => {}
            }
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    walk(item_schema, item, &format!("{path}[{i}]"), found);
                }
            }
        }
        _ => {}
    }
}

fn set_duplicates(items: &[Value], path: &str, found: &mut Vec<(String, String)>) {
    for (i, item) in items.iter().enumerate() {
        if items[..i].contains(item) {
            found.push((format!("{path}[{i}]"), format!("Duplicate value: {}", go_syntax(item))));
        }
    }
}

/// Elements are told apart by their `x-kubernetes-list-map-keys`; an element that lacks a key
/// is the schema's `required` to report, not a duplicate.
fn map_duplicates(schema: &Value, items: &[Value], path: &str, found: &mut Vec<(String, String)>) {
    let keys: Vec<&str> = schema
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let key_of = |item: &Value| -> Option<serde_json::Map<String, Value>> {
        let fields = item.as_object()?;
        let key: serde_json::Map<String, Value> = keys
            .iter()
            .filter_map(|k| fields.get(*k).map(|v| ((*k).to_owned(), v.clone())))
            .collect();
        (key.len() == keys.len()).then_some(key)
    };
    let item_keys: Vec<_> = items.iter().map(key_of).collect();
    for (i, key) in item_keys.iter().enumerate() {
        if let Some(key) = key
            && item_keys[..i].iter().flatten().any(|earlier| earlier == key)
        {
            let shown = go_syntax(&Value::Object(key.clone()));
            found.push((format!("{path}[{i}]"), format!("Duplicate value: {shown}")));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn repeated_set_values_and_map_keys_should_be_named_by_their_index() {
        let schema = json!({ "type": "object", "properties": { "spec": { "type": "object", "properties": {
            "tags": { "type": "array", "x-kubernetes-list-type": "set", "items": { "type": "string" } },
            "ports": { "type": "array", "x-kubernetes-list-type": "map",
                       "x-kubernetes-list-map-keys": ["name", "protocol"],
                       "items": { "type": "object" } },
        } } } });
        let object = json!({ "spec": {
            "tags": ["x", "y", "x"],
            "ports": [{ "name": "http", "protocol": "TCP", "port": 80 },
                      { "name": "http", "protocol": "UDP", "port": 80 },
                      { "name": "http", "protocol": "TCP", "port": 81 }],
        } });
        assert_eq!(
            duplicates(&schema, &object, ""),
            vec![
                (
                    "spec.ports[2]".to_owned(),
                    "Duplicate value: map[string]interface {}{\"name\":\"http\", \"protocol\":\"TCP\"}".to_owned()
                ),
                ("spec.tags[2]".to_owned(), "Duplicate value: \"x\"".to_owned()),
            ]
        );
    }
}
