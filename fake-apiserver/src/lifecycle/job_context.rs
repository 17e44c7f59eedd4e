//! What one sync of kube-controller-manager's Job controller works on
//! (`pkg/controller/job/job_controller.go`: `syncJobCtx`, `IsJobFinished`, `isPodFailed`,
//! `onlyReplaceFailedPods`, `delayTerminalCondition`, `newCondition`), shared by the controller's
//! modules: the Job as the sync writes it, its pods and counters, and the predicates over them.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::job_indexes::Intervals;
use crate::lifecycle::pod_control::{self, phase};
use crate::storage::JobBackoff;
use crate::storage::object;

/// The event source of the Job controller's recorder.
pub(super) const COMPONENT: &str = "job-controller";

/// The finalizer a Job's pods keep until their end is counted (`batch.JobTrackingFinalizer`).
pub(super) const TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";

/// What one `syncJob` works on (`syncJobCtx`).
pub(super) struct JobCtx {
    /// The Job as this sync writes it.
    pub(super) job: Value,
    pub(super) pods: Vec<Arc<Value>>,
    pub(super) active: Vec<Arc<Value>>,
    /// Pods being deleted and not finished, counted from 1.29 (`JobPodReplacementPolicy`).
    pub(super) terminating: Option<i64>,
    pub(super) ready: i64,
    /// The uids `status.uncountedTerminatedPods` holds.
    pub(super) uncounted_succeeded: HashSet<String>,
    pub(super) uncounted_failed: HashSet<String>,
    pub(super) succeeded: i64,
    pub(super) finished: Option<Condition>,
    pub(super) previous_indexes: Intervals,
    pub(super) succeeded_indexes: Intervals,
    /// The backoff record with this sync's newly finished pods (`newBackoffRecord`).
    pub(super) backoff: JobBackoff,
    /// With a backoff limit per index: the failed indexes, and each index's failed pod kept
    /// until its replacement is made (`podsWithDelayedDeletionPerIndex`).
    pub(super) failed_indexes: Option<Intervals>,
    pub(super) delayed: BTreeMap<i64, Arc<Value>>,
    pub(super) minor: u32,
}

/// The key of the Job's records: `namespace/name`.
pub(super) fn key(job: &Value) -> String {
    format!("{}/{}", object::namespace(job), object::name(job))
}

/// Whether a `Complete` or `Failed` condition is true (`IsJobFinished`).
pub(super) fn is_finished(job: &Value) -> bool {
    true_condition(job, "Complete").is_some() || true_condition(job, "Failed").is_some()
}

pub(super) fn tracked(pod: &Value) -> bool {
    object::finalizers(pod).iter().any(|f| f == TRACKING_FINALIZER)
}

pub(super) fn is_indexed(job: &Value) -> bool {
    job.pointer("/spec/completionMode").and_then(Value::as_str) == Some("Indexed")
}

/// `onlyReplaceFailedPods`: a pod failure policy, or from 1.29 `podReplacementPolicy: Failed`.
pub(super) fn only_replace_failed(job: &Value, minor: u32) -> bool {
    job.pointer("/spec/podFailurePolicy").is_some_and(|p| !p.is_null())
        || (minor >= 29 && job.pointer("/spec/podReplacementPolicy").and_then(Value::as_str) == Some("Failed"))
}

/// `isPodFailed`: failed, or (unless only failed pods are replaced) being deleted unsucceeded.
pub(super) fn is_pod_failed(pod: &Value, job: &Value, minor: u32) -> bool {
    phase(pod) == "Failed"
        || (!only_replace_failed(job, minor) && object::is_deleting(pod) && phase(pod) != "Succeeded")
}

/// `CountTerminatingPods`: being deleted and not finished.
pub(super) fn is_terminating(pod: &Value) -> bool {
    object::is_deleting(pod) && !pod_control::is_finished(pod)
}

/// `delayTerminalCondition` (1.31): `FailureTarget` and `SuccessCriteriaMet` come before
/// `Failed` and `Complete`, which wait for the terminating pods.
pub(super) fn delays_terminal_condition(minor: u32) -> bool {
    minor >= 31
}

/// Writes a counter Go omits when zero.
pub(super) fn set_count(status: &mut Value, key: &str, value: i64) {
    if value == 0 {
        status.as_object_mut().map(|s| s.remove(key));
    } else {
        status[key] = json!(value);
    }
}

/// A Job condition to be written, without its times (`newCondition` stamps them now).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Condition {
    pub(super) kind: String,
    pub(super) reason: String,
    pub(super) message: String,
}

impl Condition {
    pub(super) fn new(kind: &str, reason: &str, message: &str) -> Self {
        Self {
            kind: kind.to_owned(),
            reason: reason.to_owned(),
            message: message.to_owned(),
        }
    }

    /// The condition as the Job already holds it.
    pub(super) fn from_existing(condition: &Value) -> Self {
        let text = |key: &str| condition.get(key).and_then(Value::as_str).unwrap_or("");
        Self::new(text("type"), text("reason"), text("message"))
    }

    /// `newCondition`: true, both times now, reason and message when set.
    pub(super) fn to_value(&self) -> Value {
        condition_value(&self.kind, "True", &self.reason, &self.message)
    }
}

pub(super) fn condition_value(kind: &str, status: &str, reason: &str, message: &str) -> Value {
    let now = object::now();
    let mut condition = json!({"type": kind, "status": status, "lastProbeTime": now, "lastTransitionTime": now});
    if !reason.is_empty() {
        condition["reason"] = json!(reason);
    }
    if !message.is_empty() {
        condition["message"] = json!(message);
    }
    condition
}

/// The Job's condition of this type, if it is true.
pub(super) fn true_condition<'a>(job: &'a Value, kind: &str) -> Option<&'a Value> {
    let conditions = job.pointer("/status/conditions").and_then(Value::as_array)?;
    conditions.iter().find(|c| {
        c.get("type").and_then(Value::as_str) == Some(kind) && c.get("status").and_then(Value::as_str) == Some("True")
    })
}
