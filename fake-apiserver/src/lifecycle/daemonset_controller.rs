//! kube-controller-manager's DaemonSet controller, as far as a cluster whose nodes run no daemon
//! pod goes (`pkg/controller/daemon/daemon_controller.go`: `NodeShouldRunDaemonPod`,
//! `predicates`, `updateDaemonSetStatus`, `storeDaemonSetStatus`; the default tolerations of
//! `util.AddOrUpdateDaemonPodTolerations`). A DaemonSet written gets its status stored with the
//! generation observed and every count zero. Where a node should run its pod, creating the pods
//! and counting them is not emulated, and the status is left alone.

use serde_json::{Map, Value};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_history;
use crate::lifecycle::writes::Writes;
use crate::semantics::taint_toleration::tolerates_taint;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::ResourceInfo;

/// The taints every daemon pod tolerates (`AddOrUpdateDaemonPodTolerations`), as key and effect;
/// the network-unavailable one only with the host's network.
const DAEMON_TOLERATIONS: [(&str, &str); 6] = [
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
];

/// The counts `storeDaemonSetStatus` writes that are always serialized, and those that are
/// `omitempty` (absent when zero).
const COUNTS: [&str; 4] = [
    "currentNumberScheduled",
    "desiredNumberScheduled",
    "numberMisscheduled",
    "numberReady",
];
const OMITTED_COUNTS: [&str; 3] = ["updatedNumberScheduled", "numberAvailable", "numberUnavailable"];

/// The informer's reaction to a write of `object`: a DaemonSet syncs itself.
pub(super) fn on_change(info: &ResourceInfo, object: &Value) -> Option<Pending> {
    let daemonset = info.builtin && info.group == "apps" && info.plural == "daemonsets";
    daemonset.then(|| Pending::SyncDaemonSet {
        namespace: object::namespace(object).to_owned(),
        name: object::name(object).to_owned(),
    })
}

/// `syncDaemonSet` of `namespace/name` on nodes that run none of its pods.
pub(super) fn sync(state: &mut State, namespace: &str, name: &str) {
    let Some(info) = state.registry.find("apps", "v1", "daemonsets").cloned() else {
        return;
    };
    let Some(daemonset) = state.object(&info, Some(namespace), name) else {
        return;
    };
    if object::is_deleting(&daemonset) {
        return;
    }
    controller_history::daemonset_revision(state, &daemonset);
    if any_node_runs(state, &daemonset) {
        return;
    }
    let Some(updated) = observed(&daemonset) else {
        return;
    };
    if let Err(status) = state.update_object(&info, daemonset, updated, Some(CONTROLLER_MANAGER), Some("status")) {
        tracing::warn!(namespace, name, %status, "could not update the DaemonSet's status");
    }
}

/// The DaemonSet with its generation observed and no pod counted, unless its status says so
/// already (`storeDaemonSetStatus`).
fn observed(daemonset: &Value) -> Option<Value> {
    let generation = daemonset
        .pointer("/metadata/generation")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let status = daemonset.get("status").and_then(Value::as_object);
    let count = |key: &str| status.and_then(|s| s.get(key)).and_then(Value::as_i64).unwrap_or(0);
    let seen = status
        .and_then(|s| s.get("observedGeneration"))
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if COUNTS.iter().chain(&OMITTED_COUNTS).all(|key| count(key) == 0) && seen >= generation {
        return None;
    }
    let mut updated = daemonset.clone();
    let status = updated
        .as_object_mut()?
        .entry("status")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()?;
    status.insert("observedGeneration".to_owned(), generation.into());
    for key in COUNTS {
        status.insert(key.to_owned(), 0.into());
    }
    for key in OMITTED_COUNTS {
        status.remove(key);
    }
    Some(updated)
}

/// Whether some node should run the DaemonSet's pod (`NodeShouldRunDaemonPod`): its name, node
/// selector and required node affinity fit, and it has no taint the pod does not tolerate.
fn any_node_runs(state: &State, daemonset: &Value) -> bool {
    let Some(nodes) = state.registry.find("", "v1", "nodes") else {
        return false;
    };
    let pod = daemonset.pointer("/spec/template/spec").unwrap_or(&Value::Null);
    state
        .store
        .iter(&nodes.storage_key(), None)
        .any(|(_, node)| should_run(pod, node))
}

fn should_run(pod: &Value, node: &Value) -> bool {
    let node_name = pod.get("nodeName").and_then(Value::as_str).unwrap_or_default();
    if !node_name.is_empty() && node_name != object::name(node) {
        return false;
    }
    let empty = Map::new();
    let labels = object::labels(node).unwrap_or(&empty);
    let selector_fits = pod
        .get("nodeSelector")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .all(|(k, v)| labels.get(k) == Some(v));
    let terms = pod.pointer("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms");
    let affinity_fits = match terms.and_then(Value::as_array) {
        Some(terms) => terms.iter().any(|term| term_matches(term, labels, object::name(node))),
        None => true,
    };
    let host_network = pod.get("hostNetwork").and_then(Value::as_bool) == Some(true);
    let tolerations: Vec<&Value> = pod
        .get("tolerations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let taints_fit = node
        .pointer("/spec/taints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|taint| matches!(text(taint, "effect"), "NoSchedule" | "NoExecute"))
        .all(|taint| tolerated(taint, &tolerations, host_network));
    selector_fits && affinity_fits && taints_fit
}

/// `ToleratesTaint` by one of the pod's tolerations or the daemon defaults.
fn tolerated(taint: &Value, tolerations: &[&Value], host_network: bool) -> bool {
    let (key, effect) = (text(taint, "key"), text(taint, "effect"));
    let default = DAEMON_TOLERATIONS.contains(&(key, effect))
        || (host_network && key == "node.kubernetes.io/network-unavailable" && effect == "NoSchedule");
    default || tolerations.iter().any(|t| tolerates_taint(t, taint))
}

/// One node selector term: all its label expressions and field expressions hold (an empty term
/// matches nothing).
fn term_matches(term: &Value, labels: &Map<String, Value>, node_name: &str) -> bool {
    let expressions =
        |list: &str| -> Vec<Value> { term.get(list).and_then(Value::as_array).cloned().unwrap_or_default() };
    let (by_label, by_field) = (expressions("matchExpressions"), expressions("matchFields"));
    if by_label.is_empty() && by_field.is_empty() {
        return false;
    }
    let holds = |req: &Value, actual: Option<&str>| {
        let values = object::string_list(req.get("values"));
        let listed = |v: &str| values.iter().any(|value| value == v);
        let number = |s: &str| s.parse::<i64>().ok();
        match (text(req, "operator"), actual) {
            ("In", Some(v)) => listed(v),
            ("NotIn", v) => v.is_none_or(|v| !listed(v)),
            ("Exists", v) => v.is_some(),
            ("DoesNotExist", v) => v.is_none(),
            ("Gt", Some(v)) => number(v)
                .zip(values.first().and_then(|b| number(b)))
                .is_some_and(|(a, b)| a > b),
            ("Lt", Some(v)) => number(v)
                .zip(values.first().and_then(|b| number(b)))
                .is_some_and(|(a, b)| a < b),
            _ => false,
        }
    };
    by_label
        .iter()
        .all(|req| holds(req, labels.get(text(req, "key")).and_then(Value::as_str)))
        && by_field
            .iter()
            .all(|req| holds(req, (text(req, "key") == "metadata.name").then_some(node_name)))
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_new_daemonset_should_have_its_generation_observed_and_nothing_counted() {
        let ds = json!({"metadata": {"generation": 2}, "status": {"currentNumberScheduled": 0,
            "desiredNumberScheduled": 0, "numberMisscheduled": 0, "numberReady": 0, "observedGeneration": 1}});
        let updated = observed(&ds).expect("generation 2 is not observed");
        assert_eq!(updated["status"]["observedGeneration"], 2);
        assert!(updated["status"].get("numberAvailable").is_none(), "omitempty");
        assert!(observed(&updated).is_none(), "nothing left to write");
    }

    #[test]
    fn a_not_ready_node_should_run_no_daemon_pod_unless_tolerated() {
        let node = json!({"metadata": {"name": "n", "labels": {"zone": "a"}},
            "spec": {"taints": [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]}});
        assert!(!should_run(&json!({}), &node));
        let tolerant = json!({"tolerations": [{"operator": "Exists"}]});
        assert!(should_run(&tolerant, &node));
        let elsewhere = json!({"tolerations": [{"operator": "Exists"}], "nodeSelector": {"zone": "b"}});
        assert!(!should_run(&elsewhere, &node));
    }

    #[test]
    fn required_affinity_should_match_labels_and_the_node_name() {
        let labels = Map::from_iter([("zone".to_owned(), json!("a"))]);
        let term = json!({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}],
                          "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["m"]}]});
        assert!(term_matches(&term, &labels, "n"));
        assert!(!term_matches(&term, &labels, "m"));
        assert!(!term_matches(&json!({}), &labels, "n"));
    }
}
