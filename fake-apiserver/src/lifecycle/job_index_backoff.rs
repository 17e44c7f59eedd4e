//! An `Indexed` Job's backoff limit per index (`backoffLimitPerIndex`, beta and on from 1.29;
//! `pkg/controller/job/indexed_job_utils.go`: `calculateFailedIndexes`, `isIndexFailed`,
//! `getPodsWithDelayedDeletionPerIndex`, `addIndexFailureCountAnnotation`,
//! `getNewIndexFailureCounts`; `backoff_utils.go`: `getRemainingTimePerIndex`): each pod carries
//! its index's failure count; an index whose pod fails past the limit is failed for good, and
//! the last failed pod of an index keeps its finalizer until its replacement inherits the count.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::lifecycle::job_backoff;
use crate::lifecycle::job_context::{JobCtx, is_pod_failed, tracked};
use crate::lifecycle::job_failure_policy::match_policy;
use crate::lifecycle::job_indexes::{self, Intervals};
use crate::storage::object;

/// The annotations of an index's failures counted and ignored (by an `Ignore` rule).
const FAILURE_COUNT: &str = "batch.kubernetes.io/job-index-failure-count";
const IGNORED_COUNT: &str = "batch.kubernetes.io/job-index-ignored-failure-count";

/// `hasBackoffLimitPerIndex`.
pub(super) fn applies(job: &Value, minor: u32) -> bool {
    minor >= 29 && job.pointer("/spec/backoffLimitPerIndex").is_some_and(|l| !l.is_null())
}

fn count(pod: &Value, key: &str) -> i64 {
    let annotation = object::annotations(pod)
        .and_then(|a| a.get(key))
        .and_then(Value::as_str);
    annotation.and_then(|v| v.parse::<i64>().ok()).unwrap_or(0)
}

/// `getIndexAbsoluteFailureCount`: counted and ignored failures.
fn absolute_failures(pod: &Value) -> i64 {
    count(pod, FAILURE_COUNT) + count(pod, IGNORED_COUNT)
}

/// `isIndexFailed`: the pod failed by a `FailIndex` rule, or failed (counted) with its index's
/// count at the limit.
fn index_failed(job: &Value, pod: &Value, minor: u32) -> bool {
    if !is_pod_failed(pod, job, minor) {
        return false;
    }
    let verdict = match_policy(job, pod, minor);
    if verdict.action.as_deref() == Some("FailIndex") {
        return true;
    }
    let limit = job
        .pointer("/spec/backoffLimitPerIndex")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    verdict.counts && count(pod, FAILURE_COUNT) >= limit
}

/// `calculateFailedIndexes`: the recorded failed indexes and those of tracked pods that failed
/// their index.
pub(super) fn failed_indexes(job: &Value, pods: &[Arc<Value>], minor: u32) -> Intervals {
    let completions = job_indexes::completions(job);
    let recorded = job
        .pointer("/status/failedIndexes")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut new: Vec<i64> = pods
        .iter()
        .filter(|pod| tracked(pod) && index_failed(job, pod, minor))
        .filter_map(|pod| job_indexes::completion_index(pod).filter(|i| *i < completions))
        .collect();
    new.sort_unstable();
    new.dedup();
    Intervals::parse(recorded, completions).with_indexes(&new)
}

/// `getPodsWithDelayedDeletionPerIndex`: per index neither succeeded, failed nor active, its
/// latest failed pod (most failures, then finished last), which keeps its finalizer.
pub(super) fn delayed_deletions(ctx: &JobCtx, failed: &Intervals) -> BTreeMap<i64, Arc<Value>> {
    let completions = job_indexes::completions(&ctx.job);
    let active: BTreeSet<i64> = ctx
        .active
        .iter()
        .filter_map(|p| job_indexes::completion_index(p))
        .collect();
    let mut delayed: BTreeMap<i64, Arc<Value>> = BTreeMap::new();
    for pod in ctx
        .pods
        .iter()
        .filter(|p| tracked(p) && is_pod_failed(p, &ctx.job, ctx.minor))
    {
        let Some(index) = job_indexes::completion_index(pod).filter(|i| *i < completions) else {
            continue;
        };
        if ctx.succeeded_indexes.has(index) || failed.has(index) || active.contains(&index) {
            continue;
        }
        let later = |last: &Arc<Value>| {
            absolute_failures(last) <= absolute_failures(pod)
                && job_backoff::finished_at(pod, ctx.minor) >= job_backoff::finished_at(last, ctx.minor)
        };
        if delayed.get(&index).is_none_or(later) {
            delayed.insert(index, pod.clone());
        }
    }
    delayed
}

/// `addIndexFailureCountAnnotation`: the replacement of `replaced` carries its index's counts,
/// one more failure counted (or ignored, by an `Ignore` rule).
pub(super) fn annotate(template: &mut Value, job: &Value, replaced: Option<&Arc<Value>>, minor: u32) {
    let (mut failures, mut ignored) = (0, 0);
    if let Some(replaced) = replaced {
        (failures, ignored) = (count(replaced, FAILURE_COUNT), count(replaced, IGNORED_COUNT));
        if match_policy(job, replaced, minor).counts {
            failures += 1;
        } else {
            ignored += 1;
        }
    }
    let annotations = &mut template["metadata"]["annotations"];
    if !annotations.is_object() {
        *annotations = json!({});
    }
    annotations[FAILURE_COUNT] = json!(failures.to_string());
    if ignored > 0 {
        annotations[IGNORED_COUNT] = json!(ignored.to_string());
    }
}

/// `getRemainingTimePerIndex`: the backoff of an index from its last failed pod.
pub(super) fn remaining(last_failed: Option<&Arc<Value>>, now_ms: i64, minor: u32) -> Duration {
    let Some(pod) = last_failed else {
        return Duration::ZERO;
    };
    let failures = absolute_failures(pod) + 1;
    job_backoff::remaining_for(failures, job_backoff::finished_at(pod, minor), now_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(index: &str, failures: &str, phase: &str) -> Arc<Value> {
        Arc::new(json!({"metadata": {"finalizers": ["batch.kubernetes.io/job-tracking"],
            "annotations": {"batch.kubernetes.io/job-completion-index": index, FAILURE_COUNT: failures}},
            "status": {"phase": phase}}))
    }

    #[test]
    fn an_index_should_fail_once_its_count_reaches_the_limit() {
        let job = json!({"spec": {"completions": 3, "backoffLimitPerIndex": 1}, "status": {"failedIndexes": "2"}});
        let pods = [
            pod("0", "0", "Failed"),
            pod("1", "1", "Failed"),
            pod("1", "1", "Running"),
        ];
        assert_eq!(failed_indexes(&job, &pods, 31).to_string(), "1,2");
        assert!(applies(&job, 29) && !applies(&job, 28));
    }

    #[test]
    fn a_replacement_should_count_one_more_failure() {
        let job = json!({"spec": {}});
        let mut template = json!({"metadata": {}});
        annotate(&mut template, &job, Some(&pod("0", "2", "Failed")), 31);
        assert_eq!(template["metadata"]["annotations"][FAILURE_COUNT], "3");
        let mut fresh = json!({});
        annotate(&mut fresh, &job, None, 31);
        assert_eq!(fresh["metadata"]["annotations"], json!({FAILURE_COUNT: "0"}));
    }
}
