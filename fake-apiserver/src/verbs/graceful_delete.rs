//! Graceful deletion of pods, the only kind whose strategy has one: when a DELETE marks a pod
//! and waits, when it shortens a pending grace period, and when it removes the pod at once.
//! Follows `rest.BeforeDelete` (`staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go`),
//! `podStrategy.CheckGracefulDelete` (`pkg/registry/core/pod/strategy.go`) and the uses
//! `Store.updateForGracefulDeletionAndFinalizers` makes of them
//! (`staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go`).

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::storage::object::{self, meta_mut};
use crate::storage::resource::ResourceInfo;
use crate::verbs::options::DeleteOpts;

/// What a DELETE does to the grace period of the object it deletes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Graceful {
    /// Not graceful: removed at once, or marked with no grace period when finalizers hold it.
    No,
    /// Graceful deletion already under way and not shortened: nothing changes.
    Pending,
    /// Marked (or marked again) to go at `timestamp` after `grace` seconds; removed at once
    /// when `grace` is 0 and no finalizer holds it.
    Mark { timestamp: String, grace: i64 },
}

/// `BeforeDelete` for `info`'s object `old` with the DELETE's options.
pub(super) fn before_delete(info: &ResourceInfo, old: &Value, opts: &DeleteOpts) -> Graceful {
    if !(info.builtin && info.group.is_empty() && info.plural == "pods") {
        return Graceful::No;
    }
    // Negative values are treated as one second on the delete path.
    let asked = opts.grace_period.map(|p| if p < 0 { 1 } else { p });
    if object::is_deleting(old) {
        return shortened(old, asked);
    }
    let grace = check_graceful_delete(old, asked);
    let at = shifted(Timestamp::now(), grace);
    Graceful::Mark {
        timestamp: rfc3339(at),
        grace,
    }
}

/// A pod already being deleted may only get a shorter grace period; one deleted with none
/// (or 0) is removed at once.
fn shortened(old: &Value, asked: Option<i64>) -> Graceful {
    let current = old
        .pointer("/metadata/deletionGracePeriodSeconds")
        .and_then(Value::as_i64)
        .map(|p| if p < 0 { 1 } else { p });
    let Some(current) = current.filter(|p| *p != 0) else {
        return Graceful::No;
    };
    let Some(period) = asked.filter(|p| *p < current) else {
        return Graceful::Pending;
    };
    let deletion = old
        .pointer("/metadata/deletionTimestamp")
        .and_then(Value::as_str)
        .and_then(|t| t.parse::<Timestamp>().ok())
        .unwrap_or_else(Timestamp::now);
    let at = shifted(shifted(deletion, current.saturating_neg()), period);
    Graceful::Mark {
        timestamp: rfc3339(at),
        grace: period,
    }
}

/// `podStrategy.CheckGracefulDelete`: the period asked for, else the pod's termination grace
/// period (0 when it has none), 0 for a pod no node runs or one already terminated.
fn check_graceful_delete(pod: &Value, asked: Option<i64>) -> i64 {
    let scheduled = pod
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty());
    let terminated = matches!(
        pod.pointer("/status/phase").and_then(Value::as_str),
        Some("Failed" | "Succeeded")
    );
    if !scheduled || terminated {
        return 0;
    }
    let period = asked
        .or_else(|| {
            pod.pointer("/spec/terminationGracePeriodSeconds")
                .and_then(Value::as_i64)
        })
        .unwrap_or(0);
    if period < 0 { 1 } else { period }
}

/// `old` marked for deletion at `timestamp` after `grace` seconds, holding `finalizers`.
pub(super) fn marked(old: &Value, finalizers: &[String], timestamp: &str, grace: i64) -> Value {
    let mut marked = old.clone();
    object::set_finalizers(&mut marked, finalizers);
    let first = !object::is_deleting(old);
    let meta = meta_mut(&mut marked);
    meta.insert("deletionTimestamp".to_owned(), json!(timestamp));
    meta.insert("deletionGracePeriodSeconds".to_owned(), json!(grace));
    // The first graceful deletion bumps a generation the object has.
    if let Some(generation) = meta
        .get("generation")
        .and_then(Value::as_i64)
        .filter(|g| first && *g > 0)
    {
        meta.insert("generation".to_owned(), json!(generation + 1));
    }
    marked
}

/// `at` moved by `seconds` as Go's `time.Duration` of nanoseconds moves it: the seconds wrap
/// when multiplied, and the result stays within what a timestamp can hold.
fn shifted(at: Timestamp, seconds: i64) -> Timestamp {
    let nanos = i128::from(seconds.wrapping_mul(1_000_000_000));
    let target = at.as_nanosecond().saturating_add(nanos);
    let bounded = target.clamp(Timestamp::MIN.as_nanosecond(), Timestamp::MAX.as_nanosecond());
    Timestamp::from_nanosecond(bounded).unwrap_or(at)
}

/// A metav1.Time: RFC 3339 in UTC, to the second.
fn rfc3339(at: Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::resource::ResourceInfo;

    fn pods() -> ResourceInfo {
        ResourceInfo::builtin("", "v1", "Pod", "pods")
    }

    fn opts(grace: Option<i64>) -> DeleteOpts {
        DeleteOpts {
            grace_period: grace,
            ..DeleteOpts::default()
        }
    }

    #[test]
    fn a_scheduled_pod_should_wait_its_termination_grace_period_and_an_unscheduled_one_none() {
        let scheduled = json!({"spec": {"nodeName": "n1", "terminationGracePeriodSeconds": 30}});
        assert!(matches!(
            before_delete(&pods(), &scheduled, &opts(None)),
            Graceful::Mark { grace: 30, .. }
        ));
        assert!(matches!(
            before_delete(&pods(), &scheduled, &opts(Some(-5))),
            Graceful::Mark { grace: 1, .. }
        ));
        let unscheduled = json!({"spec": {"terminationGracePeriodSeconds": 30}});
        assert!(matches!(
            before_delete(&pods(), &unscheduled, &opts(Some(10))),
            Graceful::Mark { grace: 0, .. }
        ));
        let failed = json!({"spec": {"nodeName": "n1"}, "status": {"phase": "Failed"}});
        assert!(matches!(
            before_delete(&pods(), &failed, &opts(None)),
            Graceful::Mark { grace: 0, .. }
        ));
    }

    #[test]
    fn a_terminating_pod_should_only_get_a_shorter_grace_period() {
        let terminating = json!({"metadata": {"deletionTimestamp": "2026-01-01T00:00:30Z", "deletionGracePeriodSeconds": 30}, "spec": {"nodeName": "n1"}});
        assert_eq!(before_delete(&pods(), &terminating, &opts(None)), Graceful::Pending);
        assert_eq!(before_delete(&pods(), &terminating, &opts(Some(30))), Graceful::Pending);
        assert_eq!(
            before_delete(&pods(), &terminating, &opts(Some(0))),
            Graceful::Mark {
                timestamp: "2026-01-01T00:00:00Z".to_owned(),
                grace: 0
            }
        );
        let at_zero =
            json!({"metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z", "deletionGracePeriodSeconds": 0}});
        assert_eq!(before_delete(&pods(), &at_zero, &opts(None)), Graceful::No);
    }
}
