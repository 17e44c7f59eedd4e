//! A Job's `/status` writes, as kube-apiserver v1.28 and v1.31 validate them
//! (`pkg/apis/batch/validation/validation.go`: `validateJobStatus`, `ValidateJobStatusUpdate`
//! and their `JobStatusValidationOptions`, set by `getStatusValidationOptions` of
//! `pkg/registry/batch/job/strategy.go`). 1.28 checks the counts and the uncounted pods; from
//! 1.30 the conditions, times and index lists are checked too, most of them only with
//! `JobManagedBy` on and only where the write changed them.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, nonnegative};
use crate::semantics::go_time::time_string;
use crate::semantics::job_indexes::{count_indexes, overlap_error};
use crate::semantics::job_status_options::{JobView, StatusOptions};
use crate::semantics::job_strategy::JobGates;
use crate::semantics::job_validation::POLICIES_SINCE;
use crate::storage::object::{present, timestamp_seconds};

/// The status update's errors on the Kubernetes `minor`: `ValidateJobStatusUpdate`, less the
/// object metadata checked for every kind.
pub(crate) fn status_update_errors(job: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let status = job.get("status").unwrap_or(&Value::Null);
    let mut errors = counts_errors(status);
    if minor < POLICIES_SINCE {
        return errors;
    }
    let (new, before) = (JobView::of(job), JobView::of(old));
    let opts = StatusOptions::for_update(&new, &before, JobGates::at(minor));
    errors.extend(status_rules_errors(&new, &opts));
    errors.extend(transition_errors(&new, &before, &opts));
    errors
}

/// The part of `validateJobStatus` 1.28 has: no negative count, no empty or repeated
/// uncounted pod.
fn counts_errors(status: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for key in ["active", "succeeded", "failed"] {
        let n = status.get(key).and_then(Value::as_i64).unwrap_or(0);
        errors.extend(nonnegative(n, &format!("status.{key}")));
    }
    for key in ["ready", "terminating"] {
        if let Some(n) = status.get(key).and_then(Value::as_i64) {
            errors.extend(nonnegative(n, &format!("status.{key}")));
        }
    }
    let Some(uncounted) = present(status, "uncountedTerminatedPods") else {
        return errors;
    };
    // One set across both lists: a pod is counted once.
    let mut seen = BTreeSet::new();
    for list in ["succeeded", "failed"] {
        let uids = uncounted
            .get(list)
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for (i, uid) in uids.iter().enumerate() {
            let uid = uid.as_str().unwrap_or_default();
            let path = format!("status.uncountedTerminatedPods.{list}[{i}]");
            if uid.is_empty() {
                errors.push(FieldError::invalid(path, "".into(), "must not be empty"));
            } else if !seen.insert(uid) {
                errors.push(FieldError::duplicate(path, uid.into()));
            }
        }
    }
    errors
}

/// The conditions' error, which shows no value.
fn conditions(why: impl Into<String>) -> FieldError {
    FieldError::invalid("status.conditions", BadValue::Omit, why)
}

/// A `*metav1.Time` as a field error shows it (`time.Time.String()`).
fn time_value(time: &str) -> BadValue {
    BadValue::Raw(time_string(time))
}

/// The rest of 1.31's `validateJobStatus`, in its order: the terminal conditions and what
/// goes with them, the index lists, the pod counts of a finished job, `SuccessCriteriaMet`.
fn status_rules_errors(job: &JobView<'_>, opts: &StatusOptions) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let (complete, failed) = (job.is_true("Complete"), job.is_true("Failed"));
    let (failure_target, criteria_met) = (job.is_true("FailureTarget"), job.is_true("SuccessCriteriaMet"));
    if opts.reject_complete_job_with_failed_condition && complete && failed {
        errors.push(conditions("cannot set Complete=True and Failed=true conditions"));
    }
    if opts.reject_complete_job_with_failure_target_condition && complete && failure_target {
        errors.push(conditions("cannot set Complete=True and FailureTarget=true conditions"));
    }
    let (start, completion) = (job.time("startTime"), job.time("completionTime"));
    if opts.reject_not_complete_job_with_completion_time
        && !complete
        && let Some(completion) = completion
    {
        let why = "cannot set completionTime when there is no Complete=True condition";
        errors.push(FieldError::invalid(
            "status.completionTime",
            time_value(completion),
            why,
        ));
    }
    if opts.reject_complete_job_without_completion_time && complete && completion.is_none() {
        let why = "completionTime is required for Complete jobs";
        errors.push(FieldError::required("status.completionTime", why));
    }
    if opts.reject_completion_time_before_start_time
        && let (Some(start), Some(completion)) = (start, completion)
        && timestamp_seconds(completion) < timestamp_seconds(start)
    {
        let why = "completionTime cannot be set before startTime";
        errors.push(FieldError::invalid(
            "status.completionTime",
            time_value(completion),
            why,
        ));
    }
    if opts.reject_failed_job_without_failure_target && failed && !failure_target {
        errors.push(conditions(
            "cannot set Failed=True condition without the FailureTarget=true condition",
        ));
    }
    if opts.reject_complete_job_without_success_criteria_met && complete && !criteria_met {
        errors.push(conditions(
            "cannot set Complete=True condition without the SuccessCriteriaMet=true condition",
        ));
    }
    let finished = job.is_finished();
    if opts.reject_finished_job_with_active_pods && job.active() > 0 && finished {
        let why = "active>0 is invalid for finished job";
        errors.push(FieldError::invalid("status.active", BadValue::Int(job.active()), why));
    }
    if opts.reject_finished_job_without_start_time && start.is_none() && finished {
        errors.push(FieldError::required(
            "status.startTime",
            "startTime is required for finished job",
        ));
    }
    if opts.reject_finished_job_with_uncounted_terminated_pods && finished && job.uncounted_pods() > 0 {
        let why = "uncountedTerminatedPods needs to be empty for finished job";
        errors.push(FieldError::invalid(
            "status.uncountedTerminatedPods",
            job.uncounted_go(),
            why,
        ));
    }
    errors.extend(index_errors(job, opts));
    if opts.reject_finished_job_with_terminating_pods
        && let Some(terminating) = job.count("terminating").filter(|t| *t > 0 && finished)
    {
        let why = "terminating>0 is invalid for finished job";
        errors.push(FieldError::invalid(
            "status.terminating",
            BadValue::Int(terminating),
            why,
        ));
    }
    if opts.reject_more_ready_than_active_pods
        && let Some(ready) = job.count("ready").filter(|r| *r > job.active())
    {
        let why = "cannot set more ready pods than active";
        errors.push(FieldError::invalid("status.ready", BadValue::Int(ready), why));
    }
    if !opts.allow_for_success_criteria_met_in_extended_scope && !job.is_indexed() && criteria_met {
        errors.push(conditions("cannot set SuccessCriteriaMet to NonIndexed Job"));
    }
    if criteria_met && failed {
        errors.push(conditions(
            "cannot set SuccessCriteriaMet=True and Failed=true conditions",
        ));
    }
    if criteria_met && failure_target {
        errors.push(conditions(
            "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions",
        ));
    }
    if !opts.allow_for_success_criteria_met_in_extended_scope && !job.has_success_policy() && criteria_met {
        errors.push(conditions(
            "cannot set SuccessCriteriaMet=True for Job without SuccessPolicy",
        ));
    }
    if job.has_success_policy() && !criteria_met && complete {
        errors.push(conditions(
            "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True",
        ));
    }
    errors
}

/// The index lists of 1.31's `validateJobStatus`: well-formed below the completions, completed
/// ones only for an Indexed job, failed ones only with a backoff limit per index and apart
/// from the completed ones.
fn index_errors(job: &JobView<'_>, opts: &StatusOptions) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let completed = job.text("completedIndexes").unwrap_or_default();
    let failed = job.text("failedIndexes");
    let completions = job.spec_int("completions");
    if opts.reject_invalid_completed_indexes
        && let Some(completions) = completions
        && let Err(why) = count_indexes(completed, completions)
    {
        let why = format!("error parsing completedIndexes: {why}");
        errors.push(FieldError::invalid("status.completedIndexes", completed.into(), why));
    }
    let per_index = job.spec_int("backoffLimitPerIndex");
    if opts.reject_invalid_failed_indexes
        && let (Some(completions), Some(_), Some(failed)) = (completions, per_index, failed)
        && let Err(why) = count_indexes(failed, completions)
    {
        let why = format!("error parsing failedIndexes: {why}");
        errors.push(FieldError::invalid("status.failedIndexes", failed.into(), why));
    }
    if opts.reject_completed_indexes_for_non_indexed_job && !completed.is_empty() && !job.is_indexed() {
        let why = "cannot set non-empty completedIndexes when non-indexed completion mode";
        errors.push(FieldError::invalid("status.completedIndexes", completed.into(), why));
    }
    if opts.reject_failed_indexes_for_no_backoff_limit_per_index
        && per_index.is_none()
        && let Some(failed) = failed
    {
        let why = "cannot set non-null failedIndexes when backoffLimitPerIndex is null";
        errors.push(FieldError::invalid("status.failedIndexes", failed.into(), why));
    }
    if opts.reject_failed_indexes_overlapping_completed
        && let (Some(completions), Some(failed)) = (completions, failed)
        && let Some(why) = overlap_error(completed, failed, completions)
    {
        errors.push(FieldError::invalid("status.failedIndexes", failed.into(), why.0));
    }
    errors
}

/// The transitions 1.31's `ValidateJobStatusUpdate` refuses: a terminal condition turned off,
/// counters going down, a completion time moved, a start time removed while running, and
/// `SuccessCriteriaMet` turned off or set after completion.
fn transition_errors(job: &JobView<'_>, old: &JobView<'_>, opts: &StatusOptions) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if opts.reject_disabling_terminal_condition {
        for kind in ["Failed", "Complete", "FailureTarget"] {
            if old.is_true(kind) && !job.is_true(kind) {
                errors.push(conditions(format!("cannot disable the terminal {kind}=True condition")));
            }
        }
    }
    for (key, reject) in [
        ("failed", opts.reject_decreasing_failed_counter),
        ("succeeded", opts.reject_decreasing_succeeded_counter),
    ] {
        let (now, before) = (job.count(key).unwrap_or(0), old.count(key).unwrap_or(0));
        if reject && now < before {
            let why = format!("cannot decrease the {key} counter");
            errors.push(FieldError::invalid(format!("status.{key}"), BadValue::Int(now), why));
        }
    }
    if opts.reject_mutating_completion_time
        && let (Some(now), Some(before)) = (job.time("completionTime"), old.time("completionTime"))
        && timestamp_seconds(now) != timestamp_seconds(before)
    {
        let why = "completionTime cannot be mutated";
        errors.push(FieldError::invalid("status.completionTime", time_value(now), why));
    }
    if opts.reject_start_time_update_for_unsuspended_job
        && old.time("startTime").is_some()
        && !job.same_time(old, "startTime")
        && !job.suspended()
    {
        let why = "startTime cannot be removed for unsuspended job";
        errors.push(FieldError::required("status.startTime", why));
    }
    if old.is_true("SuccessCriteriaMet") && !job.is_true("SuccessCriteriaMet") {
        errors.push(conditions("cannot disable the SuccessCriteriaMet=True condition"));
    }
    if old.is_true("Complete") && !old.is_true("SuccessCriteriaMet") && job.is_true("SuccessCriteriaMet") {
        errors.push(conditions(
            "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions",
        ));
    }
    errors
}

#[cfg(test)]
#[path = "job_status_validation_tests.rs"]
mod tests;
