//! Structured-merge-diff's typing of a custom resource against its structural schema
//! (`typed/validate.go`, `typed/helpers.go` of sigs.k8s.io/structured-merge-diff v4, on the
//! schema kube-openapi's `schemaconv` derives): the errors `ObjectToTyped` reports, worded as Go
//! prints them, which an apply answers with a 500 and an update survives by dropping its managed
//! fields.

use serde_json::Value;

use crate::semantics::schema::structural;
use crate::storage::object;

/// Whether a field the schema does not declare is an error: it is when an object is converted to
/// another version (the request's own version has pruned them already).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Undeclared {
    Allowed,
    Refused,
}

/// Every typing error of `value` (a whole object) against `schema`, `.path: message` each,
/// sorted (Go walks an unstructured map in random order).
pub(crate) fn errors(schema: &Value, value: &Value, minor: u32, undeclared: Undeclared) -> Vec<String> {
    let mut walker = Walker {
        minor,
        undeclared,
        errors: Vec::new(),
    };
    walker.walk(schema, value, "", true);
    walker.errors.sort();
    walker.errors
}

struct Walker {
    minor: u32,
    undeclared: Undeclared,
    errors: Vec<String>,
}

impl Walker {
    fn walk(&mut self, schema: &Value, value: &Value, path: &str, resource: bool) {
        // `null` is every type's value; an int-or-string is an untyped scalar that took any
        // value up to structured-merge-diff v4.3 and is checked by validation anyway.
        if value.is_null() || structural::flag(schema, "x-kubernetes-int-or-string") {
            return;
        }
        let wrong = match schema.get("type").and_then(Value::as_str) {
            Some("object") if !value.is_object() => Some(format!("expected map, got {}", go_value(value))),
            Some("array") if !value.is_array() => Some(format!("expected list, got {}", go_value(value))),
            Some("string") => self.string_error(schema, value),
            Some("integer" | "number") if !value.is_number() => {
                Some(format!("expected numeric (int or float), got {}", go_type(value)))
            }
            Some("boolean") if !value.is_boolean() => Some(format!("expected boolean, got {}", go_value(value))),
            _ => None,
        };
        if let Some(message) = wrong {
            self.errors.push(format!("{path}: {message}"));
            return;
        }
        match value {
            Value::Object(map) => {
                let open = structural::preserves_unknown(schema);
                for (key, child) in map {
                    let child_path = format!("{path}.{key}");
                    match structural::field(schema, key) {
                        Some(child_schema) => {
                            let embedded = structural::flag(child_schema, "x-kubernetes-embedded-resource");
                            self.walk(child_schema, child, &child_path, embedded);
                        }
                        None if open || self.undeclared == Undeclared::Allowed => {}
                        None if resource && matches!(key.as_str(), "apiVersion" | "kind" | "metadata") => {}
                        None => self.errors.push(format!("{child_path}: field not declared in schema")),
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item_schema) = structural::items(schema) {
                    for (i, item) in items.iter().enumerate() {
                        let item_path = format!("{path}{}", item_name(schema, i, item));
                        self.walk(item_schema, item, &item_path, false);
                    }
                }
            }
            _ => {}
        }
    }

    /// A string, or with a format (but `byte`) an untyped scalar: any value up to 1.28, any
    /// scalar from structured-merge-diff v4.4 on (`expected any scalar`).
    fn string_error(&self, schema: &Value, value: &Value) -> Option<String> {
        if value.is_string() {
            return None;
        }
        let untyped = schema
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(|f| !f.is_empty() && f != "byte");
        match (untyped, self.minor <= 28, value.is_object() || value.is_array()) {
            (true, true, _) | (true, false, false) => None,
            (true, false, true) => Some(format!("expected any scalar, got {}", go_value(value))),
            (false, ..) => Some(format!(
                "expected string, got &value.valueUnstructured{{Value:{}}}",
                go_sharp(value)
            )),
        }
    }
}

/// An item's path element as `PathElement.String` prints it: its key fields in a keyed list,
/// its value in a set, else its index.
fn item_name(schema: &Value, index: usize, item: &Value) -> String {
    match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("map") => {
            let mut keys = object::string_list(schema.get("x-kubernetes-list-map-keys"));
            keys.sort_unstable();
            let pairs: Vec<String> = keys
                .iter()
                .filter_map(|k| item.get(k.as_str()).map(|v| format!("{k}={v}")))
                .collect();
            format!("[{}]", pairs.join(","))
        }
        Some("set") => format!("[={item}]"),
        _ => format!("[{index}]"),
    }
}

/// Go's `%T` of the decoded JSON value.
fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `%v` of structured-merge-diff's `*valueUnstructured` holding `value`: `&{…}`.
fn go_value(value: &Value) -> String {
    format!("&{{{}}}", go_plain(value))
}

/// Go's `%v` of a decoded JSON value (maps print with sorted keys).
fn go_plain(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_owned(),
        Value::String(s) => s.clone(),
        Value::Array(items) => format!("[{}]", items.iter().map(go_plain).collect::<Vec<_>>().join(" ")),
        Value::Object(map) => {
            let mut pairs: Vec<(&String, &Value)> = map.iter().collect();
            pairs.sort_by_key(|(k, _)| *k);
            let shown: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}:{}", go_plain(v))).collect();
            format!("map[{}]", shown.join(" "))
        }
        other => other.to_string(),
    }
}

/// Go's `%#v` of a decoded JSON value.
fn go_sharp(value: &Value) -> String {
    match value {
        Value::Null => "interface {}(nil)".to_owned(),
        Value::Array(items) => format!(
            "[]interface {{}}{{{}}}",
            items.iter().map(go_sharp).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => {
            let mut pairs: Vec<(&String, &Value)> = map.iter().collect();
            pairs.sort_by_key(|(k, _)| *k);
            let shown: Vec<String> = pairs.iter().map(|(k, v)| format!("{k:?}:{}", go_sharp(v))).collect();
            format!("map[string]interface {{}}{{{}}}", shown.join(", "))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "size": {"type": "integer"}, "name": {"type": "string"}, "on": {"type": "boolean"},
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "when": {"type": "string", "format": "date-time"}}}}})
    }

    #[test]
    fn wrong_types_should_be_worded_as_go_prints_them() {
        let object = json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a"},
            "spec": {"size": "many", "name": 1, "on": "yes", "tags": "x"}});
        assert_eq!(
            errors(&schema(), &object, 28, Undeclared::Allowed),
            [
                ".spec.name: expected string, got &value.valueUnstructured{Value:1}",
                ".spec.on: expected boolean, got &{yes}",
                ".spec.size: expected numeric (int or float), got string",
                ".spec.tags: expected list, got &{x}",
            ]
        );
    }

    #[test]
    fn a_formatted_string_should_take_any_scalar_from_1_30() {
        let object = json!({"spec": {"when": {"a": [1, "b"]}}});
        assert!(errors(&schema(), &object, 28, Undeclared::Allowed).is_empty());
        assert_eq!(
            errors(&schema(), &object, 31, Undeclared::Allowed),
            [".spec.when: expected any scalar, got &{map[a:[1 b]]}"]
        );
    }

    #[test]
    fn undeclared_fields_should_fail_only_when_refused() {
        let object = json!({"kind": "K", "spec": {"colour": "red", "tags": [1]}});
        assert_eq!(
            errors(&schema(), &object, 31, Undeclared::Refused),
            [
                ".spec.colour: field not declared in schema",
                ".spec.tags[=1]: expected string, got &value.valueUnstructured{Value:1}",
            ]
        );
        assert_eq!(errors(&schema(), &object, 31, Undeclared::Allowed).len(), 1);
    }
}
