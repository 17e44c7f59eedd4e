//! kube-controller-manager's Job controller (`pkg/controller/job/job_controller.go` of v1.28 and
//! v1.31): the informers' handlers and `syncJob` — the pods claimed, the finished ones found,
//! what ends the Job (a `FailJob` rule, the backoff limit, the active deadline, 1.31's success
//! policy), the active pods deleted when it ends or else `manageJob`, the `Suspended` condition,
//! and the status written by `trackJobStatusAndRemoveFinalizers` (`job_tracking`). Go's
//! expectations are not needed: a sync here sees its own writes at once.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::lifecycle::controller_refs::{self, Owner};
use crate::lifecycle::disruption_status::is_pod_ready;
use crate::lifecycle::events;
use crate::lifecycle::job_backoff;
use crate::lifecycle::job_context::{
    COMPONENT, Condition, JobCtx, delays_terminal_condition, is_finished, is_indexed, is_pod_failed, is_terminating,
    key, set_count, tracked, true_condition,
};
use crate::lifecycle::job_failure_policy::match_policy;
use crate::lifecycle::job_index_backoff;
use crate::lifecycle::job_indexes::{self, Intervals};
use crate::lifecycle::job_manage;
use crate::lifecycle::job_tracking;
use crate::lifecycle::pod_control::{self, phase};
use crate::storage::object;
use crate::storage::pending::{MAX_RETRIES, Pending, Timer};
use crate::storage::resource::ResourceInfo;
use crate::storage::{JobBackoff, State};

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
        ("batch", "jobs") if !object::is_deleting(object) && !is_finished(object) => Some(sync(object::name(object))),
        ("", "pods") => controller_refs::controller_named(object, "Job").map(sync),
        _ => None,
    }
}

fn count(job: &Value, pointer: &str) -> i64 {
    job.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// `syncJob`.
pub(super) fn sync(state: &mut State, namespace: &str, name: &str, retry: u32) {
    let info = state.info("batch", "v1", "jobs");
    let Some(stored) = state.object(&info, Some(namespace), name) else {
        state.job_backoff.remove(&format!("{namespace}/{name}"));
        return;
    };
    if is_finished(&stored) {
        state.job_backoff.remove(&key(&stored));
        return;
    }
    if !matches!(
        stored.pointer("/spec/completionMode").and_then(Value::as_str),
        None | Some("NonIndexed" | "Indexed")
    ) {
        let message = "Skipped Job sync because completion mode is unknown";
        events::warn(state, &info, &stored, "UnknownCompletionMode", message, COMPONENT);
        return;
    }
    let minor = state.options.minor();
    let mut job = (*stored).clone();
    if !job["status"].is_object() {
        job["status"] = json!({});
    }
    if job["status"]["uncountedTerminatedPods"].is_null() {
        job["status"]["uncountedTerminatedPods"] = json!({});
    }
    let pods = pods_for_job(state, &stored);
    let active: Vec<Arc<Value>> = pods.iter().filter(|p| pod_control::is_active(p)).cloned().collect();
    // `JobPodReplacementPolicy`, beta from 1.29.
    let tracks_terminating = minor >= 29;
    let uids = |key: &str| -> HashSet<String> {
        let list = job
            .pointer(&format!("/status/uncountedTerminatedPods/{key}"))
            .and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    let mut ctx = JobCtx {
        terminating: tracks_terminating.then(|| pods.iter().filter(|p| is_terminating(p)).count() as i64),
        ready: active.iter().filter(|p| is_pod_ready(p)).count() as i64,
        uncounted_succeeded: uids("succeeded"),
        uncounted_failed: uids("failed"),
        pods,
        active,
        succeeded: 0,
        finished: None,
        previous_indexes: Intervals::default(),
        succeeded_indexes: Intervals::default(),
        backoff: JobBackoff::default(),
        failed_indexes: None,
        delayed: BTreeMap::new(),
        minor,
        job,
    };
    let new_succeeded_pods = valid_pods(&ctx, &ctx.uncounted_succeeded, |p| phase(p) == "Succeeded");
    let new_failed = valid_pods(&ctx, &ctx.uncounted_failed, |p| is_pod_failed(p, &ctx.job, minor));
    let not_ignored = new_failed
        .iter()
        .filter(|p| match_policy(&ctx.job, p, minor).counts)
        .count() as i64;
    let new_succeeded = new_succeeded_pods.len() as i64;
    let backoff = job_backoff::new_record(
        state.job_backoff.get(&key(&stored)),
        &new_succeeded_pods,
        &new_failed,
        minor,
    );
    ctx.backoff = backoff;
    ctx.succeeded = count(&ctx.job, "/status/succeeded") + new_succeeded + ctx.uncounted_succeeded.len() as i64;
    let failed = count(&ctx.job, "/status/failed") + not_ignored + ctx.uncounted_failed.len() as i64;
    let suspended = ctx.job.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true);
    if ctx.job["status"].get("startTime").is_none() && !suspended {
        ctx.job["status"]["startTime"] = json!(object::now());
    }

    ctx.finished = finishing_condition(state, &ctx, failed, suspended);
    if is_indexed(&ctx.job) {
        let (previous, succeeded) = job_indexes::succeeded_indexes(&ctx.job, &ctx.pods, tracked);
        ctx.succeeded = succeeded.total();
        (ctx.previous_indexes, ctx.succeeded_indexes) = (previous, succeeded);
        if job_index_backoff::applies(&ctx.job, minor) {
            let failed = job_index_backoff::failed_indexes(&ctx.job, &ctx.pods, minor);
            let max_failed = ctx.job.pointer("/spec/maxFailedIndexes").and_then(Value::as_i64);
            let completions = job_indexes::completions(&ctx.job);
            if ctx.finished.is_none() {
                if max_failed.is_some_and(|max| failed.total() > max) {
                    let message = "Job has exceeded the specified maximal number of failed indexes";
                    ctx.finished = Some(failure_condition(minor, "MaxFailedIndexesExceeded", message));
                } else if failed.total() > 0 && failed.total() + ctx.succeeded_indexes.total() >= completions {
                    ctx.finished = Some(failure_condition(minor, "FailedIndexes", "Job has failed indexes"));
                }
            }
            ctx.delayed = job_index_backoff::delayed_deletions(&ctx, &failed);
            ctx.failed_indexes = Some(failed);
        }
        if ctx.finished.is_none() && minor >= 31 {
            ctx.finished = success_policy_met(&ctx.job, &ctx.succeeded_indexes);
        }
    }

    let mut suspend_changed = false;
    let mut active_count = ctx.active.len() as i64;
    let mut manage_failed = false;
    if ctx.finished.is_some() {
        // `deleteActivePods`: the finalizers stay until the pods are counted.
        let deleted_ready = ctx.active.iter().filter(|p| is_pod_ready(p)).count() as i64;
        for pod in ctx.active.clone() {
            pod_control::delete_pod(state, &info, &stored, &pod, COMPONENT);
        }
        if minor >= 31 {
            ctx.terminating = ctx.terminating.map(|t| t + active_count);
            ctx.ready -= deleted_ready;
        }
        active_count = 0;
    } else {
        let mut managed = false;
        if !object::is_deleting(&stored) {
            let outcome = job_manage::manage(state, &info, &stored, &ctx);
            (active_count, manage_failed, managed) = (outcome.active, outcome.failed, true);
        }
        let complete = match ctx.job.pointer("/spec/completions").and_then(Value::as_i64) {
            None => ctx.succeeded > 0 && active_count == 0,
            Some(completions) => ctx.succeeded >= completions && active_count == 0,
        };
        if complete {
            ctx.finished = Some(success_condition(minor));
        } else if managed {
            suspend_changed = suspension_condition(state, &info, &stored, &mut ctx.job, suspended);
        }
    }
    // A pod that could not be made (its ServiceAccount not there yet, a quota) is tried again
    // after the rate limiter's backoff.
    if manage_failed && retry < MAX_RETRIES {
        state.pending.push(Pending::SyncJob {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            retry: retry + 1,
        });
    }

    let status = &mut ctx.job["status"];
    let needs_update = suspend_changed
        || active_count != status.get("active").and_then(Value::as_i64).unwrap_or(0)
        || status.get("ready").and_then(Value::as_i64) != Some(ctx.ready)
        || status.get("terminating").and_then(Value::as_i64) != ctx.terminating;
    set_count(status, "active", active_count);
    status["ready"] = json!(ctx.ready);
    match ctx.terminating {
        Some(terminating) => status["terminating"] = json!(terminating),
        None => drop(status.as_object_mut().map(|s| s.remove("terminating"))),
    }
    job_tracking::track(state, &info, &stored, &mut ctx, needs_update);
}

/// `getPodsForJob`: every pod of the namespace the Job controls or may adopt.
fn pods_for_job(state: &mut State, job: &Arc<Value>) -> Vec<Arc<Value>> {
    let pods_info = state.info("", "v1", "pods");
    let owner = Owner {
        api_version: "batch/v1",
        kind: "Job",
        object: job,
    };
    let candidates = state.objects_in("", "pods", object::namespace(job));
    controller_refs::claim(state, &pods_info, &owner, candidates)
}

/// `getValidPodsWithFilter`: tracked pods not yet uncounted (with a valid index for an
/// `Indexed` Job) that pass `filter`.
fn valid_pods<'a>(
    ctx: &'a JobCtx,
    uncounted: &HashSet<String>,
    filter: impl Fn(&Value) -> bool,
) -> Vec<&'a Arc<Value>> {
    let completions = job_indexes::completions(&ctx.job);
    ctx.pods
        .iter()
        .filter(|p| tracked(p) && !uncounted.contains(object::uid(p)))
        .filter(|p| !is_indexed(&ctx.job) || job_indexes::has_valid_index(p, completions))
        .filter(|p| filter(p))
        .collect()
}

/// What ends the Job, if anything: 1.31's `SuccessCriteriaMet` already written, a
/// `FailureTarget` already written or a `FailJob` rule matching a failed pod, the backoff limit,
/// or the active deadline — which, not reached yet, brings the Job back when it is.
fn finishing_condition(state: &mut State, ctx: &JobCtx, failed: i64, suspended: bool) -> Option<Condition> {
    let (job, minor) = (&ctx.job, ctx.minor);
    if minor >= 31
        && let Some(met) = true_condition(job, "SuccessCriteriaMet")
    {
        return Some(Condition::from_existing(met));
    }
    if let Some(target) = true_condition(job, "FailureTarget") {
        // `newFailedConditionForFailureTarget`.
        let mut failed = Condition::from_existing(target);
        failed.kind = "Failed".to_owned();
        return Some(failed);
    }
    let fail_job = ctx
        .pods
        .iter()
        .filter(|p| is_pod_failed(p, job, minor))
        .find_map(|p| match_policy(job, p, minor).fail_job);
    if let Some(message) = fail_job {
        return Some(Condition::new("FailureTarget", "PodFailurePolicy", &message));
    }
    let failure = |reason: &str, message: &str| Some(failure_condition(minor, reason, message));
    let backoff_limit = job.pointer("/spec/backoffLimit").and_then(Value::as_i64).unwrap_or(6);
    if failed > backoff_limit || past_backoff_limit_on_failure(job, &ctx.pods) {
        return failure("BackoffLimitExceeded", "Job has reached the specified backoff limit");
    }
    let deadline = job.pointer("/spec/activeDeadlineSeconds").and_then(Value::as_i64);
    let started = job
        .pointer("/status/startTime")
        .and_then(Value::as_str)
        .and_then(object::timestamp_seconds);
    if let (Some(deadline), Some(started), false) = (deadline, started, suspended) {
        let remaining = started + deadline - pod_control::now_seconds();
        if remaining <= 0 {
            return failure("DeadlineExceeded", "Job was active longer than specified deadline");
        }
        let due = SystemTime::now() + Duration::from_secs(remaining as u64);
        state.pending.push(Pending::Deadline {
            timer: Timer::JobSync,
            namespace: object::namespace(job).to_owned(),
            name: object::name(job).to_owned(),
            due,
        });
    }
    None
}

/// `newFailureCondition`: 1.31's interim `FailureTarget`, else `Failed`.
fn failure_condition(minor: u32, reason: &str, message: &str) -> Condition {
    let kind = if delays_terminal_condition(minor) {
        "FailureTarget"
    } else {
        "Failed"
    };
    Condition::new(kind, reason, message)
}

/// `pastBackoffLimitOnFailure`: with `restartPolicy: OnFailure`, the restarts of the pending and
/// running pods' containers reach the backoff limit.
fn past_backoff_limit_on_failure(job: &Value, pods: &[Arc<Value>]) -> bool {
    if job.pointer("/spec/template/spec/restartPolicy").and_then(Value::as_str) != Some("OnFailure") {
        return false;
    }
    let restarts: i64 = pods
        .iter()
        .filter(|p| matches!(phase(p), "Running" | "Pending"))
        .flat_map(|p| {
            ["initContainerStatuses", "containerStatuses"]
                .into_iter()
                .filter_map(|list| p.pointer(&format!("/status/{list}")).and_then(Value::as_array))
                .flatten()
                .filter_map(|s| s.get("restartCount").and_then(Value::as_i64))
                .collect::<Vec<_>>()
        })
        .sum();
    match job.pointer("/spec/backoffLimit").and_then(Value::as_i64).unwrap_or(6) {
        0 => restarts > 0,
        limit => restarts >= limit,
    }
}

/// `newSuccessCondition`: 1.31's interim `SuccessCriteriaMet` with `CompletionsReached`, else
/// `Complete` without a reason.
fn success_condition(minor: u32) -> Condition {
    if delays_terminal_condition(minor) {
        Condition::new(
            "SuccessCriteriaMet",
            "CompletionsReached",
            "Reached expected number of succeeded pods",
        )
    } else {
        Condition::new("Complete", "", "")
    }
}

/// `matchSuccessPolicy` (1.31, `success_policy.go`): the first rule whose indexes all succeeded,
/// or whose count of succeeded indexes (among its own, if it names any) is reached.
fn success_policy_met(job: &Value, succeeded: &Intervals) -> Option<Condition> {
    let rules = job.pointer("/spec/successPolicy/rules").and_then(Value::as_array)?;
    if succeeded.total() == 0 {
        return None;
    }
    let completions = job_indexes::completions(job);
    rules.iter().enumerate().find_map(|(index, rule)| {
        let wanted = rule.get("succeededCount").and_then(Value::as_i64);
        let met = match rule.get("succeededIndexes").and_then(Value::as_str) {
            Some(text) => {
                let required = Intervals::parse(text, completions);
                let contained = required.overlap(succeeded);
                required.total() > 0 && (contained == required.total() || wanted.is_some_and(|w| contained >= w))
            }
            None => wanted.is_some_and(|w| succeeded.total() >= w),
        };
        let message = format!("Matched rules at index {index}");
        met.then(|| Condition::new("SuccessCriteriaMet", "SuccessPolicy", &message))
    })
}

/// The `Suspended` condition `syncJob` keeps after `manageJob` ran, with its event; a resumed
/// Job starts its clock again. Whether the condition changed.
fn suspension_condition(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    stored: &Value,
    job: &mut Value,
    suspended: bool,
) -> bool {
    let status = &mut job["status"];
    let (wanted, reason, message, event) = if suspended {
        ("True", "JobSuspended", "Job suspended", "Suspended")
    } else {
        ("False", "JobResumed", "Job resumed", "Resumed")
    };
    if !job_tracking::ensure_condition(status, "Suspended", wanted, reason, message) {
        return false;
    }
    events::record(state, info, stored, "Normal", event, message, COMPONENT);
    if !suspended {
        status["startTime"] = json!(object::now());
    }
    true
}
