//! What a built-in object loses by going through its Go type: a field tagged `omitempty` whose
//! value is no pointer or struct is left out by Go's JSON encoder when empty (`""`, `0`, `false`,
//! an empty slice or map, or a `null` that decoded to one), so kube-apiserver never stores or
//! answers it (`encoding/json`'s `isEmptyValue`). Which fields those are comes from the Go types
//! (`x-omitempty` in `builtin_shapes.json`).
//!
//! An empty scalar is gone from the moment the body is decoded (the Go field cannot tell it from
//! an absent one, and the defaulters fill it); an empty slice or map is still there, not nil,
//! for validation (whose messages print it as `map[string]string{}`), and gone once the object
//! is encoded: [`Empty::Scalars`] then [`Empty::All`].

use serde_json::Value;

use crate::semantics::shape::Shape;

/// Which empty values go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Empty {
    /// Decoding: empty strings, numbers and bools, and `null`s.
    Scalars,
    /// Encoding: empty slices and maps too.
    All,
}

/// Drops every empty `omitempty` value of a built-in object that `which` names, at any depth.
pub(crate) fn drop_empty(value: &mut Value, shape: Shape<'_>, which: Empty) {
    match value {
        Value::Object(fields) => {
            fields.retain(|key, field| !(shape.omits_empty(key) && is_empty(field, which)));
            for (key, field) in fields.iter_mut() {
                drop_empty(field, shape.child(key), which);
            }
        }
        Value::Array(items) => {
            for item in items {
                drop_empty(item, shape.items(), which);
            }
        }
        _ => {}
    }
}

/// What a built-in object holds once it went through its protobuf storage encoding: an empty
/// slice or map without `omitempty` comes back nil, which Go's encoder writes as `null` (a
/// ClusterRole sent `rules: []` is stored and answered with `rules: null`).
pub(crate) fn null_empty_collections(value: &mut Value, shape: Shape<'_>) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                let empty = matches!(&*field, Value::Array(items) if items.is_empty())
                    || matches!(&*field, Value::Object(entries) if entries.is_empty());
                if empty && !shape.omits_empty(key) && shape.declares_collection(key) {
                    *field = Value::Null;
                } else {
                    null_empty_collections(field, shape.child(key));
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                null_empty_collections(item, shape.items());
            }
        }
        _ => {}
    }
}

/// `isEmptyValue` of the Go value a JSON value decodes to.
fn is_empty(value: &Value, which: Empty) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(items) => which == Empty::All && items.is_empty(),
        Value::Object(fields) => which == Empty::All && fields.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::storage::resource::ResourceInfo;

    #[test]
    fn empty_omitempty_values_should_go_and_the_rest_stay() {
        let info = ResourceInfo::builtin("apps", "v1", "StatefulSet", "statefulsets");
        let mut sts = json!({"metadata": {"name": "web", "generateName": ""}, "spec": {
            "minReadySeconds": 0, "replicas": 0,
            "template": {"spec": {"containers": [
                {"name": "c", "image": "", "env": [{"name": "A", "value": ""}], "ports": [], "tty": false}
            ], "hostNetwork": false, "nodeSelector": {}}}
        }});
        drop_empty(&mut sts, Shape::of(&info), Empty::Scalars);
        assert_eq!(
            sts["spec"]["template"]["spec"]["nodeSelector"],
            json!({}),
            "validation still sees it"
        );
        drop_empty(&mut sts, Shape::of(&info), Empty::All);
        assert_eq!(
            sts,
            json!({"metadata": {"name": "web"}, "spec": {
                "replicas": 0,
                "template": {"spec": {"containers": [{"name": "c", "env": [{"name": "A"}]}]}}
            }}),
            "replicas is a pointer and the container's name has no omitempty"
        );
    }

    #[test]
    fn custom_resources_should_keep_everything() {
        let mut info = ResourceInfo::builtin("g.io", "v1", "Thing", "things");
        info.builtin = false;
        let mut thing = json!({"spec": {"image": ""}});
        drop_empty(&mut thing, Shape::of(&info), Empty::All);
        assert_eq!(thing, json!({"spec": {"image": ""}}));
    }
}
