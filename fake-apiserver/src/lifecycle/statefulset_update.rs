//! What a StatefulSet's sync does to its pods (`pkg/controller/statefulset/stateful_set_control.go`:
//! `updateStatefulSet`, `processReplica`, `processCondemned`, `runForAll`, `slowStartBatch`,
//! `computeReplicaStatus`; `stateful_set_utils.go`: `newVersionedStatefulSetPod`, `isHealthy`
//! and the other pod predicates): the missing ordinals made, finished pods made again, the
//! ordinals past `replicas` removed from the highest down, and a rolling update's pods replaced
//! from the highest ordinal down to the partition — one at a time, in order and only past
//! healthy pods for `OrderedReady`, all at once for `Parallel`. A finished pod is made again in
//! the same sync with a `Recreating…Pod` event before 1.31, by the next sync from 1.31.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::lifecycle::controller_history::apply_revision;
use crate::lifecycle::disruption_status::is_pod_ready;
use crate::lifecycle::events;
use crate::lifecycle::pod_control::{self, now_seconds, phase};
use crate::lifecycle::statefulset_claims;
use crate::lifecycle::statefulset_pods::{self as pods, COMPONENT, ordinal, revision_of};
use crate::storage::State;
use crate::storage::object;

/// The revisions of one sync.
pub(crate) struct Revisions {
    pub(crate) current: Arc<Value>,
    pub(crate) update: Arc<Value>,
    pub(crate) collision_count: i64,
}

/// `isCreated`: a stored pod has a phase; one only planned has none.
fn is_created(pod: &Value) -> bool {
    !phase(pod).is_empty()
}

fn is_running_and_ready(pod: &Value) -> bool {
    phase(pod) == "Running" && is_pod_ready(pod)
}

/// `isHealthy`: running, ready and not being deleted.
fn is_healthy(pod: &Value) -> bool {
    is_running_and_ready(pod) && !object::is_deleting(pod)
}

fn min_ready_seconds(set: &Value) -> i64 {
    set.pointer("/spec/minReadySeconds")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// `updateStatus` over `lists`: the counts of the status.
fn count_into(status: &mut Map<String, Value>, set: &Value, revisions: &Revisions, lists: &[&[Arc<Value>]]) {
    let (mut replicas, mut ready, mut available, mut current, mut updated) = (0, 0, 0, 0, 0);
    let now = now_seconds();
    for pod in lists.iter().flat_map(|list| list.iter()) {
        if is_created(pod) {
            replicas += 1;
        }
        if is_running_and_ready(pod) {
            ready += 1;
            if pod_control::is_available(pod, min_ready_seconds(set), now) {
                available += 1;
            }
        }
        if is_created(pod) && !object::is_deleting(pod) {
            current += i64::from(revision_of(pod) == object::name(&revisions.current));
            updated += i64::from(revision_of(pod) == object::name(&revisions.update));
        }
    }
    for (key, count) in [
        ("replicas", replicas),
        ("readyReplicas", ready),
        ("availableReplicas", available),
        ("currentReplicas", current),
        ("updatedReplicas", updated),
    ] {
        status.insert(key.to_owned(), json!(count));
    }
}

/// One sync's view: the set, its two revisions applied, and whether it goes in order.
struct Sync<'a> {
    set: &'a Value,
    revisions: &'a Revisions,
    current_set: Value,
    update_set: Value,
    monotonic: bool,
    minor: u32,
}

impl Sync<'_> {
    /// `newVersionedStatefulSetPod`: below the partition (or the current replicas, without a
    /// rolling update's settings) at the current revision, else at the update revision.
    fn new_pod(&self, ordinal: i64) -> Arc<Value> {
        let current = &self.current_set;
        let start = pods::start_ordinal(current);
        let rolling = current.pointer("/spec/updateStrategy/type").and_then(Value::as_str) == Some("RollingUpdate");
        let partition = current
            .pointer("/spec/updateStrategy/rollingUpdate/partition")
            .and_then(Value::as_i64);
        let current_replicas = current
            .pointer("/status/currentReplicas")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        // Go's condition, with its `&&` binding tighter than its `||`.
        let at_current = (rolling && partition.is_none() && ordinal < start + current_replicas)
            || partition.is_some_and(|partition| ordinal < start + partition);
        let pod = if at_current {
            pods::new_pod(current, ordinal, object::name(&self.revisions.current))
        } else {
            pods::new_pod(&self.update_set, ordinal, object::name(&self.revisions.update))
        };
        Arc::new(pod)
    }

    /// `processReplica`: whether to stop here, and a failure.
    fn process_replica(&self, state: &mut State, replicas: &mut [Arc<Value>], i: usize) -> (bool, Result<(), String>) {
        let set = self.set;
        // From 1.31 a finished pod is only deleted; the sync after its removal makes it again,
        // without an event of its own.
        if matches!(phase(&replicas[i]), "Failed" | "Succeeded") && self.minor >= 31 {
            if !object::is_deleting(&replicas[i]) {
                pods::delete_pod(state, set, &replicas[i]);
            }
            return (true, Ok(()));
        }
        if matches!(phase(&replicas[i]), "Failed" | "Succeeded") {
            let (kind, reason, what) = if phase(&replicas[i]) == "Failed" {
                ("Warning", "RecreatingFailedPod", "failed")
            } else {
                ("Normal", "RecreatingTerminatedPod", "terminated")
            };
            let message = format!(
                "StatefulSet {}/{} is recreating {what} Pod {}",
                object::namespace(set),
                object::name(set),
                object::name(&replicas[i])
            );
            let info = state.info("apps", "v1", "statefulsets");
            events::record(state, &info, set, kind, reason, &message, COMPONENT);
            pods::delete_pod(state, set, &replicas[i]);
            replicas[i] = self.new_pod(i as i64 + pods::start_ordinal(set));
        }
        if !is_created(&replicas[i]) {
            if statefulset_claims::is_stale(state, set, &replicas[i]) {
                return (true, Ok(()));
            }
            match pods::create_pod(state, set, (*replicas[i]).clone()) {
                Ok(created) => statefulset_claims::update_owners(state, set, &created),
                Err(error) => return (true, Err(error)),
            }
            if self.monotonic {
                return (true, Ok(()));
            }
        }
        let pod = replicas[i].clone();
        if phase(&pod) == "Pending" {
            if let Err(error) = pods::create_claims(state, set, &pod) {
                return (true, Err(error));
            }
            statefulset_claims::update_owners(state, set, &pod);
        }
        let available = pod_control::is_available(&pod, min_ready_seconds(set), now_seconds());
        if self.monotonic && (object::is_deleting(&pod) || !is_running_and_ready(&pod) || !available) {
            return (true, Ok(()));
        }
        let in_place = pods::identity_matches(set, &pod)
            && pods::storage_matches(set, &pod)
            && statefulset_claims::match_policy(state, &self.update_set, &pod);
        if in_place || !is_created(&pod) {
            return (false, Ok(()));
        }
        statefulset_claims::update_owners(state, &self.update_set, &pod);
        (false, pods::update_pod(state, &self.update_set, &pod))
    }

    /// `processCondemned`: a pod past `replicas` deleted, in order only once those before it are
    /// healthy (the first unhealthy pod itself may go).
    fn process_condemned(
        &self,
        state: &mut State,
        condemned: &[Arc<Value>],
        first_unhealthy: Option<&str>,
        i: usize,
    ) -> (bool, Result<(), String>) {
        let pod = &condemned[i];
        if object::is_deleting(pod) {
            return (self.monotonic, Ok(()));
        }
        let available = pod_control::is_available(pod, min_ready_seconds(self.set), now_seconds());
        let first = first_unhealthy == Some(object::name(pod));
        if self.monotonic && !first && (!is_running_and_ready(pod) || !available) {
            return (true, Ok(()));
        }
        pods::delete_pod(state, self.set, pod);
        (true, Ok(()))
    }
}

/// `runForAll`: in order stopping at the first that says so, or in slow-start batches (1, 2,
/// 4…) stopping after a batch with a failure. Whether to stop, and the failure.
fn run_for_all(
    count: usize,
    monotonic: bool,
    mut run: impl FnMut(usize) -> (bool, Result<(), String>),
) -> (bool, Result<(), String>) {
    if monotonic {
        for i in 0..count {
            let (stop, result) = run(i);
            if stop || result.is_err() {
                return (true, result);
            }
        }
        return (false, Ok(()));
    }
    let (mut next, mut batch) = (0, 1);
    while next < count {
        let size = batch.min(count - next);
        let failures: Vec<String> = (next..next + size).filter_map(|i| run(i).1.err()).collect();
        if !failures.is_empty() {
            return (true, Err(failures.join(", ")));
        }
        next += size;
        batch = (batch * 2).min(500);
    }
    (false, Ok(()))
}

/// `updateStatefulSet`: the status to write, and whether the sync succeeded.
pub(crate) fn update_stateful_set(
    state: &mut State,
    set: &Value,
    revisions: &Revisions,
    claimed: &[Arc<Value>],
) -> (Map<String, Value>, bool) {
    let sync = Sync {
        set,
        revisions,
        current_set: apply_revision(set, &revisions.current),
        update_set: apply_revision(set, &revisions.update),
        monotonic: set.pointer("/spec/podManagementPolicy").and_then(Value::as_str) != Some("Parallel"),
        minor: state.options.minor(),
    };
    let mut status = Map::new();
    status.insert("observedGeneration".to_owned(), json!(object::generation(set)));
    status.insert("currentRevision".to_owned(), json!(object::name(&revisions.current)));
    status.insert("updateRevision".to_owned(), json!(object::name(&revisions.update)));
    status.insert("collisionCount".to_owned(), json!(revisions.collision_count));
    count_into(&mut status, set, revisions, &[claimed]);

    let (start, count) = (pods::start_ordinal(set), pods::replicas(set).max(0));
    let mut slots: Vec<Option<Arc<Value>>> = vec![None; count as usize];
    let mut condemned = Vec::new();
    for pod in claimed {
        if pods::in_ordinal_range(set, pod) {
            slots[(ordinal(pod) - start) as usize] = Some(pod.clone());
        } else if ordinal(pod) >= 0 {
            condemned.push(pod.clone());
        }
    }
    let mut replicas: Vec<Arc<Value>> = slots
        .into_iter()
        .enumerate()
        .map(|(i, slot)| slot.unwrap_or_else(|| sync.new_pod(start + i as i64)))
        .collect();
    condemned.sort_by_key(|pod| std::cmp::Reverse(ordinal(pod)));
    let first_unhealthy = replicas
        .iter()
        .chain(condemned.iter().rev())
        .find(|pod| !is_healthy(pod))
        .map(|pod| object::name(pod).to_owned());
    if object::is_deleting(set) {
        return (status, true);
    }

    let (stop, result) = run_for_all(replicas.len(), sync.monotonic, |i| {
        sync.process_replica(state, &mut replicas, i)
    });
    if stop || result.is_err() {
        count_into(&mut status, set, revisions, &[&replicas, &condemned]);
        return (status, result.is_ok());
    }
    // The condemned pods' claims get the owners scaling down gives them.
    for pod in &condemned {
        if !statefulset_claims::match_policy(state, &sync.update_set, pod) {
            statefulset_claims::update_owners(state, &sync.update_set, pod);
        }
    }
    let (stop, result) = run_for_all(condemned.len(), sync.monotonic, |i| {
        sync.process_condemned(state, &condemned, first_unhealthy.as_deref(), i)
    });
    if stop || result.is_err() {
        count_into(&mut status, set, revisions, &[&replicas, &condemned]);
        return (status, result.is_ok());
    }
    count_into(&mut status, set, revisions, &[&replicas, &condemned]);
    if set.pointer("/spec/updateStrategy/type").and_then(Value::as_str) == Some("OnDelete") {
        return (status, true);
    }
    // The pod with the highest ordinal not at the update revision is replaced, one per sync.
    let partition = set
        .pointer("/spec/updateStrategy/rollingUpdate/partition")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    for target in (0..replicas.len()).rev().filter(|t| *t as i64 >= partition) {
        let pod = &replicas[target];
        if revision_of(pod) != object::name(&revisions.update) && !object::is_deleting(pod) {
            pods::delete_pod(state, set, pod);
            let current = status.get("currentReplicas").and_then(Value::as_i64).unwrap_or(0);
            status.insert("currentReplicas".to_owned(), json!(current - 1));
            return (status, true);
        }
        if !is_healthy(pod) {
            break;
        }
    }
    (status, true)
}
