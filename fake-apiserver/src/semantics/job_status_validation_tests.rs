//! Tests of `job_status_validation` and `job_status_options`, with kube-apiserver v1.28.7's
//! answers (`conformance/corpus/real/job-validation.json`) and 1.31's rules.

use serde_json::json;

use super::*;
use crate::semantics::field_error::rendered;

fn job(spec: Value, status: Value) -> Value {
    json!({"metadata": {"name": "j"}, "spec": spec, "status": status})
}

fn condition(kind: &str) -> Value {
    json!({"type": kind, "status": "True"})
}

#[test]
fn counts_should_not_be_negative() {
    let old = job(json!({}), json!({}));
    let new = job(
        json!({}),
        json!({"active": -1, "succeeded": -2, "failed": -3, "ready": -4, "terminating": -5}),
    );
    let errors = rendered(status_update_errors(&new, &old, 28));
    assert_eq!(errors.len(), 5);
    assert_eq!(
        errors[4],
        "status.terminating: Invalid value: -5: must be greater than or equal to 0"
    );
}

#[test]
fn an_uncounted_pod_should_be_named_once() {
    let old = job(json!({}), json!({}));
    let new = job(
        json!({}),
        json!({"uncountedTerminatedPods": {"succeeded": ["", "a", "a"], "failed": ["a", "", "b"]}}),
    );
    assert_eq!(
        rendered(status_update_errors(&new, &old, 28)),
        [
            "status.uncountedTerminatedPods.succeeded[0]: Invalid value: \"\": must not be empty",
            "status.uncountedTerminatedPods.succeeded[2]: Duplicate value: \"a\"",
            "status.uncountedTerminatedPods.failed[0]: Duplicate value: \"a\"",
            "status.uncountedTerminatedPods.failed[1]: Invalid value: \"\": must not be empty",
        ]
    );
}

#[test]
fn success_criteria_should_not_meet_failure_from_1_30() {
    let old = job(json!({}), json!({}));
    let new = job(
        json!({}),
        json!({"conditions": [condition("SuccessCriteriaMet"), condition("Failed")]}),
    );
    assert!(status_update_errors(&new, &old, 28).is_empty());
    assert_eq!(
        rendered(status_update_errors(&new, &old, 31)),
        ["status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and Failed=true conditions"]
    );
    // Nor go once met.
    let met = job(json!({}), json!({"conditions": [condition("SuccessCriteriaMet")]}));
    assert_eq!(
        rendered(status_update_errors(&old, &met, 31)),
        ["status.conditions: Invalid value: cannot disable the SuccessCriteriaMet=True condition"]
    );
    // A success policy's job completes once its criteria are met.
    let policy =
        json!({"completionMode": "Indexed", "completions": 2, "successPolicy": {"rules": [{"succeededCount": 1}]}});
    let complete = job(policy, json!({"conditions": [condition("Complete")]}));
    assert_eq!(
        rendered(status_update_errors(&complete, &old, 31)),
        [
            "status.conditions: Invalid value: cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"
        ]
    );
}

#[test]
fn with_managed_by_the_changed_fields_should_be_checked() {
    let gates = JobGates {
        managed_by: true,
        ..JobGates::at(31)
    };
    let old_job = job(
        json!({"completions": 4, "parallelism": 4}),
        json!({"succeeded": 2, "active": 1}),
    );
    let new_job = job(
        json!({"completions": 4, "parallelism": 4}),
        json!({"succeeded": 1, "active": 1, "ready": 2, "completedIndexes": "0-1,1", "failedIndexes": "0",
            "conditions": [condition("Failed")], "completionTime": "2026-01-01T00:00:00Z"}),
    );
    let (new, old) = (JobView::of(&new_job), JobView::of(&old_job));
    let opts = StatusOptions::for_update(&new, &old, gates);
    assert!(opts.reject_decreasing_succeeded_counter && opts.reject_invalid_completed_indexes);
    assert!(!opts.reject_start_time_update_for_unsuspended_job);
    let mut errors = rendered(status_rules_errors(&new, &opts));
    errors.extend(rendered(transition_errors(&new, &old, &opts)));
    assert_eq!(
        errors,
        [
            "status.completionTime: Invalid value: 2026-01-01 00:00:00 +0000 UTC: cannot set completionTime when there is no Complete=True condition",
            "status.conditions: Invalid value: cannot set Failed=True condition without the FailureTarget=true condition",
            "status.active: Invalid value: 1: active>0 is invalid for finished job",
            "status.startTime: Required value: startTime is required for finished job",
            "status.completedIndexes: Invalid value: \"0-1,1\": error parsing completedIndexes: non-increasing order, previous: 1, current: 1",
            "status.completedIndexes: Invalid value: \"0-1,1\": cannot set non-empty completedIndexes when non-indexed completion mode",
            "status.failedIndexes: Invalid value: \"0\": cannot set non-null failedIndexes when backoffLimitPerIndex is null",
            "status.failedIndexes: Invalid value: \"0\": failedIndexes and completedIndexes overlap at index: 0",
            "status.ready: Invalid value: 2: cannot set more ready pods than active",
            "status.succeeded: Invalid value: 1: cannot decrease the succeeded counter",
        ]
    );
}

#[test]
fn without_managed_by_success_criteria_should_be_allowed_widely_once_replacement_is_on() {
    let (new, old) = (job(json!({}), json!({})), job(json!({}), json!({})));
    let (new, old) = (JobView::of(&new), JobView::of(&old));
    assert!(StatusOptions::for_update(&new, &old, JobGates::at(31)).allow_for_success_criteria_met_in_extended_scope);
    let off = JobGates {
        pod_replacement_policy: false,
        ..JobGates::at(31)
    };
    assert_eq!(StatusOptions::for_update(&new, &old, off), StatusOptions::default());
}
