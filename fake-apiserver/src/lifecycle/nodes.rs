//! What happens to Nodes around their writes, with no kubelet behind them:
//! - kube-apiserver's `TaintNodesByCondition` admission plugin taints a new node
//!   `node.kubernetes.io/not-ready:NoSchedule` (`plugin/pkg/admission/nodetaint/admission.go`),
//!   and the node strategy drops the deprecated config source of a new node
//!   (`pkg/registry/core/node/strategy.go`);
//! - kube-controller-manager's TTL controller annotates each node with the TTL kubelets cache
//!   objects for, 0 s in a cluster this small (`pkg/controller/ttl/ttl_controller.go`);
//! - its node lifecycle controller keeps the NoSchedule taints in step with the node's
//!   conditions and `unschedulable` flag (`doNoScheduleTaintingPass`); its health monitor and
//!   NoExecute taints are `node_health`'s and `node_noexecute`'s.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The annotation the TTL controller keeps, and its value below 100 nodes.
const TTL_ANNOTATION: &str = "node.alpha.kubernetes.io/ttl";
const TTL: &str = "0";
/// The taint a cordoned node gets.
const UNSCHEDULABLE_TAINT: &str = "node.kubernetes.io/unschedulable";
/// The NoSchedule taint each condition status stands for (`nodeConditionToTaintKeyStatusMap`).
const CONDITION_TAINTS: &[(&str, &str, &str)] = &[
    ("Ready", "False", "node.kubernetes.io/not-ready"),
    ("Ready", "Unknown", "node.kubernetes.io/unreachable"),
    ("MemoryPressure", "True", "node.kubernetes.io/memory-pressure"),
    ("DiskPressure", "True", "node.kubernetes.io/disk-pressure"),
    ("NetworkUnavailable", "True", "node.kubernetes.io/network-unavailable"),
    ("PIDPressure", "True", "node.kubernetes.io/pid-pressure"),
];

/// Whether `info` is the Nodes resource.
pub(super) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && info.plural == "nodes"
}

/// Admission of a new node: the not-ready taint unless it has it, and no config source.
pub(super) fn admit_create(node: &mut Value) {
    for (section, field) in [("spec", "configSource"), ("status", "config")] {
        if let Some(map) = node.get_mut(section).and_then(Value::as_object_mut) {
            map.remove(field);
        }
    }
    let Some(spec) = node.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let taints = spec.entry("taints").or_insert_with(|| json!([]));
    if taints.is_null() {
        *taints = json!([]);
    }
    let Some(taints) = taints.as_array_mut() else { return };
    let text = |taint: &Value, key: &str| taint.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let tainted = taints
        .iter()
        .any(|t| text(t, "key") == "node.kubernetes.io/not-ready" && text(t, "effect") == "NoSchedule");
    if !tainted {
        taints.push(json!({ "key": "node.kubernetes.io/not-ready", "effect": "NoSchedule" }));
    }
}

/// The TTL controller's annotation, written by kube-controller-manager when it is missing.
pub(super) fn annotate_ttl(state: &mut State, name: &str) {
    let info: Arc<ResourceInfo> = state.info("", "v1", "nodes");
    let Some(node) = state.object(&info, None, name).filter(|n| !object::is_deleting(n)) else {
        return;
    };
    let current = node
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(TTL_ANNOTATION))
        .and_then(Value::as_str);
    if current == Some(TTL) {
        return;
    }
    let mut updated = (*node).clone();
    let meta = object::meta_mut(&mut updated);
    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
    if !annotations.is_object() {
        *annotations = json!({});
    }
    annotations[TTL_ANNOTATION] = json!(TTL);
    if let Err(status) = state.update_object(&info, node, updated, Some(CONTROLLER_MANAGER), None) {
        tracing::warn!(name, %status, "could not annotate the node");
    }
}

/// The lifecycle controller's NoSchedule tainting pass, one write when it changes anything.
pub(super) fn taint(state: &mut State, name: &str) {
    let info: Arc<ResourceInfo> = state.info("", "v1", "nodes");
    let Some(node) = state.object(&info, None, name).filter(|n| !object::is_deleting(n)) else {
        return;
    };
    let Some(taints) = tainted(&node) else { return };
    let mut updated = (*node).clone();
    match (updated.get_mut("spec").and_then(Value::as_object_mut), taints) {
        (Some(spec), Value::Null) => {
            spec.remove("taints");
        }
        (Some(spec), taints) => {
            spec.insert("taints".to_owned(), taints);
        }
        (None, _) => return,
    }
    if let Err(status) = state.update_object(&info, node, updated, Some(CONTROLLER_MANAGER), None) {
        tracing::warn!(name, %status, "could not taint the node");
    }
}

/// The node's taints with its NoSchedule condition taints brought in line with its conditions
/// and `unschedulable` flag (new ones stamped with the time they were added), or `None` when
/// they already are.
fn tainted(node: &Value) -> Option<Value> {
    let mut wanted: Vec<&str> = CONDITION_TAINTS
        .iter()
        .filter(|(kind, status, _)| {
            condition(node, kind)
                .and_then(|c| c.get("status"))
                .and_then(Value::as_str)
                == Some(status)
        })
        .map(|(_, _, key)| *key)
        .collect();
    if node.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        wanted.push(UNSCHEDULABLE_TAINT);
    }
    let current: Vec<Value> = node
        .pointer("/spec/taints")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let managed = |taint: &Value| {
        let key = taint.get("key").and_then(Value::as_str).unwrap_or_default();
        taint.get("effect").and_then(Value::as_str) == Some("NoSchedule")
            && (key == UNSCHEDULABLE_TAINT || CONDITION_TAINTS.iter().any(|(_, _, k)| *k == key))
    };
    let has = |key: &str| {
        current
            .iter()
            .any(|t| managed(t) && t.get("key").and_then(Value::as_str) == Some(key))
    };
    let missing: Vec<&str> = wanted.iter().copied().filter(|key| !has(key)).collect();
    let stale = current
        .iter()
        .any(|t| managed(t) && !wanted.contains(&t.get("key").and_then(Value::as_str).unwrap_or_default()));
    if missing.is_empty() && !stale {
        return None;
    }
    let mut taints: Vec<Value> = current
        .into_iter()
        .filter(|t| !managed(t) || wanted.contains(&t.get("key").and_then(Value::as_str).unwrap_or_default()))
        .collect();
    let now = object::now();
    taints.extend(
        missing
            .into_iter()
            .map(|key| json!({ "key": key, "effect": "NoSchedule", "timeAdded": now })),
    );
    Some(if taints.is_empty() {
        Value::Null
    } else {
        Value::Array(taints)
    })
}

/// The node's condition of `kind`, if posted.
pub(super) fn condition<'a>(node: &'a Value, kind: &str) -> Option<&'a Value> {
    node.pointer("/status/conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_node_should_be_tainted_not_ready_once() {
        let mut node = json!({"spec": {"taints": [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]}});
        admit_create(&mut node);
        assert_eq!(node["spec"]["taints"].as_array().unwrap().len(), 1);
        let mut bare = json!({"spec": {}});
        admit_create(&mut bare);
        assert_eq!(bare["spec"]["taints"][0]["key"], "node.kubernetes.io/not-ready");
    }

    #[test]
    fn no_schedule_taints_should_follow_conditions_and_cordons() {
        let fresh = json!({"spec": {"taints": [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}, {"key": "x", "effect": "NoSchedule"}]}});
        assert_eq!(tainted(&fresh), Some(json!([{"key": "x", "effect": "NoSchedule"}])));
        let cordoned = json!({"spec": {"unschedulable": true}});
        let taints = tainted(&cordoned).unwrap();
        assert_eq!(taints[0]["key"], UNSCHEDULABLE_TAINT);
        let mut settled = cordoned.clone();
        settled["spec"]["taints"] = taints;
        assert_eq!(tainted(&settled), None);
        let uncordoned = json!({"spec": {"taints": settled["spec"]["taints"].clone()}});
        assert_eq!(tainted(&uncordoned), Some(Value::Null));
    }
}
