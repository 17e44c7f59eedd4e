//! The Pod printer (`pkg/printers/internalversion/printers.go`: `printPod`): readiness, the
//! status reason (the phase, or what a container waits on or ended with; `Init:` while init
//! containers run; `Terminating` once deleted), restarts and, wide, the pod's IP, node,
//! nominated node and readiness gates. Restartable (sidecar) init containers are counted as
//! regular ones.

use serde_json::{Value, json};

use super::{BuiltinColumn, column, wide};

/// The `spec.nodeName` documentation the Node column carries, as 1.31 and 1.28 word it.
fn node_description(minor: u32) -> &'static str {
    if minor >= 31 {
        "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename"
    } else {
        "NodeName is a request to schedule this pod onto a specific node. If it is non-empty, the scheduler simply schedules this pod onto that node, assuming that it fits resource requirements."
    }
}

/// The Pod printer's columns after Name (`age` is the Age column).
pub(super) fn columns(age: BuiltinColumn, minor: u32) -> Vec<BuiltinColumn> {
    vec![
        column(
            "Ready",
            "string",
            "The aggregate readiness state of this pod for accepting traffic.",
            ready,
        ),
        column(
            "Status",
            "string",
            "The aggregate status of the containers in this pod.",
            status,
        ),
        column(
            "Restarts",
            "string",
            "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
            restarts,
        ),
        age,
        wide(
            "IP",
            "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
            |o| or_none(o.pointer("/status/podIPs/0/ip")),
        ),
        wide("Node", node_description(minor), |o| {
            or_none(o.pointer("/spec/nodeName"))
        }),
        wide(
            "Nominated Node",
            "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.",
            |o| or_none(o.pointer("/status/nominatedNodeName")),
        ),
        wide(
            "Readiness Gates",
            "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates",
            readiness_gates,
        ),
    ]
}

fn list<'a>(pod: &'a Value, pointer: &str) -> &'a [Value] {
    pod.pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn or_none(value: Option<&Value>) -> Value {
    json!(
        value
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .unwrap_or("<none>")
    )
}

/// Ready containers out of the pod's containers.
fn ready(pod: &Value) -> Value {
    let total = list(pod, "/spec/containers").len();
    let ready = list(pod, "/status/containerStatuses")
        .iter()
        .filter(|c| c.get("ready").and_then(Value::as_bool) == Some(true) && c.pointer("/state/running").is_some())
        .count();
    json!(format!("{ready}/{total}"))
}

/// The status reason column.
fn status(pod: &Value) -> Value {
    let text = |v: &Value, pointer: &str| {
        v.pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut reason = text(pod, "/status/reason");
    if reason.is_empty() {
        reason = text(pod, "/status/phase");
    }
    let inits = list(pod, "/spec/initContainers").len();
    let mut initializing = false;
    for (i, container) in list(pod, "/status/initContainerStatuses").iter().enumerate() {
        let exit = container.pointer("/state/terminated/exitCode").and_then(Value::as_i64);
        if exit == Some(0) {
            continue;
        }
        initializing = true;
        let waiting = text(container, "/state/waiting/reason");
        reason = if exit.is_some() {
            match text(container, "/state/terminated/reason") {
                why if why.is_empty() => format!("Init:ExitCode:{}", exit.unwrap_or_default()),
                why => format!("Init:{why}"),
            }
        } else if !waiting.is_empty() && waiting != "PodInitializing" {
            format!("Init:{waiting}")
        } else {
            format!("Init:{i}/{inits}")
        };
        break;
    }
    if !initializing {
        for container in list(pod, "/status/containerStatuses").iter().rev() {
            let waiting = text(container, "/state/waiting/reason");
            let terminated = text(container, "/state/terminated/reason");
            if !waiting.is_empty() {
                reason = waiting;
            } else if !terminated.is_empty() {
                reason = terminated;
            } else if let Some(code) = container.pointer("/state/terminated/exitCode").and_then(Value::as_i64) {
                reason = format!("ExitCode:{code}");
            }
        }
    }
    if pod.pointer("/metadata/deletionTimestamp").is_some_and(|t| !t.is_null()) {
        reason = if text(pod, "/status/reason") == "NodeLost" {
            "Unknown".to_owned()
        } else {
            "Terminating".to_owned()
        };
    }
    json!(reason)
}

/// The containers' restarts.
fn restarts(pod: &Value) -> Value {
    let total: i64 = list(pod, "/status/containerStatuses")
        .iter()
        .filter_map(|c| c.get("restartCount").and_then(Value::as_i64))
        .sum();
    json!(total.to_string())
}

/// True readiness gate conditions out of the gates, or `<none>`.
fn readiness_gates(pod: &Value) -> Value {
    let gates = list(pod, "/spec/readinessGates");
    if gates.is_empty() {
        return json!("<none>");
    }
    let conditions = list(pod, "/status/conditions");
    let met = gates
        .iter()
        .filter(|gate| {
            conditions
                .iter()
                .find(|c| c.get("type") == gate.get("conditionType"))
                .is_some_and(|c| c.get("status").and_then(Value::as_str) == Some("True"))
        })
        .count();
    json!(format!("{met}/{}", gates.len()))
}
