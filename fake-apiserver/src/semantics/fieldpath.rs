//! Field paths as server-side apply sees them: `f:` map fields, `k:` elements of keyed lists,
//! `v:` members of set lists, atomic lists and structs as leaves — as `shape` decides them
//! (structured-merge-diff v4.2.3's `fieldpath/path.go`, `fieldpath/element.go` and
//! `fieldpath/serialize-pe.go`). Its submodules port what server-side apply does with them:
//! `field_set` (`typed/tofieldset.go`, `typed/validate.go`), `merge` (`typed/merge.go`) and
//! `prune` (`merge/update.go`).

mod field_set;
mod iteration;
mod merge;
mod prune;

pub(crate) use field_set::{applied_set, list_errors};
pub(crate) use iteration::walked_paths;
pub(crate) use merge::merge_into;
pub(crate) use prune::prune;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::semantics::go_json_writer;
use crate::semantics::shape::{ListKind, Shape, list_kind};

/// A leaf path in FieldsV1 segments, e.g. `["f:spec", "f:containers", "k:{\"name\":\"app\"}", "f:image"]`.
pub(crate) type FieldPath = Vec<String>;

/// Metadata fields the server owns; they never appear in managed fields.
const SYSTEM_FIELDS: [&str; 9] = [
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
];

/// The `k:` segment of a keyed list element, or `None` when it lacks a key.
pub(super) fn key_segment(item: &Value, keys: &[(String, Option<Value>)]) -> Option<String> {
    let mut key = Map::new();
    for (name, default) in keys {
        let value = item.get(name).or(default.as_ref())?;
        key.insert(name.clone(), value.clone());
    }
    Some(format!("k:{}", Value::Object(key)))
}

/// The `v:` segment of a set member: its JSON, a float holding an integer written as Go
/// writes it (`1.0` is `1`, so `[1, 1.0]` names one member twice).
pub(super) fn value_segment(item: &Value) -> String {
    match item {
        Value::Number(n) if n.is_f64() => format!("v:{}", String::from_utf8_lossy(&go_json_writer::to_vec(item))),
        _ => format!("v:{item}"),
    }
}

/// A node of an object as field management compares it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node {
    /// A value without children: a scalar, an atomic value, an empty map or list.
    Leaf,
    /// A map or granular list with children, or a keyed item with fields.
    Interior,
    /// A keyed item or set member a list names more than once: structured-merge-diff v4.4
    /// (`typed/tofieldset.go`, kube-apiserver 1.30 on) makes it one leaf over all its repeats,
    /// which are compared as one atomic list.
    Repeated(Vec<Value>),
}

/// Every node of an object as field management compares them — map fields, keyed list
/// elements, set members, atomic values — each with whether it has children. The type meta,
/// `metadata` itself and the metadata fields the server owns are not fields anyone manages.
pub(crate) fn node_paths(object: &Value, shape: Shape<'_>) -> BTreeMap<FieldPath, Node> {
    let mut nodes = BTreeMap::new();
    for (key, value) in object.as_object().into_iter().flatten() {
        if key != "apiVersion" && key != "kind" {
            collect(value, shape.child(key), vec![format!("f:{key}")], &mut nodes);
        }
    }
    nodes
}

/// Whether `path` is a metadata field the server owns.
pub(super) fn is_system(path: &[String]) -> bool {
    path.len() == 2 && path[0] == "f:metadata" && SYSTEM_FIELDS.iter().any(|f| path[1][2..] == **f)
}

pub(super) fn collect(value: &Value, shape: Shape<'_>, path: FieldPath, out: &mut BTreeMap<FieldPath, Node>) {
    if is_system(&path) {
        return;
    }
    let is_metadata = path.len() == 1 && path[0] == "f:metadata";
    if shape.is_atomic(&path) {
        out.insert(path, Node::Leaf);
        return;
    }
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, child) in map {
                collect(child, shape.child(key), extend(&path, format!("f:{key}")), out);
            }
            if !is_metadata {
                out.insert(path, Node::Interior);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let segments: Option<Vec<String>> = match list_kind(shape, &path) {
                ListKind::Set => Some(items.iter().map(value_segment).collect()),
                ListKind::Map(keys) => items.iter().map(|item| key_segment(item, &keys)).collect(),
                ListKind::Atomic => None,
            };
            let Some(segments) = segments else {
                out.insert(path, Node::Leaf);
                return;
            };
            for (item, segment) in items.iter().zip(&segments) {
                let repeats: Vec<Value> = items
                    .iter()
                    .zip(&segments)
                    .filter(|(_, other)| *other == segment)
                    .map(|(item, _)| item.clone())
                    .collect();
                let item_path = extend(&path, segment.clone());
                if repeats.len() > 1 {
                    out.insert(item_path, Node::Repeated(repeats));
                } else if segment.starts_with("v:") {
                    out.insert(item_path, Node::Leaf);
                } else {
                    collect(item, shape.items(), item_path, out);
                }
            }
            out.insert(path, Node::Interior);
        }
        _ => {
            out.insert(path, Node::Leaf);
        }
    }
}

pub(super) fn extend(path: &[String], segment: String) -> FieldPath {
    let mut longer = path.to_vec();
    longer.push(segment);
    longer
}

/// Which element of `list` a `k:` or `v:` segment names.
fn element_index(list: &[Value], segment: &str) -> Option<usize> {
    if let Some(key) = segment.strip_prefix("k:") {
        let key: Map<String, Value> = serde_json::from_str(key).ok()?;
        list.iter()
            .position(|item| key.iter().all(|(name, value)| item.get(name) == Some(value)))
    } else {
        let member: Value = serde_json::from_str(segment.strip_prefix("v:")?).ok()?;
        list.iter().position(|item| *item == member)
    }
}

fn step<'a>(value: &'a Value, segment: &str) -> Option<&'a Value> {
    match segment.strip_prefix("f:") {
        Some(field) => value.get(field),
        None => value
            .as_array()
            .and_then(|list| element_index(list, segment))
            .and_then(|i| value.get(i)),
    }
}

/// The value at a leaf path.
pub(crate) fn value_at<'a>(object: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(object, |value, segment| step(value, segment))
}

/// Removes the value at a leaf path, and any map, list or list element it leaves empty.
pub(crate) fn remove_path(object: &mut Value, path: &[String]) {
    remove_below(object, path);
}

/// Removes `path` below `value`; returns whether `value` is left empty. Elements are found
/// before anything below them changes, since removing a key field would hide them.
fn remove_below(value: &mut Value, path: &[String]) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return false;
    };
    match (first.strip_prefix("f:"), value) {
        (Some(field), Value::Object(map)) => {
            let remove = rest.is_empty() || map.get_mut(field).is_some_and(|child| remove_below(child, rest));
            if remove {
                map.remove(field);
            }
            map.is_empty()
        }
        (None, Value::Array(list)) => {
            let Some(index) = element_index(list, first) else {
                return false;
            };
            if rest.is_empty() || remove_below(&mut list[index], rest) {
                list.remove(index);
            }
            list.is_empty()
        }
        _ => false,
    }
}

/// A path as kube-apiserver prints it in conflicts: `.spec.containers[name="app"].image`.
pub(crate) fn display(path: &[String]) -> String {
    path.iter()
        .map(|segment| {
            match (
                segment.strip_prefix("f:"),
                segment.strip_prefix("k:"),
                segment.strip_prefix("v:"),
            ) {
                (Some(field), _, _) => format!(".{field}"),
                (_, Some(key), _) => {
                    let key: Map<String, Value> = serde_json::from_str(key).unwrap_or_default();
                    let pairs: Vec<String> = key.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    format!("[{}]", pairs.join(","))
                }
                (_, _, Some(value)) => format!("[={value}]"),
                _ => segment.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::resource::ResourceInfo;
    use serde_json::json;
    use std::collections::BTreeSet;

    fn path(segments: &[&str]) -> FieldPath {
        segments.iter().map(|s| (*s).to_owned()).collect()
    }

    fn leaf_paths(object: &Value, shape: Shape<'_>) -> BTreeSet<FieldPath> {
        applied_set(object, shape).into_keys().collect()
    }

    #[test]
    fn leaf_paths_should_key_lists_like_server_side_apply() {
        let deployment = json!({"metadata": {"name": "web", "finalizers": ["a"]},
            "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app", "image": "nginx"}]}}, "args": ["x"]}});
        let builtin = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let paths = leaf_paths(&deployment, Shape::of(&builtin));
        assert!(paths.contains(&path(&["f:metadata", "f:finalizers", "v:\"a\""])));
        let image = path(&[
            "f:spec",
            "f:template",
            "f:spec",
            "f:containers",
            "k:{\"name\":\"app\"}",
            "f:image",
        ]);
        assert!(paths.contains(&image));
        assert_eq!(value_at(&deployment, &image), Some(&json!("nginx")));
        assert!(paths.contains(&path(&["f:spec", "f:args"])), "unkeyed lists are atomic");
        assert_eq!(display(&image), ".spec.template.spec.containers[name=\"app\"].image");
    }

    #[test]
    fn crd_schemas_should_decide_list_types() {
        let mut info = ResourceInfo::builtin("g.io", "v1", "K", "ks");
        info.schema = Some(
            json!({"type": "object", "properties": {"status": {"type": "object", "properties": {
            "conditions": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
                           "items": {"type": "object"}},
            "containers": {"type": "array", "items": {"type": "object"}}}}}}),
        );
        let object =
            json!({"status": {"conditions": [{"type": "Ready", "status": "True"}], "containers": [{"name": "a"}]}});
        let paths = leaf_paths(&object, Shape::of(&info));
        assert!(paths.contains(&path(&[
            "f:status",
            "f:conditions",
            "k:{\"type\":\"Ready\"}",
            "f:status"
        ])));
        assert!(
            paths.contains(&path(&["f:status", "f:containers"])),
            "no list type in the schema: atomic"
        );
    }

    #[test]
    fn remove_should_work_per_element() {
        let mut live = json!({"metadata": {"finalizers": ["a", "b"]},
                              "spec": {"containers": [{"name": "x", "image": "1"}, {"name": "y", "image": "2"}]}});
        remove_path(&mut live, &path(&["f:metadata", "f:finalizers", "v:\"a\""]));
        remove_path(
            &mut live,
            &path(&["f:spec", "f:containers", "k:{\"name\":\"x\"}", "f:image"]),
        );
        remove_path(
            &mut live,
            &path(&["f:spec", "f:containers", "k:{\"name\":\"x\"}", "f:name"]),
        );
        assert_eq!(
            live,
            json!({"metadata": {"finalizers": ["b"]}, "spec": {"containers": [{"name": "y", "image": "2"}]}})
        );
    }
}
