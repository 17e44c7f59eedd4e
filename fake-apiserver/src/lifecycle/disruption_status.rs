//! The status kube-controller-manager's disruption controller writes on a PodDisruptionBudget
//! (`pkg/controller/disruption/disruption.go`: `buildDisruptedPodMap`, `countHealthyPods`,
//! `updatePdbStatus`, `failSafe`; `component-helpers/apps/poddisruptionbudget`:
//! `UpdateDisruptionAllowedCondition`, `ConditionsAreUpToDate`): the healthy pods against the
//! desired ones, the disruptions allowed and the `DisruptionAllowed` condition.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::storage::object;

/// How long an evicted pod counts as being deleted (`DeletionTimeout`).
const DELETION_TIMEOUT_SECONDS: i64 = 120;

/// What `getExpectedPodCount` finds.
pub(super) struct Counts {
    pub(super) expected: i64,
    pub(super) desired_healthy: i64,
    /// Some selected pod has no controller.
    pub(super) unmanaged: bool,
}

pub(super) fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `IsPodReady`: the pod's `Ready` condition is `True`.
pub(crate) fn is_pod_ready(pod: &Value) -> bool {
    pod.pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| c.get("type") == Some(&json!("Ready")) && c.get("status") == Some(&json!("True")))
}

/// `updatePdbStatus` (after `buildDisruptedPodMap` and `countHealthyPods`): the budget with
/// its new status, or `None` when the status is already current.
pub(super) fn with_status(budget: &Value, pods: &[Arc<Value>], counts: Counts) -> Option<Value> {
    let now = jiff::Timestamp::now().as_second();
    let recorded = budget.pointer("/status/disruptedPods").and_then(Value::as_object);
    let mut disrupted = BTreeMap::new();
    for pod in pods.iter().filter(|pod| !object::is_deleting(pod)) {
        let Some(since) = recorded.and_then(|r| r.get(object::name(pod))) else {
            continue;
        };
        let at = since.as_str().and_then(object::timestamp_seconds).unwrap_or_default();
        if at + DELETION_TIMEOUT_SECONDS >= now {
            disrupted.insert(object::name(pod).to_owned(), since.clone());
        }
    }
    let current_healthy = pods
        .iter()
        .filter(|pod| !object::is_deleting(pod) && !disrupted.contains_key(object::name(pod)))
        .filter(|pod| is_pod_ready(pod))
        .count() as i64;
    let mut allowed = current_healthy - counts.desired_healthy;
    if counts.expected <= 0 || allowed <= 0 {
        allowed = 0;
    }
    let generation = object::generation(budget);
    let status = |field: &str| {
        budget
            .pointer(&format!("/status/{field}"))
            .and_then(Value::as_i64)
            .unwrap_or_default()
    };
    let disrupted_json = Value::Object(disrupted.into_iter().collect());
    let recorded_json = budget.pointer("/status/disruptedPods").cloned().unwrap_or(json!({}));
    let unchanged = status("currentHealthy") == current_healthy
        && status("desiredHealthy") == counts.desired_healthy
        && status("expectedPods") == counts.expected
        && status("disruptionsAllowed") == allowed
        && recorded_json == disrupted_json
        && status("observedGeneration") == generation
        && conditions_up_to_date(budget, allowed, generation);
    if unchanged {
        return None;
    }
    let mut updated = budget.clone();
    let mut fresh = json!({
        "observedGeneration": generation,
        "disruptionsAllowed": allowed,
        "currentHealthy": current_healthy,
        "desiredHealthy": counts.desired_healthy,
        "expectedPods": counts.expected,
    });
    if disrupted_json.as_object().is_some_and(|d| !d.is_empty()) {
        fresh["disruptedPods"] = disrupted_json;
    }
    // The new status starts without conditions: the condition is set anew.
    updated["status"] = fresh;
    set_disruption_allowed(&mut updated);
    Some(updated)
}

/// `ConditionsAreUpToDate`: the `DisruptionAllowed` condition agrees with `allowed`.
fn conditions_up_to_date(budget: &Value, allowed: i64, generation: i64) -> bool {
    let condition = budget
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|all| all.iter().find(|c| str_of(c, "type") == "DisruptionAllowed"));
    let observed = budget.pointer("/status/observedGeneration").and_then(Value::as_i64);
    let expected = if allowed > 0 {
        ("True", "SufficientPods")
    } else {
        ("False", "InsufficientPods")
    };
    condition.is_some_and(|c| (str_of(c, "status"), str_of(c, "reason")) == expected) && observed == Some(generation)
}

/// `UpdateDisruptionAllowedCondition`: the condition that says whether `disruptionsAllowed`
/// permits an eviction.
pub(crate) fn set_disruption_allowed(budget: &mut Value) {
    let allowed = budget
        .pointer("/status/disruptionsAllowed")
        .and_then(Value::as_i64)
        .unwrap_or_default();
    let (status, reason) = if allowed > 0 {
        ("True", "SufficientPods")
    } else {
        ("False", "InsufficientPods")
    };
    let observed = budget
        .pointer("/status/observedGeneration")
        .cloned()
        .unwrap_or(json!(0));
    set_condition(budget, status, reason, "", observed);
}

/// `failSafe`: no disruption allowed, with the sync's error as the condition's message.
pub(super) fn fail_safe(budget: &Value, why: &str) -> Value {
    let mut updated = budget.clone();
    updated["status"]["disruptionsAllowed"] = json!(0);
    let observed = budget
        .pointer("/status/observedGeneration")
        .cloned()
        .unwrap_or(json!(0));
    set_condition(&mut updated, "False", "SyncFailed", why, observed);
    updated
}

/// `apimeta.SetStatusCondition` of the `DisruptionAllowed` condition: a changed status moves
/// its transition time.
fn set_condition(budget: &mut Value, status: &str, reason: &str, message: &str, observed: Value) {
    let mut conditions = budget["status"]["conditions"].as_array().cloned().unwrap_or_default();
    let fields = json!({"status": status, "reason": reason, "message": message, "observedGeneration": observed});
    match conditions.iter_mut().find(|c| str_of(c, "type") == "DisruptionAllowed") {
        Some(existing) => {
            if str_of(existing, "status") != status {
                existing["lastTransitionTime"] = json!(object::now());
            }
            for key in ["status", "reason", "message", "observedGeneration"] {
                existing[key] = fields[key].clone();
            }
        }
        None => conditions.push(json!({
            "type": "DisruptionAllowed",
            "status": status,
            "observedGeneration": observed,
            "lastTransitionTime": object::now(),
            "reason": reason,
            "message": message,
        })),
    }
    budget["status"]["conditions"] = Value::Array(conditions);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(status: Value) -> Value {
        json!({"metadata": {"name": "b", "namespace": "ns", "generation": 1}, "spec": {"minAvailable": 1}, "status": status})
    }

    fn pod(name: &str, ready: bool) -> Arc<Value> {
        let status = if ready { "True" } else { "False" };
        Arc::new(json!({"metadata": {"name": name}, "status": {"conditions": [{"type": "Ready", "status": status}]}}))
    }

    #[test]
    fn the_status_counts_healthy_pods_against_the_desired_ones() {
        let counts = Counts {
            expected: 2,
            desired_healthy: 1,
            unmanaged: false,
        };
        let fresh =
            budget(json!({"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}));
        let updated = with_status(&fresh, &[pod("a", true), pod("b", true)], counts).expect("a new status");
        assert_eq!(updated["status"]["disruptionsAllowed"], 1);
        assert_eq!(updated["status"]["currentHealthy"], 2);
        assert_eq!(updated["status"]["observedGeneration"], 1);
        let condition = &updated["status"]["conditions"][0];
        assert_eq!(
            (condition["status"].as_str(), condition["reason"].as_str()),
            (Some("True"), Some("SufficientPods"))
        );
        // Synced again with nothing changed, the status is left alone.
        let again = Counts {
            expected: 2,
            desired_healthy: 1,
            unmanaged: false,
        };
        assert!(with_status(&updated, &[pod("a", true), pod("b", true)], again).is_none());
    }

    #[test]
    fn no_expected_pods_allow_no_disruption() {
        let counts = Counts {
            expected: 0,
            desired_healthy: 0,
            unmanaged: false,
        };
        let updated = with_status(&budget(json!({})), &[pod("a", true)], counts).expect("a new status");
        assert_eq!(updated["status"]["disruptionsAllowed"], 0);
        assert_eq!(updated["status"]["conditions"][0]["reason"], "InsufficientPods");
    }

    #[test]
    fn a_failed_sync_allows_no_disruption_and_says_why() {
        let failed = fail_safe(
            &budget(json!({"disruptionsAllowed": 3})),
            "found no controllers for pod \"a\"",
        );
        assert_eq!(failed["status"]["disruptionsAllowed"], 0);
        assert_eq!(failed["status"]["conditions"][0]["reason"], "SyncFailed");
        assert_eq!(
            failed["status"]["conditions"][0]["message"],
            "found no controllers for pod \"a\""
        );
    }
}
