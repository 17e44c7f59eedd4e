//! `manageJob` of kube-controller-manager's Job controller (`pkg/controller/job/job_controller.go`:
//! `manageJob`, `activePodsForRemoval`, `deleteJobPods`): a suspended Job's pods deleted, extra
//! or duplicated-index pods deleted, or the missing pods made from the template with the tracking
//! finalizer — for an `Indexed` Job one per pending index, named and labelled by it.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::lifecycle::controller_refs::Owner;
use crate::lifecycle::job_context::{
    COMPONENT, JobCtx, TRACKING_FINALIZER, is_indexed, is_terminating, only_replace_failed, tracked,
};
use crate::lifecycle::pod_control;
use crate::lifecycle::writes::drop_finalizer;
use crate::lifecycle::{job_backoff, job_index_backoff, job_indexes};
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::{Pending, Timer};
use crate::storage::resource::ResourceInfo;

/// `MaxPodCreateDeletePerSync`.
const MAX_PER_SYNC: i64 = 500;

/// What `manageJob` did: the active count afterwards, and whether a creation or deletion failed.
pub(super) struct Outcome {
    pub(super) active: i64,
    pub(super) failed: bool,
}

/// `manageJob`.
pub(super) fn manage(state: &mut State, info: &Arc<ResourceInfo>, job: &Arc<Value>, ctx: &JobCtx) -> Outcome {
    let spec = &ctx.job;
    let active = ctx.active.len() as i64;
    if spec.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true) {
        let remove = for_removal(spec, &ctx.active, active as usize);
        let deleted = delete_job_pods(state, info, job, &remove);
        return Outcome {
            active: active - deleted,
            failed: deleted < remove.len() as i64,
        };
    }
    let terminating_pods: Vec<&Arc<Value>> = ctx.pods.iter().filter(|p| is_terminating(p)).collect();
    // Pods still terminating hold their place while only failed pods are replaced.
    let replace_failed_only = only_replace_failed(spec, ctx.minor);
    let terminating = if replace_failed_only {
        ctx.terminating.unwrap_or(terminating_pods.len() as i64)
    } else {
        0
    };
    let parallelism = spec.pointer("/spec/parallelism").and_then(Value::as_i64).unwrap_or(1);
    let wanted = match spec.pointer("/spec/completions").and_then(Value::as_i64) {
        // Without completions, once one pod succeeded the running ones are left alone.
        None if ctx.succeeded > 0 => active,
        None => parallelism,
        Some(completions) => (completions - ctx.succeeded).min(parallelism).max(0),
    };
    let mut remove = for_removal(spec, &ctx.active, (active - wanted).max(0) as usize);
    remove.truncate(MAX_PER_SYNC as usize);
    if !remove.is_empty() {
        // Deletions take precedence: nothing is created in the same sync.
        let deleted = delete_job_pods(state, info, job, &remove);
        return Outcome {
            active: active - deleted,
            failed: deleted < remove.len() as i64,
        };
    }
    let missing = (wanted - terminating - active).min(MAX_PER_SYNC);
    if missing <= 0 {
        return Outcome { active, failed: false };
    }
    // Within the pod failure backoff nothing is made, and Go reports no pod active.
    let now = SystemTime::now();
    let now_ms = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    let wait_then_sync = |state: &mut State, wait: Duration| {
        state.pending.push(Pending::Deadline {
            timer: Timer::JobSync,
            namespace: object::namespace(job).to_owned(),
            name: object::name(job).to_owned(),
            due: now + wait,
        });
        Outcome {
            active: 0,
            failed: false,
        }
    };
    let per_index = ctx.failed_indexes.is_some();
    let wait = job_backoff::remaining(&ctx.backoff, now_ms);
    if !per_index && !wait.is_zero() {
        return wait_then_sync(state, wait);
    }
    let owner = Owner {
        api_version: "batch/v1",
        kind: "Job",
        object: job,
    };
    let mut template = spec.pointer("/spec/template").cloned().unwrap_or_default();
    add_tracking_finalizer(&mut template);
    let pods: Vec<Value> = if is_indexed(spec) {
        let active_pods: Vec<&Arc<Value>> = ctx.active.iter().collect();
        let completions = job_indexes::completions(spec);
        let terminating = replace_failed_only.then_some(terminating_pods.as_slice());
        let taken = match &ctx.failed_indexes {
            Some(failed) => ctx.succeeded_indexes.merge(failed),
            None => ctx.succeeded_indexes.clone(),
        };
        let mut indexes = job_indexes::first_pending(&taken, &active_pods, terminating, missing as usize, completions);
        if per_index {
            // `getPodCreationInfoForIndependentIndexes`: each index after its own backoff.
            let waits: Vec<Duration> = indexes
                .iter()
                .map(|ix| job_index_backoff::remaining(ctx.delayed.get(ix), now_ms, ctx.minor))
                .collect();
            let ready: Vec<i64> = indexes
                .iter()
                .zip(&waits)
                .filter(|(_, w)| w.is_zero())
                .map(|(ix, _)| *ix)
                .collect();
            if ready.is_empty()
                && let Some(shortest) = waits.iter().min()
            {
                return wait_then_sync(state, *shortest);
            }
            indexes = ready;
        }
        let name = object::name(job);
        indexes
            .into_iter()
            .map(|index| {
                let mut indexed = job_indexes::indexed_template(&template, name, index);
                if per_index {
                    job_index_backoff::annotate(&mut indexed, spec, ctx.delayed.get(&index), ctx.minor);
                }
                let mut pod = pod_control::pod_from_template(&indexed, &owner);
                pod["metadata"]["generateName"] = json!(job_indexes::generate_name(name, index));
                pod
            })
            .collect()
    } else {
        (0..missing)
            .map(|_| pod_control::pod_from_template(&template, &owner))
            .collect()
    };
    let (made, failure) = pod_control::create_each(state, info, job, pods, COMPONENT);
    if let Some(status) = &failure {
        tracing::debug!(name = object::name(job), %status, "could not create the Job's pods");
    }
    Outcome {
        active: active + made as i64,
        failed: failure.is_some(),
    }
}

/// `appendJobCompletionFinalizerIfNotFound` on the template's finalizers.
fn add_tracking_finalizer(template: &mut Value) {
    if !template["metadata"].is_object() {
        template["metadata"] = json!({});
    }
    let finalizers = &mut template["metadata"]["finalizers"];
    let mut list = finalizers.as_array().cloned().unwrap_or_default();
    if !list.iter().any(|f| f == TRACKING_FINALIZER) {
        list.push(json!(TRACKING_FINALIZER));
    }
    *finalizers = Value::Array(list);
}

/// `activePodsForRemoval`: an `Indexed` Job's pods with a missing, too high or repeated index,
/// then as many more of the active pods, in `ActivePods` order, as `at_least` asks.
fn for_removal(job: &Value, active: &[Arc<Value>], at_least: usize) -> Vec<Arc<Value>> {
    let (mut remove, mut left) = if is_indexed(job) {
        job_indexes::duplicates_for_removal(active, job_indexes::completions(job), pod_control::sort_active)
    } else {
        (Vec::new(), active.to_vec())
    };
    if remove.len() < at_least {
        pod_control::sort_active(&mut left);
        let more = (at_least - remove.len()).min(left.len());
        remove.extend(left.drain(..more));
    }
    remove
}

/// `deleteJobPods`: each pod loses the tracking finalizer (it is not counted), then is deleted.
/// Returns how many were.
fn delete_job_pods(state: &mut State, info: &Arc<ResourceInfo>, job: &Value, pods: &[Arc<Value>]) -> i64 {
    let pods_info = state.info("", "v1", "pods");
    for pod in pods {
        if tracked(pod)
            && let Some(current) = state.object(&pods_info, Some(object::namespace(pod)), object::name(pod))
        {
            drop_finalizer(state, &pods_info, &current, TRACKING_FINALIZER);
        }
        pod_control::delete_pod(state, info, job, pod, COMPONENT);
    }
    pods.len() as i64
}
