//! Namespace termination: the namespace registry's DELETE (`pkg/registry/core/namespace/
//! storage/storage.go`: the first delete marks it `Terminating`, a later one removes it once
//! `spec.finalizers` is empty; `ShouldDeleteNamespaceDuringUpdate`), and kube-controller-manager's
//! namespace controller (`pkg/controller/namespace/deletion/namespaced_resources_deleter.go`:
//! `Delete`, `deleteAllContent`, `finalizeNamespace`; `status_condition_utils.go`: the five
//! deletion conditions). The controller deletes everything in the namespace, reports what is
//! left and which finalizers hold it in the namespace's conditions, and once nothing is left
//! takes its own `kubernetes` finalizer off `spec.finalizers`; the namespace goes when no spec
//! or metadata finalizer remains. The orphan and foreground finalizers a DELETE's propagation
//! policy would add to a namespace are not added.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::OnDelete;
use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::writes::Writes;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object::{self, meta_mut};
use crate::storage::pending::Pending;
use crate::storage::resource::{Lifecycle, ResourceInfo};

/// The finalizer the namespace controller owns (`FinalizerKubernetes`).
const KUBERNETES_FINALIZER: &str = "kubernetes";

/// The conditions the controller reports, in its order, with the reason and message of each
/// when all is well (`conditionTypes`, `okReasons`, `okMessages`).
const CONDITIONS: [(&str, &str, &str); 5] = [
    (
        "NamespaceDeletionDiscoveryFailure",
        "ResourcesDiscovered",
        "All resources successfully discovered",
    ),
    (
        "NamespaceDeletionGroupVersionParsingFailure",
        "ParsedGroupVersions",
        "All legacy kube types successfully parsed",
    ),
    (
        "NamespaceDeletionContentFailure",
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
    (
        "NamespaceContentRemaining",
        "ContentRemoved",
        "All content successfully removed",
    ),
    (
        "NamespaceFinalizersRemaining",
        "ContentHasNoFinalizers",
        "All content-preserving finalizers finished",
    ),
];

/// The registry's DELETE of a namespace: the first marks it Terminating (the answer, the
/// controller works later); a later one deletes it as usual once `spec.finalizers` is empty.
pub(super) fn on_delete(state: &mut State, info: &Arc<ResourceInfo>, old: Arc<Value>) -> OnDelete {
    if object::is_deleting(&old) {
        return if spec_finalizers(&old).is_empty() {
            OnDelete::Proceed(old)
        } else {
            OnDelete::Answered(old)
        };
    }
    let marked = state.store.put(&info.storage_key(), marked_for_deletion(&old));
    let name = object::name(&marked).to_owned();
    state.pending.push(Pending::EmptyNamespace { name });
    OnDelete::Answered(marked)
}

/// A namespace as the registry's first DELETE leaves it (a dry run's answer too): a deletion
/// time, no grace period, and the phase `Terminating`.
pub(crate) fn marked_for_deletion(old: &Value) -> Value {
    let mut marked = old.clone();
    meta_mut(&mut marked).insert("deletionTimestamp".to_owned(), json!(object::now()));
    marked["status"]["phase"] = json!("Terminating");
    marked
}

/// `ShouldDeleteNamespaceDuringUpdate`: an update that leaves a deleted namespace without
/// The namespaces the NamespaceLifecycle admission plugin keeps (`default`, `kube-system`,
/// `kube-public`: `apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go`).
const IMMORTAL: [&str; 3] = ["default", "kube-system", "kube-public"];

/// NamespaceLifecycle's refusal of a DELETE of an immortal namespace (its admission runs as
/// the store's delete validation: after the lookup and the preconditions).
pub(crate) fn admit_delete(info: &ResourceInfo, name: &str) -> Result<(), ApiStatus> {
    if info.lifecycle == Lifecycle::Namespace && IMMORTAL.contains(&name) {
        return Err(ApiStatus::forbidden_object(
            info,
            name,
            "this namespace may not be deleted",
        ));
    }
    Ok(())
}

/// metadata finalizers removes it only when its spec has none left either.
pub(crate) fn may_remove_on_update(info: &ResourceInfo, namespace: &Value) -> bool {
    !(info.builtin && info.group.is_empty() && info.plural == "namespaces") || spec_finalizers(namespace).is_empty()
}

/// The namespace controller's work on a terminating namespace it has not finalized: delete
/// everything in it, then report and finalize.
pub(super) fn delete_contents(state: &mut State, name: &str) {
    if !awaits_controller(state, name) {
        return;
    }
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

/// After the namespace's content changed: the conditions say what is left and which
/// finalizers hold it; with nothing left, the controller finalizes the namespace.
pub(super) fn finish_if_empty(state: &mut State, namespace: &str) {
    if !awaits_controller(state, namespace) {
        return;
    }
    let (remaining, finalizers) = remaining_content(state, namespace);
    report(state, namespace, &remaining, &finalizers);
    if remaining.is_empty() {
        finalize(state, namespace);
    }
}

/// Whether `name` is a deleted namespace the controller has not finalized yet.
fn awaits_controller(state: &State, name: &str) -> bool {
    let info = state.info("", "v1", "namespaces");
    state
        .object(&info, None, name)
        .is_some_and(|ns| object::is_deleting(&ns) && spec_finalizers(&ns).iter().any(|f| f == KUBERNETES_FINALIZER))
}

/// The objects left in the namespace by resource (`configmaps.` for the core group) and by
/// the finalizers that hold them.
fn remaining_content(state: &State, namespace: &str) -> (BTreeMap<String, usize>, BTreeMap<String, usize>) {
    let mut remaining = BTreeMap::new();
    let mut finalizers = BTreeMap::new();
    for storage in state.store.storage_keys() {
        let Some(resource) = state.registry.preferred(&storage) else {
            continue;
        };
        if !resource.namespaced {
            continue;
        }
        let left: Vec<Arc<Value>> = state
            .store
            .iter(&storage, Some(namespace))
            .map(|(_, object)| object.clone())
            .collect();
        if left.is_empty() {
            continue;
        }
        remaining.insert(format!("{}.{}", resource.plural, resource.group), left.len());
        for finalizer in left.iter().flat_map(|object| object::finalizers(object)) {
            *finalizers.entry(finalizer).or_insert(0) += 1;
        }
    }
    (remaining, finalizers)
}

/// `namespaceConditionUpdater.Update`: each condition as this pass found it, written to
/// `/status` by kube-controller-manager when one changed.
fn report(
    state: &mut State,
    namespace: &str,
    remaining: &BTreeMap<String, usize>,
    finalizers: &BTreeMap<String, usize>,
) {
    let info = state.info("", "v1", "namespaces");
    let Some(current) = state.object(&info, None, namespace) else {
        return;
    };
    let found = |kind: &str| -> Option<(String, String)> {
        match kind {
            "NamespaceContentRemaining" if !remaining.is_empty() => {
                let parts: Vec<String> = remaining
                    .iter()
                    .map(|(resource, n)| format!("{resource} has {n} resource instances"))
                    .collect();
                Some((
                    "SomeResourcesRemain".to_owned(),
                    format!("Some resources are remaining: {}", parts.join(", ")),
                ))
            }
            "NamespaceFinalizersRemaining" if !finalizers.is_empty() => {
                let mut parts: Vec<String> = finalizers
                    .iter()
                    .map(|(finalizer, n)| format!("{finalizer} in {n} resource instances"))
                    .collect();
                parts.sort();
                let message = format!(
                    "Some content in the namespace has finalizers remaining: {}",
                    parts.join(", ")
                );
                Some(("SomeFinalizersRemain".to_owned(), message))
            }
            _ => None,
        }
    };
    let mut conditions = current
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut changed = false;
    for (kind, ok_reason, ok_message) in CONDITIONS {
        let (status, reason, message) = match found(kind) {
            Some((reason, message)) => ("True", reason, message),
            None => ("False", ok_reason.to_owned(), ok_message.to_owned()),
        };
        match conditions
            .iter_mut()
            .find(|c| c.get("type").and_then(Value::as_str) == Some(kind))
        {
            None => {
                conditions.push(json!({"type": kind, "status": status, "lastTransitionTime": object::now(), "reason": reason, "message": message}));
                changed = true;
            }
            Some(old) => {
                let same = |key: &str, value: &str| old.get(key).and_then(Value::as_str) == Some(value);
                if !(same("status", status) && same("reason", &reason) && same("message", &message)) {
                    if !same("status", status) {
                        old["lastTransitionTime"] = json!(object::now());
                    }
                    old["status"] = json!(status);
                    old["reason"] = json!(reason);
                    old["message"] = json!(message);
                    changed = true;
                }
            }
        }
    }
    if !changed {
        return;
    }
    let mut updated = (*current).clone();
    updated["status"]["conditions"] = Value::Array(conditions);
    if let Err(status) = state.update_object(&info, current, updated, Some(CONTROLLER_MANAGER), Some("status")) {
        tracing::warn!(namespace, %status, "could not update the namespace's conditions");
    }
}

/// `finalizeNamespace`: the controller's finalizer comes off `spec.finalizers`; a namespace with
/// no finalizer left goes.
fn finalize(state: &mut State, namespace: &str) {
    let info = state.info("", "v1", "namespaces");
    let Some(current) = state.object(&info, None, namespace) else {
        return;
    };
    let kept: Vec<String> = spec_finalizers(&current)
        .into_iter()
        .filter(|f| f != KUBERNETES_FINALIZER)
        .collect();
    // With no finalizer left, the update removes the namespace (`may_remove_on_update`).
    let mut updated = (*current).clone();
    updated["spec"]["finalizers"] = json!(kept);
    if let Err(status) = state.update_object(&info, current, updated, Some(CONTROLLER_MANAGER), Some("finalize")) {
        tracing::warn!(namespace, %status, "could not finalize the namespace");
    }
}

/// A namespace's `spec.finalizers`.
fn spec_finalizers(namespace: &Value) -> Vec<String> {
    object::string_list(namespace.pointer("/spec/finalizers"))
}
