//! kube-controller-manager's persistent volume controller syncing a volume
//! (`pkg/controller/volume/persistentvolume/pv_controller.go`: `syncVolume`, `updateVolumePhase`,
//! `reclaimVolume`; the volume informer's handlers and `deleteClaim` of `pv_controller_base.go`):
//! a volume no claim holds is `Available`, one whose claim is gone is `Released` and its reclaim
//! policy applied. Only `Retain` is emulated: deleting or recycling needs a volume plugin, which
//! no in-memory server has, so such a volume stays `Released`.

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::ResourceInfo;

/// The volume to sync after a write or removal: a volume written, or the volume of a claim
/// (`deleteClaim` queues it; a claim written syncs it harmlessly).
pub(super) fn on_change(info: &ResourceInfo, object: &Value) -> Option<Pending> {
    if !info.builtin || !info.group.is_empty() {
        return None;
    }
    let name = match info.plural.as_str() {
        "persistentvolumes" if !object::is_deleting(object) => object::name(object),
        "persistentvolumeclaims" => object.pointer("/spec/volumeName").and_then(Value::as_str)?,
        _ => return None,
    };
    (!name.is_empty()).then(|| Pending::SyncVolume { name: name.to_owned() })
}

/// `syncVolume`, as far as the claim it references decides: none (or one not bound yet) makes it
/// `Available`, one that is gone or was replaced makes it `Released`, one bound to it `Bound`.
pub(super) fn sync(state: &mut State, name: &str) {
    let volumes = state.info("", "v1", "persistentvolumes");
    let Some(volume) = state.object(&volumes, None, name) else {
        return;
    };
    if object::is_deleting(&volume) {
        return;
    }
    let phase = volume.pointer("/status/phase").and_then(Value::as_str).unwrap_or("");
    let claim_ref = volume.pointer("/spec/claimRef").filter(|r| !r.is_null());
    let text = |key: &str| claim_ref.and_then(|r| r.get(key)).and_then(Value::as_str).unwrap_or("");
    if claim_ref.is_none() || text("uid").is_empty() {
        set_phase(state, &volume, "Available");
        return;
    }
    let claims = state.info("", "v1", "persistentvolumeclaims");
    let claim = state
        .object(&claims, Some(text("namespace")), text("name"))
        .filter(|claim| object::uid(claim) == text("uid"));
    match claim {
        None => {
            // A `Failed` volume keeps its phase while its reclaim is retried.
            if phase != "Released" && phase != "Failed" {
                set_phase(state, &volume, "Released");
            }
            let policy = volume
                .pointer("/spec/persistentVolumeReclaimPolicy")
                .and_then(Value::as_str);
            if policy.is_some_and(|p| p != "Retain") {
                tracing::debug!(
                    name,
                    ?policy,
                    "reclaiming a volume needs a volume plugin; it stays Released"
                );
            }
        }
        Some(claim) if claim.pointer("/spec/volumeName").and_then(Value::as_str) == Some(name) => {
            set_phase(state, &volume, "Bound");
        }
        // The claim is being bound, or bound elsewhere: its own sync sorts it out.
        Some(_) => {}
    }
}

/// `updateVolumePhase`: the phase through `/status` (its transition time is the strategy's to
/// set), unless it is already that. Whether the volume has the phase now.
pub(super) fn set_phase(state: &mut State, volume: &std::sync::Arc<Value>, phase: &str) -> bool {
    if volume.pointer("/status/phase").and_then(Value::as_str) == Some(phase) {
        return true;
    }
    let volumes = state.info("", "v1", "persistentvolumes");
    let mut updated = (**volume).clone();
    updated["status"]["phase"] = json!(phase);
    if let Some(status) = updated["status"].as_object_mut() {
        status.remove("message");
    }
    let manager = Some(CONTROLLER_MANAGER);
    match state.update_object(&volumes, volume.clone(), updated, manager, Some("status")) {
        Ok(_) => true,
        Err(status) => {
            tracing::debug!(name = object::name(volume), %status, "could not update the volume's phase");
            false
        }
    }
}
