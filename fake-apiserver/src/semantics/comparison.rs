//! What a write changed, as kube-apiserver's field manager sees it: the field paths a writer
//! now owns and those nobody owns any more.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::semantics::fieldpath::{FieldPath, Node, collect, extend, is_system, node_paths, value_at};
use crate::semantics::shape::Shape;

/// What a write changed, as kube-apiserver's field manager compares the object before and after.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Comparison {
    /// Nodes that appeared, and leaves whose value changed: the writer owns them now.
    pub(crate) touched: BTreeSet<FieldPath>,
    /// Nodes that disappeared: nobody owns them any more.
    pub(crate) removed: BTreeSet<FieldPath>,
}

/// Compares two versions of an object. A map or list that existed before (even empty or null)
/// is not itself touched when children appear in it; one that appears is, with its children.
///
/// The walk descends through the maps both versions have and skips the fields whose values
/// are equal: below a field reached by `f:` segments alone, a path names the same value in both
/// versions, so an equal field holds nothing touched or removed. A status write then compares
/// the status alone, not the whole pod template. Whatever differs is compared node by node.
pub(crate) fn compare(old: &Value, new: &Value, shape: Shape<'_>) -> Comparison {
    let mut changes = Comparison::default();
    match (old.as_object(), new.as_object()) {
        (Some(old), Some(new)) => compare_fields(old, new, shape, &[], &mut changes),
        _ => compare_whole(old, new, shape, &mut changes),
    }
    changes
}

/// Compares the fields of two maps at `path`, each of either; the type meta at the top is no
/// field anyone manages.
fn compare_fields(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    shape: Shape<'_>,
    path: &[String],
    out: &mut Comparison,
) {
    let fields = old.keys().chain(new.keys().filter(|key| !old.contains_key(*key)));
    for key in fields.filter(|key| !path.is_empty() || (*key != "apiVersion" && *key != "kind")) {
        let child = extend(path, format!("f:{key}"));
        compare_field(old.get(key), new.get(key), shape.child(key), child, out);
    }
}

/// Compares two versions node by node, without skipping what they share.
fn compare_whole(old: &Value, new: &Value, shape: Shape<'_>, out: &mut Comparison) {
    let (before, after) = (node_paths(old, shape), node_paths(new, shape));
    changes_between(&before, &after, |path| value_at(old, path) != value_at(new, path), out);
}

/// Compares the field at `path` (reached by `f:` segments alone) in both versions.
fn compare_field(old: Option<&Value>, new: Option<&Value>, shape: Shape<'_>, path: FieldPath, out: &mut Comparison) {
    if old == new || is_system(&path) {
        return;
    }
    // A map with fields in both versions is no change itself (an interior node in both, or no
    // node at all for `metadata`): only its fields can be.
    let both_maps = match (old, new) {
        (Some(Value::Object(old)), Some(Value::Object(new))) => {
            (!old.is_empty() && !new.is_empty() && !shape.is_atomic(&path)).then_some((old, new))
        }
        _ => None,
    };
    let Some((old, new)) = both_maps else {
        let mut before = BTreeMap::new();
        let mut after = BTreeMap::new();
        if let Some(old) = old {
            collect(old, shape, path.clone(), &mut before);
        }
        if let Some(new) = new {
            collect(new, shape, path.clone(), &mut after);
        }
        let depth = path.len();
        let (old, new) = (old.unwrap_or(&Value::Null), new.unwrap_or(&Value::Null));
        let at = |value, path: &FieldPath| value_at(value, &path[depth..]);
        changes_between(&before, &after, |path| at(old, path) != at(new, path), out);
        return;
    };
    compare_fields(old, new, shape, &path, out);
}

/// The rule of the comparison, given the nodes of both versions: a node that appears is
/// touched, and so is a leaf whose value `differs`; a node that disappears is removed. A
/// repeated item (`compare.go`) is touched when its repeats change; one that starts or stops
/// repeating is removed and touched: its old owners lose it, the writer takes it.
fn changes_between(
    before: &BTreeMap<FieldPath, Node>,
    after: &BTreeMap<FieldPath, Node>,
    differs: impl Fn(&FieldPath) -> bool,
    out: &mut Comparison,
) {
    for (path, node) in after {
        let (touched, removed) = match (before.get(path), node) {
            (None, _) => (true, false),
            (Some(Node::Repeated(old)), Node::Repeated(new)) => (old != new, false),
            (Some(Node::Repeated(_)), _) | (Some(_), Node::Repeated(_)) => (true, true),
            (Some(_), Node::Leaf) => (differs(path), false),
            (Some(_), Node::Interior) => (false, false),
        };
        if touched {
            out.touched.insert(path.clone());
        }
        if removed {
            out.removed.insert(path.clone());
        }
    }
    let removed = before.keys().filter(|path| !after.contains_key(*path));
    out.removed.extend(removed.cloned());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::resource::ResourceInfo;
    use serde_json::json;

    fn whole(old: &Value, new: &Value, shape: Shape<'_>) -> Comparison {
        let mut changes = Comparison::default();
        compare_whole(old, new, shape, &mut changes);
        changes
    }

    /// Versions of a Deployment that differ from one another in every way a write can: leaves,
    /// maps that appear, empty or vanish, keyed and atomic lists, `metadata` itself, system fields.
    fn versions() -> Vec<Value> {
        let base = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "resourceVersion": "1", "labels": {"app": "web"}, "finalizers": ["a"],
                         "ownerReferences": [{"uid": "u", "name": "o", "kind": "Foo", "apiVersion": "v1"}]},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
                         {"name": "app", "image": "nginx", "args": ["x"], "ports": [{"containerPort": 80, "protocol": "TCP"}]},
                         {"name": "side", "image": "busybox"}]}}},
            "status": {"replicas": 2, "conditions": [{"type": "Available", "status": "True"}]},
        });
        let edits: Vec<fn(&mut Value)> = vec![
            |v| v["spec"]["replicas"] = json!(3),
            |v| v["status"]["availableReplicas"] = json!(2),
            |v| v["metadata"]["resourceVersion"] = json!("2"),
            // Malformed system fields are still nobody's.
            |v| v["metadata"]["uid"] = json!({"a": 1}),
            |v| v["metadata"]["uid"] = json!({"a": 2}),
            |v| v["metadata"]["labels"] = json!({}),
            |v| v["metadata"]["labels"]["tier"] = json!("front"),
            |v| v["metadata"] = json!({}),
            |v| v["metadata"]["ownerReferences"][0]["name"] = json!("p"),
            |v| v["metadata"]["finalizers"] = json!(["a", "b"]),
            |v| v["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:2"),
            |v| v["spec"]["template"]["spec"]["containers"][0]["args"] = json!(["y"]),
            |v| v["spec"]["template"]["spec"]["containers"][1]["name"] = json!("other"),
            |v| v["spec"]["template"]["spec"]["containers"] = json!([]),
            |v| v["spec"]["template"]["spec"]["containers"][0]["ports"][0]["protocol"] = json!("UDP"),
            |v| v["spec"]["selector"] = Value::Null,
            |v| v["spec"]["strategy"] = json!({"type": "Recreate"}),
            |v| {
                v.as_object_mut().unwrap().remove("status");
            },
            |v| v["status"] = json!("not a map"),
            |v| v["kind"] = json!("Other"),
            |v| *v = json!([]),
        ];
        let mut versions = vec![base.clone()];
        for edit in edits {
            let mut version = base.clone();
            edit(&mut version);
            versions.push(version);
        }
        versions
    }

    #[test]
    fn skipping_equal_fields_should_find_what_the_whole_comparison_finds() {
        let deployment = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let mut custom = ResourceInfo::builtin("g.io", "v1", "K", "ks");
        custom.schema = Some(
            json!({"type": "object", "properties": {"status": {"type": "object", "properties": {
            "conditions": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
                           "items": {"type": "object"}}}}}}),
        );
        let versions = versions();
        for info in [&deployment, &custom] {
            let shape = Shape::of(info);
            for (i, old) in versions.iter().enumerate() {
                for (j, new) in versions.iter().enumerate() {
                    assert_eq!(
                        compare(old, new, shape),
                        whole(old, new, shape),
                        "{} {i} -> {j}",
                        info.kind
                    );
                }
            }
        }
    }

    #[test]
    fn a_status_write_should_touch_only_status() {
        let deployment = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let versions = versions();
        let changes = compare(&versions[0], &versions[2], Shape::of(&deployment));
        let touched: Vec<FieldPath> = vec![vec!["f:status".into(), "f:availableReplicas".into()]];
        assert_eq!(changes.touched.into_iter().collect::<Vec<_>>(), touched);
        assert!(changes.removed.is_empty());
    }
}
