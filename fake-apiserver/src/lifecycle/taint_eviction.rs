//! kube-controller-manager's NoExecute taint manager: the pods bound to a node with a
//! `NoExecute` taint they do not tolerate are deleted at once, those that tolerate it for
//! `tolerationSeconds` when that runs out, and a pending deletion is cancelled when the taint
//! goes or the pod does. Follows `NoExecuteTaintManager` of 1.28
//! (`pkg/controller/nodelifecycle/scheduler/taint_manager.go`, its `timed_workers.go`) and the
//! taint eviction controller it became in 1.29 (`pkg/controller/tainteviction/taint_eviction.go`).
//!
//! The timed worker queue keeps each pod's key after its work ran (as `nil`), so that the same
//! eviction is not added twice; only a cancel removes the key. Immediate work is `nil` from the
//! start and cannot be cancelled.

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::events;
use crate::lifecycle::writes::Writes;
use crate::semantics::pod_condition::update_pod_condition;
use crate::semantics::taint_toleration::matching_tolerations;
use crate::storage::object::{self, text};
use crate::storage::pending::{Pending, Timer};
use crate::storage::resource::ResourceInfo;
use crate::storage::{ScheduledEviction, State};

/// The reason of the events about evictions.
const REASON: &str = "TaintManagerEviction";

/// The manager's pod and node handlers (`PodUpdated`, `NodeUpdated`) on a write or removal
/// (`old` absent for a create, `new` for a removal), run at once: on a cluster its informers
/// deliver within milliseconds, long before a client's next request.
pub(super) fn on_change(state: &mut State, info: &ResourceInfo, old: Option<&Value>, new: Option<&Value>) {
    match changed(info, old, new) {
        Some(Changed::Pod { namespace, name, node }) => handle_pod(state, &namespace, &name, &node),
        Some(Changed::Node { name }) => handle_node(state, &name),
        None => {}
    }
}

/// What the manager's handlers queue (`podUpdateItem`, `nodeUpdateItem`).
#[derive(Debug, PartialEq, Eq)]
enum Changed {
    Pod {
        namespace: String,
        name: String,
        node: String,
    },
    Node {
        name: String,
    },
}

/// What changed that the manager looks at: a pod created or removed, or whose tolerations or
/// node changed; a node created or removed, or whose NoExecute taints changed.
fn changed(info: &ResourceInfo, old: Option<&Value>, new: Option<&Value>) -> Option<Changed> {
    if !(info.builtin && info.group.is_empty()) {
        return None;
    }
    let current = new.or(old)?;
    match info.plural.as_str() {
        "pods" => {
            let node = |pod: &Value| pod.pointer("/spec/nodeName").cloned();
            let tolerations = |pod: &Value| pod.pointer("/spec/tolerations").cloned();
            if let (Some(old), Some(new)) = (old, new)
                && tolerations(old) == tolerations(new)
                && node(old) == node(new)
            {
                return None;
            }
            Some(Changed::Pod {
                namespace: object::namespace(current).to_owned(),
                name: object::name(current).to_owned(),
                node: text(current.pointer("/spec/nodeName")).to_owned(),
            })
        }
        "nodes" => {
            if let (Some(old), Some(new)) = (old, new)
                && no_execute_taints(old) == no_execute_taints(new)
            {
                return None;
            }
            Some(Changed::Node {
                name: object::name(current).to_owned(),
            })
        }
        _ => None,
    }
}

/// `handlePodUpdate`: a pod gone has its eviction cancelled; one still bound to the node it was
/// queued for is checked against that node's NoExecute taints, if it has any.
fn handle_pod(state: &mut State, namespace: &str, name: &str, node: &str) {
    let pods = state.info("", "v1", "pods");
    let Some(pod) = state.object(&pods, Some(namespace), name) else {
        cancel_with_event(state, namespace, name);
        return;
    };
    let bound = text(pod.pointer("/spec/nodeName"));
    if bound != node || bound.is_empty() {
        return;
    }
    let nodes = state.info("", "v1", "nodes");
    let Some(node) = state.object(&nodes, None, node) else {
        return;
    };
    let taints = no_execute_taints(&node);
    if taints.is_empty() {
        return;
    }
    process_pod_on_node(state, namespace, name, &tolerations(&pod), &taints, SystemTime::now());
}

/// `handleNodeUpdate`: every pod bound to the node is checked against its NoExecute taints; with
/// none left, their evictions are cancelled.
fn handle_node(state: &mut State, name: &str) {
    let nodes = state.info("", "v1", "nodes");
    let Some(node) = state.object(&nodes, None, name) else {
        return;
    };
    let taints = no_execute_taints(&node);
    let pods = state.info("", "v1", "pods");
    let bound: Vec<(String, String, Vec<Value>)> = state
        .store
        .iter(&pods.storage_key(), None)
        .filter(|(_, pod)| text(pod.pointer("/spec/nodeName")) == name)
        .map(|(_, pod)| {
            let namespace = object::namespace(pod).to_owned();
            (namespace, object::name(pod).to_owned(), tolerations(pod))
        })
        .collect();
    let now = SystemTime::now();
    for (namespace, pod, tolerations) in bound {
        if taints.is_empty() {
            cancel_with_event(state, &namespace, &pod);
        } else {
            process_pod_on_node(state, &namespace, &pod, &tolerations, &taints, now);
        }
    }
}

/// `processPodOnNode`: a taint not tolerated deletes the pod now; tolerations without a time
/// cancel its eviction; otherwise it is deleted after the shortest `tolerationSeconds` of the
/// tolerations used, unless an eviction is already scheduled.
fn process_pod_on_node(
    state: &mut State,
    namespace: &str,
    name: &str,
    tolerations: &[Value],
    taints: &[Value],
    now: SystemTime,
) {
    let (all_tolerated, used) = matching_tolerations(taints, tolerations);
    if !all_tolerated {
        cancel_with_event(state, namespace, name);
        add_work(state, namespace, name, now, now);
        return;
    }
    let Some(min) = min_toleration_time(&used) else {
        cancel_with_event(state, namespace, name);
        return;
    };
    // Past what the clock can hold, the eviction never comes.
    let Some(trigger) = now.checked_add(min) else {
        cancel_with_event(state, namespace, name);
        return;
    };
    let key = key(namespace, name);
    if let Some(Some(scheduled)) = state.taint_evictions.get(&key) {
        if scheduled.created_at.checked_add(min).is_some_and(|at| at < trigger) {
            return;
        }
        let created_at = scheduled.created_at;
        cancel_with_event(state, namespace, name);
        add_work(state, namespace, name, created_at, trigger);
        return;
    }
    add_work(state, namespace, name, now, trigger);
}

/// `getMinTolerationTime`: the shortest `tolerationSeconds` (0 for none used or one not
/// positive), `None` when every used toleration lasts forever. Go turns the seconds into a
/// `time.Duration` of nanoseconds, which wraps: a wrapped negative time lasts forever too.
fn min_toleration_time(used: &[&Value]) -> Option<Duration> {
    if used.is_empty() {
        return Some(Duration::ZERO);
    }
    let mut min: Option<i64> = None;
    for seconds in used
        .iter()
        .filter_map(|t| t.get("tolerationSeconds").and_then(Value::as_i64))
    {
        if seconds <= 0 {
            return Some(Duration::ZERO);
        }
        min = Some(min.map_or(seconds, |m| m.min(seconds)));
    }
    let nanos = min?.wrapping_mul(1_000_000_000);
    u64::try_from(nanos).ok().map(Duration::from_nanos)
}

/// `TimedWorkerQueue.AddWork`: skipped while the key is held; work due already runs at once
/// (and holds the key as done), later work waits for its timer.
fn add_work(state: &mut State, namespace: &str, name: &str, created_at: SystemTime, fire_at: SystemTime) {
    let key = key(namespace, name);
    if state.taint_evictions.contains_key(&key) {
        return;
    }
    if fire_at <= created_at {
        run_work(state, namespace, name);
        return;
    }
    state
        .taint_evictions
        .insert(key, Some(ScheduledEviction { created_at, fire_at }));
    state.pending.push(Pending::Deadline {
        timer: Timer::TaintEviction,
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        due: fire_at,
    });
}

/// A scheduled eviction's timer: it runs unless it was cancelled or replaced meanwhile.
pub(super) fn fire(state: &mut State, namespace: &str, name: &str, due: SystemTime) {
    let key = key(namespace, name);
    let current = matches!(state.taint_evictions.get(&key), Some(Some(s)) if s.fire_at == due);
    if !current {
        return;
    }
    run_work(state, namespace, name);
}

/// The worker's run (`getWrappedWorkerFunc`): the key is held as done while the work runs, so
/// that the pod's own removal, which the work may cause at once, cancels nothing; it is freed
/// when the work fails.
fn run_work(state: &mut State, namespace: &str, name: &str) {
    let key = key(namespace, name);
    state.taint_evictions.insert(key.clone(), None);
    if !delete_pod(state, namespace, name) {
        state.taint_evictions.remove(&key);
    }
}

/// `cancelWorkWithEvent`: the key dropped, with an event when a timer was still waiting.
fn cancel_with_event(state: &mut State, namespace: &str, name: &str) {
    if let Some(Some(_)) = state.taint_evictions.remove(&key(namespace, name)) {
        event(state, namespace, name, "Cancelling deletion of Pod");
    }
}

/// `deletePodHandler`: the event, then `addConditionAndDeletePod`: the `DisruptionTarget`
/// condition through `/status`, then a DELETE with default options. False when the pod is gone.
fn delete_pod(state: &mut State, namespace: &str, name: &str) -> bool {
    event(state, namespace, name, "Marking for deletion Pod");
    let pods = state.info("", "v1", "pods");
    let Some(pod) = state.object(&pods, Some(namespace), name) else {
        return false;
    };
    let mut updated = (*pod).clone();
    let condition = json!({
        "type": "DisruptionTarget", "status": "True", "reason": "DeletionByTaintManager",
        "message": "Taint manager: deleting due to NoExecute taint",
    });
    if update_pod_condition(&mut updated, condition)
        && let Err(status) = state.update_object(&pods, pod, updated, Some(CONTROLLER_MANAGER), Some("status"))
    {
        tracing::warn!(namespace, name, %status, "could not mark the pod for eviction");
        return false;
    }
    state.delete_object(&pods, Some(namespace), name, None);
    true
}

/// An event about the pod, from the controller that evicts (its name and reference changed
/// when it left the node lifecycle controller in 1.29).
fn event(state: &mut State, namespace: &str, name: &str, what: &str) {
    let own = state.options.minor() >= 29;
    let mut involved = json!({ "kind": "Pod", "name": name, "namespace": namespace });
    if own {
        involved["apiVersion"] = json!("v1");
    }
    let component = if own {
        "taint-eviction-controller"
    } else {
        "taint-controller"
    };
    let message = format!("{what} {namespace}/{name}");
    events::record_about(state, involved, "Normal", REASON, &message, component);
}

/// `getNoExecuteTaints`.
fn no_execute_taints(node: &Value) -> Vec<Value> {
    node.pointer("/spec/taints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|taint| text(taint.get("effect")) == "NoExecute")
        .cloned()
        .collect()
}

/// The pod's tolerations.
fn tolerations(pod: &Value) -> Vec<Value> {
    pod.pointer("/spec/tolerations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// The queue's key of a pod: `namespace/name`.
fn key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shortest_toleration_should_win_and_none_should_last_forever() {
        let five = json!({"tolerationSeconds": 5});
        let nine = json!({"tolerationSeconds": 9});
        let forever = json!({"operator": "Exists"});
        assert_eq!(
            min_toleration_time(&[&nine, &forever, &five]),
            Some(Duration::from_secs(5))
        );
        assert_eq!(min_toleration_time(&[&forever]), None);
        assert_eq!(
            min_toleration_time(&[&json!({"tolerationSeconds": 0}), &nine]),
            Some(Duration::ZERO)
        );
        assert_eq!(min_toleration_time(&[]), Some(Duration::ZERO));
        assert_eq!(
            min_toleration_time(&[&json!({"tolerationSeconds": i64::MAX})]),
            None,
            "wrapped"
        );
    }

    #[test]
    fn only_a_change_of_tolerations_node_or_no_execute_taints_should_queue_work() {
        let pods = ResourceInfo::builtin("", "v1", "Pod", "pods");
        let pod = json!({"metadata": {"name": "p", "namespace": "n"}, "spec": {"nodeName": "a"}});
        let mut status_only = pod.clone();
        status_only["status"] = json!({"phase": "Failed"});
        assert!(changed(&pods, Some(&pod), Some(&status_only)).is_none());
        assert!(changed(&pods, None, Some(&pod)).is_some());
        let nodes = ResourceInfo::builtin("", "v1", "Node", "nodes");
        let node = json!({"metadata": {"name": "a"}, "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}});
        let mut evicting = node.clone();
        if let Some(taints) = evicting["spec"]["taints"].as_array_mut() {
            taints.push(json!({"key": "k", "effect": "NoExecute"}));
        }
        assert!(changed(&nodes, Some(&node), Some(&node)).is_none());
        assert!(changed(&nodes, Some(&node), Some(&evicting)).is_some());
    }
}
