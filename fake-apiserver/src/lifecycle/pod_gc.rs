//! kube-controller-manager's pod garbage collector (`pkg/controller/podgc/gc_controller.go`),
//! which runs every 20 s: terminated pods past the threshold, terminating pods on a node that is
//! not ready and tainted out of service, pods bound to a node that has been missing for the
//! 40 s quarantine, and terminating pods never scheduled are each marked `Failed` (an orphan
//! with a `DisruptionTarget` condition) and deleted with no grace period.
//!
//! Its loop runs only when something may be collected: a write that makes a pod a candidate,
//! or a node change, schedules the next tick of the 20 s period counted from the server's
//! start; a tick with nodes still in quarantine schedules the next one.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::writes::Writes;
use crate::semantics::pod_condition::update_pod_condition;
use crate::storage::State;
use crate::storage::object::{self, text};
use crate::storage::pending::{Timer, loop_tick};
use crate::storage::resource::ResourceInfo;

/// `gcCheckPeriod` and `quarantineTime`, in the server's controller delays (20 s and 40 s at
/// the default delay).
const CHECK_PERIOD_DELAYS: u32 = 200;
const QUARANTINE_DELAYS: u32 = 400;
/// `--terminated-pod-gc-threshold`'s default.
const TERMINATED_POD_THRESHOLD: usize = 12_500;
/// The taint that lets terminating pods go from a node that is down.
const OUT_OF_SERVICE: &str = "node.kubernetes.io/out-of-service";

/// Whether a write or removal may give the collector something to do: a terminating or
/// orphaned pod, a terminated one past the threshold, or any node change.
pub(super) fn on_change(state: &mut State, info: &ResourceInfo, old: Option<&Value>, new: Option<&Value>) {
    if !(info.builtin && info.group.is_empty()) {
        return;
    }
    let wanted = match (info.plural.as_str(), new) {
        ("nodes", _) => true,
        ("pods", Some(pod)) => {
            let node = text(pod.pointer("/spec/nodeName"));
            object::is_deleting(pod)
                || (!node.is_empty() && !node_exists(state, node))
                || (terminated(pod) && old.is_none_or(|old| !terminated(old)) && past_threshold(state))
        }
        _ => false,
    };
    if wanted {
        schedule_tick(state);
    }
}

/// The collector's next run, at the next tick of its period, unless one is already queued.
fn schedule_tick(state: &mut State) {
    // A queued run, even one overdue, covers this write.
    if state.pod_gc.next_tick.is_some() {
        return;
    }
    let period = state.options.controller_delay * CHECK_PERIOD_DELAYS;
    let due = loop_tick(state.pod_gc.started, period, SystemTime::now());
    state
        .pending
        .queue_loop_run(&mut state.pod_gc.next_tick, Timer::PodGc, due);
}

/// `gc`: one run of the collector over every pod and node.
pub(super) fn gc(state: &mut State) {
    state.pod_gc.next_tick = None;
    let pods_info = state.info("", "v1", "pods");
    let pods = state.objects_everywhere(&pods_info);
    gc_terminated(state, &pods);
    gc_terminating(state, &pods);
    gc_orphaned(state, &pods);
    gc_unscheduled_terminating(state, &pods);
    if !state.pod_gc.quarantine.is_empty() {
        schedule_tick(state);
    }
}

/// `gcTerminated`: past the threshold, the oldest terminated pods go, evicted ones first.
fn gc_terminated(state: &mut State, pods: &[Arc<Value>]) {
    let mut terminated: Vec<&Value> = pods.iter().map(|pod| &**pod).filter(|pod| terminated(pod)).collect();
    let excess = terminated.len().saturating_sub(TERMINATED_POD_THRESHOLD);
    if excess == 0 {
        return;
    }
    let evicted = |pod: &Value| {
        text(pod.pointer("/status/phase")) == "Failed" && text(pod.pointer("/status/reason")) == "Evicted"
    };
    terminated.sort_by(|a, b| {
        evicted(b)
            .cmp(&evicted(a))
            .then_with(|| {
                text(a.pointer("/metadata/creationTimestamp")).cmp(text(b.pointer("/metadata/creationTimestamp")))
            })
            .then_with(|| object::name(a).cmp(object::name(b)))
    });
    for pod in terminated.into_iter().take(excess) {
        mark_failed_and_delete(state, pod, None);
    }
}

/// `gcTerminating`: terminating pods on a node that is not ready and carries the out-of-service
/// taint.
fn gc_terminating(state: &mut State, pods: &[Arc<Value>]) {
    let nodes = state.info("", "v1", "nodes");
    for pod in pods.iter().filter(|pod| object::is_deleting(pod)) {
        let Some(node) = state.object(&nodes, None, text(pod.pointer("/spec/nodeName"))) else {
            continue;
        };
        if !node_ready(&node) && has_taint_key(&node, OUT_OF_SERVICE) {
            mark_failed_and_delete(state, pod, None);
        }
    }
}

/// `gcOrphaned`: a node that pods are bound to but that does not exist is quarantined; once the
/// quarantine is over and it still does not exist, its pods go.
fn gc_orphaned(state: &mut State, pods: &[Arc<Value>]) {
    let now = SystemTime::now();
    let quarantine = state.options.controller_delay * QUARANTINE_DELAYS;
    for pod in pods {
        let node = text(pod.pointer("/spec/nodeName"));
        if !node.is_empty() && !node_exists(state, node) {
            state
                .pod_gc
                .quarantine
                .entry(node.to_owned())
                .or_insert(now + quarantine);
        }
    }
    let ready: Vec<String> = state
        .pod_gc
        .quarantine
        .iter()
        .filter(|(_, at)| **at <= now)
        .map(|(node, _)| node.clone())
        .collect();
    for node in &ready {
        state.pod_gc.quarantine.remove(node);
    }
    let deleted: Vec<&String> = ready.iter().filter(|node| !node_exists(state, node)).collect();
    for pod in pods {
        if deleted.iter().any(|node| **node == text(pod.pointer("/spec/nodeName"))) {
            let condition = json!({
                "type": "DisruptionTarget", "status": "True", "reason": "DeletionByPodGC",
                "message": "PodGC: node no longer exists",
            });
            mark_failed_and_delete(state, pod, Some(condition));
        }
    }
}

/// `gcUnscheduledTerminating`: terminating pods no node was ever given.
fn gc_unscheduled_terminating(state: &mut State, pods: &[Arc<Value>]) {
    for pod in pods {
        if object::is_deleting(pod) && text(pod.pointer("/spec/nodeName")).is_empty() {
            mark_failed_and_delete(state, pod, None);
        }
    }
}

/// `markFailedAndDeletePodWithCondition`: a pod not yet terminated is made `Failed` (with the
/// condition) through `/status`, then deleted with no grace period.
fn mark_failed_and_delete(state: &mut State, pod: &Value, condition: Option<Value>) {
    let pods = state.info("", "v1", "pods");
    let (namespace, name) = (object::namespace(pod), object::name(pod));
    // The collector works from its informer's copy: the pod may have gone or changed since.
    let Some(current) = state.object(&pods, Some(namespace), name) else {
        return;
    };
    if !terminated(&current) {
        let mut updated = (*current).clone();
        updated["status"]["phase"] = json!("Failed");
        if let Some(condition) = condition {
            update_pod_condition(&mut updated, condition);
        }
        if let Err(status) = state.update_object(&pods, current, updated, Some(CONTROLLER_MANAGER), Some("status")) {
            tracing::warn!(namespace, name, %status, "could not mark the pod failed");
            return;
        }
    }
    state.delete_pod_now(&pods, namespace, name);
}

/// Whether the pod's phase is neither `Pending`, `Running` nor `Unknown` (`isPodTerminated`).
fn terminated(pod: &Value) -> bool {
    !matches!(
        text(pod.pointer("/status/phase")),
        "" | "Pending" | "Running" | "Unknown"
    )
}

/// Whether more pods are stored than the collector keeps terminated ones of, so that counting
/// the terminated ones is worth a run.
fn past_threshold(state: &State) -> bool {
    let pods = state.info("", "v1", "pods");
    state.store.count(&pods.storage_key()) > TERMINATED_POD_THRESHOLD
}

fn node_exists(state: &State, name: &str) -> bool {
    let nodes = state.info("", "v1", "nodes");
    state.object(&nodes, None, name).is_some()
}

/// `IsNodeReady`: the node's Ready condition is `True`.
fn node_ready(node: &Value) -> bool {
    node.pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| text(c.get("type")) == "Ready")
        .is_some_and(|c| text(c.get("status")) == "True")
}

fn has_taint_key(node: &Value, key: &str) -> bool {
    node.pointer("/spec/taints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|taint| text(taint.get("key")) == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pods_past_pending_running_and_unknown_should_count_as_terminated() {
        for phase in ["Pending", "Running", "Unknown"] {
            assert!(!terminated(&json!({"status": {"phase": phase}})));
        }
        assert!(!terminated(&json!({})));
        assert!(terminated(&json!({"status": {"phase": "Failed"}})));
        assert!(terminated(&json!({"status": {"phase": "Succeeded"}})));
    }

    #[test]
    fn a_node_should_be_ready_only_with_a_true_ready_condition() {
        assert!(node_ready(
            &json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}})
        ));
        assert!(!node_ready(
            &json!({"status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}})
        ));
        assert!(!node_ready(&json!({})));
    }
}
