//! The Job controller's pod failure backoff (`pkg/controller/job/backoff_utils.go`:
//! `backoffStore`, `newBackoffRecord`, `getRemainingTime`, `getFinishedTime`): after failed pods
//! a Job makes no new pod until 10 s, doubled per further failure up to 6 min, passed since the
//! last failure; a success resets the count. The records live in `State::job_backoff`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::storage::JobBackoff;
use crate::storage::object;

/// `DefaultJobPodFailureBackOff`.
const DEFAULT_BACKOFF: Duration = Duration::from_secs(10);
/// `MaxJobPodFailureBackOff`.
const MAX_BACKOFF: Duration = Duration::from_secs(360);

/// `newBackoffRecord`: the stored record with the pods that finished since it was written.
pub(super) fn new_record(
    previous: Option<&JobBackoff>,
    succeeded: &[&Arc<Value>],
    failed: &[&Arc<Value>],
    minor: u32,
) -> JobBackoff {
    let mut record = previous.cloned().unwrap_or_default();
    let finished = |pods: &[&Arc<Value>]| {
        let mut times: Vec<i64> = pods.iter().map(|pod| finished_at(pod, minor)).collect();
        times.sort_unstable();
        times
    };
    let (succeeded, failed) = (finished(succeeded), finished(failed));
    let Some(&last_success) = succeeded.last() else {
        if let Some(&last_failure) = failed.last() {
            record.failures += failed.len() as i64;
            record.last_failure_ms = Some(last_failure);
        }
        return record;
    };
    // Only the failures after the last success count.
    record.failures = 0;
    record.last_failure_ms = None;
    for &time in failed.iter().rev().take_while(|&&time| time > last_success) {
        record.last_failure_ms.get_or_insert(time);
        record.failures += 1;
    }
    record
}

/// `getRemainingTime`: how long until the Job may make a pod again, at `now_ms`.
pub(super) fn remaining(record: &JobBackoff, now_ms: i64) -> Duration {
    match record.last_failure_ms {
        Some(last_failure) => remaining_for(record.failures, last_failure, now_ms),
        None => Duration::ZERO,
    }
}

/// `getRemainingTimeForFailuresCount`: the backoff after `failures`, the last at `last_failure`
/// (Unix milliseconds), left at `now_ms`.
pub(super) fn remaining_for(failures: i64, last_failure: i64, now_ms: i64) -> Duration {
    if failures <= 0 {
        return Duration::ZERO;
    }
    let mut backoff = DEFAULT_BACKOFF;
    for _ in 1..failures {
        backoff *= 2;
        if backoff >= MAX_BACKOFF {
            backoff = MAX_BACKOFF;
            break;
        }
    }
    let elapsed = Duration::from_millis((now_ms - last_failure).max(0) as u64);
    backoff.saturating_sub(elapsed)
}

/// `getFinishedTime` in Unix milliseconds: the latest container termination, else when the pod
/// turned not ready, else its deletion less its grace period, else its creation.
pub(super) fn finished_at(pod: &Value, minor: u32) -> i64 {
    let seconds = |text: Option<&Value>| text.and_then(Value::as_str).and_then(object::timestamp_seconds);
    let from_containers = containers_finished(pod, minor);
    let not_ready = pod
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|c| {
            c.iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
        })
        .filter(|c| c.get("status").and_then(Value::as_str) == Some("False"))
        .and_then(|c| seconds(c.get("lastTransitionTime")));
    let deleted = seconds(pod.pointer("/metadata/deletionTimestamp")).map(|at| {
        at - pod
            .pointer("/metadata/deletionGracePeriodSeconds")
            .and_then(Value::as_i64)
            .unwrap_or(0)
    });
    let created = seconds(pod.pointer("/metadata/creationTimestamp")).unwrap_or(0);
    from_containers.or(not_ready).or(deleted).unwrap_or(created) * 1000
}

/// `getFinishTimeFromContainers`: before 1.29 every container must have terminated; from 1.29
/// running ones are skipped and restartable init containers (sidecars) count too.
fn containers_finished(pod: &Value, minor: u32) -> Option<i64> {
    let finished = |status: &Value| {
        status
            .pointer("/state/terminated/finishedAt")
            .and_then(Value::as_str)
            .and_then(object::timestamp_seconds)
    };
    let statuses = |list: &str| {
        pod.pointer(&format!("/status/{list}"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    if minor < 29 {
        let times: Option<Vec<i64>> = statuses("containerStatuses").iter().map(finished).collect();
        return times?.into_iter().max();
    }
    let sidecars: Vec<String> = pod
        .pointer("/spec/initContainers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|c| c.get("restartPolicy").and_then(Value::as_str) == Some("Always"))
        .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let init = statuses("initContainerStatuses");
    let init = init.iter().filter(|s| {
        s.get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| sidecars.iter().any(|c| c == n))
    });
    statuses("containerStatuses")
        .iter()
        .chain(init)
        .filter_map(finished)
        .max()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(created: &str, finished: Option<&str>) -> Arc<Value> {
        let statuses = finished.map_or(
            json!([]),
            |at| json!([{"name": "w", "state": {"terminated": {"finishedAt": at}}}]),
        );
        Arc::new(json!({"metadata": {"creationTimestamp": created}, "status": {"containerStatuses": statuses}}))
    }

    #[test]
    fn failures_should_back_off_from_the_last_one_doubling() {
        let failed = pod("2026-01-01T00:00:00Z", Some("2026-01-01T00:00:05Z"));
        let record = new_record(None, &[], &[&failed], 28);
        assert_eq!(
            record,
            JobBackoff {
                failures: 1,
                last_failure_ms: Some(1_767_225_605_000)
            }
        );
        assert_eq!(remaining(&record, 1_767_225_608_000), Duration::from_secs(7));
        let again = new_record(Some(&record), &[], &[&failed, &failed], 28);
        assert_eq!(again.failures, 3);
        assert_eq!(remaining(&again, 1_767_225_605_000), Duration::from_secs(40));
        assert_eq!(remaining(&again, 1_767_226_000_000), Duration::ZERO);
    }

    #[test]
    fn a_success_should_reset_all_but_later_failures() {
        let previous = JobBackoff {
            failures: 4,
            last_failure_ms: Some(1),
        };
        let success = pod("2026-01-01T00:00:00Z", Some("2026-01-01T00:00:10Z"));
        let earlier = pod("2026-01-01T00:00:00Z", Some("2026-01-01T00:00:09Z"));
        let later = pod("2026-01-01T00:00:00Z", Some("2026-01-01T00:00:11Z"));
        let record = new_record(Some(&previous), &[&success], &[&earlier, &later], 28);
        assert_eq!(
            record,
            JobBackoff {
                failures: 1,
                last_failure_ms: Some(1_767_225_611_000)
            }
        );
        assert_eq!(new_record(Some(&previous), &[&success], &[], 28), JobBackoff::default());
    }

    #[test]
    fn a_pod_without_finished_containers_should_have_finished_at_its_creation() {
        let bare =
            Arc::new(json!({"metadata": {"creationTimestamp": "2026-01-01T00:00:00Z"}, "status": {"phase": "Failed"}}));
        assert_eq!(finished_at(&bare, 28), 1_767_225_600_000);
        let running = json!({"metadata": {"creationTimestamp": "2026-01-01T00:00:00Z"}, "status": {"containerStatuses": [
            {"name": "a", "state": {"terminated": {"finishedAt": "2026-01-01T00:00:03Z"}}}, {"name": "b", "state": {"running": {}}}]}});
        assert_eq!(
            finished_at(&running, 28),
            1_767_225_600_000,
            "1.28: one container still runs"
        );
        assert_eq!(finished_at(&running, 31), 1_767_225_603_000, "1.31 skips it");
    }
}
