//! Which of 1.31's Job status rules apply to a `/status` write, and the view of a Job those
//! rules read (`JobStatusValidationOptions` and the `IsJob…` helpers of
//! `pkg/apis/batch/validation/validation.go`, set by `getStatusValidationOptions` of
//! `pkg/registry/batch/job/strategy.go`).

use serde_json::Value;

use crate::semantics::field_error::{BadValue, go_quote};
use crate::semantics::job_strategy::JobGates;
use crate::storage::object::{present, timestamp_seconds};

/// A Job as the status rules read it: its status, and the spec it is stored with.
pub(crate) struct JobView<'a> {
    spec: &'a Value,
    status: &'a Value,
}

impl<'a> JobView<'a> {
    pub(crate) fn of(job: &'a Value) -> Self {
        Self {
            spec: job.get("spec").unwrap_or(&Value::Null),
            status: job.get("status").unwrap_or(&Value::Null),
        }
    }

    /// `IsConditionTrue` of the status's conditions.
    pub(crate) fn is_true(&self, kind: &str) -> bool {
        let list = self.status.get("conditions").and_then(Value::as_array);
        list.into_iter().flatten().any(|c| {
            c.get("type").and_then(Value::as_str) == Some(kind)
                && c.get("status").and_then(Value::as_str) == Some("True")
        })
    }

    /// `IsJobFinished`: `Complete` or `Failed` is true.
    pub(crate) fn is_finished(&self) -> bool {
        self.is_true("Complete") || self.is_true("Failed")
    }

    pub(crate) fn is_indexed(&self) -> bool {
        self.spec.get("completionMode").and_then(Value::as_str) == Some("Indexed")
    }

    pub(crate) fn has_success_policy(&self) -> bool {
        present(self.spec, "successPolicy").is_some()
    }

    pub(crate) fn suspended(&self) -> bool {
        self.spec.get("suspend").and_then(Value::as_bool) == Some(true)
    }

    pub(crate) fn spec_int(&self, key: &str) -> Option<i64> {
        self.spec.get(key).and_then(Value::as_i64)
    }

    /// A count of the status (`None` when unset: `ready` and `terminating` are pointers).
    pub(crate) fn count(&self, key: &str) -> Option<i64> {
        self.status.get(key).and_then(Value::as_i64)
    }

    /// `status.active`, a plain int32.
    pub(crate) fn active(&self) -> i64 {
        self.count("active").unwrap_or(0)
    }

    pub(crate) fn text(&self, key: &str) -> Option<&'a str> {
        present(self.status, key).map(|v| v.as_str().unwrap_or_default())
    }

    /// A time of the status, when set.
    pub(crate) fn time(&self, key: &str) -> Option<&'a str> {
        self.text(key)
    }

    /// `ptr.Equal` of a time here and in `other`: both unset, or the same instant.
    pub(crate) fn same_time(&self, other: &JobView<'_>, key: &str) -> bool {
        match (self.time(key), other.time(key)) {
            (None, None) => true,
            (Some(a), Some(b)) => timestamp_seconds(a) == timestamp_seconds(b),
            _ => false,
        }
    }

    fn uncounted(&self, list: &str) -> Option<&'a [Value]> {
        let uncounted = self.status.get("uncountedTerminatedPods")?;
        uncounted.get(list).and_then(Value::as_array).map(Vec::as_slice)
    }

    /// How many pods are uncounted.
    pub(crate) fn uncounted_pods(&self) -> usize {
        ["succeeded", "failed"]
            .iter()
            .map(|list| self.uncounted(list).map_or(0, <[Value]>::len))
            .sum()
    }

    /// Go's `%#v` of the internal `batch.UncountedTerminatedPods`.
    pub(crate) fn uncounted_go(&self) -> BadValue {
        let list = |key: &str| match self.uncounted(key) {
            None => "[]types.UID(nil)".to_owned(),
            Some(uids) => {
                let shown: Vec<String> = uids.iter().map(|u| go_quote(u.as_str().unwrap_or_default())).collect();
                format!("[]types.UID{{{}}}", shown.join(", "))
            }
        };
        BadValue::Raw(format!(
            "batch.UncountedTerminatedPods{{Succeeded:{}, Failed:{}}}",
            list("succeeded"),
            list("failed")
        ))
    }

    fn uncounted_same(&self, other: &JobView<'_>) -> bool {
        // `apiequality.Semantic.DeepEqual` of the two pointers: an empty list is none.
        let uids =
            |view: &JobView<'_>, list: &str| view.uncounted(list).filter(|l| !l.is_empty()).map(<[Value]>::to_vec);
        let given = |view: &JobView<'_>| present(view.status, "uncountedTerminatedPods").is_some();
        given(self) == given(other)
            && ["succeeded", "failed"]
                .iter()
                .all(|list| uids(self, list) == uids(other, list))
    }
}

/// `JobStatusValidationOptions`: which rules of `validateJobStatus` and
/// `ValidateJobStatusUpdate` apply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StatusOptions {
    pub(crate) reject_decreasing_succeeded_counter: bool,
    pub(crate) reject_decreasing_failed_counter: bool,
    pub(crate) reject_disabling_terminal_condition: bool,
    pub(crate) reject_invalid_completed_indexes: bool,
    pub(crate) reject_invalid_failed_indexes: bool,
    pub(crate) reject_failed_indexes_overlapping_completed: bool,
    pub(crate) reject_completed_indexes_for_non_indexed_job: bool,
    pub(crate) reject_failed_indexes_for_no_backoff_limit_per_index: bool,
    pub(crate) reject_failed_job_without_failure_target: bool,
    pub(crate) reject_complete_job_without_success_criteria_met: bool,
    pub(crate) reject_finished_job_with_active_pods: bool,
    pub(crate) reject_finished_job_without_start_time: bool,
    pub(crate) reject_finished_job_with_uncounted_terminated_pods: bool,
    pub(crate) reject_start_time_update_for_unsuspended_job: bool,
    pub(crate) reject_completion_time_before_start_time: bool,
    pub(crate) reject_mutating_completion_time: bool,
    pub(crate) reject_complete_job_without_completion_time: bool,
    pub(crate) reject_not_complete_job_with_completion_time: bool,
    pub(crate) reject_complete_job_with_failed_condition: bool,
    pub(crate) reject_complete_job_with_failure_target_condition: bool,
    pub(crate) allow_for_success_criteria_met_in_extended_scope: bool,
    pub(crate) reject_more_ready_than_active_pods: bool,
    pub(crate) reject_finished_job_with_terminating_pods: bool,
}

impl StatusOptions {
    /// `getStatusValidationOptions` of `new` replacing `old`. With `JobManagedBy` on, a rule
    /// applies when the write changed what it reads (a controller may fix the rest later);
    /// otherwise only `SuccessCriteriaMet` outside a success policy is allowed, with
    /// `JobPodReplacementPolicy` on or where the stored job already had it.
    pub(crate) fn for_update(new: &JobView<'_>, old: &JobView<'_>, gates: JobGates) -> Self {
        if !gates.managed_by {
            let extended = gates.pod_replacement_policy || old.is_true("SuccessCriteriaMet");
            return Self {
                allow_for_success_criteria_met_in_extended_scope: extended,
                ..Self::default()
            };
        }
        let changed = |kind: &str| new.is_true(kind) != old.is_true(kind);
        let finished = new.is_finished() != old.is_finished();
        let (complete, failed) = (changed("Complete"), changed("Failed"));
        let (failure_target, criteria_met) = (changed("FailureTarget"), changed("SuccessCriteriaMet"));
        let completed_indexes =
            new.text("completedIndexes").unwrap_or_default() != old.text("completedIndexes").unwrap_or_default();
        let failed_indexes = new.text("failedIndexes") != old.text("failedIndexes");
        let active = new.active() != old.active();
        let start = !new.same_time(old, "startTime");
        let completion = !new.same_time(old, "completionTime");
        let uncounted = !new.uncounted_same(old);
        let ready = new.count("ready") != old.count("ready");
        let terminating = new.count("terminating") != old.count("terminating");
        Self {
            // Indexed jobs whose parallelism follows their completions may scale down.
            reject_decreasing_succeeded_counter: !new.is_indexed()
                || new.spec_int("completions") != new.spec_int("parallelism"),
            reject_decreasing_failed_counter: true,
            reject_disabling_terminal_condition: true,
            reject_invalid_completed_indexes: completed_indexes,
            reject_invalid_failed_indexes: failed_indexes,
            reject_completed_indexes_for_non_indexed_job: completed_indexes,
            reject_failed_indexes_for_no_backoff_limit_per_index: failed_indexes,
            reject_failed_indexes_overlapping_completed: failed_indexes || completed_indexes,
            reject_failed_job_without_failure_target: failed || failed_indexes,
            reject_complete_job_without_success_criteria_met: complete || criteria_met,
            reject_finished_job_with_active_pods: finished || active,
            reject_finished_job_without_start_time: finished || start,
            reject_finished_job_with_uncounted_terminated_pods: finished || uncounted,
            reject_start_time_update_for_unsuspended_job: start,
            reject_completion_time_before_start_time: start || completion,
            reject_mutating_completion_time: true,
            reject_not_complete_job_with_completion_time: complete || completion,
            reject_complete_job_without_completion_time: complete || completion,
            reject_complete_job_with_failed_condition: complete || failed,
            reject_complete_job_with_failure_target_condition: complete || failure_target,
            allow_for_success_criteria_met_in_extended_scope: true,
            reject_more_ready_than_active_pods: ready || active,
            reject_finished_job_with_terminating_pods: finished || terminating,
        }
    }
}
