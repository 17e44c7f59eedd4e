//! kube-controller-manager's Deployment controller (`pkg/controller/deployment/`:
//! `deployment_controller.go` `syncDeployment`, `getReplicaSetsForDeployment` and the handlers
//! that enqueue a ReplicaSet's or pod's Deployment; `sync.go` `sync`, `syncStatusOnly`,
//! `checkPausedConditions`, `isScalingEvent`). The sync's shared state is in `deployment_sync.rs`,
//! the new ReplicaSet in `deployment_new_rs.rs`, the rollouts in `deployment_rollout.rs`.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::Value;

use crate::lifecycle::controller_refs::{self, Owner};
use crate::lifecycle::deployment_new_rs;
use crate::lifecycle::deployment_rollout;
use crate::lifecycle::deployment_sync::{
    Conflict, DeploymentSync, cleanup, has_progress_deadline, set_status, status_of, sync_status, write_status,
};
use crate::lifecycle::deployment_util as util;
use crate::lifecycle::replicaset_controller::replica_sets_of;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::{Pending, Workload};
use crate::storage::resource::ResourceInfo;

/// The informers' reaction to a write or removal: a Deployment syncs itself, a ReplicaSet its
/// controlling Deployment (an orphan every Deployment selecting it), a pod the Deployment of its
/// ReplicaSet.
pub(super) fn on_change(state: &State, info: &ResourceInfo, object: &Value) -> Vec<Pending> {
    let sync = |namespace: &str, name: &str| Pending::sync(Workload::Deployment, namespace, name);
    if !info.builtin {
        return Vec::new();
    }
    let namespace = object::namespace(object);
    match (info.group.as_str(), info.plural.as_str()) {
        ("apps", "deployments") => vec![sync(namespace, object::name(object))],
        ("apps", "replicasets") => {
            controller_refs::owners_to_sync(object, "Deployment", || deployments_of(state, namespace))
                .iter()
                .map(|name| sync(namespace, name))
                .collect()
        }
        ("", "pods") => {
            let replica_sets = state.info("apps", "v1", "replicasets");
            controller_refs::controller_named(object, "ReplicaSet")
                .and_then(|rs| state.object(&replica_sets, Some(namespace), rs))
                .and_then(|rs| controller_refs::controller_named(&rs, "Deployment").map(str::to_owned))
                .map(|name| vec![sync(namespace, &name)])
                .unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

fn deployments_of(state: &State, namespace: &str) -> Vec<Arc<Value>> {
    state.objects_in("apps", "deployments", namespace)
}

/// `syncDeployment` of `namespace/name`, after `retry` failed ones; synced again when a write
/// failed (a status write conflicted), as Go's rate-limited requeue does.
pub(super) fn sync(state: &mut State, namespace: &str, name: &str, retry: u32) {
    sync_at(state, namespace, name, retry, SystemTime::now());
}

/// The sync `requeueStuckDeployment` queued for a progress deadline due at `due`: its deadline
/// measured at `due` at the earliest (a settling server runs it before its time).
pub(super) fn check_progress(state: &mut State, namespace: &str, name: &str, due: SystemTime) {
    sync_at(state, namespace, name, 0, due.max(SystemTime::now()));
}

fn sync_at(state: &mut State, namespace: &str, name: &str, retry: u32, now: SystemTime) {
    let deployments = state.info("apps", "v1", "deployments");
    let Some(deployment) = state.object(&deployments, Some(namespace), name) else {
        return;
    };
    let mut sync = DeploymentSync {
        deployment: (*deployment).clone(),
        deployments,
        replica_sets: state.info("apps", "v1", "replicasets"),
        now,
    };
    if run(state, &mut sync).is_err()
        && let Some(work) = Pending::resync(Workload::Deployment, namespace, name, retry)
    {
        state.pending.push(work);
    }
}

fn run(state: &mut State, sync: &mut DeploymentSync) -> Result<(), Conflict> {
    let sets = claim_replica_sets(state, sync);
    if object::is_deleting(&sync.deployment) {
        let (new_rs, old) = deployment_new_rs::new_and_old(state, sync, &sets, false)?;
        return sync_status(state, sync, &old, new_rs.as_ref());
    }
    check_paused_conditions(state, sync)?;
    let paused = sync.deployment.pointer("/spec/paused").and_then(Value::as_bool) == Some(true);
    if paused || is_scaling_event(state, sync, &sets)? {
        return scale_and_sync(state, sync, &sets);
    }
    if util::is_rolling(&sync.deployment) {
        deployment_rollout::rolling(state, sync, &sets)
    } else {
        deployment_rollout::recreate(state, sync, &sets)
    }
}

/// `getReplicaSetsForDeployment`: the namespace's ReplicaSets claimed for the Deployment.
fn claim_replica_sets(state: &mut State, sync: &DeploymentSync) -> Vec<Arc<Value>> {
    let candidates = replica_sets_of(state, object::namespace(&sync.deployment));
    let owner = Owner {
        api_version: "apps/v1",
        kind: "Deployment",
        object: &sync.deployment,
    };
    controller_refs::claim(state, &sync.replica_sets, &owner, candidates)
}

/// `checkPausedConditions`: a paused Deployment's Progressing condition says so, a resumed one's
/// too (a timed-out one is left as it is).
fn check_paused_conditions(state: &mut State, sync: &mut DeploymentSync) -> Result<(), Conflict> {
    let paused = sync.deployment.pointer("/spec/paused").and_then(Value::as_bool) == Some(true);
    let status = status_of(&sync.deployment);
    let reason = util::condition(&status, "Progressing")
        .and_then(|c| c.get("reason").and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned();
    if !has_progress_deadline(&sync.deployment) || reason == "ProgressDeadlineExceeded" {
        return Ok(());
    }
    let condition = match (paused, reason == "DeploymentPaused") {
        (true, false) => util::new_condition("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused"),
        (false, true) => util::new_condition("Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed"),
        _ => return Ok(()),
    };
    let mut status = status;
    util::set_condition(&mut status, condition);
    set_status(&mut sync.deployment, status);
    write_status(state, sync)
}

/// `isScalingEvent`: an active ReplicaSet was sized for another replica count.
fn is_scaling_event(state: &mut State, sync: &mut DeploymentSync, sets: &[Arc<Value>]) -> Result<bool, Conflict> {
    let (new_rs, old) = deployment_new_rs::new_and_old(state, sync, sets, false)?;
    let desired = util::replicas(&sync.deployment);
    Ok(old
        .iter()
        .chain(new_rs.as_ref())
        .filter(|rs| util::replicas(rs) > 0)
        .filter_map(|rs| util::annotation(rs, util::DESIRED_REPLICAS).and_then(|d| d.parse::<i64>().ok()))
        .any(|annotated| annotated != desired))
}

/// `sync`: a paused Deployment or one being scaled only scales its ReplicaSets (and a paused one
/// cleans up old ones), then writes its status.
fn scale_and_sync(state: &mut State, sync: &mut DeploymentSync, sets: &[Arc<Value>]) -> Result<(), Conflict> {
    let (new_rs, old) = deployment_new_rs::new_and_old(state, sync, sets, false)?;
    deployment_rollout::scale(state, sync, new_rs.as_ref(), &old);
    if sync.deployment.pointer("/spec/paused").and_then(Value::as_bool) == Some(true) {
        cleanup(state, sync, &old);
    }
    sync_status(state, sync, &old, new_rs.as_ref())
}
