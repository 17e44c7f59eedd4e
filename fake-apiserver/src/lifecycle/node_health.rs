//! kube-controller-manager's node lifecycle controller watching node health
//! (`pkg/controller/nodelifecycle/node_lifecycle_controller.go` `monitorNodeHealth`,
//! `tryUpdateNodeHealth`, `classifyNodes`; `pkg/controller/util/node/controller_utils.go`
//! `MarkPodsNotReady`, `RecordNodeEvent`, `RecordNodeStatusChange`): every 5 s (50 controller
//! delays) a pass over the nodes hears from each through its Ready heartbeat or its Lease in
//! `kube-node-lease`; a node silent past the grace period (60 s after creation for one that
//! never posted, 40 s after the last heartbeat) gets its conditions `Unknown`, its pods not
//! ready and a `NodeNotReady` event; then `node_noexecute` taints or clears it by zone.
//!
//! Go's loop runs forever; here a pass is queued at the loop's next tick after a node or node
//! Lease is written, and at the tick when a grace period or a tainting token runs out.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::writes::Writes;
use crate::lifecycle::{events, node_noexecute, nodes};
use crate::semantics::pod_condition::update_pod_condition;
use crate::storage::object;
use crate::storage::pending::{Timer, loop_tick};
use crate::storage::resource::ResourceInfo;
use crate::storage::{NodeHealthRecord, State};

/// `--node-monitor-period`, `--node-monitor-grace-period` and `--node-startup-grace-period`
/// (5 s, 40 s, 60 s), in controller delays.
const MONITOR_PERIOD_DELAYS: u32 = 50;
const GRACE_DELAYS: u32 = 400;
const STARTUP_GRACE_DELAYS: u32 = 600;
/// The conditions the monitor turns `Unknown` (not `NetworkUnavailable`).
const MONITORED: &[&str] = &["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];
/// The event source of the node lifecycle controller.
pub(super) const COMPONENT: &str = "node-controller";
/// Where kubelets renew their Leases.
const LEASE_NAMESPACE: &str = "kube-node-lease";

/// Whether a write concerns the monitor: a node, or a node's Lease.
pub(super) fn concerns(info: &ResourceInfo, object: &Value) -> bool {
    info.builtin
        && ((info.group.is_empty() && info.plural == "nodes")
            || (info.group == "coordination.k8s.io"
                && info.plural == "leases"
                && object::namespace(object) == LEASE_NAMESPACE))
}

/// The monitor's next pass at its loop's next tick, unless one is queued already.
pub(super) fn schedule_pass(state: &mut State) {
    schedule_at(state, SystemTime::now());
}

/// The monitor's pass at the first tick of its loop at or after `at`, unless an earlier one is
/// queued.
pub(super) fn schedule_at(state: &mut State, at: SystemTime) {
    let period = state.options.controller_delay * MONITOR_PERIOD_DELAYS;
    let due = loop_tick(state.node_lifecycle.started, period, at);
    state
        .pending
        .queue_loop_run(&mut state.node_lifecycle.next_pass, Timer::NodeMonitor, due);
}

/// `monitorNodeHealth` at the loop's tick `tick`, then the NoExecute tainting pass; the next
/// pass is queued for when anything can change without a write.
pub(super) fn pass(state: &mut State, tick: SystemTime) {
    if state.node_lifecycle.next_pass.is_some_and(|next| next > tick) {
        // A sooner pass queued since ran in this one's place and queued the next.
        return;
    }
    state.node_lifecycle.next_pass = None;
    let now = SystemTime::now().max(tick);
    let info = state.info("", "v1", "nodes");
    let nodes = state.objects_everywhere(&info);
    classify(state, &nodes);
    let mut zone_conditions: BTreeMap<String, Vec<Option<String>>> = BTreeMap::new();
    for node in &nodes {
        let name = object::name(node);
        let Some(node) = state.object(&info, None, name) else {
            continue;
        };
        let (observed, current) = update_health(state, &info, &node, Pass { tick, now });
        if !node_noexecute::excluded(&node) {
            zone_conditions
                .entry(node_noexecute::zone(&node))
                .or_default()
                .push(current.clone());
        }
        let Some(current) = current else { continue };
        node_noexecute::process_eviction(state, name, &observed);
        if current != "True" && observed == "True" {
            let message = format!("Node {name} status is now: NodeNotReady");
            events::record_about(
                state,
                node_reference(&node),
                "Normal",
                "NodeNotReady",
                &message,
                COMPONENT,
            );
            mark_pods_not_ready(state, name);
        }
    }
    node_noexecute::handle_disruption(state, &zone_conditions, &nodes, tick);
    node_noexecute::tainting_pass(state, now);
    node_noexecute::schedule_tainting(state, now);
    if let Some(next) = next_grace_end(state, now) {
        schedule_at(state, next);
    }
}

/// When a pass runs: the loop's tick, which Go's `nc.now()` stamps heartbeats with, and the
/// time it compares grace periods against.
#[derive(Clone, Copy)]
struct Pass {
    tick: SystemTime,
    now: SystemTime,
}

/// `RecordNodeEvent`'s and `RecordNodeStatusChange`'s reference to a node.
pub(super) fn node_reference(node: &Value) -> Value {
    json!({"kind": "Node", "name": object::name(node), "uid": object::uid(node), "apiVersion": "v1"})
}

/// `classifyNodes`: nodes seen for the first time are registered (and their NoExecute taints
/// cleared), nodes gone are forgotten, each with an event.
fn classify(state: &mut State, nodes: &[Arc<Value>]) {
    for node in nodes {
        let name = object::name(node);
        if state.node_lifecycle.known.contains_key(name) {
            node_noexecute::add_zone(state, &node_noexecute::zone(node));
            continue;
        }
        let message = format!("Node {name} event: Registered Node {name} in Controller");
        events::record_about(
            state,
            node_reference(node),
            "Normal",
            "RegisteredNode",
            &message,
            COMPONENT,
        );
        let uid = object::uid(node).to_owned();
        state.node_lifecycle.known.insert(name.to_owned(), uid);
        node_noexecute::add_zone(state, &node_noexecute::zone(node));
        node_noexecute::mark_reachable(state, name);
    }
    let gone: Vec<(String, String)> = state
        .node_lifecycle
        .known
        .iter()
        .filter(|(name, _)| !nodes.iter().any(|n| object::name(n) == name.as_str()))
        .map(|(name, uid)| (name.clone(), uid.clone()))
        .collect();
    for (name, uid) in gone {
        let message = format!("Node {name} event: Removing Node {name} from Controller");
        let reference = json!({"kind": "Node", "name": name, "uid": uid, "apiVersion": "v1"});
        events::record_about(state, reference, "Normal", "RemovingNode", &message, COMPONENT);
        // Go forgets the node but not its health: a node created again under the name starts
        // from the old record.
        state.node_lifecycle.known.remove(&name);
    }
}

/// `tryUpdateNodeHealth`: the Ready status the node posted (observed; `Unknown` for a node
/// that never posted) and the one it has after the monitor's verdict (`None`: no Ready
/// condition yet).
fn update_health(state: &mut State, info: &Arc<ResourceInfo>, node: &Arc<Value>, at: Pass) -> (String, Option<String>) {
    let name = object::name(node).to_owned();
    let delay = state.options.controller_delay;
    let created = time_of(object::meta_str(node, "creationTimestamp")).unwrap_or(at.tick);
    let current = nodes::condition(node, "Ready").cloned();
    let saved = state.node_lifecycle.health.get(&name).cloned();
    let saved_lease = saved.as_ref().and_then(|r| r.lease_renewed.clone());
    // A new record forgets the Lease it saw (Go's `nodeHealthData` literals leave it nil).
    let fresh = |ready: Option<Value>, transition| NodeHealthRecord {
        ready,
        probe: at.tick,
        ready_transition: transition,
        lease_renewed: None,
    };
    let (observed, grace, mut record) = match &current {
        None => {
            let record = match saved {
                Some(saved) => NodeHealthRecord { ready: None, ..saved },
                None => NodeHealthRecord {
                    ready: None,
                    probe: created,
                    ready_transition: created,
                    lease_renewed: None,
                },
            };
            ("Unknown".to_owned(), delay * STARTUP_GRACE_DELAYS, record)
        }
        Some(ready) => {
            let record = match saved {
                Some(saved) => match &saved.ready {
                    None => fresh(Some(ready.clone()), at.tick),
                    Some(before) if before.get("lastHeartbeatTime") != ready.get("lastHeartbeatTime") => {
                        let moved = before.get("lastTransitionTime") != ready.get("lastTransitionTime");
                        let transition = if moved { at.tick } else { saved.ready_transition };
                        fresh(Some(ready.clone()), transition)
                    }
                    Some(_) => saved,
                },
                None => fresh(Some(ready.clone()), at.tick),
            };
            (
                object::text(ready.get("status")).to_owned(),
                delay * GRACE_DELAYS,
                record,
            )
        }
    };
    // A Lease seen for the first time, or renewed since, is a heartbeat too.
    let leases = state.info("coordination.k8s.io", "v1", "leases");
    let observed_lease = state
        .object(&leases, Some(LEASE_NAMESPACE), &name)
        .map(|lease| object::text(lease.pointer("/spec/renewTime")).to_owned());
    if let Some(renewed) = &observed_lease {
        let newer = match &saved_lease {
            None => true,
            Some(before) => matches!((time_of(before), time_of(renewed)), (Some(b), Some(r)) if b < r),
        };
        if newer {
            record.lease_renewed = Some(renewed.clone());
            record.probe = at.tick;
        }
    }
    let mut verdict = current
        .as_ref()
        .map(|ready| object::text(ready.get("status")).to_owned());
    if at.now >= record.probe + grace {
        let marked = marked_unknown(node);
        let ready = nodes::condition(&marked, "Ready").cloned();
        if ready != current || current.is_none() {
            match state.update_object(info, node.clone(), marked, Some(CONTROLLER_MANAGER), Some("status")) {
                Ok(_) => {
                    record.ready = ready;
                    record.ready_transition = at.tick;
                    record.lease_renewed = observed_lease;
                    verdict = Some("Unknown".to_owned());
                }
                Err(status) => tracing::warn!(name, %status, "could not mark the node's health unknown"),
            }
        }
    }
    state.node_lifecycle.health.insert(name, record);
    (observed, verdict)
}

/// The node with every monitored condition `Unknown`: those never posted added (their
/// heartbeat the node's creation), those posted marked stopped.
fn marked_unknown(node: &Value) -> Value {
    let now = object::now();
    let created = node
        .pointer("/metadata/creationTimestamp")
        .cloned()
        .unwrap_or(Value::Null);
    let mut updated = node.clone();
    let conditions = &mut updated["status"]["conditions"];
    if !conditions.is_array() {
        *conditions = json!([]);
    }
    if let Some(list) = conditions.as_array_mut() {
        for kind in MONITORED {
            match list.iter_mut().find(|c| object::text(c.get("type")) == *kind) {
                None => list.push(json!({
                    "type": kind, "status": "Unknown", "lastHeartbeatTime": created,
                    "lastTransitionTime": now, "reason": "NodeStatusNeverUpdated",
                    "message": "Kubelet never posted node status.",
                })),
                Some(found) if object::text(found.get("status")) != "Unknown" => {
                    found["status"] = json!("Unknown");
                    found["reason"] = json!("NodeStatusUnknown");
                    found["message"] = json!("Kubelet stopped posting node status.");
                    found["lastTransitionTime"] = json!(now);
                }
                Some(_) => {}
            }
        }
    }
    updated
}

/// `MarkPodsNotReady`: each pod bound to the node with a Ready condition gets it `False`
/// through `/status`, and a `NodeNotReady` event.
fn mark_pods_not_ready(state: &mut State, node: &str) {
    let info = state.info("", "v1", "pods");
    let mut pods = state.objects_everywhere(&info);
    pods.retain(|pod| object::text(pod.pointer("/spec/nodeName")) == node);
    for pod in pods {
        let conditions = pod.pointer("/status/conditions").and_then(Value::as_array);
        let Some(ready) = conditions
            .into_iter()
            .flatten()
            .find(|c| object::text(c.get("type")) == "Ready")
        else {
            continue;
        };
        let mut condition = ready.clone();
        condition["status"] = json!("False");
        let mut updated = (*pod).clone();
        if !update_pod_condition(&mut updated, condition) {
            continue;
        }
        match state.update_object(&info, pod.clone(), updated, Some(CONTROLLER_MANAGER), Some("status")) {
            Ok(_) => events::record(
                state,
                &info,
                &pod,
                "Warning",
                "NodeNotReady",
                "Node is not ready",
                COMPONENT,
            ),
            Err(status) => tracing::warn!(pod = object::name(&pod), %status, "could not mark the pod not ready"),
        }
    }
}

/// When a node's grace period runs out, for the nodes not marked yet: the pass due then marks
/// it.
fn next_grace_end(state: &State, now: SystemTime) -> Option<SystemTime> {
    let delay = state.options.controller_delay;
    let info = state.info("", "v1", "nodes");
    state
        .node_lifecycle
        .health
        .iter()
        .filter_map(|(name, record)| {
            let node = state.object(&info, None, name)?;
            let ready = nodes::condition(&node, "Ready");
            // A node marked already has nothing more to lose.
            let marked = ready.is_some_and(|c| object::text(c.get("status")) == "Unknown");
            let grace = if ready.is_none() {
                STARTUP_GRACE_DELAYS
            } else {
                GRACE_DELAYS
            };
            (!marked).then(|| record.probe + delay * grace)
        })
        .filter(|at| *at > now)
        .min()
}

/// A Kubernetes timestamp as a time.
pub(super) fn time_of(text: &str) -> Option<SystemTime> {
    let stamp = text.parse::<jiff::Timestamp>().ok()?;
    let since = Duration::try_from(stamp.duration_since(jiff::Timestamp::UNIX_EPOCH)).ok()?;
    Some(SystemTime::UNIX_EPOCH + since)
}
