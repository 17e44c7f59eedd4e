//! kube-controller-manager's persistent volume controller for a claim no volume can satisfy
//! (`pkg/controller/volume/persistentvolume/pv_controller.go`: `syncUnboundClaim` with no volume
//! found, `assignDefaultStorageClass`, `emitEventForUnboundDelayBindingClaim`, `provisionClaim`,
//! `findProvisionablePlugin`, `provisionClaimOperationExternal`; `setClaimProvisioner` of
//! `pv_controller_base.go`). A claim written without a volume gets the default class if it names
//! none, the provisioner annotations of an external provisioner, or the event that says why it
//! waits. A volume that fits is bound (`volume_binding`); in-tree provisioning is not emulated,
//! and where a volume of the claim's class is available but does not fit the claim is left alone.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::default_class_admission::default_storage_class;
use crate::lifecycle::events;
use crate::lifecycle::volume_binding;
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::ResourceInfo;

/// The event source of the controller's recorder.
const COMPONENT: &str = "persistentvolume-controller";
/// The annotations `setClaimProvisioner` writes, the deprecated beta one first.
const PROVISIONER_ANNOTATIONS: [&str; 2] = [
    "volume.beta.kubernetes.io/storage-provisioner",
    "volume.kubernetes.io/storage-provisioner",
];

fn is_claim(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && info.plural == "persistentvolumeclaims"
}

/// The claim informer's reaction to a write: an unbound claim is synced.
pub(super) fn on_change(info: &ResourceInfo, claim: &Value) -> Option<Pending> {
    let unbound = claim
        .pointer("/spec/volumeName")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty);
    (is_claim(info) && unbound && !object::is_deleting(claim)).then(|| Pending::SyncClaim {
        namespace: object::namespace(claim).to_owned(),
        name: object::name(claim).to_owned(),
    })
}

/// `syncUnboundClaim` of `namespace/name` when no volume matches it.
pub(super) fn sync(state: &mut State, namespace: &str, name: &str) {
    let info = state.info("", "v1", "persistentvolumeclaims");
    let Some(claim) = state.object(&info, Some(namespace), name) else {
        return;
    };
    if let Some(volume) = volume_binding::best_match(state, &claim) {
        return volume_binding::bind(state, &volume, &claim);
    }
    let class_name = claim.pointer("/spec/storageClassName").and_then(Value::as_str);
    if volume_available(state, class_name.unwrap_or_default()) {
        return;
    }
    let Some(class_name) = class_name else {
        // `assignDefaultStorageClass`: the default class, retroactively; the update syncs again.
        match default_storage_class(state) {
            Some(default) => {
                let mut updated = (*claim).clone();
                updated["spec"]["storageClassName"] = json!(default);
                update(state, &info, claim, updated);
            }
            None => no_class(state, &info, &claim),
        }
        return;
    };
    if class_name.is_empty() {
        return no_class(state, &info, &claim);
    }
    let classes = state.info("storage.k8s.io", "v1", "storageclasses");
    let Some(class) = state.object(&classes, None, class_name) else {
        let message = format!("storageclass.storage.k8s.io \"{class_name}\" not found");
        return provisioning_failed(state, &info, &claim, &message);
    };
    let provisioner = class.get("provisioner").and_then(Value::as_str).unwrap_or_default();
    let delayed = class.get("volumeBindingMode").and_then(Value::as_str) == Some("WaitForFirstConsumer");
    let selected_node =
        object::annotations(&claim).is_some_and(|a| a.contains_key("volume.kubernetes.io/selected-node"));
    if delayed && !selected_node {
        let (reason, message) = waiting_pods(state, &claim);
        return events::record(state, &info, &claim, "Normal", reason, &message, COMPONENT);
    }
    if provisioner.starts_with("kubernetes.io/") {
        // An in-tree plugin: none is compiled into this server.
        let message = format!("no volume plugin matched name: {provisioner}");
        return provisioning_failed(state, &info, &claim, &message);
    }
    let annotated = object::annotations(&claim)
        .and_then(|a| a.get(PROVISIONER_ANNOTATIONS[1]))
        .and_then(Value::as_str)
        == Some(provisioner);
    let claim = if annotated {
        claim
    } else {
        let mut updated = (*claim).clone();
        let annotations = object::meta_mut(&mut updated)
            .entry("annotations")
            .or_insert_with(|| json!({}));
        for key in PROVISIONER_ANNOTATIONS {
            annotations[key] = json!(provisioner);
        }
        match update(state, &info, claim, updated) {
            Some(stored) => stored,
            None => return,
        }
    };
    let message = format!(
        "Waiting for a volume to be created either by the external provisioner '{provisioner}' or manually by the \
         system administrator. If volume creation is delayed, please verify that the provisioner is running and \
         correctly registered."
    );
    events::record(
        state,
        &info,
        &claim,
        "Normal",
        "ExternalProvisioning",
        &message,
        COMPONENT,
    );
}

/// `provisionClaim`'s warning when no plugin can provision the claim's class.
fn provisioning_failed(state: &mut State, info: &ResourceInfo, claim: &Value, message: &str) {
    events::record(state, info, claim, "Warning", "ProvisioningFailed", message, COMPONENT);
}

/// The event of a claim of no class that no volume satisfies.
fn no_class(state: &mut State, info: &ResourceInfo, claim: &Value) {
    let message = "no persistent volumes available for this claim and no storage class is set";
    events::record(state, info, claim, "Normal", "FailedBinding", message, COMPONENT);
}

/// `emitEventForUnboundDelayBindingClaim`: the unscheduled pods that use the claim, if any.
fn waiting_pods(state: &State, claim: &Value) -> (&'static str, String) {
    let pods = state.info("", "v1", "pods");
    let names: Vec<String> = state
        .store
        .iter(&pods.storage_key(), Some(object::namespace(claim)))
        .map(|(_, pod)| pod)
        .filter(|pod| {
            pod.pointer("/spec/nodeName")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
        })
        .filter(|pod| {
            pod.pointer("/spec/volumes")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .any(|v| {
                    v.pointer("/persistentVolumeClaim/claimName").and_then(Value::as_str) == Some(object::name(claim))
                })
        })
        .map(|pod| format!("{}/{}", object::namespace(pod), object::name(pod)))
        .collect();
    match names.as_slice() {
        [] => (
            "WaitForFirstConsumer",
            "waiting for first consumer to be created before binding".to_owned(),
        ),
        [one] => ("WaitForPodScheduled", format!("waiting for pod {one} to be scheduled")),
        many => (
            "WaitForPodScheduled",
            format!("waiting for pods {} to be scheduled", many.join(",")),
        ),
    }
}

/// Whether a volume of the class could satisfy a claim: binding is not emulated, so such a
/// claim is left as it is.
fn volume_available(state: &State, class: &str) -> bool {
    let volumes = state.info("", "v1", "persistentvolumes");
    state
        .store
        .iter(&volumes.storage_key(), None)
        .map(|(_, volume)| volume)
        .any(|volume| {
            let phase = volume.pointer("/status/phase").and_then(Value::as_str);
            let own_class = volume
                .pointer("/spec/storageClassName")
                .and_then(Value::as_str)
                .unwrap_or_default();
            matches!(phase, None | Some("Available" | "Pending")) && own_class == class
        })
}

/// A whole-claim update by kube-controller-manager.
fn update(state: &mut State, info: &Arc<ResourceInfo>, claim: Arc<Value>, updated: Value) -> Option<Arc<Value>> {
    match state.update_object(info, claim, updated, Some(CONTROLLER_MANAGER), None) {
        Ok(stored) => Some(stored),
        Err(status) => {
            tracing::warn!(%status, "could not update the claim");
            None
        }
    }
}
