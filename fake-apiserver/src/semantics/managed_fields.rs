//! Managed fields: which field manager owns which leaf fields, kept in `metadata.managedFields`
//! in the `FieldsV1` format so clients see what kube-apiserver would show.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::semantics::comparison::compare;
use crate::semantics::fieldpath;
pub(crate) use crate::semantics::fieldpath::FieldPath;
use crate::semantics::schema_typing::{self, Undeclared};
use crate::semantics::shape::Shape;
use crate::semantics::zero::zero_object;
use crate::storage::resource::ResourceInfo;

/// One `managedFields` entry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ManagedEntry {
    pub(crate) manager: String,
    /// `Apply` or `Update`.
    pub(crate) operation: String,
    pub(crate) api_version: String,
    pub(crate) subresource: Option<String>,
    /// When the manager last changed the object; empty when it never did (an apply that set
    /// values already there).
    pub(crate) time: String,
    pub(crate) fields: BTreeSet<FieldPath>,
}

/// Reads `metadata.managedFields`; entries this server did not write are kept as best it can.
pub(crate) fn read(object: &Value) -> Vec<ManagedEntry> {
    let entries = object.pointer("/metadata/managedFields").and_then(Value::as_array);
    entries
        .into_iter()
        .flatten()
        .map(|entry| {
            let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            let mut fields = BTreeSet::new();
            if let Some(trie) = entry.get("fieldsV1") {
                trie_paths(trie, Vec::new(), &mut fields);
            }
            ManagedEntry {
                manager: text("manager"),
                operation: text("operation"),
                api_version: text("apiVersion"),
                subresource: entry.get("subresource").and_then(Value::as_str).map(str::to_owned),
                time: text("time"),
                fields,
            }
        })
        .collect()
}

/// The members of a FieldsV1 trie: its leaves, and the inner nodes marked `"."` (owned themselves).
fn trie_paths(trie: &Value, path: FieldPath, out: &mut BTreeSet<FieldPath>) {
    let node = trie.as_object();
    let children: Vec<(&String, &Value)> = node
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.starts_with("f:") || k.starts_with("k:") || k.starts_with("v:"))
        .collect();
    if !path.is_empty() && (children.is_empty() || node.is_some_and(|n| n.contains_key("."))) {
        out.insert(path.clone());
    }
    for (key, child) in children {
        let mut child_path = path.clone();
        child_path.push(key.clone());
        trie_paths(child, child_path, out);
    }
}

/// A set of paths as a FieldsV1 trie: a member with members below it is marked `"."`.
fn trie(fields: &BTreeSet<FieldPath>) -> Value {
    let mut trie = json!({});
    for path in fields {
        let mut node = &mut trie;
        for key in path {
            node = node
                .as_object_mut()
                .expect("trie nodes are objects")
                .entry(key.clone())
                .or_insert(json!({}));
        }
    }
    for path in fields {
        let node = path.iter().fold(&mut trie, |node, key| &mut node[key.as_str()]);
        if let Some(children) = node.as_object_mut().filter(|c| !c.is_empty()) {
            children.insert(".".to_owned(), json!({}));
        }
    }
    trie
}

/// Writes entries back to `metadata.managedFields`, dropping those that own nothing, in
/// kube-apiserver's order: Apply before Update, then by time (none first), manager,
/// subresource and API version.
pub(crate) fn write(object: &mut Value, entries: &[ManagedEntry]) {
    let mut sorted: Vec<&ManagedEntry> = entries.iter().filter(|e| !e.fields.is_empty()).collect();
    sorted.sort_by(|a, b| order_key(a).cmp(&order_key(b)));
    let list: Vec<Value> = sorted
        .into_iter()
        .map(|e| {
            let mut entry = json!({
                "manager": e.manager, "operation": e.operation, "apiVersion": e.api_version,
                "time": e.time, "fieldsType": "FieldsV1", "fieldsV1": trie(&e.fields),
            });
            if e.time.is_empty() {
                entry.as_object_mut().expect("an object").remove("time");
            }
            if let Some(sub) = &e.subresource {
                entry["subresource"] = json!(sub);
            }
            entry
        })
        .collect();
    let meta = crate::storage::object::meta_mut(object);
    if list.is_empty() {
        meta.remove("managedFields");
    } else {
        meta.insert("managedFields".to_owned(), Value::Array(list));
    }
}

fn order_key(e: &ManagedEntry) -> (&str, &str, &str, &str, &str) {
    let subresource = e.subresource.as_deref().unwrap_or_default();
    (&e.operation, &e.time, &e.manager, subresource, &e.api_version)
}

/// Whether structured-merge-diff can type `object` as an object of `info` for an update on a
/// server of `minor`. A write of an object it cannot type loses its managed fields
/// (`FieldManager.UpdateNoErrors` drops them on any error): a granular list with an item it
/// cannot name, a custom resource's value of another type than its schema's, and up to 1.29
/// (structured-merge-diff v4.2/v4.3) a granular list naming an item twice — a Deployment's two
/// `env` entries of one name, or a set or list-map repeat a `/status` write brings in the spec
/// it does not change. From 1.30 (v4.4) an update lets repeats through (`AllowDuplicates`).
pub(crate) fn is_typeable(info: &ResourceInfo, object: &Value, minor: u32) -> bool {
    let repeats_allowed = minor >= 30;
    fieldpath::list_errors(object, Shape::of(info))
        .iter()
        .all(|error| error.repeat && repeats_allowed)
        && info
            .schema
            .as_ref()
            .is_none_or(|schema| schema_typing::errors(schema, object, minor, Undeclared::Allowed).is_empty())
}

/// `isResetManagedFields`: the managed fields a client sends to clear them, an empty list or
/// one empty entry.
pub(crate) fn is_reset(managed: &Value) -> bool {
    match managed.as_array().map(Vec::as_slice) {
        Some([]) => true,
        Some([only]) => only.as_object().is_some_and(|entry| entry.values().all(Value::is_null)),
        _ => false,
    }
}

/// Records an ordinary write (create, update, patch) by `manager`, as kube-apiserver's field
/// manager does for non-apply operations: the writer takes what it touched from every other
/// manager, and fields that disappeared leave every set. A create is compared with the kind's
/// zero value.
pub(crate) fn record_update(
    old: Option<&Value>,
    new: &mut Value,
    info: &ResourceInfo,
    manager: &str,
    subresource: Option<&str>,
    now: &str,
) {
    let zero;
    let before = match old {
        Some(old) => old,
        None => {
            zero = zero_object(info);
            &zero
        }
    };
    let mut entries = old.map(read).unwrap_or_default();
    if old.is_some() && entries.is_empty() {
        // `skipNonAppliedManager`: an object without managed fields (created owning nothing,
        // or stored before field management) is not tracked by updates, only by an apply.
        write(new, &entries);
        return;
    }
    let changes = compare(before, new, Shape::of(info));
    if changes.touched.is_empty() && changes.removed.is_empty() {
        write(new, &entries);
        return;
    }
    for entry in &mut entries {
        entry
            .fields
            .retain(|p| !changes.touched.contains(p) && !changes.removed.contains(p));
    }
    // kube-apiserver's scale handler rebuilds the `/scale` writer's entry on the parent
    // without a time.
    let now = if subresource == Some("scale") { "" } else { now };
    let subresource = subresource.map(str::to_owned);
    // An updater is known by its manager, subresource and API version (`BuildManagerIdentifier`
    // leaves the version out for appliers only): writing through another version is another entry.
    let api_version = info.api_version();
    let own = entries.iter().position(|e| {
        e.manager == manager && e.operation == "Update" && e.subresource == subresource && e.api_version == api_version
    });
    match own {
        Some(i) => {
            entries[i].fields.extend(changes.touched);
            entries[i].time = now.to_owned();
        }
        None => entries.push(ManagedEntry {
            manager: manager.to_owned(),
            operation: "Update".to_owned(),
            api_version,
            subresource,
            time: now.to_owned(),
            fields: changes.touched,
        }),
    }
    write(new, &entries);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::resource::ResourceInfo;

    fn path(segments: &[&str]) -> FieldPath {
        segments.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn managed_fields_should_round_trip_through_fields_v1() {
        let info = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let mut object = json!({"metadata": {"name": "a", "labels": {"app": "web"}, "finalizers": ["x"]},
                                "spec": {"replicas": 2, "ports": [1]}});
        record_update(None, &mut object, &info, "ctl", None, "t");
        let entries = read(&object);
        assert_eq!(entries.len(), 1);
        // The maps and lists a create adds are owned themselves (`"."`); `spec` exists in a
        // Deployment's zero value, so it is not.
        let expected: BTreeSet<FieldPath> = [
            path(&["f:metadata", "f:finalizers"]),
            path(&["f:metadata", "f:finalizers", "v:\"x\""]),
            path(&["f:metadata", "f:labels"]),
            path(&["f:metadata", "f:labels", "f:app"]),
            path(&["f:spec", "f:ports"]),
            path(&["f:spec", "f:replicas"]),
        ]
        .into();
        assert_eq!(entries[0].fields, expected);
        let trie = &object["metadata"]["managedFields"][0]["fieldsV1"];
        assert_eq!(
            *trie,
            json!({"f:metadata": {"f:finalizers": {".": {}, "v:\"x\"": {}}, "f:labels": {".": {}, "f:app": {}}},
                   "f:spec": {"f:ports": {}, "f:replicas": {}}})
        );
    }

    #[test]
    fn updates_should_take_changed_fields_from_other_managers() {
        let info = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let mut old = json!({"spec": {"replicas": 2, "paused": false}});
        record_update(None, &mut old, &info, "first", None, "t");
        let mut new = old.clone();
        new["spec"]["replicas"] = json!(3);
        record_update(Some(&old), &mut new, &info, "second", None, "t");
        let entries = read(&new);
        assert_eq!(entries[0].fields.len(), 1, "first keeps only spec.paused");
        assert_eq!(entries[1].manager, "second");
        assert!(entries[1].fields.contains(&path(&["f:spec", "f:replicas"])));
    }

    #[test]
    fn repeated_keys_should_be_typeable_from_1_30_only() {
        let deployment = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let env = json!([{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]);
        let object = json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "env": env}]}}}});
        assert!(!is_typeable(&deployment, &object, 28));
        assert!(is_typeable(&deployment, &object, 30));
        let unnamed = json!({"spec": {"template": {"spec": {"containers": [null]}}}});
        assert!(
            !is_typeable(&deployment, &unnamed, 31),
            "an item it cannot name fails every version"
        );
    }

    #[test]
    fn a_repeated_item_should_be_one_leaf_that_changes_owner_as_a_whole() {
        let deployment = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let with_env =
            |env: Value| json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "env": env}]}}}});
        let old = with_env(json!([{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]));
        let changed = with_env(json!([{"name": "A", "value": "1"}, {"name": "A", "value": "9"}]));
        let single = with_env(json!([{"name": "A", "value": "1"}]));
        let item = path(&[
            "f:spec",
            "f:template",
            "f:spec",
            "f:containers",
            "k:{\"name\":\"c\"}",
            "f:env",
            "k:{\"name\":\"A\"}",
        ]);
        let shape = Shape::of(&deployment);
        let edit = compare(&old, &changed, shape);
        assert_eq!(edit.touched.iter().collect::<Vec<_>>(), [&item]);
        let unrepeat = compare(&old, &single, shape);
        assert!(unrepeat.touched.contains(&item) && unrepeat.removed.contains(&item));
        assert!(
            unrepeat
                .touched
                .contains(&[item.clone(), vec!["f:value".to_owned()]].concat())
        );
    }

    #[test]
    fn only_an_empty_list_or_one_empty_entry_should_reset_managed_fields() {
        assert!(is_reset(&json!([])));
        assert!(is_reset(&json!([{}])));
        assert!(!is_reset(&json!([{}, {}])));
        assert!(!is_reset(&json!([{"manager": "a"}])));
        assert!(!is_reset(&Value::Null));
    }
}
