//! The state of one Deployment sync and what every part of it shares
//! (`pkg/controller/deployment/sync.go`: `syncDeploymentStatus`, `calculateStatus`,
//! `cleanupDeployment`; the `UpdateStatus` and event recorder calls).
//!
//! Like Go's, a sync works on the Deployment as it read it: the revision annotation and
//! conditions it sets are written with that copy's resourceVersion, so a second status write in
//! one sync conflicts and the Deployment is synced again — which is how kube-controller-manager's
//! conditions come to read as they do.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Map, Value};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::deployment_util as util;
use crate::lifecycle::events;
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The event source of the controller's recorder.
pub(super) const COMPONENT: &str = "deployment-controller";

/// The sync under way: the Deployment as read (changed locally as Go changes its copy), and the
/// resources it writes.
pub(super) struct DeploymentSync {
    pub(super) deployment: Value,
    pub(super) deployments: Arc<ResourceInfo>,
    pub(super) replica_sets: Arc<ResourceInfo>,
    /// The time progress deadlines are measured at: now, or a deadline's due time when the sync
    /// is the one queued for it.
    pub(super) now: SystemTime,
}

/// A status write refused because the Deployment changed since the sync read it.
pub(super) struct Conflict;

/// `syncDeploymentStatus`: the counts written unless they are what the status says.
pub(super) fn sync_status(
    state: &mut State,
    sync: &mut DeploymentSync,
    old: &[Arc<Value>],
    new_rs: Option<&Arc<Value>>,
) -> Result<(), Conflict> {
    let status = calculate_status(&sync.deployment, old, new_rs);
    if status == status_of(&sync.deployment) {
        return Ok(());
    }
    set_status(&mut sync.deployment, status);
    write_status(state, sync)
}

/// `calculateStatus`: the ReplicaSets' counts, the Deployment's conditions, and `Available` by
/// whether enough pods are.
pub(super) fn calculate_status(
    deployment: &Value,
    old: &[Arc<Value>],
    new_rs: Option<&Arc<Value>>,
) -> Map<String, Value> {
    let all: Vec<Arc<Value>> = old.iter().cloned().chain(new_rs.cloned()).collect();
    let available = util::sum(&all, |rs| util::status_count(rs, "availableReplicas"));
    let total = util::sum(&all, util::replicas);
    let updated: Vec<Arc<Value>> = new_rs.cloned().into_iter().collect();
    let mut status = Map::new();
    let mut count = |key: &str, value: i64| {
        if value != 0 {
            status.insert(key.to_owned(), value.into());
        }
    };
    count("observedGeneration", object::generation(deployment));
    count("replicas", util::sum(&all, |rs| util::status_count(rs, "replicas")));
    count(
        "updatedReplicas",
        util::sum(&updated, |rs| util::status_count(rs, "replicas")),
    );
    count(
        "readyReplicas",
        util::sum(&all, |rs| util::status_count(rs, "readyReplicas")),
    );
    count("availableReplicas", available);
    count("unavailableReplicas", (total - available).max(0));
    let old_status = status_of(deployment);
    if let Some(collisions) = old_status.get("collisionCount") {
        status.insert("collisionCount".to_owned(), collisions.clone());
    }
    if let Some(conditions) = old_status.get("conditions") {
        status.insert("conditions".to_owned(), conditions.clone());
    }
    let condition = if available >= util::replicas(deployment) - util::max_unavailable(deployment) {
        util::new_condition(
            "Available",
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.",
        )
    } else {
        util::new_condition(
            "Available",
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.",
        )
    };
    util::set_condition(&mut status, condition);
    status
}

/// `cleanupDeployment`: old ReplicaSets beyond the revision history limit that run nothing are
/// deleted, oldest first.
pub(super) fn cleanup(state: &mut State, sync: &DeploymentSync, old: &[Arc<Value>]) {
    let Some(limit) = sync
        .deployment
        .pointer("/spec/revisionHistoryLimit")
        .and_then(Value::as_i64)
    else {
        return;
    };
    let mut cleanable: Vec<Arc<Value>> = old.iter().filter(|rs| !object::is_deleting(rs)).cloned().collect();
    let excess = cleanable.len() as i64 - limit;
    if excess <= 0 {
        return;
    }
    cleanable.sort_by_key(|rs| util::revision(rs));
    for rs in cleanable.iter().take(excess as usize) {
        let observed = util::status_count(rs, "observedGeneration");
        if util::status_count(rs, "replicas") != 0 || util::replicas(rs) != 0 || object::generation(rs) > observed {
            continue;
        }
        let name = object::name(rs).to_owned();
        state.delete_object(&sync.replica_sets, Some(object::namespace(rs)), &name, None);
    }
}

pub(super) fn has_progress_deadline(deployment: &Value) -> bool {
    deployment
        .pointer("/spec/progressDeadlineSeconds")
        .and_then(Value::as_i64)
        .is_some_and(|seconds| seconds != i64::from(i32::MAX))
}

pub(super) fn status_of(deployment: &Value) -> Map<String, Value> {
    deployment
        .get("status")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

pub(super) fn set_status(deployment: &mut Value, status: Map<String, Value>) {
    deployment["status"] = Value::Object(status);
}

/// `UpdateStatus` of the sync's copy: refused when the stored Deployment moved on since it was
/// read (Go's copy keeps its resourceVersion after a write, so a second write conflicts).
pub(super) fn write_status(state: &mut State, sync: &DeploymentSync) -> Result<(), Conflict> {
    let namespace = object::namespace(&sync.deployment);
    let Some(stored) = state.object(&sync.deployments, Some(namespace), object::name(&sync.deployment)) else {
        return Err(Conflict);
    };
    if object::resource_version(&stored) != object::resource_version(&sync.deployment) {
        return Err(Conflict);
    }
    state
        .update_object(
            &sync.deployments,
            stored,
            sync.deployment.clone(),
            Some(CONTROLLER_MANAGER),
            Some("status"),
        )
        .map(drop)
        .map_err(|status| {
            tracing::debug!(%status, "could not update the Deployment's status");
            Conflict
        })
}

/// A Normal `ScalingReplicaSet`-style event about the Deployment.
pub(super) fn event(state: &mut State, sync: &DeploymentSync, kind: &str, reason: &str, message: &str) {
    events::record(
        state,
        &sync.deployments,
        &sync.deployment,
        kind,
        reason,
        message,
        COMPONENT,
    );
}
