//! kube-controller-manager's Job controller for a running `NonIndexed` Job
//! (`pkg/controller/job/job_controller.go`: `syncJob`, `manageJob`, `deleteActivePods`,
//! `trackJobStatusAndRemoveFinalizers`, `flushUncountedAndRemoveFinalizers`, `enactJobFinished`,
//! `recordJobFinished`, `ensureJobConditionStatus`). Its pods come from the template with the
//! `batch.kubernetes.io/job-tracking` finalizer, in slow-start batches, as many as the
//! parallelism and the remaining completions want; a finished pod is counted (`succeeded`,
//! `failed`) and loses the finalizer; enough successes complete the Job, more failures than the
//! backoff limit fail it (its active pods deleted). From 1.31 the interim `SuccessCriteriaMet` or
//! `FailureTarget` condition comes first and completions have a reason. One sync does what Go's
//! does in its successive status writes; indexed Jobs, pod failure policies, active deadlines and
//! the restart backoff are not emulated.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_refs::{self, Owner};
use crate::lifecycle::disruption_status::is_pod_ready;
use crate::lifecycle::events;
use crate::lifecycle::pod_control::{self, phase};
use crate::lifecycle::writes::{Writes, drop_finalizer};
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::{MAX_RETRIES, Pending};
use crate::storage::resource::ResourceInfo;

/// The event source of the Job controller's recorder.
pub(super) const COMPONENT: &str = "job-controller";

/// The finalizer a Job's pods keep until their end is counted (`batch.JobTrackingFinalizer`).
const TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";

/// `maxPodCreateDeletePerSync`.
const MAX_PER_SYNC: i64 = 500;

fn count(job: &Value, pointer: &str) -> i64 {
    job.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

fn tracked(pod: &Value) -> bool {
    object::finalizers(pod).iter().any(|f| f == TRACKING_FINALIZER)
}

/// How a Job ends: the condition's type, reason and message, and the interim condition 1.31
/// writes first.
struct Finish {
    kind: &'static str,
    interim: &'static str,
    reason: &'static str,
    message: &'static str,
}

/// `newCondition`.
fn condition(kind: &str, status: &str, reason: &str, message: &str) -> Value {
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

/// `ensureJobConditionStatus`: a condition of the type replaced when it says otherwise, added
/// when missing unless it would be false. Whether anything changed.
fn ensure_condition(status: &mut Value, kind: &str, wanted: &str, reason: &str, message: &str) -> bool {
    if !status["conditions"].is_array() {
        status["conditions"] = json!([]);
    }
    let Some(conditions) = status["conditions"].as_array_mut() else {
        return false;
    };
    let text = |c: &Value, key: &str| c.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    let changed = match conditions.iter_mut().find(|c| c["type"] == kind) {
        Some(existing)
            if text(existing, "status") == wanted
                && text(existing, "reason") == reason
                && text(existing, "message") == message =>
        {
            false
        }
        Some(existing) => {
            *existing = condition(kind, wanted, reason, message);
            true
        }
        None if wanted != "False" => {
            conditions.push(condition(kind, wanted, reason, message));
            true
        }
        None => false,
    };
    if conditions.is_empty() {
        status.as_object_mut().map(|s| s.remove("conditions"));
    }
    changed
}

/// `syncJob` of a Job that is neither suspended nor finished.
pub(super) fn sync(state: &mut State, info: &Arc<ResourceInfo>, job: &Arc<Value>, retry: u32) {
    let minor = state.options.minor();
    let namespace = object::namespace(job).to_owned();
    let pods_info = state.info("", "v1", "pods");
    let owner = Owner {
        api_version: "batch/v1",
        kind: "Job",
        object: job,
    };
    let candidates = state.objects_in("", "pods", &namespace);
    let pods = controller_refs::claim(state, &pods_info, &owner, candidates);
    let active: Vec<&Arc<Value>> = pods.iter().filter(|pod| pod_control::is_active(pod)).collect();
    let ready = active.iter().filter(|pod| is_pod_ready(pod)).count();
    let terminating = pods
        .iter()
        .filter(|pod| object::is_deleting(pod) && !pod_control::is_finished(pod))
        .count();
    // `isPodFailed`: before 1.29 a pod being deleted that did not succeed has failed too.
    let failed_pod =
        |pod: &Value| phase(pod) == "Failed" || (minor < 29 && object::is_deleting(pod) && phase(pod) != "Succeeded");
    let new_succeeded = pods.iter().filter(|p| tracked(p) && phase(p) == "Succeeded").count() as i64;
    let new_failed = pods.iter().filter(|p| tracked(p) && failed_pod(p)).count() as i64;
    let succeeded = count(job, "/status/succeeded") + new_succeeded;
    let failed = count(job, "/status/failed") + new_failed;

    let mut updated = (**job).clone();
    if !updated["status"].is_object() {
        updated["status"] = json!({});
    }
    if updated["status"].get("startTime").is_none() {
        updated["status"]["startTime"] = json!(object::now());
    }
    let backoff_limit = job.pointer("/spec/backoffLimit").and_then(Value::as_i64).unwrap_or(6);
    let mut finish = (failed > backoff_limit).then_some(Finish {
        kind: "Failed",
        interim: "FailureTarget",
        reason: "BackoffLimitExceeded",
        message: "Job has reached the specified backoff limit",
    });
    let active_count;
    if finish.is_some() {
        for pod in &active {
            pod_control::delete_pod(state, info, job, pod, COMPONENT);
        }
        active_count = 0;
    } else {
        let managed = manage(state, info, job, &active, succeeded);
        active_count = managed.active as i64;
        // A pod that could not be made (its ServiceAccount not there yet, a quota) is tried
        // again after the rate limiter's backoff.
        if managed.failed && retry < MAX_RETRIES {
            state.pending.push(Pending::SyncJob {
                namespace: namespace.clone(),
                name: object::name(job).to_owned(),
                retry: retry + 1,
            });
        }
        let completions = job.pointer("/spec/completions").and_then(Value::as_i64);
        let complete = match completions {
            Some(completions) => succeeded >= completions,
            None => succeeded > 0,
        };
        if active_count == 0 && complete {
            let (reason, message) = if minor >= 31 {
                ("CompletionsReached", "Reached expected number of succeeded pods")
            } else {
                ("", "")
            };
            finish = Some(Finish {
                kind: "Complete",
                interim: "SuccessCriteriaMet",
                reason,
                message,
            });
        } else if ensure_condition(
            &mut updated["status"],
            "Suspended",
            "False",
            "JobResumed",
            "Job resumed",
        ) {
            events::record(state, info, job, "Normal", "Resumed", "Job resumed", COMPONENT);
            updated["status"]["startTime"] = json!(object::now());
        }
    }

    // `trackJobStatusAndRemoveFinalizers`: each finished pod (every pod, once the Job is done) is
    // counted and loses the finalizer.
    for pod in pods.iter().filter(|pod| tracked(pod)) {
        let counts = pod_control::is_finished(pod) || failed_pod(pod) || finish.is_some();
        if !counts {
            continue;
        }
        if let Some(current) = state.object(&pods_info, Some(&namespace), object::name(pod)) {
            drop_finalizer(state, &pods_info, &current, TRACKING_FINALIZER);
        }
    }
    let counted_failed = failed
        + pods
            .iter()
            .filter(|p| tracked(p) && finish.is_some() && !failed_pod(p) && phase(p) != "Succeeded")
            .count() as i64;
    let status = &mut updated["status"];
    for (key, value) in [
        ("succeeded", succeeded),
        ("failed", counted_failed),
        ("active", active_count),
    ] {
        if value == 0 {
            status.as_object_mut().map(|s| s.remove(key));
        } else {
            status[key] = json!(value);
        }
    }
    // From 1.31 the deleted ready pods are taken off the count.
    status["ready"] = json!(if finish.is_some() && minor >= 31 { 0 } else { ready });
    if minor >= 29 {
        status["terminating"] = json!(terminating);
    }
    status["uncountedTerminatedPods"] = json!({});
    if let Some(finish) = &finish {
        if minor >= 31 {
            ensure_condition(status, finish.interim, "True", finish.reason, finish.message);
        }
        ensure_condition(status, finish.kind, "True", finish.reason, finish.message);
        if finish.kind == "Complete" {
            status["completionTime"] = json!(object::now());
        }
    }
    if updated == **job {
        return;
    }
    match state.update_object(info, job.clone(), updated, Some(CONTROLLER_MANAGER), Some("status")) {
        Ok(stored) => match finish {
            Some(Finish { kind: "Complete", .. }) => {
                events::record(state, info, &stored, "Normal", "Completed", "Job completed", COMPONENT);
            }
            Some(finish) => events::record(
                state,
                info,
                &stored,
                "Warning",
                finish.reason,
                finish.message,
                COMPONENT,
            ),
            None => {}
        },
        Err(status) => tracing::debug!(name = object::name(job), %status, "could not update the Job's status"),
    }
}

/// What `manageJob` did: the active count afterwards (the pods asked for counted as Go counts
/// them), and whether a creation failed.
struct Managed {
    active: usize,
    failed: bool,
}

/// `manageJob` of a `NonIndexed` Job: pods created up to what the parallelism and the
/// remaining completions want, or the newest extra ones deleted.
fn manage(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    job: &Arc<Value>,
    active: &[&Arc<Value>],
    succeeded: i64,
) -> Managed {
    let done = |active: usize, failed: bool| Managed { active, failed };
    let parallelism = job.pointer("/spec/parallelism").and_then(Value::as_i64).unwrap_or(1);
    let wanted = match job.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(completions) => parallelism.min(completions - succeeded).max(0),
        // Without completions, once one pod succeeded the running ones are left alone.
        None if succeeded > 0 => active.len() as i64,
        None => parallelism,
    };
    let have = active.len() as i64;
    if have > wanted {
        let extra = (have - wanted).min(MAX_PER_SYNC) as usize;
        let mut ordered: Vec<Arc<Value>> = active.iter().map(|pod| (*pod).clone()).collect();
        pod_control::sort_for_deletion(&mut ordered, &[], pod_control::now_seconds());
        for pod in ordered.iter().take(extra) {
            pod_control::delete_pod(state, info, job, pod, COMPONENT);
        }
        return done(active.len() - extra, false);
    }
    if have == wanted {
        return done(active.len(), false);
    }
    let missing = (wanted - have).min(MAX_PER_SYNC) as usize;
    // The pods carry the tracking finalizer on top of the template's.
    let mut with_finalizer = (**job).clone();
    let finalizers = &mut with_finalizer["spec"]["template"]["metadata"]["finalizers"];
    let mut list = finalizers.as_array().cloned().unwrap_or_default();
    if !list.iter().any(|f| f == TRACKING_FINALIZER) {
        list.push(json!(TRACKING_FINALIZER));
    }
    *finalizers = Value::Array(list);
    let owner = Owner {
        api_version: "batch/v1",
        kind: "Job",
        object: &with_finalizer,
    };
    match pod_control::create_pods(state, info, &owner, missing, COMPONENT) {
        Ok(()) => done(active.len() + missing, false),
        Err(status) => {
            tracing::debug!(name = object::name(job), %status, "could not create the Job's pods");
            done(active.len(), true)
        }
    }
}
