//! The garbage collector's look at a new or changed dependent (`attemptToDeleteItem` and
//! `isDangling` in `pkg/controller/garbagecollector/garbagecollector.go`, the invalid-namespace
//! report of `graph_builder.go`): each owner reference is solid (the owner exists with that
//! uid), dangling (no such owner in the dependent's namespace, or another uid) or waiting (the
//! owner is deleted in the foreground). No solid owner: the dependent is deleted; solid and
//! others: the others are dropped. An owner of a kind the server does not serve, or a
//! namespaced owner of a cluster-scoped dependent, stops the collector for this dependent (the
//! latter reported as a Warning event).

use std::sync::Arc;

use serde_json::Value;

use crate::lifecycle::events;
use crate::lifecycle::gc::{FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The component the collector's events name.
const COMPONENT: &str = "garbage-collector-controller";

/// What one owner reference is to the collector.
enum Owner {
    Solid,
    Dangling,
    Waiting,
}

/// `attemptToDeleteItem` for the stored object `name` of `info` in `namespace`, which had
/// the uid `uid` when it was written.
pub(super) fn attempt_to_delete(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    namespace: Option<&str>,
    name: &str,
    uid: &str,
) {
    if !state.options.garbage_collection {
        return;
    }
    let Some(latest) = state.object(info, namespace, name).filter(|o| object::uid(o) == uid) else {
        return;
    };
    let deleting_dependents =
        object::is_deleting(&latest) && object::finalizers(&latest).iter().any(|f| f == FOREGROUND_FINALIZER);
    if object::is_deleting(&latest) && !deleting_dependents {
        return;
    }
    let references = object::owner_references(&latest).to_vec();
    if references.is_empty() {
        return;
    }
    let mut classified = Vec::with_capacity(references.len());
    for reference in &references {
        match classify(state, info, &latest, reference) {
            Some(owner) => classified.push(owner),
            // The collector cannot tell: it leaves the dependent alone.
            None => return,
        }
    }
    let solid = classified.iter().any(|o| matches!(o, Owner::Solid));
    if solid {
        let keep: Vec<Value> = references
            .iter()
            .zip(&classified)
            .filter(|(_, owner)| matches!(owner, Owner::Solid))
            .map(|(reference, _)| reference.clone())
            .collect();
        if keep.len() < references.len() {
            let mut updated = (*latest).clone();
            object::meta_mut(&mut updated).insert("ownerReferences".to_owned(), Value::Array(keep));
            if let Err(status) = state.update_object(info, latest, updated, Some("kube-controller-manager"), None) {
                tracing::warn!(%status, "garbage collector could not drop dangling owner references");
            }
        }
        return;
    }
    let finalizers = object::finalizers(&latest);
    let policy = if finalizers.iter().any(|f| f == ORPHAN_FINALIZER) {
        "Orphan"
    } else if finalizers.iter().any(|f| f == FOREGROUND_FINALIZER)
        || (classified.iter().any(|o| matches!(o, Owner::Waiting)) && !state.store.dependents_of(uid).is_empty())
    {
        "Foreground"
    } else {
        "Background"
    };
    state.delete_object(info, namespace, name, Some(policy));
}

/// `isDangling` and the waiting check of `classifyReferences`; `None` where the collector
/// errs (an unknown kind, a namespaced owner of a cluster-scoped dependent).
fn classify(state: &mut State, info: &ResourceInfo, dependent: &Value, reference: &Value) -> Option<Owner> {
    let text = |key: &str| reference.get(key).and_then(Value::as_str).unwrap_or_default();
    let owner_info = state.registry.by_kind(text("apiVersion"), text("kind")).cloned()?;
    if !info.namespaced && owner_info.namespaced {
        let message = format!(
            "ownerRef [{}/{}, namespace: , name: {}, uid: {}] does not exist in namespace \"\"",
            text("apiVersion"),
            text("kind"),
            text("name"),
            text("uid"),
        );
        events::warn(state, info, dependent, "OwnerRefInvalidNamespace", &message, COMPONENT);
        return None;
    }
    let namespace = owner_info.namespaced.then(|| object::namespace(dependent));
    let owner = state.object(&owner_info, namespace, text("name"));
    Some(match owner {
        Some(owner) if object::uid(&owner) == text("uid") => {
            let foreground = object::finalizers(&owner).iter().any(|f| f == FOREGROUND_FINALIZER);
            if object::is_deleting(&owner) && foreground {
                Owner::Waiting
            } else {
                Owner::Solid
            }
        }
        _ => Owner::Dangling,
    })
}
