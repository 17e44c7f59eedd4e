//! The CronJob controller's view of its Jobs (`pkg/controller/cronjob/utils.go` of v1.28 and
//! v1.31: `inActiveList`, `deleteFromActiveList`, `getFinishedStatus`, `byJobStartTime`,
//! `getJobFromTemplate2`; `cronjob_controllerv2.go`: the first loop of `syncCronJob`, `getRef`):
//! the active list, which Jobs finished, `lastSuccessfulTime`, and the Job made for a schedule
//! time. `cronjob_controller` writes what these decide.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::controller_refs::Owner;
use crate::lifecycle::cronjob_schedule_times as times;
use crate::lifecycle::job_context::true_condition;
use crate::storage::object;

/// `batch.CronJobScheduledTimestampAnnotation` (`CronJobsScheduledAnnotation`, on from 1.28).
const SCHEDULED_ANNOTATION: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";

/// A string field, or `""`.
pub(super) fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A timestamp in nanoseconds since the epoch.
pub(super) fn time_of(value: Option<&Value>) -> Option<i128> {
    let parsed = value?.as_str()?.parse::<jiff::Timestamp>().ok()?;
    Some(parsed.as_nanosecond())
}

/// `status.active`.
pub(super) fn active(cronjob: &Value) -> &[Value] {
    cronjob
        .pointer("/status/active")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// `inActiveList`: by uid.
pub(super) fn in_active(cronjob: &Value, uid: &str) -> bool {
    active(cronjob).iter().any(|reference| text(reference, "uid") == uid)
}

/// `deleteFromActiveList`: an empty list is omitted.
pub(super) fn remove_active(cronjob: &mut Value, uid: &str) {
    let kept: Vec<Value> = active(cronjob)
        .iter()
        .filter(|r| text(r, "uid") != uid)
        .cloned()
        .collect();
    set_active(cronjob, kept);
}

/// Replaces `status.active`, omitted when empty.
pub(super) fn set_active(cronjob: &mut Value, references: Vec<Value>) {
    let status = &mut cronjob["status"];
    if references.is_empty() {
        if let Some(fields) = status.as_object_mut() {
            fields.remove("active");
        }
    } else {
        status["active"] = Value::Array(references);
    }
}

/// `getFinishedStatus`: the type of the first true `Complete` or `Failed` condition.
pub(super) fn finished_condition(job: &Value) -> Option<&str> {
    let conditions = job.pointer("/status/conditions")?.as_array()?;
    let finished = conditions
        .iter()
        .find(|c| matches!(text(c, "type"), "Complete" | "Failed") && text(c, "status") == "True")?;
    Some(text(finished, "type"))
}

/// `byJobStartTime`: by start time, those without one last, then by name.
pub(super) fn by_start_time(jobs: &mut [&Arc<Value>]) {
    jobs.sort_by_key(|job| {
        let start = time_of(job.pointer("/status/startTime"));
        (start.is_none(), start, object::name(job).to_owned())
    });
}

/// An event `syncCronJob` records about one of its Jobs.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Note {
    pub(super) kind: &'static str,
    pub(super) reason: &'static str,
    pub(super) message: String,
}

/// The first loop of `syncCronJob`, for one Job: an unfinished one missing from the active list
/// is reported (Go re-reads the CronJob from the API first, which is the store read already); a
/// finished one leaves the list with `SawCompletedJob`. `lastSuccessfulTime` follows the Jobs
/// that finished out of the list in 1.28, that succeeded out of it from 1.30
/// (`IsJobSucceeded`), and that succeeded at all from 1.31.
pub(super) fn reconcile_job(cronjob: &mut Value, job: &Value, minor: u32, update: &mut bool) -> Option<Note> {
    let uid = object::uid(job);
    let found = in_active(cronjob, uid);
    let Some(condition) = finished_condition(job) else {
        let message = format!(
            "Saw a job that the controller did not create or forgot: {}",
            object::name(job)
        );
        return (!found).then_some(Note {
            kind: "Warning",
            reason: "UnexpectedJob",
            message,
        });
    };
    let mut note = None;
    if found {
        remove_active(cronjob, uid);
        let label = if minor >= 30 { "condition" } else { "status" };
        let message = format!("Saw completed job: {}, {label}: {condition}", object::name(job));
        note = Some(Note {
            kind: "Normal",
            reason: "SawCompletedJob",
            message,
        });
        *update = true;
    }
    let succeeded = true_condition(job, "Complete").is_some();
    let counted = match minor {
        ..=29 => !found,
        30 => !found && succeeded,
        _ => succeeded,
    };
    if counted {
        record_success(&mut cronjob["status"], job, update);
    }
    note
}

/// `lastSuccessfulTime` set from the Job's completion time when unset (even to nothing, which
/// still counts as a change) or when the Job completed later.
fn record_success(status: &mut Value, job: &Value, update: &mut bool) {
    let completion = job.pointer("/status/completionTime").filter(|t| !t.is_null());
    if object::present(status, "lastSuccessfulTime").is_none() {
        match completion {
            Some(completion) => status["lastSuccessfulTime"] = completion.clone(),
            None => drop(status.as_object_mut().map(|fields| fields.remove("lastSuccessfulTime"))),
        }
        *update = true;
    }
    if let Some(done) = time_of(completion)
        && time_of(status.get("lastSuccessfulTime")).is_some_and(|last| done > last)
        && let Some(completion) = completion
    {
        status["lastSuccessfulTime"] = completion.clone();
        *update = true;
    }
}

/// `getJobFromTemplate2`: the template's labels, annotations (with the scheduled time in the
/// CronJob's zone) and spec, the name of the scheduled minute, the CronJob as controller. The
/// creation timestamp Go sends is the server's to set.
pub(super) fn job_from_template(cronjob: &Value, scheduled: i128, name: &str) -> Value {
    let template = &cronjob["spec"]["jobTemplate"];
    let map = |pointer: &str| {
        template
            .pointer(pointer)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let (labels, mut annotations) = (map("/metadata/labels"), map("/metadata/annotations"));
    let zone = cronjob
        .pointer("/spec/timeZone")
        .and_then(Value::as_str)
        .unwrap_or_default();
    annotations.insert(SCHEDULED_ANNOTATION.to_owned(), json!(times::rfc3339(zone, scheduled)));
    let owner = Owner {
        api_version: "batch/v1",
        kind: "CronJob",
        object: cronjob,
    };
    let mut metadata = json!({"name": name, "namespace": object::namespace(cronjob)});
    if !labels.is_empty() {
        metadata["labels"] = Value::Object(labels);
    }
    metadata["annotations"] = Value::Object(annotations);
    metadata["ownerReferences"] = json!([owner.controller_ref()]);
    let spec = template.get("spec").cloned().unwrap_or_else(|| json!({}));
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec})
}

/// `ref.GetReference` of a Job, as the active list holds it.
pub(super) fn job_reference(job: &Value) -> Value {
    json!({
        "kind": "Job",
        "namespace": object::namespace(job),
        "name": object::name(job),
        "uid": object::uid(job),
        "apiVersion": "batch/v1",
        "resourceVersion": object::resource_version(job),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::cronjob_schedule_times::SECOND;

    const DONE: &str = "2024-01-01T00:05:00Z";

    fn cronjob(active: &[&str]) -> Value {
        let refs: Vec<Value> = active
            .iter()
            .map(|uid| json!({"name": format!("job-{uid}"), "uid": uid}))
            .collect();
        json!({"metadata": {"name": "cj", "namespace": "ns"}, "status": {"active": refs}})
    }

    fn job(uid: &str, condition: Option<&str>, completion: Option<&str>) -> Value {
        let conditions: Vec<Value> = condition
            .into_iter()
            .map(|c| json!({"type": c, "status": "True"}))
            .collect();
        json!({
            "metadata": {"name": format!("job-{uid}"), "uid": uid},
            "status": {"conditions": conditions, "completionTime": completion},
        })
    }

    fn reconcile(cronjob: &mut Value, job: &Value, minor: u32) -> (Option<Note>, bool) {
        let mut update = false;
        let note = reconcile_job(cronjob, job, minor, &mut update);
        (note, update)
    }

    #[test]
    fn a_finished_active_job_should_leave_the_list_and_count_from_1_31() {
        let complete = job("a", Some("Complete"), Some(DONE));
        let mut old = cronjob(&["a", "b"]);
        let (note, update) = reconcile(&mut old, &complete, 28);
        assert!(update);
        assert_eq!(
            note.map(|n| n.message),
            Some("Saw completed job: job-a, status: Complete".to_owned())
        );
        assert_eq!(old["status"], json!({"active": [{"name": "job-b", "uid": "b"}]}));
        let mut new = cronjob(&["a"]);
        let (note, _) = reconcile(&mut new, &complete, 31);
        assert_eq!(
            note.map(|n| n.message),
            Some("Saw completed job: job-a, condition: Complete".to_owned())
        );
        assert_eq!(new["status"], json!({"lastSuccessfulTime": DONE}));
    }

    #[test]
    fn a_failed_job_out_of_the_list_should_only_touch_the_status_in_1_28() {
        let failed = job("a", Some("Failed"), None);
        let (mut old, mut new) = (cronjob(&[]), cronjob(&[]));
        assert_eq!(reconcile(&mut old, &failed, 28), (None, true));
        assert_eq!(old["status"].get("lastSuccessfulTime"), None);
        assert_eq!(reconcile(&mut new, &failed, 31), (None, false));
    }

    #[test]
    fn the_latest_completion_should_be_kept() {
        let mut cj = cronjob(&[]);
        cj["status"]["lastSuccessfulTime"] = json!("2024-01-01T00:10:00Z");
        assert_eq!(
            reconcile(&mut cj, &job("a", Some("Complete"), Some(DONE)), 31),
            (None, false)
        );
        let later = job("b", Some("Complete"), Some("2024-01-01T00:20:00Z"));
        assert_eq!(reconcile(&mut cj, &later, 28), (None, true));
        assert_eq!(cj["status"]["lastSuccessfulTime"], "2024-01-01T00:20:00Z");
    }

    #[test]
    fn a_running_job_missing_from_the_list_should_be_unexpected() {
        let (note, update) = reconcile(&mut cronjob(&[]), &job("a", None, None), 31);
        assert_eq!(note.map(|n| (n.kind, n.reason)), Some(("Warning", "UnexpectedJob")));
        assert!(!update);
        assert_eq!(
            reconcile(&mut cronjob(&["a"]), &job("a", None, None), 31),
            (None, false)
        );
    }

    #[test]
    fn history_should_be_trimmed_from_the_first_started() {
        let started = |name: &str, start: Option<&str>| {
            Arc::new(json!({"metadata": {"name": name}, "status": {"startTime": start}}))
        };
        let jobs = [
            started("b", Some("2024-01-01T00:02:00Z")),
            started("a", None),
            started("c", Some("2024-01-01T00:01:00Z")),
            started("a2", Some("2024-01-01T00:01:00Z")),
        ];
        let mut sorted: Vec<&Arc<Value>> = jobs.iter().collect();
        by_start_time(&mut sorted);
        let names: Vec<&str> = sorted.iter().map(|job| object::name(job)).collect();
        assert_eq!(names, ["a2", "c", "b", "a"]);
    }

    #[test]
    fn a_job_should_be_made_from_the_template() {
        let cj = json!({
            "metadata": {"name": "hello", "namespace": "ns", "uid": "u1"},
            "spec": {"timeZone": "Europe/Berlin", "jobTemplate": {
                "metadata": {"annotations": {"note": "x"}},
                "spec": {"backoffLimit": 2},
            }},
        });
        let scheduled = 1_704_096_000 * SECOND;
        let name = times::job_name("hello", scheduled);
        assert_eq!(name, "hello-28401600");
        let job = job_from_template(&cj, scheduled, &name);
        assert_eq!(job["metadata"].get("labels"), None);
        assert_eq!(
            job["metadata"]["annotations"],
            json!({"note": "x", SCHEDULED_ANNOTATION: "2024-01-01T09:00:00+01:00"})
        );
        let owner = json!({"apiVersion": "batch/v1", "kind": "CronJob", "name": "hello", "uid": "u1",
            "controller": true, "blockOwnerDeletion": true});
        assert_eq!(job["metadata"]["ownerReferences"], json!([owner]));
        assert_eq!(job["spec"], json!({"backoffLimit": 2}));
    }
}
