//! Managed fields: which field manager owns which leaf fields, kept in `metadata.managedFields`
//! in the `FieldsV1` format so clients see what kube-apiserver would show.

use std::collections::BTreeSet;

use serde_json::{Value, json};

pub(crate) use crate::semantics::fieldpath::FieldPath;
use crate::semantics::fieldpath::{Shape, changed_paths, leaf_paths, value_at};

/// One `managedFields` entry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ManagedEntry {
    pub(crate) manager: String,
    /// `Apply` or `Update`.
    pub(crate) operation: String,
    pub(crate) api_version: String,
    pub(crate) subresource: Option<String>,
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

fn trie_paths(trie: &Value, path: FieldPath, out: &mut BTreeSet<FieldPath>) {
    let children: Vec<(&String, &Value)> = trie
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.starts_with("f:") || k.starts_with("k:") || k.starts_with("v:"))
        .collect();
    if children.is_empty() {
        if !path.is_empty() {
            out.insert(path);
        }
        return;
    }
    for (key, child) in children {
        let mut child_path = path.clone();
        child_path.push(key.clone());
        trie_paths(child, child_path, out);
    }
}

/// Writes entries back to `metadata.managedFields`, dropping those that own nothing.
pub(crate) fn write(object: &mut Value, entries: &[ManagedEntry]) {
    let list: Vec<Value> = entries
        .iter()
        .filter(|e| !e.fields.is_empty())
        .map(|e| {
            let mut trie = json!({});
            for path in &e.fields {
                let mut node = &mut trie;
                for key in path {
                    node = node
                        .as_object_mut()
                        .expect("trie nodes are objects")
                        .entry(key.clone())
                        .or_insert(json!({}));
                }
            }
            let mut entry = json!({
                "manager": e.manager, "operation": e.operation, "apiVersion": e.api_version,
                "time": e.time, "fieldsType": "FieldsV1", "fieldsV1": trie,
            });
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

/// Records an ordinary write (create, update, patch) by `manager`: it takes the fields it changed
/// from every other manager, as kube-apiserver does for non-apply operations.
pub(crate) fn record_update(
    old: Option<&Value>,
    new: &mut Value,
    shape: Shape<'_>,
    manager: &str,
    api_version: &str,
    subresource: Option<&str>,
    now: &str,
) {
    let changed = match old {
        Some(old) => changed_paths(old, new, shape),
        None => leaf_paths(new, shape),
    };
    let mut entries = old.map(read).unwrap_or_default();
    if changed.is_empty() {
        write(new, &entries);
        return;
    }
    let present: BTreeSet<FieldPath> = changed.iter().filter(|p| value_at(new, p).is_some()).cloned().collect();
    for entry in &mut entries {
        entry.fields.retain(|p| !changed.contains(p));
    }
    let subresource = subresource.map(str::to_owned);
    let own = entries
        .iter()
        .position(|e| e.manager == manager && e.operation == "Update" && e.subresource == subresource);
    match own {
        Some(i) => {
            entries[i].fields.extend(present);
            entries[i].time = now.to_owned();
            entries[i].api_version = api_version.to_owned();
        }
        None => entries.push(ManagedEntry {
            manager: manager.to_owned(),
            operation: "Update".to_owned(),
            api_version: api_version.to_owned(),
            subresource,
            time: now.to_owned(),
            fields: present,
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
        record_update(None, &mut object, Shape::of(&info), "ctl", "apps/v1", None, "t");
        let entries = read(&object);
        assert_eq!(entries.len(), 1);
        let expected: BTreeSet<FieldPath> = [
            path(&["f:metadata", "f:finalizers", "v:\"x\""]),
            path(&["f:metadata", "f:labels", "f:app"]),
            path(&["f:spec", "f:ports"]),
            path(&["f:spec", "f:replicas"]),
        ]
        .into();
        assert_eq!(entries[0].fields, expected);
        let trie = &object["metadata"]["managedFields"][0]["fieldsV1"];
        assert_eq!(trie["f:spec"]["f:replicas"], json!({}));
        assert_eq!(trie["f:metadata"]["f:finalizers"]["v:\"x\""], json!({}));
    }

    #[test]
    fn updates_should_take_changed_fields_from_other_managers() {
        let info = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let mut old = json!({"spec": {"replicas": 2, "paused": false}});
        record_update(None, &mut old, Shape::of(&info), "first", "v1", None, "t");
        let mut new = old.clone();
        new["spec"]["replicas"] = json!(3);
        record_update(Some(&old), &mut new, Shape::of(&info), "second", "v1", None, "t");
        let entries = read(&new);
        assert_eq!(entries[0].fields.len(), 1, "first keeps only spec.paused");
        assert_eq!(entries[1].manager, "second");
        assert!(entries[1].fields.contains(&path(&["f:spec", "f:replicas"])));
    }
}
