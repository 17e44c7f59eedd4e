//! Garbage collection as kube-controller-manager does it: dependents whose owners are all gone are
//! deleted, dangling owner references are dropped, and the Orphan and Foreground policies are honoured.

use std::sync::Arc;

use serde_json::Value;

use crate::lifecycle::writes::{Writes, drop_finalizer};
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;
use crate::storage::store::StoredRef;

/// Finalizers the garbage collector handles for the Orphan and Foreground policies.
pub(crate) const ORPHAN_FINALIZER: &str = "orphan";
pub(crate) const FOREGROUND_FINALIZER: &str = "foregroundDeletion";

/// Reacts to an object that was just written while being deleted: the Orphan and Foreground
/// policies its finalizers ask for.
pub(super) fn after_marked(state: &mut State, info: &Arc<ResourceInfo>, stored: &Arc<Value>) {
    if !state.options.garbage_collection {
        return;
    }
    let finalizers = object::finalizers(stored);
    let uid = object::uid(stored).to_owned();
    if finalizers.iter().any(|f| f == ORPHAN_FINALIZER) {
        for dependent in state.store.dependents_of(&uid) {
            set_owner_references(state, &dependent, |reference| reference_uid(reference) != uid);
        }
        if let Some(current) = state.object(info, ns_of(info, stored), object::name(stored)) {
            drop_finalizer(state, info, &current, ORPHAN_FINALIZER);
        }
    } else if finalizers.iter().any(|f| f == FOREGROUND_FINALIZER) {
        for (storage, key) in state.store.dependents_of(&uid) {
            let Some(dependent_info) = state.registry.preferred(&storage).cloned() else {
                continue;
            };
            let Some(dependent) = state.store.get(&storage, &key).cloned() else {
                continue;
            };
            // Like the garbage collector: dependents with dependents of their own go in the
            // foreground too, leaves in the background.
            let policy = if state.store.dependents_of(object::uid(&dependent)).is_empty() {
                "Background"
            } else {
                "Foreground"
            };
            let namespace = dependent_info.namespaced.then_some(key.namespace.as_str());
            state.delete_object(&dependent_info, namespace, &key.name, Some(policy));
        }
        release_foreground(state, info, ns_of(info, stored), object::name(stored));
    }
}

/// Reacts to an object that was just removed for good: its dependents lose it as an owner (and
/// go with it when it was their last), and an owner waiting in the foreground may go.
pub(super) fn after_removed(state: &mut State, removed: &Value) {
    if !state.options.garbage_collection {
        return;
    }
    let uid = object::uid(removed).to_owned();
    for dependent in state.store.dependents_of(&uid) {
        let Some(current) = lookup(state, &dependent) else {
            continue;
        };
        let alive: Vec<Value> = object::owner_references(&current)
            .iter()
            .filter(|reference| {
                reference_uid(reference) != uid && owner_exists(state, reference, &dependent.1.namespace)
            })
            .cloned()
            .collect();
        if alive.is_empty() {
            let Some(info) = state.registry.preferred(&dependent.0).cloned() else {
                continue;
            };
            let namespace = info.namespaced.then_some(dependent.1.namespace.as_str());
            state.delete_object(&info, namespace, &dependent.1.name, None);
        } else {
            set_owner_references(state, &dependent, |reference| alive.contains(reference));
        }
    }
    // An owner deleted in the foreground waits for exactly this moment.
    for reference in object::owner_references(removed).to_vec() {
        let Some(info) = owner_info(state, &reference) else {
            continue;
        };
        let namespace = info.namespaced.then(|| object::namespace(removed).to_owned());
        let name = reference.get("name").and_then(Value::as_str).unwrap_or_default();
        release_foreground(state, &info, namespace.as_deref(), name);
    }
}

/// Drops the foreground finalizer once no dependent is left.
fn release_foreground(state: &mut State, info: &Arc<ResourceInfo>, namespace: Option<&str>, name: &str) {
    let Some(owner) = state.object(info, namespace, name) else {
        return;
    };
    let waiting = object::is_deleting(&owner) && object::finalizers(&owner).iter().any(|f| f == FOREGROUND_FINALIZER);
    // Only dependents that block their owner's deletion are waited for.
    let uid = object::uid(&owner);
    let blocking = state
        .store
        .dependents_of(uid)
        .into_iter()
        .filter_map(|d| lookup(state, &d))
        .any(|dependent| {
            object::owner_references(&dependent).iter().any(|reference| {
                reference_uid(reference) == uid
                    && reference.get("blockOwnerDeletion").and_then(Value::as_bool) == Some(true)
            })
        });
    if waiting && !blocking {
        drop_finalizer(state, info, &owner, FOREGROUND_FINALIZER);
    }
}

fn lookup(state: &State, reference: &StoredRef) -> Option<Arc<Value>> {
    state.store.get(&reference.0, &reference.1).cloned()
}

fn owner_info(state: &State, reference: &Value) -> Option<Arc<ResourceInfo>> {
    let text = |key: &str| reference.get(key).and_then(Value::as_str).unwrap_or_default();
    state.registry.by_kind(text("apiVersion"), text("kind")).cloned()
}

/// Whether the owner named by `reference` exists with the referenced uid; an owner of a kind
/// the server does not serve is assumed to exist, so nothing is collected by mistake.
fn owner_exists(state: &State, reference: &Value, dependent_namespace: &str) -> bool {
    let Some(info) = owner_info(state, reference) else {
        return true;
    };
    let namespace = info.namespaced.then_some(dependent_namespace);
    let name = reference.get("name").and_then(Value::as_str).unwrap_or_default();
    state
        .object(&info, namespace, name)
        .is_some_and(|owner| object::uid(&owner) == reference_uid(reference))
}

/// Keeps only the owner references for which `keep` holds.
fn set_owner_references(state: &mut State, dependent: &StoredRef, keep: impl Fn(&Value) -> bool) {
    let Some(current) = lookup(state, dependent) else {
        return;
    };
    let Some(info) = state.registry.preferred(&dependent.0).cloned() else {
        return;
    };
    let references: Vec<Value> = object::owner_references(&current)
        .iter()
        .filter(|r| keep(r))
        .cloned()
        .collect();
    let mut updated = (*current).clone();
    let meta = object::meta_mut(&mut updated);
    if references.is_empty() {
        meta.remove("ownerReferences");
    } else {
        meta.insert("ownerReferences".to_owned(), Value::Array(references));
    }
    if let Err(status) = state.update_object(&info, current, updated, Some("generic-garbage-collector"), None) {
        tracing::warn!(%status, "garbage collector could not update owner references");
    }
}

fn reference_uid(reference: &Value) -> &str {
    reference.get("uid").and_then(Value::as_str).unwrap_or_default()
}

fn ns_of<'a>(info: &ResourceInfo, object: &'a Value) -> Option<&'a str> {
    info.namespaced.then(|| object::namespace(object))
}
