//! Pruning of the fields a CRD's structural schema does not specify, as kube-apiserver prunes a
//! custom resource while decoding it (`apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go`),
//! and the removal of `null`s that are neither nullable nor defaulted (`defaulting/prunenulls.go`).

use serde_json::Value;

use super::structural;

/// Removes the unknown fields of `object`, a whole resource (its `apiVersion`, `kind` and
/// `metadata` are the server's); returns their paths, sorted, as the strict decoder names them.
pub(crate) fn prune_resource(schema: &Value, object: &mut Value) -> Vec<String> {
    let mut unknown = Vec::new();
    let mut walker = Walker { unknown: &mut unknown };
    // The root is always an embedded resource, whatever the schema says.
    walker.prune(object, Some(schema), true, "");
    unknown.sort();
    unknown
}

/// Removes what `schema` does not specify from `value` (a default, say); `resource` says whether
/// `value` is a whole resource, whose type meta and metadata stay.
pub(crate) fn prune_value(schema: &Value, value: &mut Value, resource: bool) {
    let mut unknown = Vec::new();
    Walker { unknown: &mut unknown }.prune(value, Some(schema), resource, "");
}

/// Whether [`prune_resource`] would leave `object` as it is: nothing below it that `schema`
/// does not specify. Reads check this first, so that objects written under the current schema
/// are served without a copy.
pub(crate) fn is_pruned(schema: &Value, object: &Value) -> bool {
    fits(object, Some(schema), true, true)
}

/// `prune`'s walk, reporting instead of removing.
fn fits(value: &Value, schema: Option<&Value>, embedded: bool, root: bool) -> bool {
    if let Some(schema) = schema.filter(|s| structural::preserves_unknown(s)) {
        return fits_preserved(value, schema, embedded);
    }
    match value {
        Value::Object(map) => {
            let Some(schema) = schema else { return map.is_empty() };
            map.iter().all(|(key, child)| {
                if (embedded || root) && is_meta_field(key) {
                    return true;
                }
                structural::field(schema, key).is_some_and(|child_schema| {
                    fits(
                        child,
                        Some(child_schema),
                        structural::embedded_resource(child_schema),
                        false,
                    )
                })
            })
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(structural::items);
            let embedded = item_schema.is_some_and(structural::embedded_resource);
            items.iter().all(|item| fits(item, item_schema, embedded, false))
        }
        _ => true,
    }
}

/// `skipPrune`'s walk, reporting instead of removing.
fn fits_preserved(value: &Value, schema: &Value, embedded: bool) -> bool {
    match value {
        Value::Object(map) => map.iter().all(|(key, child)| {
            (embedded && is_meta_field(key))
                || structural::field(schema, key).is_none_or(|child_schema| {
                    fits(
                        child,
                        Some(child_schema),
                        structural::embedded_resource(child_schema),
                        false,
                    )
                })
        }),
        Value::Array(items) => structural::items(schema).is_none_or(|item_schema| {
            items
                .iter()
                .all(|item| fits_preserved(item, item_schema, structural::embedded_resource(item_schema)))
        }),
        _ => true,
    }
}

struct Walker<'a> {
    unknown: &'a mut Vec<String>,
}

impl Walker<'_> {
    /// `prune`: `schema` is `None` below a field the schema does not describe.
    fn prune(&mut self, value: &mut Value, schema: Option<&Value>, embedded: bool, path: &str) {
        if let Some(schema) = schema.filter(|s| structural::preserves_unknown(s)) {
            self.skip_prune(value, schema, embedded, path);
            return;
        }
        match value {
            Value::Object(map) => {
                let Some(schema) = schema else {
                    self.unknown.extend(map.keys().map(|k| join(path, k)));
                    map.clear();
                    return;
                };
                map.retain(|key, child| {
                    if embedded && is_meta_field(key) {
                        return true;
                    }
                    match structural::field(schema, key) {
                        Some(child_schema) => {
                            let embedded = structural::embedded_resource(child_schema);
                            self.prune(child, Some(child_schema), embedded, &join(path, key));
                            true
                        }
                        None => {
                            // At the root, a server field is dropped without a word.
                            if !is_meta_field(key) || !path.is_empty() {
                                self.unknown.push(join(path, key));
                            }
                            false
                        }
                    }
                });
            }
            Value::Array(items) => {
                let item_schema = schema.and_then(structural::items);
                let embedded = item_schema.is_some_and(structural::embedded_resource);
                for (i, item) in items.iter_mut().enumerate() {
                    self.prune(item, item_schema, embedded, &format!("{path}[{i}]"));
                }
            }
            _ => {}
        }
    }

    /// `skipPrune`: below `x-kubernetes-preserve-unknown-fields` unknown fields stay, but the
    /// fields that have a schema are pruned by it.
    fn skip_prune(&mut self, value: &mut Value, schema: &Value, embedded: bool, path: &str) {
        match value {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    if embedded && is_meta_field(key) {
                        continue;
                    }
                    if let Some(child_schema) = structural::field(schema, key) {
                        let embedded = structural::embedded_resource(child_schema);
                        self.prune(child, Some(child_schema), embedded, &join(path, key));
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = structural::items(schema) {
                    let embedded = structural::embedded_resource(item_schema);
                    for (i, item) in items.iter_mut().enumerate() {
                        self.skip_prune(item, item_schema, embedded, &format!("{path}[{i}]"));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Removes, at any depth, object fields whose value is `null` where the schema neither allows
/// `null` nor has a default to put there (a `null` in a list stays, for validation to report).
pub(crate) fn prune_non_nullable_nulls(value: &mut Value, schema: Option<&Value>) {
    match value {
        Value::Object(map) => map.retain(|key, child| {
            let child_schema = schema.and_then(|s| structural::field(s, key));
            let droppable = child.is_null()
                && child_schema.is_some_and(|s| !structural::flag(s, "nullable") && structural::default(s).is_none());
            if !droppable {
                prune_non_nullable_nulls(child, child_schema);
            }
            !droppable
        }),
        Value::Array(items) => {
            let item_schema = schema.and_then(structural::items);
            for item in items {
                prune_non_nullable_nulls(item, item_schema);
            }
        }
        _ => {}
    }
}

fn is_meta_field(key: &str) -> bool {
    matches!(key, "apiVersion" | "kind" | "metadata")
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({ "type": "object", "properties": {
            "spec": { "type": "object", "properties": {
                "size": { "type": "string" },
                "items": { "type": "array", "items": { "type": "object", "properties": { "a": { "type": "string" } } } },
                "free": { "type": "object", "x-kubernetes-preserve-unknown-fields": true,
                          "properties": { "typed": { "type": "object", "properties": { "k": { "type": "string" } } } } },
                "template": { "type": "object", "x-kubernetes-embedded-resource": true,
                              "properties": { "spec": { "type": "string" } } },
                "labels": { "type": "object", "additionalProperties": { "type": "string" } },
                "opt": { "type": "string", "nullable": true },
                "dflt": { "type": "string", "default": "x" }
            } }
        } })
    }

    #[test]
    fn prune_resource_should_drop_unknown_fields_at_every_depth_and_name_them() {
        let mut object = json!({ "apiVersion": "g/v1", "kind": "K", "metadata": { "name": "n" }, "extra": 1,
            "spec": { "size": "s", "bogus": true, "items": [{ "a": "x", "b": 1 }], "labels": { "k": "v" },
                      "free": { "any": { "deep": 1 }, "typed": { "k": "v", "gone": 2 } },
                      "template": { "apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": "s", "other": 1 } } });
        let unknown = prune_resource(&schema(), &mut object);
        assert_eq!(
            unknown,
            [
                "extra",
                "spec.bogus",
                "spec.free.typed.gone",
                "spec.items[0].b",
                "spec.template.other"
            ]
        );
        assert_eq!(
            object["spec"]["free"],
            json!({ "any": { "deep": 1 }, "typed": { "k": "v" } })
        );
        assert_eq!(
            object["spec"]["template"],
            json!({ "apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": "s" })
        );
        assert_eq!(object["metadata"], json!({ "name": "n" }));
    }

    #[test]
    fn is_pruned_should_say_whether_prune_resource_changes_anything() {
        let clean = json!({ "apiVersion": "g/v1", "kind": "K", "metadata": { "name": "n" },
            "spec": { "size": "s", "items": [{ "a": "x" }], "free": { "any": 1, "typed": { "k": "v" } } } });
        assert!(is_pruned(&schema(), &clean));
        for dirty in [
            json!({ "extra": 1 }),
            json!({ "spec": { "bogus": true } }),
            json!({ "spec": { "items": [{ "b": 1 }] } }),
            json!({ "spec": { "free": { "typed": { "gone": 1 } } } }),
        ] {
            assert!(!is_pruned(&schema(), &dirty), "{dirty}");
        }
    }

    #[test]
    fn prune_non_nullable_nulls_should_keep_nullable_and_defaulted_nulls() {
        let mut object = json!({ "spec": { "size": null, "opt": null, "dflt": null, "items": [null] } });
        prune_non_nullable_nulls(&mut object, Some(&schema()));
        assert_eq!(
            object,
            json!({ "spec": { "opt": null, "dflt": null, "items": [null] } })
        );
    }
}
