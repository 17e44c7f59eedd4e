//! kube-controller-manager's node lifecycle controller tainting unhealthy nodes NoExecute
//! (`pkg/controller/nodelifecycle/node_lifecycle_controller.go` `processTaintBaseEviction`,
//! `markNodeForTainting`, `markNodeAsReachable`, `doNoExecuteTaintingPass`, `handleDisruption`,
//! `ComputeZoneState`, `setLimiterInZone`; `scheduler/rate_limited_queue.go`;
//! `pkg/controller/util/node` `SwapNodeControllerTaint`; `pkg/util/node` `GetZoneKey`): a node
//! reporting Ready `False` gets `node.kubernetes.io/not-ready:NoExecute`, one the monitor found
//! silent `node.kubernetes.io/unreachable:NoExecute`, through each zone's queue (one taint per
//! 10 s); a ready node loses both. When every zone is fully disrupted (no node ready) the
//! controller stops tainting and clears the taints; a partially disrupted small zone is not
//! tainted either.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::nodes;
use crate::lifecycle::writes::Writes;
use crate::storage::object;
use crate::storage::pending::Timer;
use crate::storage::{State, ZoneState, ZoneTainter};

const NOT_READY: &str = "node.kubernetes.io/not-ready";
const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
/// `--node-eviction-rate`, the queue's rate in a healthy zone (taints per second).
const EVICTION_RATE: f64 = 0.1;
/// `--unhealthy-zone-threshold`.
const UNHEALTHY_ZONE_THRESHOLD: f64 = 0.55;
/// `labelNodeDisruptionExclusion`.
const EXCLUDED: &str = "node.kubernetes.io/exclude-disruption";

/// `GetZoneKey`: the node's region and zone (the deprecated beta labels first), joined by
/// `:\0:`; empty without either.
pub(super) fn zone(node: &Value) -> String {
    let labels = object::labels(node);
    let label = |beta: &str, ga: &str| -> String {
        let get = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
        get(beta).or_else(|| get(ga)).unwrap_or_default().to_owned()
    };
    let zone = label("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone");
    let region = label(
        "failure-domain.beta.kubernetes.io/region",
        "topology.kubernetes.io/region",
    );
    if zone.is_empty() && region.is_empty() {
        return String::new();
    }
    format!("{region}:\0:{zone}")
}

/// `isNodeExcludedFromDisruptionChecks`.
pub(super) fn excluded(node: &Value) -> bool {
    object::labels(node).is_some_and(|labels| labels.contains_key(EXCLUDED))
}

/// `addPodEvictorForNewZone`: a zone seen for the first time starts `Initial`, its queue at the
/// healthy rate.
pub(super) fn add_zone(state: &mut State, zone: &str) {
    let memory = &mut state.node_lifecycle;
    if memory.zones.contains_key(zone) {
        return;
    }
    memory.zones.insert(zone.to_owned(), ZoneState::Initial);
    let tainter = ZoneTainter {
        queue: Vec::new(),
        added: BTreeSet::new(),
        rate: EVICTION_RATE,
        tokens: 1.0,
        refilled: SystemTime::now(),
    };
    memory.tainters.insert(zone.to_owned(), tainter);
}

/// `processTaintBaseEviction` on the Ready status the node posted: an opposite NoExecute taint
/// is swapped at once, a missing one queued; a ready node is cleared.
pub(super) fn process_eviction(state: &mut State, name: &str, observed: &str) {
    let info = state.info("", "v1", "nodes");
    let Some(node) = state.object(&info, None, name) else {
        return;
    };
    let (wanted, opposite) = match observed {
        "False" => (NOT_READY, UNREACHABLE),
        "Unknown" => (UNREACHABLE, NOT_READY),
        "True" => {
            mark_reachable(state, name);
            return;
        }
        _ => return,
    };
    if has_taint(&node, opposite) {
        swap_taints(state, name, wanted, opposite);
        return;
    }
    // `markNodeForTainting`: a node that lacks the taint is removed (`Remove`) and added again;
    // one that has it was added already and stays as it is.
    let zone = zone(&node);
    let lacks = !has_taint(&node, wanted);
    if let Some(tainter) = state.node_lifecycle.tainters.get_mut(&zone) {
        if lacks {
            remove_from(tainter, name);
        }
        if tainter.added.insert(name.to_owned()) {
            tainter.queue.push(name.to_owned());
        }
    }
}

/// `UniqueQueue.Remove`: off the queue, and free to be added again.
fn remove_from(tainter: &mut ZoneTainter, name: &str) {
    tainter.queue.retain(|queued| queued != name);
    tainter.added.remove(name);
}

/// `markNodeAsReachable`: both NoExecute taints removed, the node out of its queue.
pub(super) fn mark_reachable(state: &mut State, name: &str) {
    remove_taint(state, name, UNREACHABLE);
    remove_taint(state, name, NOT_READY);
    let info = state.info("", "v1", "nodes");
    let zone = state
        .object(&info, None, name)
        .map(|node| zone(&node))
        .unwrap_or_default();
    if let Some(tainter) = state.node_lifecycle.tainters.get_mut(&zone) {
        remove_from(tainter, name);
    }
}

/// `handleDisruption`: each zone's state from its nodes' Ready statuses; entering the state
/// where every zone is fully disrupted clears every node's NoExecute taints and stops the
/// queues, leaving it gives every node a new grace period.
pub(super) fn handle_disruption(
    state: &mut State,
    zone_conditions: &BTreeMap<String, Vec<Option<String>>>,
    nodes: &[Arc<Value>],
    now: SystemTime,
) {
    let new_states: BTreeMap<&String, ZoneState> = zone_conditions
        .iter()
        .map(|(zone, statuses)| (zone, zone_state(statuses)))
        .collect();
    let all_are = new_states.values().all(|s| *s == ZoneState::FullDisruption);
    let memory = &mut state.node_lifecycle;
    for zone in new_states.keys() {
        memory.zones.entry((*zone).clone()).or_insert(ZoneState::Initial);
    }
    memory.zones.retain(|zone, _| zone_conditions.contains_key(zone));
    let all_were = memory.zones.values().all(|s| *s == ZoneState::FullDisruption);
    if all_are && all_were {
        return;
    }
    let zones: Vec<String> = memory.zones.keys().cloned().collect();
    if all_are {
        for node in nodes {
            mark_reachable(state, object::name(node));
        }
        for zone in &zones {
            set_rate(state, zone, 0.0, now);
            state
                .node_lifecycle
                .zones
                .insert(zone.clone(), ZoneState::FullDisruption);
        }
        return;
    }
    if all_were {
        for record in state.node_lifecycle.health.values_mut() {
            record.probe = now;
            record.ready_transition = now;
        }
    }
    for zone in &zones {
        let new = new_states.get(zone).copied().unwrap_or(ZoneState::Normal);
        if !all_were && state.node_lifecycle.zones.get(zone) == Some(&new) {
            continue;
        }
        let size = zone_conditions.get(zone).map_or(0, Vec::len);
        set_rate(state, zone, zone_rate(new, size), now);
        state.node_lifecycle.zones.insert(zone.clone(), new);
    }
}

/// `ComputeZoneState`: no node ready is a full disruption; more than two not ready and at
/// least the threshold's share a partial one.
fn zone_state(statuses: &[Option<String>]) -> ZoneState {
    let ready = statuses.iter().filter(|s| s.as_deref() == Some("True")).count();
    let not_ready = statuses.len() - ready;
    if ready == 0 && not_ready > 0 {
        ZoneState::FullDisruption
    } else if not_ready > 2 && not_ready as f64 / statuses.len() as f64 >= UNHEALTHY_ZONE_THRESHOLD {
        ZoneState::PartialDisruption
    } else {
        ZoneState::Normal
    }
}

/// `setLimiterInZone`: the healthy rate, or in a partially disrupted zone the secondary rate
/// (0.01) above 50 nodes and none below.
fn zone_rate(zone_state: ZoneState, size: usize) -> f64 {
    match zone_state {
        ZoneState::PartialDisruption if size > 50 => 0.01,
        ZoneState::PartialDisruption => 0.0,
        _ => EVICTION_RATE,
    }
}

/// `SwapLimiter`: a new token bucket when the rate changes, full unless the old one had no
/// token to give (as Go drains the new one then).
fn set_rate(state: &mut State, zone: &str, rate: f64, now: SystemTime) {
    let Some(old_rate) = state.node_lifecycle.tainters.get(zone).map(|t| t.rate) else {
        return;
    };
    if old_rate == rate {
        return;
    }
    let old_rate = real_rate(state, old_rate);
    if let Some(tainter) = state.node_lifecycle.tainters.get_mut(zone) {
        refill(tainter, old_rate, now);
        tainter.tokens = if tainter.tokens >= 1.0 { 1.0 } else { 0.0 };
        tainter.rate = rate;
        tainter.refilled = now;
    }
}

/// The bucket refilled at `rate` (tokens per real second) up to one token by `now`.
fn refill(tainter: &mut ZoneTainter, rate: f64, now: SystemTime) {
    let elapsed = now.duration_since(tainter.refilled).unwrap_or_default().as_secs_f64();
    tainter.tokens = (tainter.tokens + elapsed * rate).min(1.0);
    tainter.refilled = now;
}

/// The rate in tokens per real second: Go's rate at the default controller delay of 100 ms.
fn real_rate(state: &State, rate: f64) -> f64 {
    rate * 0.1 / state.options.controller_delay.as_secs_f64().max(1e-6)
}

/// `doNoExecuteTaintingPass`: in each zone, queued nodes are tainted for their Ready status
/// while the queue's tokens last (a node ready again just leaves the queue).
pub(super) fn tainting_pass(state: &mut State, now: SystemTime) {
    let zones: Vec<String> = state.node_lifecycle.tainters.keys().cloned().collect();
    let info = state.info("", "v1", "nodes");
    for zone in zones {
        loop {
            let rate = state.node_lifecycle.tainters.get(&zone).map_or(0.0, |t| t.rate);
            let rate = real_rate(state, rate);
            let Some(tainter) = state.node_lifecycle.tainters.get_mut(&zone) else {
                break;
            };
            let Some(name) = tainter.queue.first().cloned() else {
                break;
            };
            // `TryAccept`: the bucket refills at the rate, up to one token.
            refill(tainter, rate, now);
            if rate == 0.0 || tainter.tokens < 1.0 {
                break;
            }
            tainter.tokens -= 1.0;
            // `RemoveFromQueue`: the node stays added, so it is not queued again.
            tainter.queue.remove(0);
            let Some(node) = state.object(&info, None, &name) else {
                continue;
            };
            let status = nodes::condition(&node, "Ready").map(|c| object::text(c.get("status")).to_owned());
            match status.as_deref() {
                Some("False") => swap_taints(state, &name, NOT_READY, UNREACHABLE),
                Some("Unknown") => swap_taints(state, &name, UNREACHABLE, NOT_READY),
                _ => {}
            }
        }
    }
}

/// Queues the tainting pass for when a zone with nodes waiting gets its next token, unless a
/// sooner one is queued (Go's pass runs every 100 ms).
pub(super) fn schedule_tainting(state: &mut State, now: SystemTime) {
    let next = state
        .node_lifecycle
        .tainters
        .values()
        .filter(|t| !t.queue.is_empty() && t.rate > 0.0)
        .map(|t| {
            let missing = (1.0 - t.tokens).max(0.0) / real_rate(state, t.rate);
            // A millisecond past the token, so that rounding cannot leave it just short.
            t.refilled.max(now) + Duration::from_secs_f64(missing) + Duration::from_millis(1)
        })
        .min();
    let Some(due) = next else { return };
    state
        .pending
        .queue_loop_run(&mut state.node_lifecycle.next_tainting, Timer::NodeTainting, due);
}

/// The tainting pass its timer runs at `due`, then the next one queued.
pub(super) fn tainting_timer(state: &mut State, due: SystemTime) {
    if state.node_lifecycle.next_tainting.is_some_and(|next| next > due) {
        return;
    }
    state.node_lifecycle.next_tainting = None;
    let now = SystemTime::now().max(due);
    tainting_pass(state, now);
    schedule_tainting(state, now);
}

fn has_taint(node: &Value, key: &str) -> bool {
    taints(node).iter().any(|t| is_taint(t, key))
}

fn taints(node: &Value) -> Vec<Value> {
    node.pointer("/spec/taints")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// `MatchTaint` against a NoExecute template: the same key and effect.
fn is_taint(taint: &Value, key: &str) -> bool {
    object::text(taint.get("key")) == key && object::text(taint.get("effect")) == "NoExecute"
}

/// `SwapNodeControllerTaint`: `add` stamped now (replacing one of its key and effect), then
/// `remove` taken off — two writes, as Go's two patches.
fn swap_taints(state: &mut State, name: &str, add: &str, remove: &str) {
    let info = state.info("", "v1", "nodes");
    let Some(node) = state.object(&info, None, name) else {
        return;
    };
    let added = json!({"key": add, "effect": "NoExecute", "timeAdded": object::now()});
    let mut list = taints(&node);
    match list.iter_mut().find(|t| is_taint(t, add)) {
        Some(existing) => *existing = added,
        None => list.push(added),
    }
    write_taints(state, &node, list);
    remove_taint(state, name, remove);
}

/// `RemoveTaintOffNode`: a write only when the node has the taint.
fn remove_taint(state: &mut State, name: &str, key: &str) {
    let info = state.info("", "v1", "nodes");
    let Some(node) = state.object(&info, None, name) else {
        return;
    };
    if !has_taint(&node, key) {
        return;
    }
    let kept = taints(&node).into_iter().filter(|t| !is_taint(t, key)).collect();
    write_taints(state, &node, kept);
}

fn write_taints(state: &mut State, node: &Arc<Value>, taints: Vec<Value>) {
    let info = state.info("", "v1", "nodes");
    let mut updated = (**node).clone();
    if let Some(spec) = updated.get_mut("spec").and_then(Value::as_object_mut) {
        match taints.is_empty() {
            true => spec.remove("taints"),
            false => spec.insert("taints".to_owned(), Value::Array(taints)),
        };
    }
    let name = object::name(node).to_owned();
    if let Err(status) = state.update_object(&info, node.clone(), updated, Some(CONTROLLER_MANAGER), None) {
        tracing::warn!(name, %status, "could not change the node's NoExecute taints");
    }
}
