//! The rollout's status (`pkg/controller/deployment/progress.go` `syncRolloutStatus`,
//! `getReplicaFailures`, `requeueStuckDeployment`; `util.DeploymentComplete`,
//! `util.DeploymentProgressing`, `util.DeploymentTimedOut`): the counts, and the Progressing
//! condition the rollout earned — `NewReplicaSetAvailable` when complete, `ReplicaSetUpdated`
//! while pods move, `ProgressDeadlineExceeded` once nothing moved for `progressDeadlineSeconds`
//! (a stuck rollout is synced again when its deadline passes).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

use crate::lifecycle::deployment_sync::{
    Conflict, DeploymentSync, calculate_status, has_progress_deadline, set_status, status_of, write_status,
};
use crate::lifecycle::deployment_util as util;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::{Pending, Timer};

/// `DeploymentComplete`.
pub(super) fn complete(deployment: &Value, status: &Map<String, Value>) -> bool {
    let count = |key: &str| status.get(key).and_then(Value::as_i64).unwrap_or(0);
    let desired = util::replicas(deployment);
    count("updatedReplicas") == desired
        && count("replicas") == desired
        && count("availableReplicas") == desired
        && count("observedGeneration") >= object::generation(deployment)
}

/// `syncRolloutStatus`: the status with the Progressing condition the rollout earned and the
/// ReplicaSets' failures, written when it changed.
pub(super) fn sync_rollout_status(
    state: &mut State,
    sync: &mut DeploymentSync,
    old: &[Arc<Value>],
    new_rs: Option<&Arc<Value>>,
) -> Result<(), Conflict> {
    let deployment = &sync.deployment;
    let mut status = calculate_status(deployment, old, new_rs);
    let old_status = status_of(deployment);
    if !has_progress_deadline(deployment) {
        util::remove_condition(&mut status, "Progressing");
    }
    let current = util::condition(&old_status, "Progressing").cloned();
    let reason = |c: &Value| c.get("reason").and_then(Value::as_str).unwrap_or_default().to_owned();
    let count = |s: &Map<String, Value>, key: &str| s.get(key).and_then(Value::as_i64).unwrap_or(0);
    let finished = count(&status, "replicas") == count(&status, "updatedReplicas")
        && current.as_ref().is_some_and(|c| reason(c) == "NewReplicaSetAvailable");
    let subject = |what: &str| match new_rs {
        Some(rs) => format!("ReplicaSet {:?} {what}", object::name(rs)),
        None => format!("Deployment {:?} {what}", object::name(deployment)),
    };
    if has_progress_deadline(deployment) && !finished {
        if complete(deployment, &status) {
            let message = subject("has successfully progressed.");
            util::set_condition(
                &mut status,
                util::new_condition("Progressing", "True", "NewReplicaSetAvailable", &message),
            );
        } else if progressing(&old_status, &status) {
            let mut condition =
                util::new_condition("Progressing", "True", "ReplicaSetUpdated", &subject("is progressing."));
            if let Some(current) = &current {
                if current.get("status").and_then(Value::as_str) == Some("True") {
                    condition["lastTransitionTime"] = current["lastTransitionTime"].clone();
                }
                util::remove_condition(&mut status, "Progressing");
            }
            util::set_condition(&mut status, condition);
        } else if timed_out(deployment, &status, sync.now) {
            let condition = util::new_condition(
                "Progressing",
                "False",
                TIMED_OUT,
                &subject("has timed out progressing."),
            );
            util::set_condition(&mut status, condition);
        }
    }
    match replica_failure(old, new_rs) {
        Some(failure) => util::set_condition(&mut status, failure),
        None => util::remove_condition(&mut status, "ReplicaFailure"),
    }
    if status
        .get("conditions")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        status.remove("conditions");
    }
    if status == old_status {
        requeue_stuck(state, &sync.deployment, &status);
        return Ok(());
    }
    set_status(&mut sync.deployment, status);
    write_status(state, sync)
}

/// The Progressing condition's reason once the deadline passed (`util.TimedOutReason`).
const TIMED_OUT: &str = "ProgressDeadlineExceeded";

/// When the rollout's deadline passes: its Progressing condition's last update plus
/// `progressDeadlineSeconds`.
fn deadline(deployment: &Value, status: &Map<String, Value>) -> Option<SystemTime> {
    let seconds = deployment
        .pointer("/spec/progressDeadlineSeconds")
        .and_then(Value::as_u64)?;
    let updated = util::condition(status, "Progressing")?
        .get("lastUpdateTime")?
        .as_str()?;
    let since = u64::try_from(object::timestamp_seconds(updated)?).ok()?;
    Some(UNIX_EPOCH + Duration::from_secs(since + seconds))
}

/// `DeploymentTimedOut`: the deadline passed by `now` since the last progress, unless the
/// rollout completed.
fn timed_out(deployment: &Value, status: &Map<String, Value>, now: SystemTime) -> bool {
    let Some(condition) = util::condition(status, "Progressing") else {
        return false;
    };
    match condition.get("reason").and_then(Value::as_str) {
        Some("NewReplicaSetAvailable") => false,
        Some(TIMED_OUT) => true,
        _ => has_progress_deadline(deployment) && deadline(deployment, status).is_some_and(|at| at < now),
    }
}

/// `requeueStuckDeployment`: a rollout neither complete nor timed out is synced again a second
/// after its deadline.
fn requeue_stuck(state: &mut State, deployment: &Value, status: &Map<String, Value>) {
    let current = util::condition(&status_of(deployment), "Progressing").cloned();
    let Some(current) = current.filter(|_| has_progress_deadline(deployment)) else {
        return;
    };
    if complete(deployment, status) || current.get("reason").and_then(Value::as_str) == Some(TIMED_OUT) {
        return;
    }
    if let Some(at) = deadline(deployment, &status_of(deployment)) {
        state.pending.push(Pending::Deadline {
            timer: Timer::DeploymentProgress,
            namespace: object::namespace(deployment).to_owned(),
            name: object::name(deployment).to_owned(),
            due: at + Duration::from_secs(1),
        });
    }
}

/// `DeploymentProgressing`: more pods updated, fewer old ones, more ready or available.
fn progressing(old: &Map<String, Value>, new: &Map<String, Value>) -> bool {
    let count = |s: &Map<String, Value>, key: &str| s.get(key).and_then(Value::as_i64).unwrap_or(0);
    let old_replicas = count(old, "replicas") - count(old, "updatedReplicas");
    let new_replicas = count(new, "replicas") - count(new, "updatedReplicas");
    count(new, "updatedReplicas") > count(old, "updatedReplicas")
        || new_replicas < old_replicas
        || count(new, "readyReplicas") > count(old, "readyReplicas")
        || count(new, "availableReplicas") > count(old, "availableReplicas")
}

/// `getReplicaFailures`: the new ReplicaSet's `ReplicaFailure` condition (else any old one's),
/// as a Deployment condition.
fn replica_failure(old: &[Arc<Value>], new_rs: Option<&Arc<Value>>) -> Option<Value> {
    let failure = |rs: &Arc<Value>| {
        rs.pointer("/status/conditions")
            .and_then(Value::as_array)?
            .iter()
            .find(|c| c.get("type").and_then(Value::as_str) == Some("ReplicaFailure"))
            .cloned()
    };
    let found = new_rs.and_then(failure).or_else(|| old.iter().find_map(failure))?;
    let time = found.get("lastTransitionTime").cloned().unwrap_or(Value::Null);
    Some(
        json!({"type": "ReplicaFailure", "status": found["status"], "lastUpdateTime": time,
        "lastTransitionTime": time, "reason": found["reason"], "message": found["message"]}),
    )
}
