//! Who owns a StatefulSet pod's claims under its `persistentVolumeClaimRetentionPolicy`
//! (`pkg/controller/statefulset/stateful_set_utils.go`: `claimOwnerMatchesSetAndPod`,
//! `updateClaimOwnerRefForSetAndPod`; `stateful_pod_control.go`: `ClaimsMatchRetentionPolicy`,
//! `UpdatePodClaimForRetentionPolicy`, `PodClaimIsStale`): the set owns them when they go with
//! it, the pod when they go on scale-down; the garbage collector does the rest. From 1.31 the
//! reference is a controller reference (`addControllerRef`), before a plain one (`setOwnerRef`).

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::statefulset_pods::{in_ordinal_range, ordinal};
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;

/// `getPersistentVolumeClaimRetentionPolicy`: whether the claims are deleted with the set and on
/// scale-down (both `Retain` by default).
fn deletes(set: &Value) -> (bool, bool) {
    let policy = |key: &str| {
        set.pointer(&format!("/spec/persistentVolumeClaimRetentionPolicy/{key}"))
            .and_then(Value::as_str)
            == Some("Delete")
    };
    (policy("whenDeleted"), policy("whenScaled"))
}

fn has_owner(claim: &Value, owner: &Value) -> bool {
    object::owner_references(claim)
        .iter()
        .any(|r| r.get("uid").and_then(Value::as_str) == Some(object::uid(owner)))
}

/// Which of (set, pod) should own the pod's claims.
fn wanted_owners(set: &Value, pod: &Value) -> (bool, bool) {
    let (when_deleted, when_scaled) = deletes(set);
    let scaled_down = !in_ordinal_range(set, pod);
    match (when_scaled, when_deleted) {
        (false, false) => (false, false),
        (false, true) => (true, false),
        (true, false) => (false, scaled_down),
        (true, true) => (!scaled_down, scaled_down),
    }
}

/// `claimOwnerMatchesSetAndPod`.
fn owners_match(claim: &Value, set: &Value, pod: &Value) -> bool {
    wanted_owners(set, pod) == (has_owner(claim, set), has_owner(claim, pod))
}

/// The pod's claims that exist.
fn claims_of(state: &State, set: &Value, pod: &Value) -> Vec<std::sync::Arc<Value>> {
    let info = state.info("", "v1", "persistentvolumeclaims");
    let ordinal = ordinal(pod);
    set.pointer("/spec/volumeClaimTemplates")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|template| {
            let name = format!("{}-{}-{ordinal}", object::name(template), object::name(set));
            state.object(&info, Some(object::namespace(set)), &name)
        })
        .collect()
}

/// `ClaimsMatchRetentionPolicy`: every existing claim has the owners the policy wants.
pub(crate) fn match_policy(state: &State, set: &Value, pod: &Value) -> bool {
    claims_of(state, set, pod)
        .iter()
        .all(|claim| owners_match(claim, set, pod))
}

/// `UpdatePodClaimForRetentionPolicy`: each claim's references to the set and pod made what the
/// policy wants.
pub(crate) fn update_owners(state: &mut State, set: &Value, pod: &Value) {
    let info = state.info("", "v1", "persistentvolumeclaims");
    let controller = state.options.minor() >= 31;
    let (set_wanted, pod_wanted) = wanted_owners(set, pod);
    for claim in claims_of(state, set, pod) {
        if owners_match(&claim, set, pod) {
            continue;
        }
        let mut references: Vec<Value> = object::owner_references(&claim)
            .iter()
            .filter(|r| {
                let uid = r.get("uid").and_then(Value::as_str);
                uid != Some(object::uid(set)) && uid != Some(object::uid(pod))
            })
            .cloned()
            .collect();
        // Kept where they were when still wanted, appended when new.
        let keep = |owner: &Value| {
            object::owner_references(&claim)
                .iter()
                .find(|r| r.get("uid").and_then(Value::as_str) == Some(object::uid(owner)))
                .cloned()
        };
        for (wanted, owner, api_version, kind) in [
            (set_wanted, set, "apps/v1", "StatefulSet"),
            (pod_wanted, pod, "v1", "Pod"),
        ] {
            if !wanted {
                continue;
            }
            let reference = keep(owner).unwrap_or_else(|| {
                let mut reference = json!({"apiVersion": api_version, "kind": kind, "name": object::name(owner), "uid": object::uid(owner)});
                if controller {
                    reference["controller"] = json!(true);
                    reference["blockOwnerDeletion"] = json!(true);
                }
                reference
            });
            references.push(reference);
        }
        let mut updated = (*claim).clone();
        if references.is_empty() {
            object::meta_mut(&mut updated).remove("ownerReferences");
        } else {
            object::meta_mut(&mut updated).insert("ownerReferences".to_owned(), Value::Array(references));
        }
        if let Err(status) = state.update_object(&info, claim.clone(), updated, Some(CONTROLLER_MANAGER), None) {
            tracing::debug!(%status, "could not update a claim's owners");
        }
    }
}

/// `PodClaimIsStale`: with claims deleted on scale-down, one still owned by an earlier pod of the
/// same name waits for the garbage collector before the pod is made again.
pub(crate) fn is_stale(state: &State, set: &Value, pod: &Value) -> bool {
    let (_, when_scaled) = deletes(set);
    when_scaled
        && claims_of(state, set, pod).iter().any(|claim| {
            object::owner_references(claim).iter().any(|r| {
                r.get("name").and_then(Value::as_str) == Some(object::name(pod))
                    && r.get("uid").and_then(Value::as_str) != Some(object::uid(pod))
            })
        })
}
