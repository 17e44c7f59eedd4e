//! kube-controller-manager's pvc-protection and pv-protection controllers
//! (`pkg/controller/volume/pvcprotection/pvc_protection_controller.go`: `processPVC`,
//! `isBeingUsed`, `podUsesPVC`, the pod handler that requeues a deleted or finished pod's
//! claims; `pkg/controller/volume/pvprotection/pv_protection_controller.go`: `processPV`,
//! `isBeingUsed`). A claim being deleted loses its `kubernetes.io/pvc-protection` finalizer once
//! no scheduled pod mounts it, a volume its `kubernetes.io/pv-protection` once it is not Bound.

use serde_json::Value;

use crate::lifecycle::storage_admission::{CLAIM_PROTECTION, VOLUME_PROTECTION};
use crate::lifecycle::writes::drop_finalizer;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::ResourceInfo;

fn has_finalizer(object: &Value, finalizer: &str) -> bool {
    object::finalizers(object).iter().any(|f| f == finalizer)
}

/// The claims a pod mounts, by name (its ephemeral ones are `<pod>-<volume>`).
fn claims_of(pod: &Value) -> impl Iterator<Item = &str> {
    pod.pointer("/spec/volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|volume| {
            volume
                .pointer("/persistentVolumeClaim/claimName")
                .and_then(Value::as_str)
        })
}

fn ephemeral_claims_of(pod: &Value) -> impl Iterator<Item = String> + '_ {
    pod.pointer("/spec/volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|volume| volume.get("ephemeral").is_some())
        .map(|volume| {
            format!(
                "{}-{}",
                object::name(pod),
                volume.get("name").and_then(Value::as_str).unwrap_or("")
            )
        })
}

/// The informers' reaction: a claim or volume being deleted is checked, and so are the claims
/// of a pod written or removed.
pub(super) fn on_change(info: &ResourceInfo, object: &Value) -> Vec<Pending> {
    if !info.builtin || !info.group.is_empty() {
        return Vec::new();
    }
    let release = |namespace: Option<&str>, name: &str| Pending::ReleaseStorage {
        namespace: namespace.map(str::to_owned),
        name: name.to_owned(),
    };
    match info.plural.as_str() {
        "persistentvolumeclaims" if object::is_deleting(object) && has_finalizer(object, CLAIM_PROTECTION) => {
            vec![release(Some(object::namespace(object)), object::name(object))]
        }
        "persistentvolumes" if object::is_deleting(object) && has_finalizer(object, VOLUME_PROTECTION) => {
            vec![release(None, object::name(object))]
        }
        "pods" => claims_of(object)
            .map(str::to_owned)
            .chain(ephemeral_claims_of(object))
            .map(|claim| release(Some(object::namespace(object)), &claim))
            .collect(),
        _ => Vec::new(),
    }
}

/// `processPVC` / `processPV`: the finalizer dropped from an object being deleted that nothing
/// uses.
pub(super) fn release(state: &mut State, namespace: Option<&str>, name: &str) {
    let (plural, finalizer) = match namespace {
        Some(_) => ("persistentvolumeclaims", CLAIM_PROTECTION),
        None => ("persistentvolumes", VOLUME_PROTECTION),
    };
    let info = state.info("", "v1", plural);
    let Some(current) = state.object(&info, namespace, name) else {
        return;
    };
    if !object::is_deleting(&current) || !has_finalizer(&current, finalizer) {
        return;
    }
    let in_use = match namespace {
        Some(namespace) => state
            .objects_in("", "pods", namespace)
            .iter()
            .any(|pod| uses_claim(pod, &current)),
        None => current.pointer("/status/phase").and_then(Value::as_str) == Some("Bound"),
    };
    if !in_use {
        drop_finalizer(state, &info, &current, finalizer);
    }
}

/// `podUsesPVC`: only a scheduled pod holds a claim (a kubelet refuses to start one whose claim
/// is being deleted) — one it mounts, or the ephemeral claim `<pod>-<volume>` made for it while it
/// is not shut down (`podIsShutDown`: deleted with a zero grace period).
fn uses_claim(pod: &Value, claim: &Value) -> bool {
    let scheduled = pod
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty());
    let shut_down = object::is_deleting(pod)
        && pod
            .pointer("/metadata/deletionGracePeriodSeconds")
            .and_then(Value::as_i64)
            == Some(0);
    let claim_name = object::name(claim);
    let controlled_by_pod = crate::lifecycle::controller_refs::controller_uid(claim) == Some(object::uid(pod));
    let volumes = pod
        .pointer("/spec/volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    scheduled
        && volumes.into_iter().any(|volume| {
            let mounted = volume
                .pointer("/persistentVolumeClaim/claimName")
                .and_then(Value::as_str)
                == Some(claim_name);
            let ephemeral = volume.get("ephemeral").is_some()
                && format!(
                    "{}-{}",
                    object::name(pod),
                    volume.get("name").and_then(Value::as_str).unwrap_or("")
                ) == claim_name
                && controlled_by_pod;
            mounted || (!shut_down && ephemeral)
        })
}
