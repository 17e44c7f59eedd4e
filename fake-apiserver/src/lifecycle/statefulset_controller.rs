//! kube-controller-manager's StatefulSet controller (`pkg/controller/statefulset/stateful_set.go`:
//! `sync`, `adoptOrphanRevisions`, `getPodsForStatefulSet`, the pod handlers;
//! `stateful_set_control.go`: `UpdateStatefulSet`, `performUpdate`, `getStatefulSetRevisions`,
//! `truncateHistory`, `updateStatefulSetStatus`; `stateful_set_utils.go`: `newRevision`,
//! `inconsistentStatus`, `completeRollingUpdate`). The pods and claims it asks for are made
//! through the verbs, with admission; without kubelets the pods stay Pending, so an ordered set
//! waits at its first pod, as on a cluster without nodes.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_history as history;
use crate::lifecycle::controller_refs;
use crate::lifecycle::statefulset_pods::{self as pods, owner, revision_of};
use crate::lifecycle::statefulset_update::{Revisions, update_stateful_set};
use crate::lifecycle::writes::Writes;
use crate::semantics::label_selector_validation::as_selector;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::{Pending, Workload};
use crate::storage::resource::ResourceInfo;

/// The informers' reaction to a write or removal: a StatefulSet syncs itself, a pod its
/// controlling StatefulSet or, for an orphan, every StatefulSet that selects it.
pub(super) fn on_change(state: &State, info: &ResourceInfo, object: &Value) -> Vec<Pending> {
    let sync = |namespace: &str, name: &str| Pending::sync(Workload::StatefulSet, namespace, name);
    if !info.builtin {
        return Vec::new();
    }
    let namespace = object::namespace(object);
    match (info.group.as_str(), info.plural.as_str()) {
        ("apps", "statefulsets") => vec![sync(namespace, object::name(object))],
        ("", "pods") => controller_refs::owners_to_sync(object, "StatefulSet", || {
            state.objects_in("apps", "statefulsets", namespace)
        })
        .iter()
        .map(|name| sync(namespace, name))
        .collect(),
        _ => Vec::new(),
    }
}

/// `sync` of `namespace/name`, after `retry` failed ones; a failure brings it back later, as Go's
/// rate-limited requeue does.
pub(super) fn sync(state: &mut State, namespace: &str, name: &str, retry: u32) {
    let info = state.info("apps", "v1", "statefulsets");
    let Some(set) = state.object(&info, Some(namespace), name) else {
        return;
    };
    // A selector that does not parse is not retried.
    let Some(selector) = as_selector(set.pointer("/spec/selector")) else {
        return;
    };
    let mut revisions = history::list(state, &set, &selector);
    if revisions.iter().any(|r| controller_refs::controller_of(r).is_none()) {
        if object::is_deleting(&set) {
            return requeue(state, namespace, name, retry);
        }
        history::adopt_orphans(state, &owner(&set), &mut revisions);
    }
    let pods_info = state.info("", "v1", "pods");
    let candidates = state.objects_in("", "pods", namespace);
    let claimed = controller_refs::claim_matching(state, &pods_info, &owner(&set), candidates, |pod| {
        pods::is_member_of(&set, pod)
    });
    if !update(state, &info, &set, &claimed, revisions) {
        requeue(state, namespace, name, retry);
    }
}

fn requeue(state: &mut State, namespace: &str, name: &str, retry: u32) {
    if let Some(work) = Pending::resync(Workload::StatefulSet, namespace, name, retry) {
        state.pending.push(work);
    }
}

/// `UpdateStatefulSet`: revisions, pods, status, then the history trimmed. Whether it all
/// succeeded.
fn update(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    set: &Arc<Value>,
    claimed: &[Arc<Value>],
    revisions: Vec<Arc<Value>>,
) -> bool {
    let Some((current, updated, collision_count)) = set_revisions(state, set, &revisions) else {
        return false;
    };
    let revisions_now = Revisions {
        current: current.clone(),
        update: updated.clone(),
        collision_count,
    };
    let (status, ok) = update_stateful_set(state, set, &revisions_now, claimed);
    let written = write_status(state, info, set, status);
    truncate_history(state, set, claimed, &revisions, &current, &updated);
    ok && written
}

/// `getStatefulSetRevisions`: the current revision (the status', or the update one) and the
/// update revision — the newest if it holds this template, an older one renumbered if that
/// does (a rollback), else a new one; and the collision count after creating it.
fn set_revisions(state: &mut State, set: &Value, revisions: &[Arc<Value>]) -> Option<(Arc<Value>, Arc<Value>, i64)> {
    let mut collision_count = set
        .pointer("/status/collisionCount")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let next = revisions.last().map_or(1, |r| history::number(r) + 1);
    let mut wanted = history::new_revision(
        &owner(set),
        pods::template_labels(set),
        history::template_patch(set, state.options.minor()),
        next,
        collision_count,
    );
    if let Some(annotations) = object::annotations(set).filter(|a| !a.is_empty()) {
        object::meta_mut(&mut wanted).insert("annotations".to_owned(), Value::Object(annotations.clone()));
    }
    let equal: Vec<&Arc<Value>> = revisions.iter().filter(|r| history::equal(r, &wanted)).collect();
    let updated = match (equal.last(), revisions.last()) {
        (Some(same), Some(newest)) if history::equal(newest, same) => newest.clone(),
        (Some(same), _) => history::renumber(state, same, next),
        (None, _) => history::create(state, set, &wanted, &mut collision_count)?,
    };
    let current_name = set
        .pointer("/status/currentRevision")
        .and_then(Value::as_str)
        .unwrap_or("");
    let current = revisions
        .iter()
        .find(|r| object::name(r) == current_name)
        .cloned()
        .unwrap_or_else(|| updated.clone());
    Some((current, updated, collision_count))
}

/// `updateStatefulSetStatus`: a finished rolling update completed, and the status written
/// unless it says what the stored one says. Whether nothing failed.
fn write_status(state: &mut State, info: &Arc<ResourceInfo>, set: &Arc<Value>, mut status: Map<String, Value>) -> bool {
    let count = |status: &Map<String, Value>, key: &str| status.get(key).and_then(Value::as_i64).unwrap_or(0);
    let rolling = set.pointer("/spec/updateStrategy/type").and_then(Value::as_str) != Some("OnDelete");
    let wanted = pods::replicas(set);
    if rolling
        && ["updatedReplicas", "readyReplicas", "replicas"]
            .iter()
            .all(|key| count(&status, key) == wanted)
    {
        status.insert("currentReplicas".to_owned(), json!(count(&status, "updatedReplicas")));
        status.insert(
            "currentRevision".to_owned(),
            status.get("updateRevision").cloned().unwrap_or_default(),
        );
    }
    let old = set
        .get("status")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let text =
        |status: &Map<String, Value>, key: &str| status.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    let inconsistent = count(&status, "observedGeneration") > count(&old, "observedGeneration")
        || [
            "replicas",
            "currentReplicas",
            "readyReplicas",
            "updatedReplicas",
            "availableReplicas",
        ]
        .iter()
        .any(|key| count(&status, key) != count(&old, key))
        || ["currentRevision", "updateRevision"]
            .iter()
            .any(|key| text(&status, key) != text(&old, key));
    if !inconsistent {
        return true;
    }
    // The StatefulSetStatus as encoding/json writes it: only replicas, availableReplicas and
    // the collision count (a pointer) at zero.
    for key in [
        "observedGeneration",
        "readyReplicas",
        "currentReplicas",
        "updatedReplicas",
    ] {
        if count(&status, key) == 0 {
            status.remove(key);
        }
    }
    for key in ["currentRevision", "updateRevision"] {
        if text(&status, key).is_empty() {
            status.remove(key);
        }
    }
    let mut updated = (**set).clone();
    updated["status"] = Value::Object(status);
    match state.update_object(info, set.clone(), updated, Some(CONTROLLER_MANAGER), Some("status")) {
        Ok(_) => true,
        Err(status) => {
            tracing::debug!(name = object::name(set), %status, "could not update the StatefulSet's status");
            false
        }
    }
}

/// `truncateHistory`: the revisions no pod and neither status revision uses, oldest first,
/// deleted down to `revisionHistoryLimit`.
fn truncate_history(
    state: &mut State,
    set: &Value,
    pods: &[Arc<Value>],
    revisions: &[Arc<Value>],
    current: &Value,
    updated: &Value,
) {
    let mut live: HashSet<&str> = pods.iter().map(|pod| revision_of(pod)).collect();
    live.insert(object::name(current));
    live.insert(object::name(updated));
    let old: Vec<&Arc<Value>> = revisions.iter().filter(|r| !live.contains(object::name(r))).collect();
    let limit = set
        .pointer("/spec/revisionHistoryLimit")
        .and_then(Value::as_u64)
        .unwrap_or(10) as usize;
    if old.len() > limit {
        for revision in &old[..old.len() - limit] {
            history::delete(state, revision);
        }
    }
}
