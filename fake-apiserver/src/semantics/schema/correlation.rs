//! The old and new values of a custom resource walked side by side, as kube-apiserver
//! correlates them for validation ratcheting (from 1.30) and transition rules: a port of
//! `apiserver/pkg/cel/common/equality.go` (`CorrelatedObject`: `Key`, `Index`,
//! `CachedDeepEqual`) and `maplist.go` (`MakeMapList`).
//!
//! A property correlates when both objects hold it and the schema specifies it (a property or
//! `additionalProperties`); a list item only in a `map` list, with the old item of the same
//! keys. Whether a node is unchanged is asked through the correlation, so a reordered `map`
//! list is unchanged and a map holding a field the schema does not specify never is.

use serde_json::Value;

use super::go_value;
use super::structural;

/// One node of the new object with the old value it correlates with, and its schema.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Correlated<'a> {
    pub(crate) new: &'a Value,
    pub(crate) old: &'a Value,
    schema: &'a Value,
}

impl<'a> Correlated<'a> {
    /// The root of an update: the whole new and old objects under the version's schema.
    pub(crate) fn root(new: &'a Value, old: &'a Value, schema: &'a Value) -> Self {
        Self { new, old, schema }
    }

    /// `Key`: the property `field` of both maps, when both hold it and the schema names its
    /// schema.
    pub(crate) fn key(&self, field: &str) -> Option<Self> {
        let new = self.new.as_object()?.get(field)?;
        let old = self.old.as_object()?.get(field)?;
        let schema = structural::property(self.schema, field).or_else(|| structural::additional(self.schema))?;
        Some(Self { new, old, schema })
    }

    /// `Index`: the new list's item `i` with the old item it correlates with (`map` lists only).
    pub(crate) fn index(&self, i: usize) -> Option<Self> {
        let new = self.new.as_array()?.get(i)?;
        let old = map_list_item(self.schema, self.old.as_array()?, new)?;
        let schema = structural::items(self.schema)?;
        Some(Self { new, old, schema })
    }

    /// `CachedDeepEqual`: whether the node is unchanged, compared through its correlations.
    pub(crate) fn unchanged(&self) -> bool {
        match (self.old, self.new) {
            (Value::Null, Value::Null) => true,
            (Value::Null, _) | (_, Value::Null) => false,
            (Value::Array(old), Value::Array(new)) => {
                if old.len() != new.len() {
                    return false;
                }
                if !is_map_list(self.schema) {
                    // No item correlates: the lists are compared as they are.
                    return go_value::deep_equal(self.old, self.new);
                }
                (0..new.len()).all(|i| self.index(i).is_some_and(|child| child.unchanged()))
            }
            (Value::Object(old), Value::Object(new)) => {
                old.len() == new.len() && new.keys().all(|k| self.key(k).is_some_and(|child| child.unchanged()))
            }
            (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => false,
            (old, new) => go_value::deep_equal(old, new),
        }
    }
}

/// Whether `schema` is an array of `x-kubernetes-list-type: map` with keys, the only list
/// whose items correlate.
fn is_map_list(schema: &Value) -> bool {
    structural::types(schema).contains(&"array")
        && schema.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map")
        && !map_keys(schema).is_empty()
}

fn map_keys(schema: &Value) -> Vec<&str> {
    schema
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .map(|keys| keys.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `MakeMapList(schema, old).Get(item)`: the first old item whose keys equal `item`'s, in a
/// `map` list; an item missing a key, or with a key that is not a scalar, has none.
pub(crate) fn map_list_item<'o>(schema: &Value, old: &'o [Value], item: &Value) -> Option<&'o Value> {
    if !is_map_list(schema) {
        return None;
    }
    let keys = map_keys(schema);
    let wanted = composite_key(&keys, item)?;
    old.iter()
        .find(|candidate| composite_key(&keys, candidate).is_some_and(|key| key == wanted))
}

/// `CompositeKeyFor`: the item's key values, each a scalar (`null` is not one).
fn composite_key<'v>(keys: &[&str], item: &'v Value) -> Option<Vec<&'v Value>> {
    let fields = item.as_object()?;
    keys.iter()
        .map(|key| {
            fields
                .get(*key)
                .filter(|v| v.is_string() || v.is_number() || v.is_boolean())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "size": {"type": "integer"},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
                "tags": {"type": "array", "items": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
            }}
        }})
    }

    #[test]
    fn a_reordered_map_list_should_be_unchanged_and_an_atomic_one_changed() {
        let schema = schema();
        let old = json!({"spec": {"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}], "tags": ["x", "y"]}});
        let new = json!({"spec": {"ports": [{"name": "b", "port": 2}, {"name": "a", "port": 1}], "tags": ["y", "x"]}});
        let spec = Correlated::root(&new, &old, &schema).key("spec").unwrap();
        assert!(spec.key("ports").unwrap().unchanged());
        assert!(!spec.key("tags").unwrap().unchanged());
        assert_eq!(
            spec.key("ports").unwrap().index(1).unwrap().old,
            &json!({"name": "a", "port": 1})
        );
        assert!(
            spec.key("tags").unwrap().index(0).is_none(),
            "atomic list items do not correlate"
        );
    }

    #[test]
    fn a_field_the_schema_does_not_specify_should_never_be_unchanged() {
        let schema = schema();
        let value = json!({"spec": {"free": {"anything": 1}}});
        let free = Correlated::root(&value, &value, &schema)
            .key("spec")
            .and_then(|s| s.key("free"))
            .unwrap();
        assert!(!free.unchanged());
    }

    #[test]
    fn integers_and_floats_should_differ_as_go_values_do() {
        let schema = schema();
        let (old, new) = (json!({"spec": {"size": 1}}), json!({"spec": {"size": 1.0}}));
        assert!(!Correlated::root(&new, &old, &schema).key("spec").unwrap().unchanged());
    }

    #[test]
    fn an_item_without_its_key_should_not_correlate() {
        let schema = schema();
        let ports = &schema["properties"]["spec"]["properties"]["ports"];
        let old = [json!({"name": "a"}), json!({"port": 3})];
        assert!(map_list_item(ports, &old, &json!({"port": 3})).is_none());
        assert!(map_list_item(ports, &old, &json!({"name": "a", "port": 9})).is_some());
    }
}
