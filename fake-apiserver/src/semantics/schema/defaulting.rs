//! Defaulting of custom resources from their structural schema, as kube-apiserver defaults them
//! after decoding a request and after reading from storage
//! (`apiextensions-apiserver/pkg/apiserver/schema/defaulting/algorithm.go`): an absent field, or
//! a `null` the schema does not allow, takes the property's default; then every field is
//! defaulted from its own schema, top down, so a defaulted object gets its nested defaults.

use serde_json::Value;

use super::structural;

/// Applies `schema`'s defaults to `value`, at every depth.
pub(crate) fn apply(value: &mut Value, schema: &Value) {
    match value {
        Value::Object(map) => {
            for (key, property) in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let Some(default) = structural::default(property) else {
                    continue;
                };
                if map.get(key).is_none_or(|v| is_non_nullable_null(v, property)) {
                    map.insert(key.clone(), default.clone());
                }
            }
            let additional = structural::additional(schema);
            for (key, child) in map.iter_mut() {
                if let Some(property) = structural::property(schema, key) {
                    apply(child, property);
                } else if let Some(additional) = additional {
                    if is_non_nullable_null(child, additional) {
                        *child = structural::default(additional).cloned().unwrap_or(Value::Null);
                    }
                    apply(child, additional);
                }
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = structural::items(schema) else {
                return;
            };
            for item in items {
                if is_non_nullable_null(item, item_schema) {
                    *item = structural::default(item_schema).cloned().unwrap_or(Value::Null);
                }
                apply(item, item_schema);
            }
        }
        _ => {}
    }
}

/// Whether [`apply`] would leave `value` as it is: every default already in place. Reads check
/// this first, so that objects written under the current schema are served without a copy.
pub(crate) fn is_complete(value: &Value, schema: &Value) -> bool {
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let missing = properties.into_iter().flatten().any(|(key, property)| {
                structural::default(property).is_some()
                    && map.get(key).is_none_or(|v| is_non_nullable_null(v, property))
            });
            let additional = structural::additional(schema);
            !missing
                && map.iter().all(|(key, child)| match structural::property(schema, key) {
                    Some(property) => is_complete(child, property),
                    None => additional.is_none_or(|a| {
                        !(is_non_nullable_null(child, a) && structural::default(a).is_some()) && is_complete(child, a)
                    }),
                })
        }
        Value::Array(items) => structural::items(schema).is_none_or(|item_schema| {
            items.iter().all(|item| {
                !(is_non_nullable_null(item, item_schema) && structural::default(item_schema).is_some())
                    && is_complete(item, item_schema)
            })
        }),
        _ => true,
    }
}

fn is_non_nullable_null(value: &Value, schema: &Value) -> bool {
    value.is_null() && !structural::flag(schema, "nullable")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn apply_should_fill_absent_fields_and_then_their_own_defaults() {
        let schema = json!({ "type": "object", "properties": {
            "spec": { "type": "object", "default": {}, "properties": {
                "replicas": { "type": "integer", "default": 1 },
                "nested": { "type": "object", "default": { "a": "x" }, "properties": {
                    "a": { "type": "string" }, "b": { "type": "string", "default": "y" } } },
                "ports": { "type": "array", "items": { "type": "object", "properties": {
                    "protocol": { "type": "string", "default": "TCP" } } } },
                "m": { "type": "object", "additionalProperties": { "type": "object", "properties": {
                    "v": { "type": "integer", "default": 7 } } } }
            } }
        } });
        let mut object = json!({ "metadata": {} });
        apply(&mut object, &schema);
        assert_eq!(
            object["spec"],
            json!({ "replicas": 1, "nested": { "a": "x", "b": "y" } })
        );
        let mut object =
            json!({ "spec": { "replicas": null, "ports": [{}, { "protocol": "UDP" }], "m": { "k": {} } } });
        apply(&mut object, &schema);
        assert_eq!(
            object["spec"],
            json!({ "replicas": 1, "nested": { "a": "x", "b": "y" },
                    "ports": [{ "protocol": "TCP" }, { "protocol": "UDP" }], "m": { "k": { "v": 7 } } })
        );
    }

    #[test]
    fn is_complete_should_say_whether_apply_changes_anything() {
        let schema = json!({ "type": "object", "properties": { "spec": { "type": "object", "properties": {
            "a": { "type": "string", "default": "x" },
            "l": { "type": "array", "items": { "type": "object", "properties": { "p": { "type": "string", "default": "TCP" } } } }
        } } } });
        assert!(is_complete(&json!({ "spec": { "a": "y" } }), &schema));
        assert!(!is_complete(&json!({ "spec": {} }), &schema));
        assert!(!is_complete(&json!({ "spec": { "a": "y", "l": [{}] } }), &schema));
        assert!(is_complete(&json!({ "other": 1 }), &schema));
    }

    #[test]
    fn apply_should_keep_nulls_the_schema_allows() {
        let schema = json!({ "type": "object", "properties": {
            "a": { "type": "string", "nullable": true, "default": "x" } } });
        let mut object = json!({ "a": null });
        apply(&mut object, &schema);
        assert_eq!(object, json!({ "a": null }));
    }
}
