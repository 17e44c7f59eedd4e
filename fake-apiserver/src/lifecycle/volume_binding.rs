//! kube-controller-manager's persistent volume controller binding a claim to a volume that
//! exists (`pkg/controller/volume/persistentvolume/pv_controller.go`: `syncUnboundClaim` with a
//! volume found, `bind`, `bindVolumeToClaim`, `updateVolumePhase`, `bindClaimToVolume`,
//! `updateClaimStatus`; `util.FindMatchingVolume`, `checkAccessModes`): the smallest volume of
//! the claim's class, volume mode and access modes, big enough and selected by the claim's
//! selector, unless the class waits for a first consumer.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::volume_sync;
use crate::lifecycle::writes::Writes;
use crate::semantics::label_selector_validation::as_selector;
use crate::semantics::quantity::Quantity;
use crate::storage::State;
use crate::storage::object;

const BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";

fn storage(object: &Value, pointer: &str) -> Option<Quantity> {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .and_then(|q| Quantity::parse(q).ok())
}

fn class_of(object: &Value) -> &str {
    object
        .pointer("/spec/storageClassName")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn volume_mode(object: &Value) -> &str {
    object
        .pointer("/spec/volumeMode")
        .and_then(Value::as_str)
        .unwrap_or("Filesystem")
}

/// `checkAccessModes`: the volume offers every mode the claim asks for.
fn offers_modes(claim: &Value, volume: &Value) -> bool {
    let modes = |o: &Value| {
        o.pointer("/spec/accessModes")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let offered = modes(volume);
    modes(claim).iter().all(|mode| offered.contains(mode))
}

/// Whether the claim's class binds only once a pod uses the claim (`WaitForFirstConsumer`).
fn delays_binding(state: &State, claim: &Value) -> bool {
    let classes = state.info("storage.k8s.io", "v1", "storageclasses");
    state
        .object(&classes, None, class_of(claim))
        .is_some_and(|class| class.get("volumeBindingMode").and_then(Value::as_str) == Some("WaitForFirstConsumer"))
}

/// `FindMatchingVolume` for a claim with no node: the smallest volume that fits it.
pub(super) fn best_match(state: &State, claim: &Value) -> Option<Arc<Value>> {
    if delays_binding(state, claim) {
        return None;
    }
    let requested = storage(claim, "/spec/resources/requests/storage")?;
    let selector = claim.pointer("/spec/selector").map(|s| as_selector(Some(s)));
    let volumes = state.info("", "v1", "persistentvolumes");
    let mut best: Option<(Quantity, Arc<Value>)> = None;
    for (_, volume) in state.store.iter(&volumes.storage_key(), None) {
        let Some(capacity) = storage(volume, "/spec/capacity/storage") else {
            continue;
        };
        let fits = volume_mode(volume) == volume_mode(claim)
            && !object::is_deleting(volume)
            && volume.pointer("/spec/claimRef").is_none_or(Value::is_null)
            && selector
                .as_ref()
                .is_none_or(|s| s.as_ref().is_some_and(|s| s.matches(object::labels(volume))))
            && class_of(volume) == class_of(claim)
            && offers_modes(claim, volume)
            && capacity.cmp_value(&requested).is_ge();
        if fits
            && best
                .as_ref()
                .is_none_or(|(smallest, _)| smallest.cmp_value(&capacity).is_gt())
        {
            best = Some((capacity, volume.clone()));
        }
    }
    best.map(|(_, volume)| volume)
}

/// `bind`: the volume's claim reference and `Bound` phase, then the claim's volume name,
/// annotations and `Bound` status with the volume's modes and capacity.
pub(super) fn bind(state: &mut State, volume: &Arc<Value>, claim: &Arc<Value>) {
    let volumes = state.info("", "v1", "persistentvolumes");
    let claims = state.info("", "v1", "persistentvolumeclaims");
    let mut bound = (**volume).clone();
    bound["spec"]["claimRef"] = json!({
        "kind": "PersistentVolumeClaim", "namespace": object::namespace(claim), "name": object::name(claim),
        "uid": object::uid(claim), "apiVersion": "v1", "resourceVersion": object::resource_version(claim),
    });
    object::meta_mut(&mut bound)
        .entry("annotations")
        .or_insert_with(|| json!({}))[BOUND_BY_CONTROLLER] = json!("yes");
    let Ok(bound) = state.update_object(&volumes, volume.clone(), bound, Some(CONTROLLER_MANAGER), None) else {
        return;
    };
    if !volume_sync::set_phase(state, &bound, "Bound") {
        return;
    }
    let mut claimed = (**claim).clone();
    claimed["spec"]["volumeName"] = json!(object::name(volume));
    let annotations = object::meta_mut(&mut claimed)
        .entry("annotations")
        .or_insert_with(|| json!({}));
    annotations[BIND_COMPLETED] = json!("yes");
    annotations[BOUND_BY_CONTROLLER] = json!("yes");
    let Ok(claimed) = state.update_object(&claims, claim.clone(), claimed, Some(CONTROLLER_MANAGER), None) else {
        return;
    };
    let mut status = (*claimed).clone();
    status["status"] = json!({
        "phase": "Bound",
        "accessModes": volume.pointer("/spec/accessModes").cloned().unwrap_or_else(|| json!([])),
        "capacity": volume.pointer("/spec/capacity").cloned().unwrap_or_else(|| json!({})),
    });
    if let Err(status) = state.update_object(&claims, claimed, status, Some(CONTROLLER_MANAGER), Some("status")) {
        tracing::debug!(%status, "could not update the claim's status");
    }
}
