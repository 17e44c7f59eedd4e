//! kube-controller-manager's Job controller for a suspended Job (`pkg/controller/job/job_controller.go`:
//! `syncJob` with `manageJob` creating nothing, `ensureJobConditionStatus`, the `Suspended`
//! event). A Job written with `spec.suspend` gets the `Suspended` condition and the counters the
//! controller always writes. A running Job is `job_running`'s.

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_refs;
use crate::lifecycle::events;
use crate::lifecycle::job_running::{self, COMPONENT};
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::ResourceInfo;

/// The informers' reaction to a write or removal: a Job that has not finished is synced, and so
/// is the Job controlling a pod.
pub(super) fn on_change(info: &ResourceInfo, object: &Value) -> Option<Pending> {
    if !info.builtin {
        return None;
    }
    let sync = |name: &str| Pending::SyncJob {
        namespace: object::namespace(object).to_owned(),
        name: name.to_owned(),
        retry: 0,
    };
    match (info.group.as_str(), info.plural.as_str()) {
        ("batch", "jobs") if !object::is_deleting(object) && !finished(object) => Some(sync(object::name(object))),
        ("", "pods") => controller_refs::controller_named(object, "Job").map(sync),
        _ => None,
    }
}

/// `syncJob` of a suspended Job: the condition, then the status update when anything changed.
pub(super) fn sync(state: &mut State, namespace: &str, name: &str, retry: u32) {
    let info = state.info("batch", "v1", "jobs");
    let Some(job) = state.object(&info, Some(namespace), name) else {
        return;
    };
    if finished(&job) || object::is_deleting(&job) {
        return;
    }
    if job.pointer("/spec/suspend").and_then(Value::as_bool) != Some(true) {
        return job_running::sync(state, &info, &job, retry);
    }
    let minor = state.options.minor();
    let (updated, condition_changed) = suspended_status(&job, &object::now(), minor);
    if updated == *job {
        return;
    }
    match state.update_object(&info, job, updated, Some(CONTROLLER_MANAGER), Some("status")) {
        Ok(stored) if condition_changed => {
            events::record(state, &info, &stored, "Normal", "Suspended", "Job suspended", COMPONENT);
        }
        Ok(_) => {}
        Err(status) => tracing::warn!(namespace, name, %status, "could not update the Job's status"),
    }
}

/// Whether a `Complete` or `Failed` condition is true.
fn finished(job: &Value) -> bool {
    let conditions = job.pointer("/status/conditions").and_then(Value::as_array);
    conditions.into_iter().flatten().any(|c| {
        matches!(c.get("type").and_then(Value::as_str), Some("Complete" | "Failed"))
            && c.get("status").and_then(Value::as_str) == Some("True")
    })
}

/// The Job with the status `syncJob` writes for it suspended, and whether the condition changed
/// (`ensureJobConditionStatus`: a `Suspended` condition of other status, reason or message is
/// replaced, with both times now).
fn suspended_status(job: &Value, now: &str, minor: u32) -> (Value, bool) {
    let mut updated = job.clone();
    let condition = json!({"type": "Suspended", "status": "True", "lastProbeTime": now,
        "lastTransitionTime": now, "reason": "JobSuspended", "message": "Job suspended"});
    let same = |c: &Value| {
        ["status", "reason", "message"]
            .iter()
            .all(|k| c.get(*k) == condition.get(*k))
    };
    if !updated["status"].is_object() {
        updated["status"] = json!({});
    }
    let status = &mut updated["status"];
    if !status["conditions"].is_array() {
        status["conditions"] = json!([]);
    }
    let mut changed = true;
    if let Some(list) = status["conditions"].as_array_mut() {
        match list.iter_mut().find(|c| c["type"] == "Suspended") {
            Some(existing) if same(existing) => changed = false,
            Some(existing) => *existing = condition,
            None => list.push(condition),
        }
    }
    // The counters every sync writes: `ready` (JobReadyPods), `terminating` from 1.29
    // (JobPodReplacementPolicy), and the uncounted pods' record.
    if status.get("ready").is_none() {
        status["ready"] = json!(0);
    }
    if minor >= 29 && status.get("terminating").is_none() {
        status["terminating"] = json!(0);
    }
    if status.get("uncountedTerminatedPods").is_none() {
        status["uncountedTerminatedPods"] = json!({});
    }
    (updated, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suspended_job_should_get_the_condition_once() {
        let job = json!({"spec": {"suspend": true}, "status": {}});
        let (updated, changed) = suspended_status(&job, "t", 31);
        assert!(changed);
        assert_eq!(updated["status"]["conditions"][0]["reason"], "JobSuspended");
        assert_eq!(updated["status"]["terminating"], 0);
        let (again, changed) = suspended_status(&updated, "later", 31);
        assert!(!changed);
        assert_eq!(again, updated, "nothing left to write");
        let (old, _) = suspended_status(&job, "t", 28);
        assert!(old["status"].get("terminating").is_none());
    }

    #[test]
    fn a_resumed_condition_should_be_replaced_when_suspended_again() {
        let job = json!({"spec": {"suspend": true}, "status": {"conditions": [
            {"type": "Suspended", "status": "False", "reason": "JobResumed", "message": "Job resumed"}]}});
        let (updated, changed) = suspended_status(&job, "t", 28);
        assert!(changed);
        assert_eq!(updated["status"]["conditions"].as_array().unwrap().len(), 1);
        assert_eq!(updated["status"]["conditions"][0]["status"], "True");
    }
}
