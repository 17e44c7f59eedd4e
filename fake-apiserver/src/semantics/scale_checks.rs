//! apiextensions-apiserver's checks of the fields a custom resource's `/scale` subresource reads:
//! replicas must be non-negative int32 integers and the label selector a string, whatever the
//! schema says (`ValidateScaleSpec`, `ValidateScaleStatus`).

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::strategic_error;
use crate::storage::resource::ScalePaths;

/// The field errors of every scale field of `object` that breaks the rules; the fields are
/// named by their JSON path, leading dot included, as kube-apiserver names them. A `/status`
/// write (`with_spec` false) is not checked for the spec's replicas.
pub(crate) fn errors(scale: &ScalePaths, object: &Value, with_spec: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if with_spec {
        errors.extend(replicas_error(object, &scale.spec_replicas));
    }
    errors.extend(replicas_error(object, &scale.status_replicas));
    if let Some(path) = &scale.label_selector
        && let Err(why) = nested(object, path, "string", Value::is_string)
    {
        errors.push(FieldError::invalid(path.clone(), BadValue::Str(String::new()), why));
    }
    errors
}

fn replicas_error(object: &Value, path: &str) -> Option<FieldError> {
    let (replicas, why) = match nested(object, path, "int64", |v| v.is_i64() || v.is_u64()) {
        Err(why) => (0, why),
        Ok(Some(replicas)) => {
            let replicas = replicas.as_i64().unwrap_or(i64::MAX);
            if replicas < 0 {
                (replicas, "should be a non-negative integer".to_owned())
            } else if replicas > i64::from(i32::MAX) {
                (replicas, format!("should be less than or equal to {}", i32::MAX))
            } else {
                return None;
            }
        }
        Ok(None) => return None,
    };
    Some(FieldError::invalid(path, BadValue::Int(replicas), why))
}

/// The value at `path` (`.a.b`) when it has the expected type, `None` when it is absent, and
/// unstructured's accessor error otherwise.
fn nested<'a>(
    object: &'a Value,
    path: &str,
    expected: &str,
    fits: impl Fn(&Value) -> bool,
) -> Result<Option<&'a Value>, String> {
    let fields: Vec<&str> = path.trim_start_matches('.').split('.').collect();
    let mut current = object;
    for (depth, field) in fields.iter().enumerate() {
        // `NestedFieldNoCopy`: a null on the way means absent, not an error.
        if current.is_null() {
            return Ok(None);
        }
        let Some(map) = current.as_object() else {
            // `NestedFieldNoCopy` names the path up to the field it could not look up.
            let walked = format!(".{}", fields[..=depth].join("."));
            return Err(accessor_error(&walked, current, "map[string]interface{}"));
        };
        match map.get(*field) {
            Some(next) => current = next,
            None => return Ok(None),
        }
    }
    if fits(current) {
        Ok(Some(current))
    } else {
        Err(accessor_error(path, current, expected))
    }
}

/// unstructured's `"<path> accessor error: <%v> is of the type <%T>, expected <type>"`.
fn accessor_error(path: &str, value: &Value, expected: &str) -> String {
    let (shown, go_type) = match value {
        Value::Null => ("<nil>".to_owned(), "<nil>"),
        Value::Bool(b) => (b.to_string(), "bool"),
        Value::Number(n) if n.is_f64() => (strategic_error::go_text(value), "float64"),
        Value::Number(n) => (n.to_string(), "int64"),
        Value::String(s) => (s.clone(), "string"),
        Value::Array(_) => (strategic_error::go_text(value), "[]interface {}"),
        Value::Object(_) => (strategic_error::go_text(value), "map[string]interface {}"),
    };
    format!("{path} accessor error: {shown} is of the type {go_type}, expected {expected}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn paths() -> ScalePaths {
        ScalePaths {
            spec_replicas: ".spec.replicas".to_owned(),
            status_replicas: ".status.replicas".to_owned(),
            label_selector: Some(".status.selector".to_owned()),
        }
    }

    #[test]
    fn scale_fields_should_be_checked_as_kube_apiserver_checks_them() {
        let object = json!({ "spec": { "replicas": "three" }, "status": { "replicas": -1, "selector": 5 } });
        let shown: Vec<String> = errors(&paths(), &object, true)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            shown,
            [
                ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: three is of the type string, expected int64",
                ".status.replicas: Invalid value: -1: should be a non-negative integer",
                ".status.selector: Invalid value: \"\": .status.selector accessor error: 5 is of the type int64, expected string",
            ]
        );
        let fine = json!({ "spec": { "replicas": 3 } });
        assert!(errors(&paths(), &fine, true).is_empty());
        assert_eq!(errors(&paths(), &object, false).len(), 2);
    }

    #[test]
    fn a_parent_that_is_no_map_is_named_with_the_field_looked_up() {
        let listed = json!({ "spec": ["size", "small"] });
        let shown = errors(&paths(), &listed, true)[0].to_string();
        assert_eq!(
            shown,
            ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: [size small] is of the type []interface {}, expected map[string]interface{}"
        );
    }
}
