//! kube-controller-manager's TTL-after-finished controller
//! (`pkg/controller/ttlafterfinished/ttlafterfinished_controller.go`: `addJob`, `updateJob`,
//! `processJob`, `processTTL`, `needsCleanup`, `jobFinishTime`): a finished Job with
//! `ttlSecondsAfterFinished` is deleted, with foreground propagation, that many seconds after
//! its `Complete` or `Failed` condition turned true.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::lifecycle::job_context::{is_finished, true_condition};
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::{Pending, Timer};
use crate::storage::resource::ResourceInfo;

/// The informers' reaction to a Job written: one that needs cleaning up is processed.
pub(super) fn on_change(info: &ResourceInfo, job: &Value) -> Option<Pending> {
    let concerned = info.builtin && info.group == "batch" && info.plural == "jobs";
    (concerned && !object::is_deleting(job) && needs_cleanup(job)).then(|| Pending::Deadline {
        timer: Timer::JobTtl,
        namespace: object::namespace(job).to_owned(),
        name: object::name(job).to_owned(),
        due: SystemTime::now(),
    })
}

/// `needsCleanup`: a TTL and a finished Job.
fn needs_cleanup(job: &Value) -> bool {
    job.pointer("/spec/ttlSecondsAfterFinished")
        .is_some_and(|ttl| !ttl.is_null())
        && is_finished(job)
}

/// `processJob`: a Job whose TTL has run out is deleted in the foreground; one whose TTL has
/// not is looked at again when it will have.
pub(super) fn process(state: &mut State, namespace: &str, name: &str) {
    let info = state.info("batch", "v1", "jobs");
    let Some(job) = state.object(&info, Some(namespace), name) else {
        return;
    };
    if object::is_deleting(&job) || !needs_cleanup(&job) {
        return;
    }
    let Some(expires) = expiry(&job) else {
        tracing::debug!(namespace, name, "the finished Job has no finish time");
        return;
    };
    let left = expires - object::timestamp_seconds(&object::now()).unwrap_or(0);
    if left > 0 {
        state.pending.push(Pending::Deadline {
            timer: Timer::JobTtl,
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            due: SystemTime::now() + Duration::from_secs(left as u64),
        });
        return;
    }
    state.delete_object(&info, Some(namespace), name, Some("Foreground"));
}

/// `getFinishAndExpireTime`: when the ending condition turned true, plus the TTL, in Unix seconds.
fn expiry(job: &Value) -> Option<i64> {
    let condition = true_condition(job, "Complete").or_else(|| true_condition(job, "Failed"))?;
    let finished = object::timestamp_seconds(condition.get("lastTransitionTime")?.as_str()?)?;
    let ttl = job.pointer("/spec/ttlSecondsAfterFinished").and_then(Value::as_i64)?;
    Some(finished + ttl)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_a_finished_job_with_a_ttl_should_be_cleaned_up() {
        let complete = json!({"type": "Complete", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"});
        let job = json!({"spec": {"ttlSecondsAfterFinished": 30}, "status": {"conditions": [complete]}});
        assert!(needs_cleanup(&job));
        assert_eq!(expiry(&job), Some(1_767_225_630));
        assert!(!needs_cleanup(
            &json!({"spec": {}, "status": {"conditions": [complete]}})
        ));
        assert!(!needs_cleanup(
            &json!({"spec": {"ttlSecondsAfterFinished": 0}, "status": {}})
        ));
    }
}
