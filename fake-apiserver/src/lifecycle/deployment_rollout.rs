//! How the Deployment controller rolls a template out (`pkg/controller/deployment/`: `sync.go`
//! `scale`, `scaleReplicaSet`; `rolling.go` `rolloutRolling` with `reconcileNewReplicaSet`,
//! `reconcileOldReplicaSets`, `cleanupUnhealthyReplicas`,
//! `scaleDownOldReplicaSetsForRollingUpdate`; `recreate.go` `rolloutRecreate`). The new
//! ReplicaSet comes from `deployment_new_rs.rs`, the status from `deployment_progress.rs`.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_refs;
use crate::lifecycle::deployment_new_rs::new_and_old;
use crate::lifecycle::deployment_progress::{complete, sync_rollout_status};
use crate::lifecycle::deployment_sync::{self, Conflict, DeploymentSync, status_of};
use crate::lifecycle::deployment_util as util;
use crate::lifecycle::pod_control;
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;

/// `scaleReplicaSet`: the new size and the replica annotations written, an event when the size
/// changed.
fn scale_rs(state: &mut State, sync: &DeploymentSync, rs: &Arc<Value>, size: i64, operation: &str) -> Arc<Value> {
    let desired = util::replicas(&sync.deployment);
    let most = desired + util::max_surge(&sync.deployment);
    let old_size = util::replicas(rs);
    if old_size == size && !util::replicas_annotations_differ(rs, desired, most) {
        return rs.clone();
    }
    let mut copy = (**rs).clone();
    copy["spec"]["replicas"] = json!(size);
    util::set_replicas_annotations(&mut copy, desired, most);
    match state.update_object(&sync.replica_sets, rs.clone(), copy, Some(CONTROLLER_MANAGER), None) {
        Ok(updated) => {
            if old_size != size {
                let message = format!(
                    "Scaled {operation} replica set {} to {size} from {old_size}",
                    object::name(rs)
                );
                deployment_sync::event(state, sync, "Normal", "ScalingReplicaSet", &message);
            }
            updated
        }
        Err(status) => {
            tracing::debug!(%status, "could not scale the ReplicaSet");
            rs.clone()
        }
    }
}

/// `scaleReplicaSetAndRecordEvent`: up or down to `size`, nothing when it is the size already.
fn scale_to(state: &mut State, sync: &DeploymentSync, rs: &Arc<Value>, size: i64) -> (bool, Arc<Value>) {
    let current = util::replicas(rs);
    if current == size {
        return (false, rs.clone());
    }
    let operation = if current < size { "up" } else { "down" };
    let updated = scale_rs(state, sync, rs, size, operation);
    (util::replicas(&updated) == size, updated)
}

/// `scale`: the one active ReplicaSet takes the Deployment's size; with several, a saturated
/// new one leaves the old at zero, and a rolling update shares the difference out in proportion.
pub(super) fn scale(state: &mut State, sync: &DeploymentSync, new_rs: Option<&Arc<Value>>, old: &[Arc<Value>]) {
    let desired = util::replicas(&sync.deployment);
    let active =
        |sets: &[Arc<Value>]| -> Vec<Arc<Value>> { sets.iter().filter(|rs| util::replicas(rs) > 0).cloned().collect() };
    // `FindActiveOrLatest`: the old ReplicaSets newest first.
    let mut old = old.to_vec();
    util::sort_by_creation(&mut old);
    old.reverse();
    let all: Vec<Arc<Value>> = old.iter().cloned().chain(new_rs.cloned()).collect();
    let actives = active(&all);
    let only = match actives.len() {
        0 => new_rs.cloned().or_else(|| old.first().cloned()),
        1 => actives.first().cloned(),
        _ => None,
    };
    if let Some(rs) = only {
        scale_to(state, sync, &rs, desired);
        return;
    }
    if new_rs.is_some_and(|new| is_saturated(&sync.deployment, new)) {
        for rs in active(&old) {
            scale_to(state, sync, &rs, 0);
        }
        return;
    }
    if util::is_rolling(&sync.deployment) {
        let mut sets = actives;
        let allowed = if desired > 0 {
            desired + util::max_surge(&sync.deployment)
        } else {
            0
        };
        let to_add = allowed - util::sum(&sets, util::replicas);
        let operation = match to_add {
            n if n > 0 => {
                // `ReplicaSetsBySizeNewer`: larger first, then newer.
                util::sort_by_creation(&mut sets);
                sets.reverse();
                sets.sort_by_key(|rs| std::cmp::Reverse(util::replicas(rs)));
                "up"
            }
            n if n < 0 => {
                // `ReplicaSetsBySizeOlder`: larger first, then older.
                util::sort_by_creation(&mut sets);
                sets.sort_by_key(|rs| std::cmp::Reverse(util::replicas(rs)));
                "down"
            }
            _ => "",
        };
        let mut added = 0;
        let mut sizes: Vec<i64> = Vec::new();
        for rs in &sets {
            let share = if to_add != 0 {
                util::proportion(rs, &sync.deployment, to_add, added)
            } else {
                0
            };
            added += share;
            sizes.push(util::replicas(rs) + share);
        }
        for (i, rs) in sets.iter().enumerate() {
            let mut size = sizes[i];
            if i == 0 && to_add != 0 {
                size = (size + to_add - added).max(0);
            }
            scale_rs(state, sync, rs, size, operation);
        }
    }
}

/// `IsSaturated`: the new ReplicaSet is sized for the Deployment and all its pods are available.
fn is_saturated(deployment: &Value, rs: &Value) -> bool {
    let desired = util::replicas(deployment);
    let annotated = util::annotation(rs, util::DESIRED_REPLICAS).and_then(|d| d.parse::<i64>().ok());
    util::replicas(rs) == desired
        && annotated == Some(desired)
        && util::status_count(rs, "availableReplicas") == desired
}

/// `rolloutRolling`: the new ReplicaSet grows within the surge, the old ones shrink within the
/// unavailability, and the rollout's status is written.
pub(super) fn rolling(state: &mut State, sync: &mut DeploymentSync, sets: &[Arc<Value>]) -> Result<(), Conflict> {
    let (new_rs, old) = new_and_old(state, sync, sets, true)?;
    let Some(new_rs) = new_rs else {
        return Ok(());
    };
    // Like Go, the status is computed from the ReplicaSets as the sync found them: what it
    // scaled counts at the next sync, which the scaling queues.
    let all: Vec<Arc<Value>> = old.iter().cloned().chain([new_rs.clone()]).collect();
    let desired = util::replicas(&sync.deployment);
    let new_size = util::replicas(&new_rs);
    let scaled_up = match new_size.cmp(&desired) {
        std::cmp::Ordering::Greater => scale_to(state, sync, &new_rs, desired).0,
        std::cmp::Ordering::Less => {
            let size = util::new_rs_replicas(&sync.deployment, &all, &new_rs);
            scale_to(state, sync, &new_rs, size).0
        }
        std::cmp::Ordering::Equal => false,
    };
    if !scaled_up
        && !reconcile_old(state, sync, &old, &new_rs)
        && complete(&sync.deployment, &status_of(&sync.deployment))
    {
        deployment_sync::cleanup(state, sync, &old);
    }
    sync_rollout_status(state, sync, &old, Some(&new_rs))
}

/// `reconcileOldReplicaSets`: whether old ReplicaSets were scaled down — first their pods that
/// are not available, then as many available ones as the unavailability allows.
fn reconcile_old(state: &mut State, sync: &DeploymentSync, old: &[Arc<Value>], new_rs: &Arc<Value>) -> bool {
    let mut active: Vec<Arc<Value>> = old.iter().filter(|rs| util::replicas(rs) > 0).cloned().collect();
    if util::sum(&active, util::replicas) == 0 {
        return false;
    }
    let all: Vec<Arc<Value>> = active.iter().cloned().chain([new_rs.clone()]).collect();
    let min_available = util::replicas(&sync.deployment) - util::max_unavailable(&sync.deployment);
    let new_unavailable = util::replicas(new_rs) - util::status_count(new_rs, "availableReplicas");
    let most_down = util::sum(&all, util::replicas) - min_available - new_unavailable;
    if most_down <= 0 {
        return false;
    }
    util::sort_by_creation(&mut active);
    let mut cleaned = 0;
    for rs in active.iter_mut() {
        let unavailable = util::replicas(rs) - util::status_count(rs, "availableReplicas");
        if cleaned >= most_down || util::replicas(rs) == 0 || unavailable == 0 {
            continue;
        }
        let down = (most_down - cleaned).min(unavailable);
        let size = util::replicas(rs) - down;
        *rs = scale_to(state, sync, rs, size).1;
        cleaned += down;
    }
    let all: Vec<Arc<Value>> = active.iter().cloned().chain([new_rs.clone()]).collect();
    let available = util::sum(&all, |rs| util::status_count(rs, "availableReplicas"));
    let mut scaled = 0;
    if available > min_available {
        let budget = available - min_available;
        for rs in &active {
            if scaled >= budget || util::replicas(rs) == 0 {
                continue;
            }
            let down = util::replicas(rs).min(budget - scaled);
            scale_to(state, sync, rs, util::replicas(rs) - down);
            scaled += down;
        }
    }
    cleaned + scaled > 0
}

/// `rolloutRecreate`: the old ReplicaSets go to zero, and once none of their pods runs the new
/// one is made and sized.
pub(super) fn recreate(state: &mut State, sync: &mut DeploymentSync, sets: &[Arc<Value>]) -> Result<(), Conflict> {
    let (new_rs, old) = new_and_old(state, sync, sets, false)?;
    let mut scaled_down = false;
    for rs in old.iter().filter(|rs| util::replicas(rs) > 0) {
        scaled_down |= scale_to(state, sync, rs, 0).0;
    }
    if scaled_down || old_pods_running(state, sync, new_rs.as_ref(), &old) {
        return sync_rollout_status(state, sync, &old, new_rs.as_ref());
    }
    let new_rs = match new_rs {
        Some(rs) => rs,
        None => match new_and_old(state, sync, sets, true)?.0 {
            Some(rs) => rs,
            None => return Ok(()),
        },
    };
    scale_to(state, sync, &new_rs, util::replicas(&sync.deployment));
    if complete(&sync.deployment, &status_of(&sync.deployment)) {
        deployment_sync::cleanup(state, sync, &old);
    }
    sync_rollout_status(state, sync, &old, Some(&new_rs))
}

/// `oldPodsRunning`: an old ReplicaSet still counts pods, or a pod of one is not finished.
fn old_pods_running(state: &State, sync: &DeploymentSync, new_rs: Option<&Arc<Value>>, old: &[Arc<Value>]) -> bool {
    if util::sum(old, |rs| util::status_count(rs, "replicas")) > 0 {
        return true;
    }
    let old_uids: Vec<&str> = old.iter().map(|rs| object::uid(rs)).collect();
    let new_uid = new_rs.map(|rs| object::uid(rs));
    pod_control::pods_of(state, object::namespace(&sync.deployment))
        .iter()
        .any(|pod| {
            let owner = controller_refs::controller_uid(pod);
            owner.is_some_and(|uid| old_uids.contains(&uid) && Some(uid) != new_uid) && !pod_control::is_finished(pod)
        })
}
