//! kube-controller-manager's ReplicaSet controller, and the replication manager that runs it on
//! ReplicationControllers (`pkg/controller/replication/replication_controller.go` and the
//! adapters of `conversion.go`: a map selector read as `matchLabels`) (`pkg/controller/replicaset/replica_set.go`:
//! `syncReplicaSet`, `claimPods`, `manageReplicas`, `getPodsToDelete`, `getIndirectlyRelatedPods`,
//! the pod handlers that enqueue a pod's owner or, for an orphan, every ReplicaSet selecting it;
//! `replica_set_utils.go`: `calculateStatus`, `updateReplicaSetStatus`). Its pods are made and
//! removed through the verbs, with admission; without kubelets they stay Pending.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_refs::{self, Owner};
use crate::lifecycle::disruption_status::is_pod_ready;
use crate::lifecycle::pod_control;
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::{Pending, Workload};
use crate::storage::resource::ResourceInfo;

/// One of the two controllers `NewBaseController` makes: its resource, its pods' owner
/// reference, its recorder's event source and its queue.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Replicas {
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    api_version: &'static str,
    kind: &'static str,
    component: &'static str,
    workload: Workload,
}

/// The ReplicaSet controller.
pub(crate) const REPLICA_SETS: Replicas = Replicas {
    group: "apps",
    version: "v1",
    plural: "replicasets",
    api_version: "apps/v1",
    kind: "ReplicaSet",
    component: "replicaset-controller",
    workload: Workload::ReplicaSet,
};

/// The replication manager.
pub(crate) const REPLICATION_CONTROLLERS: Replicas = Replicas {
    group: "",
    version: "v1",
    plural: "replicationcontrollers",
    api_version: "v1",
    kind: "ReplicationController",
    component: "replication-controller",
    workload: Workload::ReplicationController,
};

impl Replicas {
    /// The object as the ReplicaSet controller reads it: a ReplicationController's selector, a
    /// label map, as `matchLabels` (`convertRCtoRS`).
    fn adapted(self, object: &Arc<Value>) -> Arc<Value> {
        if self.workload != Workload::ReplicationController {
            return object.clone();
        }
        let mut adapted = (**object).clone();
        let labels = object.pointer("/spec/selector").filter(|s| s.is_object()).cloned();
        adapted["spec"]["selector"] = labels.map_or(Value::Null, |labels| json!({"matchLabels": labels}));
        Arc::new(adapted)
    }

    /// The controller's objects in `namespace`, adapted.
    fn all(self, state: &State, namespace: &str) -> Vec<Arc<Value>> {
        let objects = state.objects_in(self.group, self.plural, namespace);
        objects.iter().map(|o| self.adapted(o)).collect()
    }
}

/// `burstReplicas`: the most pods one sync creates or deletes.
const BURST_REPLICAS: usize = 500;

/// The informers' reaction to a write or removal of `object`: a ReplicaSet (or
/// ReplicationController) syncs itself, a pod its controller if that is one, an orphan pod every
/// one that selects it.
pub(super) fn on_change(state: &State, info: &ResourceInfo, object: &Value) -> Vec<Pending> {
    if !info.builtin {
        return Vec::new();
    }
    let namespace = object::namespace(object);
    let mut work = Vec::new();
    for replicas in [REPLICA_SETS, REPLICATION_CONTROLLERS] {
        let sync = |name: &str| Pending::sync(replicas.workload, namespace, name);
        if (info.group.as_str(), info.plural.as_str()) == (replicas.group, replicas.plural) {
            work.push(sync(object::name(object)));
        } else if info.group.is_empty() && info.plural == "pods" {
            let owners = controller_refs::owners_to_sync(object, replicas.kind, || replicas.all(state, namespace));
            work.extend(owners.iter().map(|name| sync(name)));
        }
    }
    work
}

/// The ReplicaSets of `namespace`.
pub(crate) fn replica_sets_of(state: &State, namespace: &str) -> Vec<Arc<Value>> {
    state.objects_in("apps", "replicasets", namespace)
}

/// `syncReplicaSet` of `namespace/name`, after `retry` failed ones; a failure to create or delete
/// pods brings it back later, as Go's rate-limited requeue does.
pub(super) fn sync(state: &mut State, replicas: Replicas, namespace: &str, name: &str, retry: u32) {
    let info = state.info(replicas.group, replicas.version, replicas.plural);
    let Some(stored) = state.object(&info, Some(namespace), name) else {
        return;
    };
    let rs = replicas.adapted(&stored);
    let pods_info = state.info("", "v1", "pods");
    let active: Vec<Arc<Value>> = pod_control::pods_of(state, namespace)
        .into_iter()
        .filter(|pod| pod_control::is_active(pod))
        .collect();
    let owner = Owner {
        api_version: replicas.api_version,
        kind: replicas.kind,
        object: &rs,
    };
    let owned = controller_refs::claim(state, &pods_info, &owner, active);
    let failure = if object::is_deleting(&rs) {
        None
    } else {
        manage_replicas(state, replicas, &info, &rs, owned.clone()).err()
    };
    // Counted as claimed: the pods just created or deleted count at the next sync, which
    // their own writes queue (Go's status is of `filteredPods` too).
    let Some(current) = state.object(&info, Some(namespace), name) else {
        return;
    };
    let status = calculate_status(
        &current,
        &owned,
        failure.as_ref().map(|(reason, message)| (*reason, message.as_str())),
    );
    update_status(state, &info, current, status);
    if failure.is_some()
        && let Some(work) = Pending::resync(replicas.workload, namespace, name, retry)
    {
        state.pending.push(work);
    }
}

/// `manageReplicas`: creates the missing pods or deletes the extra ones, at most a burst at a
/// time. A failure is the `ReplicaFailure` condition's reason and message.
fn manage_replicas(
    state: &mut State,
    replicas: Replicas,
    info: &ResourceInfo,
    rs: &Arc<Value>,
    mut owned: Vec<Arc<Value>>,
) -> Result<(), (&'static str, String)> {
    let wanted = rs.pointer("/spec/replicas").and_then(Value::as_i64).unwrap_or(1).max(0) as usize;
    let owner = Owner {
        api_version: replicas.api_version,
        kind: replicas.kind,
        object: rs,
    };
    if owned.len() < wanted {
        let missing = (wanted - owned.len()).min(BURST_REPLICAS);
        return pod_control::create_pods(state, info, &owner, missing, replicas.component)
            .map_err(|status| ("FailedCreate", status.message));
    }
    if owned.len() > wanted {
        let extra = (owned.len() - wanted).min(BURST_REPLICAS);
        if extra < owned.len() {
            let related = related_pods(state, replicas, rs);
            pod_control::sort_for_deletion(&mut owned, &related, pod_control::now_seconds());
        }
        for pod in owned.iter().take(extra) {
            pod_control::delete_pod(state, info, rs, pod, replicas.component);
        }
    }
    Ok(())
}

/// `getIndirectlyRelatedPods`: the pods of every ReplicaSet with the same controller as this
/// one (the ReplicaSets of one Deployment), or of this one alone.
fn related_pods(state: &State, replicas: Replicas, rs: &Value) -> Vec<Arc<Value>> {
    let namespace = object::namespace(rs);
    let siblings: Vec<String> = match controller_refs::controller_uid(rs) {
        Some(owner) => replicas
            .all(state, namespace)
            .iter()
            .filter(|other| controller_refs::controller_uid(other) == Some(owner))
            .map(|other| object::uid(other).to_owned())
            .collect(),
        None => vec![object::uid(rs).to_owned()],
    };
    pod_control::pods_of(state, namespace)
        .into_iter()
        .filter(|pod| controller_refs::controller_uid(pod).is_some_and(|uid| siblings.iter().any(|s| s == uid)))
        .collect()
}

/// `calculateStatus`: the pods counted, fully labelled, ready and available, and the
/// `ReplicaFailure` condition set by a failure or removed without one.
fn calculate_status(rs: &Value, owned: &[Arc<Value>], failure: Option<(&str, &str)>) -> Map<String, Value> {
    let mut status = rs.get("status").and_then(Value::as_object).cloned().unwrap_or_default();
    let template_labels = rs.pointer("/spec/template/metadata/labels").and_then(Value::as_object);
    let min_ready = rs.pointer("/spec/minReadySeconds").and_then(Value::as_i64).unwrap_or(0);
    let now = pod_control::now_seconds();
    let empty = Map::new();
    let fully_labeled = owned
        .iter()
        .filter(|pod| {
            let labels = object::labels(pod).unwrap_or(&empty);
            template_labels
                .into_iter()
                .flatten()
                .all(|(key, value)| labels.get(key) == Some(value))
        })
        .count();
    let ready = owned.iter().filter(|pod| is_pod_ready(pod)).count();
    let available = owned
        .iter()
        .filter(|pod| pod_control::is_available(pod, min_ready, now))
        .count();
    let mut conditions: Vec<Value> = status
        .get("conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let has_failure = conditions
        .iter()
        .any(|c| c.get("type") == Some(&json!("ReplicaFailure")));
    match failure {
        Some((reason, message)) if !has_failure => conditions.push(json!({
            "type": "ReplicaFailure", "status": "True", "lastTransitionTime": object::now(),
            "reason": reason, "message": message,
        })),
        None if has_failure => conditions.retain(|c| c.get("type") != Some(&json!("ReplicaFailure"))),
        _ => {}
    }
    set_count(&mut status, "replicas", owned.len(), true);
    set_count(&mut status, "fullyLabeledReplicas", fully_labeled, false);
    set_count(&mut status, "readyReplicas", ready, false);
    set_count(&mut status, "availableReplicas", available, false);
    if conditions.is_empty() {
        status.remove("conditions");
    } else {
        status.insert("conditions".to_owned(), Value::Array(conditions));
    }
    status
}

/// A count of the status: `omitempty` ones are absent at zero.
fn set_count(status: &mut Map<String, Value>, key: &str, count: usize, always: bool) {
    if count == 0 && !always {
        status.remove(key);
    } else {
        status.insert(key.to_owned(), json!(count));
    }
}

/// `updateReplicaSetStatus`: written with the generation observed, unless nothing changed.
fn update_status(state: &mut State, info: &Arc<ResourceInfo>, rs: Arc<Value>, mut status: Map<String, Value>) {
    let generation = object::generation(&rs);
    let old = rs.get("status").and_then(Value::as_object).cloned().unwrap_or_default();
    let observed = old.get("observedGeneration").and_then(Value::as_i64).unwrap_or(0);
    let same = |key: &str| old.get(key) == status.get(key);
    let counts_same = [
        "replicas",
        "fullyLabeledReplicas",
        "readyReplicas",
        "availableReplicas",
        "conditions",
    ]
    .iter()
    .all(|key| same(key));
    if counts_same && generation == observed {
        return;
    }
    status.insert("observedGeneration".to_owned(), json!(generation));
    let mut updated = (*rs).clone();
    updated["status"] = Value::Object(status);
    let name = object::name(&rs).to_owned();
    if let Err(status) = state.update_object(info, rs, updated, Some(CONTROLLER_MANAGER), Some("status")) {
        tracing::warn!(name, %status, "could not update the ReplicaSet's status");
    }
}
