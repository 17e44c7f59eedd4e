//! Extraction (client-go's `Extract<Type>`): the apply configuration holding exactly the fields
//! one field manager applied, read from the object's managed fields, so a controller can read,
//! modify and apply again without taking over what others set.

use kube::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Why an object's fields could not be extracted.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// The object did not encode as JSON.
    #[error("cannot encode the {kind} as JSON: {source}")]
    Encode {
        /// The object's kind.
        kind: String,
        /// What serde_json reported.
        source: serde_json::Error,
    },
    /// What the manager owns does not decode as the apply configuration: the configuration was
    /// generated from other types than the object's.
    #[error(
        "the fields {manager} owns in the {kind} do not fit its apply configuration: {source}; regenerate the apply configurations from the API types"
    )]
    Decode {
        /// The object's kind.
        kind: String,
        /// The field manager.
        manager: String,
        /// What serde_json reported.
        source: serde_json::Error,
    },
}

/// The fields of `object` that `field_manager` owns through an apply (on `subresource`, e.g.
/// `status`, or the object itself), as the apply configuration `C`, with the object's type
/// meta, name and namespace. A manager that applied nothing gets a configuration with those
/// alone, as in client-go. List elements keep the key fields that identify them. An informer
/// that strips managed fields (`InformerOptions::strip_managed_fields`) caches objects without
/// any, from which every manager would seem to own nothing: extract from a GET instead.
pub fn extract<K, C>(object: &K, field_manager: &str, subresource: Option<&str>) -> Result<C, ExtractError>
where
    K: Resource<DynamicType = ()> + Serialize,
    C: DeserializeOwned,
{
    let kind = K::kind(&()).into_owned();
    let value = serde_json::to_value(object).map_err(|source| ExtractError::Encode {
        kind: kind.clone(),
        source,
    })?;
    let entry = object.meta().managed_fields.iter().flatten().find(|entry| {
        entry.manager.as_deref() == Some(field_manager)
            && entry.operation.as_deref() == Some("Apply")
            && entry.subresource.as_deref().unwrap_or_default() == subresource.unwrap_or_default()
    });
    let trie = entry.and_then(|e| e.fields_v1.as_ref()).and_then(|f| f.0.as_object());
    let mut owned = match trie.map(|trie| owned_part(&value, trie)) {
        Some(Value::Object(owned)) => owned,
        _ => Map::new(),
    };
    owned.insert("apiVersion".to_owned(), Value::String(K::api_version(&()).into_owned()));
    owned.insert("kind".to_owned(), Value::String(kind.clone()));
    let metadata = owned.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(metadata) = metadata {
        for (key, value) in [("name", &object.meta().name), ("namespace", &object.meta().namespace)] {
            if let Some(value) = value {
                metadata.insert(key.to_owned(), Value::String(value.clone()));
            }
        }
    }
    serde_json::from_value(Value::Object(owned)).map_err(|source| ExtractError::Decode {
        kind,
        manager: field_manager.to_owned(),
        source,
    })
}

/// The part of `value` a FieldsV1 trie names: a node without members below it whole, a map by
/// its `f:` fields, a list by its `k:` elements (with their key fields) and `v:` members.
fn owned_part(value: &Value, trie: &Map<String, Value>) -> Value {
    let members = || trie.iter().filter(|(key, _)| *key != ".");
    if members().next().is_none() {
        return value.clone();
    }
    match value {
        Value::Object(map) => {
            let mut part = Map::new();
            for (segment, below) in members() {
                let Some(field) = segment.strip_prefix("f:") else {
                    continue;
                };
                if let (Some(child), Some(below)) = (map.get(field), below.as_object()) {
                    part.insert(field.to_owned(), owned_part(child, below));
                }
            }
            Value::Object(part)
        }
        Value::Array(items) => {
            let mut part = Vec::new();
            for item in items {
                for (segment, below) in members() {
                    if let Some(key) = segment.strip_prefix("k:") {
                        let Ok(Value::Object(key)) = serde_json::from_str::<Value>(key) else {
                            continue;
                        };
                        if key.iter().all(|(name, value)| item.get(name) == Some(value)) {
                            let mut element = below.as_object().map_or_else(|| item.clone(), |b| owned_part(item, b));
                            if let Value::Object(element) = &mut element {
                                element.extend(key.clone());
                            }
                            part.push(element);
                            break;
                        }
                    } else if let Some(member) = segment.strip_prefix("v:")
                        && serde_json::from_str::<Value>(member).is_ok_and(|member| member == *item)
                    {
                        part.push(item.clone());
                        break;
                    }
                }
            }
            Value::Array(part)
        }
        scalar => scalar.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn part(value: Value, trie: Value) -> Value {
        owned_part(&value, trie.as_object().unwrap())
    }

    #[test]
    fn maps_should_keep_owned_fields_only() {
        let object = json!({"spec": {"replicas": 2, "paused": false}, "metadata": {"labels": {"a": "1", "b": "2"}}});
        let trie = json!({"f:spec": {"f:replicas": {}}, "f:metadata": {"f:labels": {"f:a": {}}}});
        assert_eq!(
            part(object, trie),
            json!({"spec": {"replicas": 2}, "metadata": {"labels": {"a": "1"}}})
        );
    }

    #[test]
    fn a_node_owned_whole_should_be_kept_whole() {
        let object = json!({"spec": {"args": ["a", "b"], "env": {"X": "1"}}});
        let trie = json!({"f:spec": {"f:args": {}, "f:env": {".": {}}}});
        assert_eq!(part(object.clone(), trie), object);
    }

    #[test]
    fn keyed_lists_should_keep_owned_elements_with_their_keys() {
        let object = json!({"status": {"conditions": [
            {"type": "Ready", "status": "True", "reason": "Up"},
            {"type": "Synced", "status": "False"},
        ], "finalizers": ["a", "b"]}});
        let trie = json!({"f:status": {
            "f:conditions": {"k:{\"type\":\"Ready\"}": {".": {}, "f:status": {}}},
            "f:finalizers": {"v:\"b\"": {}},
        }});
        assert_eq!(
            part(object, trie),
            json!({"status": {"conditions": [{"type": "Ready", "status": "True"}], "finalizers": ["b"]}})
        );
    }

    #[test]
    fn fields_gone_from_the_object_should_be_skipped() {
        let trie = json!({"f:spec": {"f:gone": {}, "f:kept": {}}});
        assert_eq!(part(json!({"spec": {"kept": 1}}), trie), json!({"spec": {"kept": 1}}));
    }
}
