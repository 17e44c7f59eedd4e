//! Namespace termination, as kube-controller-manager's namespace controller does it: a deleted
//! namespace turns `Terminating`, its contents are deleted, and it goes once nothing is left.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::key::ObjectKey;
use crate::storage::object::{self, meta_mut};
use crate::storage::resource::ResourceInfo;

/// Marks a namespace Terminating (once); the answer to its DELETE.
pub(super) fn mark_terminating(state: &mut State, info: &Arc<ResourceInfo>, old: Arc<Value>) -> Arc<Value> {
    if object::is_deleting(&old) {
        return old;
    }
    let mut marked = (*old).clone();
    meta_mut(&mut marked).insert("deletionTimestamp".to_owned(), json!(object::now()));
    marked["spec"] = json!({ "finalizers": ["kubernetes"] });
    marked["status"] = json!({ "phase": "Terminating" });
    state.store.put(&info.storage_key(), marked)
}

/// The namespace controller's work on a terminating namespace: delete everything in it, then
/// remove it once it is empty.
pub(super) fn delete_contents(state: &mut State, name: &str) {
    for storage in state.store.storage_keys() {
        let Some(resource) = state.registry.preferred(&storage).cloned() else {
            continue;
        };
        if !resource.namespaced {
            continue;
        }
        let names: Vec<String> = state
            .store
            .iter(&storage, Some(name))
            .map(|(key, _)| key.name.clone())
            .collect();
        for object_name in names {
            state.delete_object(&resource, Some(name), &object_name, None);
        }
    }
    finish_if_empty(state, name);
}

/// Removes a terminating namespace when nothing is left in it.
pub(super) fn finish_if_empty(state: &mut State, namespace: &str) {
    let info = state.info("", "v1", "namespaces");
    let Some(ns) = state.object(&info, None, namespace) else {
        return;
    };
    if !object::is_deleting(&ns) {
        return;
    }
    let empty = state.store.storage_keys().iter().all(|storage| {
        state.registry.preferred(storage).is_none_or(|r| !r.namespaced)
            || state.store.iter(storage, Some(namespace)).next().is_none()
    });
    if empty {
        let mut last = (*ns).clone();
        last["spec"] = json!({});
        let key = ObjectKey::new("", namespace);
        state.store.remove(&info.storage_key(), &key, Some(last));
    }
}
