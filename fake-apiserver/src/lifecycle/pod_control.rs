//! The pods a workload controller makes and removes (`pkg/controller/controller_utils.go`:
//! `GetPodFromTemplate`, `RealPodControl.CreatePods` and `DeletePod` with their events,
//! `FilterActivePods`, `ActivePodsWithRanks`; `pkg/api/v1/pod/util.go`: `IsPodReady`,
//! `IsPodAvailable`). No kubelet runs here: a pod is ready only when a client wrote it so.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_refs::Owner;
use crate::lifecycle::disruption_status::is_pod_ready;
use crate::lifecycle::events;
use crate::lifecycle::writes::Writes;
use crate::semantics::names;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The annotation that orders a ReplicaSet's pods for deletion (`PodDeletionCost`).
const DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// The pod's phase, "" before the server set one.
pub(crate) fn phase(pod: &Value) -> &str {
    pod.pointer("/status/phase").and_then(Value::as_str).unwrap_or("")
}

/// Whether the pod's phase is `Succeeded` or `Failed`.
pub(crate) fn is_finished(pod: &Value) -> bool {
    matches!(phase(pod), "Succeeded" | "Failed")
}

/// Now in Unix seconds, the clock the controllers' availability checks read.
pub(crate) fn now_seconds() -> i64 {
    object::timestamp_seconds(&object::now()).unwrap_or(0)
}

/// `IsPodActive`: not finished and not being deleted.
pub(crate) fn is_active(pod: &Value) -> bool {
    !is_finished(pod) && !object::is_deleting(pod)
}

/// The pods of `namespace`, in the store's order.
pub(crate) fn pods_of(state: &State, namespace: &str) -> Vec<Arc<Value>> {
    state.objects_in("", "pods", namespace)
}

/// `IsPodAvailable`: ready for at least `min_ready_seconds` by `now` (Unix seconds).
pub(crate) fn is_available(pod: &Value, min_ready_seconds: i64, now: i64) -> bool {
    if !is_pod_ready(pod) {
        return false;
    }
    min_ready_seconds == 0 || ready_since(pod).is_some_and(|since| since + min_ready_seconds < now)
}

/// When the pod's `Ready` condition last turned true, in Unix seconds.
fn ready_since(pod: &Value) -> Option<i64> {
    let conditions = pod.pointer("/status/conditions").and_then(Value::as_array)?;
    let ready = conditions
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))?;
    object::timestamp_seconds(ready.get("lastTransitionTime")?.as_str()?)
}

/// `GetPodFromTemplate`: the template's labels, annotations, finalizers and spec, a name generated
/// from the owner's (with a dash when that still makes a valid prefix), the owner as controller.
pub(crate) fn pod_from_template(template: &Value, owner: &Owner<'_>) -> Value {
    let metadata = template.get("metadata");
    let copy = |key: &str| metadata.and_then(|m| m.get(key)).cloned();
    let owner_name = object::name(owner.object);
    // `getPodsPrefix`: `ValidatePodName(prefix, true)` masks the trailing dash (and the byte
    // before it) with an `a`.
    let masked = format!(
        "{}a",
        String::from_utf8_lossy(&owner_name.as_bytes()[..owner_name.len().saturating_sub(1)])
    );
    let prefix = if names::object_name_errors("Pod", &masked).is_empty() {
        format!("{owner_name}-")
    } else {
        owner_name.to_owned()
    };
    let mut meta = Map::new();
    meta.insert("generateName".to_owned(), json!(prefix));
    for key in ["labels", "annotations", "finalizers"] {
        if let Some(value) = copy(key) {
            meta.insert(key.to_owned(), value);
        }
    }
    meta.insert("ownerReferences".to_owned(), json!([owner.controller_ref()]));
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": template.get("spec").cloned().unwrap_or_else(|| json!({})),
    })
}

/// `CreatePods` of `count` pods from the owner's template, in `slowStartBatch`es (see
/// `create_each`). Returns the first failure.
pub(crate) fn create_pods(
    state: &mut State,
    owner_info: &ResourceInfo,
    owner: &Owner<'_>,
    count: usize,
    component: &str,
) -> Result<(), ApiStatus> {
    let template = owner.object.pointer("/spec/template").cloned().unwrap_or_default();
    let pods = (0..count).map(|_| pod_from_template(&template, owner)).collect();
    match create_each(state, owner_info, owner.object, pods, component) {
        (_, None) => Ok(()),
        (_, Some(status)) => Err(status),
    }
}

/// `slowStartBatch`: these pods created in batches of 1, 2, 4…, stopping after the first batch
/// with a failure, each creation recorded as an event on the owner (of `owner_info`). Returns
/// how many were made (a namespace being terminated counts as made: no failure) and the first
/// failure.
pub(crate) fn create_each(
    state: &mut State,
    owner_info: &ResourceInfo,
    owner: &Value,
    pods: Vec<Value>,
    component: &str,
) -> (usize, Option<ApiStatus>) {
    let info = state.info("", "v1", "pods");
    let namespace = object::namespace(owner).to_owned();
    let (mut made, mut batch) = (0usize, 1usize);
    let mut pods = pods.into_iter().peekable();
    while pods.peek().is_some() {
        let mut failure = None;
        for pod in pods.by_ref().take(batch) {
            match state.create_object(&info, Some(&namespace), pod, Some(CONTROLLER_MANAGER)) {
                Ok(created) => {
                    made += 1;
                    let message = format!("Created pod: {}", object::name(&created));
                    events::record(
                        state,
                        owner_info,
                        owner,
                        "Normal",
                        "SuccessfulCreate",
                        &message,
                        component,
                    );
                }
                Err(status) if status.has_cause("NamespaceTerminating") => made += 1,
                Err(status) => {
                    let message = format!("Error creating: {}", status.message);
                    events::warn(state, owner_info, owner, "FailedCreate", &message, component);
                    failure.get_or_insert(status);
                }
            }
        }
        if failure.is_some() {
            return (made, failure);
        }
        batch *= 2;
    }
    (made, None)
}

/// `DeletePod`, recorded as an event on the owner; a pod already gone is no failure.
pub(crate) fn delete_pod(state: &mut State, owner_info: &ResourceInfo, owner: &Value, pod: &Value, component: &str) {
    let pods = state.info("", "v1", "pods");
    let name = object::name(pod).to_owned();
    state.delete_object(&pods, Some(object::namespace(pod)), &name, None);
    let message = format!("Deleted pod: {name}");
    events::record(
        state,
        owner_info,
        owner,
        "Normal",
        "SuccessfulDelete",
        &message,
        component,
    );
}

/// `ActivePodsWithRanks.Less` with `LogarithmicScaleDown` and `PodDeletionCost` on: the pods in
/// the order they are deleted — unscheduled, pending, not ready, cheaper, on a node crowded with
/// `related` pods, ready for less time, restarted more, newer (on a log scale, then by uid).
pub(crate) fn sort_for_deletion(pods: &mut [Arc<Value>], related: &[Arc<Value>], now: i64) {
    fn node(pod: &Value) -> &str {
        pod.pointer("/spec/nodeName")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
    // `getPodsRankedByRelatedPodsOnSameNode`: the active related pods per node, counted once.
    let mut on_node: HashMap<&str, usize> = HashMap::new();
    for pod in related.iter().filter(|pod| is_active(pod)) {
        *on_node.entry(node(pod)).or_default() += 1;
    }
    let crowd = |pod: &Value| on_node.get(node(pod)).copied().unwrap_or(0);
    pods.sort_by(|a, b| {
        let (node_a, node_b) = (node(a), node(b));
        if node_a != node_b && (node_a.is_empty() || node_b.is_empty()) {
            return if node_a.is_empty() {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        phase_ordinal(a)
            .cmp(&phase_ordinal(b))
            .then(is_pod_ready(a).cmp(&is_pod_ready(b)))
            .then(deletion_cost(a).cmp(&deletion_cost(b)))
            .then(crowd(b).cmp(&crowd(a)))
            .then_with(|| match (is_pod_ready(a), is_pod_ready(b)) {
                (true, true) => newer_first(ready_since(a), ready_since(b), a, b, now),
                _ => Ordering::Equal,
            })
            .then(restarts(b).cmp(&restarts(a)))
            .then_with(|| newer_first(created(a), created(b), a, b, now))
    });
}

/// `controller.ActivePods.Less`: the pods in the order a Job deletes them — unscheduled,
/// pending, not ready, ready for less time, restarted more, newer.
pub(crate) fn sort_active(pods: &mut [Arc<Value>]) {
    let node = |pod: &Value| {
        pod.pointer("/spec/nodeName")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .is_empty()
    };
    pods.sort_by(|a, b| {
        node(b)
            .cmp(&node(a))
            .then(phase_ordinal(a).cmp(&phase_ordinal(b)))
            .then(is_pod_ready(a).cmp(&is_pod_ready(b)))
            .then_with(|| match (is_pod_ready(a), is_pod_ready(b)) {
                (true, true) => after_or_zero(ready_since(a), ready_since(b)),
                _ => Ordering::Equal,
            })
            .then(restarts(b).cmp(&restarts(a)))
            .then_with(|| after_or_zero(created(a), created(b)))
    });
}

/// `afterOrZero` as an order: a missing time first, then the later one.
fn after_or_zero(a: Option<i64>, b: Option<i64>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(a), Some(b)) => b.cmp(&a),
    }
}

fn phase_ordinal(pod: &Value) -> u8 {
    match pod.pointer("/status/phase").and_then(Value::as_str) {
        Some("Unknown") => 1,
        Some("Running") => 2,
        _ => 0,
    }
}

fn deletion_cost(pod: &Value) -> i64 {
    object::annotations(pod)
        .and_then(|a| a.get(DELETION_COST))
        .and_then(Value::as_str)
        .and_then(|cost| cost.parse().ok())
        .unwrap_or(0)
}

fn restarts(pod: &Value) -> i64 {
    let statuses = pod.pointer("/status/containerStatuses").and_then(Value::as_array);
    statuses
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("restartCount").and_then(Value::as_i64))
        .max()
        .unwrap_or(0)
}

fn created(pod: &Value) -> Option<i64> {
    object::timestamp_seconds(object::meta_str(pod, "creationTimestamp"))
}

/// The newer of two times first, compared by `logarithmicRankDiff` (the log2 of their ages in
/// nanoseconds), equal ranks by uid; a missing time orders as Go's `afterOrZero`.
fn newer_first(a: Option<i64>, b: Option<i64>, pod_a: &Value, pod_b: &Value, now: i64) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) if a == b => Ordering::Equal,
        (Some(a), Some(b)) => {
            let rank = |t: i64| {
                let age = (now - t) as f64 * 1e9;
                if age > 0.0 { age.log2() as i64 } else { -1 }
            };
            rank(a)
                .cmp(&rank(b))
                .then_with(|| object::uid(pod_a).cmp(object::uid(pod_b)))
        }
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}
