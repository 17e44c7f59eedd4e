//! How a workload controller claims the objects its selector selects
//! (`pkg/controller/controller_ref_manager.go`: `BaseControllerRefManager.ClaimObject`, the
//! adoption and release patches of `PodControllerRefManager` and `ReplicaSetControllerRefManager`):
//! its own that still match are kept, its own that no longer match are released, orphans that
//! match are adopted, and objects another controller owns are left alone.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::writes::Writes;
use crate::semantics::label_selector_validation::{as_selector, selects};
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The controller owning the claim: what its controller references name.
pub(crate) struct Owner<'a> {
    pub(crate) api_version: &'a str,
    pub(crate) kind: &'a str,
    pub(crate) object: &'a Value,
}

impl Owner<'_> {
    /// `metav1.NewControllerRef`: controller, and blocking the owner's foreground deletion.
    pub(crate) fn controller_ref(&self) -> Value {
        json!({
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": object::name(self.object),
            "uid": object::uid(self.object),
            "controller": true,
            "blockOwnerDeletion": true,
        })
    }
}

/// `metav1.GetControllerOf`: the owner reference marked controller, if any.
pub(crate) fn controller_of(object: &Value) -> Option<&Value> {
    object::owner_references(object)
        .iter()
        .find(|reference| reference.get("controller").and_then(Value::as_bool) == Some(true))
}

/// The name of the object's controller if that is of `kind`.
pub(crate) fn controller_named<'a>(object: &'a Value, kind: &str) -> Option<&'a str> {
    controller_of(object)
        .filter(|owner| owner.get("kind").and_then(Value::as_str) == Some(kind))
        .and_then(|owner| owner.get("name").and_then(Value::as_str))
}

/// Whom an informer handler enqueues for a written `object` (`getPodReplicaSets`,
/// `getDeploymentsForReplicaSet`): its controller if that is of `kind`; none if another kind
/// controls it; for an orphan, every `candidates` owner whose selector selects it.
pub(crate) fn owners_to_sync(object: &Value, kind: &str, candidates: impl FnOnce() -> Vec<Arc<Value>>) -> Vec<String> {
    match (controller_named(object, kind), controller_of(object)) {
        (Some(name), _) => vec![name.to_owned()],
        (None, Some(_)) => Vec::new(),
        (None, None) => {
            let empty = serde_json::Map::new();
            let labels = object::labels(object).unwrap_or(&empty);
            candidates()
                .iter()
                .filter(|owner| selects(owner.pointer("/spec/selector"), labels))
                .map(|owner| object::name(owner).to_owned())
                .collect()
        }
    }
}

/// The uid of the object's controller, if it has one.
pub(crate) fn controller_uid(object: &Value) -> Option<&str> {
    controller_of(object).and_then(|reference| reference.get("uid").and_then(Value::as_str))
}

/// `ClaimObject` over `candidates` (of `info`): the ones the owner keeps, after adopting the
/// orphans its selector matches and releasing its own that it no longer matches. A release or
/// adoption that fails (the object changed or went) leaves the object out, as Go's does.
pub(crate) fn claim(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    owner: &Owner<'_>,
    candidates: Vec<Arc<Value>>,
) -> Vec<Arc<Value>> {
    claim_matching(state, info, owner, candidates, |_| true)
}

/// [`claim`] where an object also has to pass `filter` to match (`ClaimPods`' filters: a
/// StatefulSet's pods are named after it).
pub(crate) fn claim_matching(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    owner: &Owner<'_>,
    candidates: Vec<Arc<Value>>,
    filter: impl Fn(&Value) -> bool,
) -> Vec<Arc<Value>> {
    let selector = as_selector(owner.object.pointer("/spec/selector"));
    let owner_uid = object::uid(owner.object);
    let owner_deleting = object::is_deleting(owner.object);
    let mut claimed = Vec::new();
    for candidate in candidates {
        let matches = selector.as_ref().is_some_and(|s| s.matches(object::labels(&candidate))) && filter(&candidate);
        match controller_uid(&candidate) {
            Some(uid) if uid == owner_uid && matches => claimed.push(candidate),
            // Owned by us but no longer selected: released, unless we are being deleted.
            Some(uid) if uid == owner_uid => {
                if !owner_deleting {
                    release(state, info, owner_uid, &candidate);
                }
            }
            Some(_) => {}
            None if owner_deleting || !matches || object::is_deleting(&candidate) => {}
            None => {
                if let Some(adopted) = adopt(state, info, owner, &candidate) {
                    claimed.push(adopted);
                }
            }
        }
    }
    claimed
}

/// The adoption patch: the owner's controller reference added (`AdoptPod`, `AdoptReplicaSet`).
fn adopt(state: &mut State, info: &Arc<ResourceInfo>, owner: &Owner<'_>, current: &Arc<Value>) -> Option<Arc<Value>> {
    let mut updated = (**current).clone();
    let mut references = object::owner_references(current).to_vec();
    references.push(owner.controller_ref());
    object::meta_mut(&mut updated).insert("ownerReferences".to_owned(), Value::Array(references));
    match state.update_object(info, current.clone(), updated, Some(CONTROLLER_MANAGER), None) {
        Ok(adopted) => Some(adopted),
        Err(status) => {
            tracing::debug!(object = object::name(current), %status, "could not adopt");
            None
        }
    }
}

/// The release patch: the owner's reference removed by its uid (`ReleasePod`).
fn release(state: &mut State, info: &Arc<ResourceInfo>, owner_uid: &str, current: &Arc<Value>) {
    let mut updated = (**current).clone();
    let references: Vec<Value> = object::owner_references(current)
        .iter()
        .filter(|reference| reference.get("uid").and_then(Value::as_str) != Some(owner_uid))
        .cloned()
        .collect();
    let meta = object::meta_mut(&mut updated);
    if references.is_empty() {
        meta.remove("ownerReferences");
    } else {
        meta.insert("ownerReferences".to_owned(), Value::Array(references));
    }
    if let Err(status) = state.update_object(info, current.clone(), updated, Some(CONTROLLER_MANAGER), None) {
        tracing::debug!(object = object::name(current), %status, "could not release");
    }
}
