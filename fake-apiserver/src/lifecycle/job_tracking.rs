//! How kube-controller-manager's Job controller writes a Job's status
//! (`pkg/controller/job/job_controller.go`: `trackJobStatusAndRemoveFinalizers`,
//! `flushUncountedAndRemoveFinalizers`, `cleanUncountedPodsWithoutFinalizers`,
//! `canRemoveFinalizer`, `enactJobFinished`, `recordJobFinished`, `ensureJobConditionStatus`):
//! each finished pod's uid goes to `uncountedTerminatedPods` (an `Indexed` Job's success to
//! `completedIndexes`) and is flushed, the pods lose the tracking finalizer, the counters take
//! them over, and the ending condition is added once nothing is left uncounted — the interim
//! `FailureTarget` or `SuccessCriteriaMet` first.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::events;
use crate::lifecycle::job_context::{
    self, COMPONENT, Condition, JobCtx, TRACKING_FINALIZER, condition_value, delays_terminal_condition, is_indexed,
    is_pod_failed, set_count, tracked, true_condition,
};
use crate::lifecycle::job_failure_policy::match_policy;
use crate::lifecycle::job_indexes;
use crate::lifecycle::pod_control::phase;
use crate::lifecycle::writes::{Writes, drop_finalizer};
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// `ensureJobConditionStatus`: a condition of the type replaced when it says otherwise, added
/// when missing unless it would be false. Whether anything changed.
pub(super) fn ensure_condition(status: &mut Value, kind: &str, wanted: &str, reason: &str, message: &str) -> bool {
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
            *existing = condition_value(kind, wanted, reason, message);
            true
        }
        None if wanted != "False" => {
            conditions.push(condition_value(kind, wanted, reason, message));
            true
        }
        None => false,
    };
    if conditions.is_empty() {
        status.as_object_mut().map(|s| s.remove("conditions"));
    }
    changed
}

/// `trackJobStatusAndRemoveFinalizers`.
pub(super) fn track(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    stored: &Arc<Value>,
    ctx: &mut JobCtx,
    mut needs_flush: bool,
) {
    let indexed = is_indexed(&ctx.job);
    let completions = job_indexes::completions(&ctx.job);
    let mut pods = ctx.pods.clone();
    if indexed {
        pods.sort_by_key(|pod| job_indexes::completion_index(pod).unwrap_or(-1));
    }
    let mut with_finalizer: HashSet<String> = pods
        .iter()
        .filter(|p| tracked(p))
        .map(|p| object::uid(p).to_owned())
        .collect();
    needs_flush |= clean_uncounted(&mut ctx.job["status"], &with_finalizer);
    let mut to_release = Vec::new();
    let mut new_indexes = Vec::new();
    let succeeded_by_policy = ctx.finished.as_ref().is_some_and(|c| c.kind == "SuccessCriteriaMet");
    for pod in pods.iter().filter(|p| tracked(p)) {
        let failed = is_pod_failed(pod, &ctx.job, ctx.minor);
        if !can_release(ctx, stored, pod, failed) {
            continue;
        }
        to_release.push(pod.clone());
        let uid = object::uid(pod);
        if phase(pod) == "Succeeded" && !ctx.uncounted_failed.contains(uid) {
            if indexed {
                // The index is enough not to count a success twice.
                if let Some(index) = job_indexes::completion_index(pod).filter(|i| *i < completions)
                    && !ctx.previous_indexes.has(index)
                {
                    new_indexes.push(index);
                    needs_flush = true;
                }
            } else if !ctx.uncounted_succeeded.contains(uid) {
                needs_flush = true;
                add_uncounted(&mut ctx.job, "succeeded", uid);
            }
        } else if (failed || (ctx.finished.is_some() && !succeeded_by_policy))
            && !ctx.uncounted_failed.contains(uid)
            && (!indexed || job_indexes::has_valid_index(pod, completions))
            && match_policy(&ctx.job, pod, ctx.minor).counts
        {
            // Once the Job ends every pod not finished counts as failed.
            needs_flush = true;
            add_uncounted(&mut ctx.job, "failed", uid);
        }
    }
    if indexed {
        ctx.succeeded_indexes = ctx.succeeded_indexes.with_indexes(&new_indexes);
        let text = ctx.succeeded_indexes.to_string();
        let status = &mut ctx.job["status"];
        needs_flush |= status.get("completedIndexes").and_then(Value::as_str).unwrap_or("") != text;
        set_count(status, "succeeded", ctx.succeeded_indexes.total());
        if text.is_empty() {
            status.as_object_mut().map(|s| s.remove("completedIndexes"));
        } else {
            status["completedIndexes"] = json!(text);
        }
        // Written, even empty, with a backoff limit per index; absent otherwise.
        let failed = ctx.failed_indexes.as_ref().map(|f| json!(f.to_string()));
        if status.get("failedIndexes") != failed.as_ref() {
            needs_flush = true;
            match failed {
                Some(failed) => status["failedIndexes"] = failed,
                None => drop(status.as_object_mut().map(|s| s.remove("failedIndexes"))),
            }
        }
    }
    // The interim condition is written before the finalizers go; the final one follows it.
    match ctx.finished.clone() {
        Some(target) if target.kind == "FailureTarget" => {
            push_condition(&mut ctx.job, target.to_value());
            needs_flush = true;
            ctx.finished = Some(Condition::new("Failed", &target.reason, &target.message));
        }
        Some(met) if met.kind == "SuccessCriteriaMet" => {
            if true_condition(&ctx.job, "SuccessCriteriaMet").is_none() {
                push_condition(&mut ctx.job, met.to_value());
                needs_flush = true;
            }
            ctx.finished = Some(Condition::new("Complete", &met.reason, &met.message));
        }
        _ => {}
    }

    // `flushUncountedAndRemoveFinalizers`.
    let mut base = stored.clone();
    if needs_flush {
        let Some(flushed) = write(state, info, &base, &ctx.job) else {
            return;
        };
        state
            .job_backoff
            .insert(job_context::key(&flushed), ctx.backoff.clone());
        ctx.job = (*flushed).clone();
        base = flushed;
        needs_flush = false;
    }
    let pods_info = state.info("", "v1", "pods");
    for pod in &to_release {
        // A pod already gone counts as released.
        if let Some(current) = state.object(&pods_info, Some(object::namespace(pod)), object::name(pod)) {
            drop_finalizer(state, &pods_info, &current, TRACKING_FINALIZER);
        }
        with_finalizer.remove(object::uid(pod));
    }
    needs_flush |= clean_uncounted(&mut ctx.job["status"], &with_finalizer);
    let finished = enact_finished(ctx);
    if (finished || needs_flush)
        && let Some(job) = write(state, info, &base, &ctx.job)
        && finished
        && let Some(condition) = &ctx.finished
    {
        record_finished(state, info, &job, condition, completions);
    }
}

/// `canRemoveFinalizer`: the Job is being deleted or has ended, the pod succeeded, or it failed
/// and is not the pod its index keeps until a replacement takes over its failure count.
fn can_release(ctx: &JobCtx, stored: &Value, pod: &Value, failed: bool) -> bool {
    if object::is_deleting(stored) || ctx.finished.is_some() || phase(pod) == "Succeeded" {
        return true;
    }
    let kept = job_indexes::completion_index(pod).and_then(|ix| ctx.delayed.get(&ix));
    failed && kept.is_none_or(|kept| object::uid(kept) != object::uid(pod))
}

fn write(state: &mut State, info: &Arc<ResourceInfo>, base: &Arc<Value>, job: &Value) -> Option<Arc<Value>> {
    match state.update_object(
        info,
        base.clone(),
        job.clone(),
        Some(CONTROLLER_MANAGER),
        Some("status"),
    ) {
        Ok(stored) => Some(stored),
        Err(status) => {
            tracing::debug!(name = object::name(job), %status, "could not update the Job's status");
            None
        }
    }
}

fn push_condition(job: &mut Value, condition: Value) {
    let conditions = &mut job["status"]["conditions"];
    if !conditions.is_array() {
        *conditions = json!([]);
    }
    if let Some(list) = conditions.as_array_mut() {
        list.push(condition);
    }
}

fn add_uncounted(job: &mut Value, key: &str, uid: &str) {
    let list = &mut job["status"]["uncountedTerminatedPods"][key];
    if !list.is_array() {
        *list = json!([]);
    }
    if let Some(list) = list.as_array_mut() {
        list.push(json!(uid));
    }
}

/// `cleanUncountedPodsWithoutFinalizers`: the uncounted pods whose finalizer is gone move to the
/// counters. Whether anything changed.
fn clean_uncounted(status: &mut Value, with_finalizer: &HashSet<String>) -> bool {
    let mut changed = false;
    for key in ["succeeded", "failed"] {
        let Some(list) = status
            .pointer(&format!("/uncountedTerminatedPods/{key}"))
            .and_then(Value::as_array)
        else {
            continue;
        };
        let kept: Vec<Value> = list
            .iter()
            .filter(|uid| uid.as_str().is_some_and(|uid| with_finalizer.contains(uid)))
            .cloned()
            .collect();
        let moved = (list.len() - kept.len()) as i64;
        if moved == 0 {
            continue;
        }
        changed = true;
        let total = status.get(key).and_then(Value::as_i64).unwrap_or(0) + moved;
        set_count(status, key, total);
        let uncounted = &mut status["uncountedTerminatedPods"];
        if kept.is_empty() {
            uncounted.as_object_mut().map(|u| u.remove(key));
        } else {
            uncounted[key] = Value::Array(kept);
        }
    }
    changed
}

/// `enactJobFinished`: the ending condition, once no pod is left uncounted (and from 1.31 none
/// terminating), with the completion time of a completed Job.
fn enact_finished(ctx: &mut JobCtx) -> bool {
    let Some(condition) = &ctx.finished else {
        return false;
    };
    let uncounted = ctx.job.pointer("/status/uncountedTerminatedPods");
    let pending = ["succeeded", "failed"].iter().any(|key| {
        uncounted
            .and_then(|u| u.get(*key))
            .and_then(Value::as_array)
            .is_some_and(|l| !l.is_empty())
    });
    if pending || (delays_terminal_condition(ctx.minor) && ctx.terminating.unwrap_or(0) > 0) {
        return false;
    }
    let status = &mut ctx.job["status"];
    ensure_condition(status, &condition.kind, "True", &condition.reason, &condition.message);
    if condition.kind == "Complete" {
        status["completionTime"] = json!(object::now());
    }
    true
}

/// `recordJobFinished`: the events of a Job that ended.
fn record_finished(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    job: &Arc<Value>,
    condition: &Condition,
    completions: i64,
) {
    if condition.kind != "Complete" {
        events::warn(state, info, job, &condition.reason, &condition.message, COMPONENT);
        return;
    }
    let succeeded = job.pointer("/status/succeeded").and_then(Value::as_i64).unwrap_or(0);
    if job.pointer("/spec/completions").is_some_and(|c| !c.is_null()) && succeeded > completions {
        let message = "Too many succeeded pods running after completion count reached";
        events::warn(state, info, job, "TooManySucceededPods", message, COMPONENT);
    }
    events::record(state, info, job, "Normal", "Completed", "Job completed", COMPONENT);
}
