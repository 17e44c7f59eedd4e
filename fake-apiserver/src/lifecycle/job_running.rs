//! kube-controller-manager's Job controller for a running Job, as far as pods that have not
//! finished go (`pkg/controller/job/job_controller.go`: `syncJob` — the start time, `manageJob`
//! for a `NonIndexed` Job creating the pods its parallelism and remaining completions want, in
//! slow-start batches, each with the `batch.kubernetes.io/job-tracking` finalizer, or deleting
//! the extra ones; the `active`, `ready` and (from 1.29) `terminating` counts). Finished pods are
//! not counted yet: their finalizers stay, and the Job never completes or fails here.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_refs::{self, Owner};
use crate::lifecycle::disruption_status::is_pod_ready;
use crate::lifecycle::job_controller::COMPONENT;
use crate::lifecycle::pod_control;
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The finalizer a Job's pods keep until their end is counted (`batch.JobTrackingFinalizer`).
const TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";

/// `maxPodCreateDeletePerSync`.
const MAX_PER_SYNC: i64 = 500;

/// `syncJob` of a Job that is neither suspended nor finished.
pub(super) fn sync(state: &mut State, info: &Arc<ResourceInfo>, job: &Arc<Value>) {
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
    let active_count = manage(state, info, job, &active) as i64;

    let minor = state.options.minor();
    let mut updated = (**job).clone();
    if !updated["status"].is_object() {
        updated["status"] = json!({});
    }
    let status = &mut updated["status"];
    if status.get("startTime").is_none() {
        status["startTime"] = json!(object::now());
    }
    if active_count == 0 {
        status.as_object_mut().map(|s| s.remove("active"));
    } else {
        status["active"] = json!(active_count);
    }
    status["ready"] = json!(ready);
    if minor >= 29 {
        status["terminating"] = json!(terminating);
    }
    if status.get("uncountedTerminatedPods").is_none() {
        status["uncountedTerminatedPods"] = json!({});
    }
    if updated == **job {
        return;
    }
    if let Err(status) = state.update_object(info, job.clone(), updated, Some(CONTROLLER_MANAGER), Some("status")) {
        tracing::debug!(name = object::name(job), %status, "could not update the Job's status");
    }
}

/// `manageJob` of a `NonIndexed` Job: pods created up to what the parallelism and the
/// remaining completions want, or the newest extra ones deleted. The active count afterwards,
/// the pods asked for counted as Go counts them.
fn manage(state: &mut State, info: &Arc<ResourceInfo>, job: &Arc<Value>, active: &[&Arc<Value>]) -> usize {
    let parallelism = job.pointer("/spec/parallelism").and_then(Value::as_i64).unwrap_or(1);
    let succeeded = job.pointer("/status/succeeded").and_then(Value::as_i64).unwrap_or(0);
    let wanted = match job.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(completions) => parallelism.min(completions - succeeded).max(0),
        None => parallelism,
    };
    let have = active.len() as i64;
    if have > wanted {
        let extra = (have - wanted).min(MAX_PER_SYNC) as usize;
        let mut ordered: Vec<Arc<Value>> = active.iter().map(|pod| (*pod).clone()).collect();
        pod_control::sort_for_deletion(
            &mut ordered,
            &[],
            object::timestamp_seconds(&object::now()).unwrap_or(0),
        );
        for pod in ordered.iter().take(extra) {
            pod_control::delete_pod(state, info, job, pod, COMPONENT);
        }
        return active.len() - extra;
    }
    if have == wanted {
        return active.len();
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
        Ok(()) => active.len() + missing,
        Err(status) => {
            tracing::debug!(name = object::name(job), %status, "could not create the Job's pods");
            active.len()
        }
    }
}
