//! kube-controller-manager's disruption controller (`pkg/controller/disruption/disruption.go`:
//! the budget and pod informers' handlers, `getPdbForPod`, `trySync`, `getExpectedPodCount`,
//! `getExpectedScale` with its controller finders). A budget written, or a pod it selects
//! written or removed, gets its status recomputed (`disruption_status`) and written to
//! `/status` by kube-controller-manager. The periodic recheck of disrupted pods that were not
//! deleted is not emulated.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::disruption_status::{Counts, fail_safe, str_of, with_status};
use crate::lifecycle::events;
use crate::lifecycle::writes::Writes;
use crate::semantics::label_selector_validation::{as_selector, selects};
use crate::semantics::selector;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::ResourceInfo;

/// The event source of the controller's recorder.
const COMPONENT: &str = "controllermanager";

/// Whether `info` is the PodDisruptionBudgets resource.
fn is_budget(info: &ResourceInfo) -> bool {
    info.builtin && info.group == "policy" && info.plural == "poddisruptionbudgets"
}

/// The informers' reaction to a write or removal of `object`: a budget syncs itself, a pod the
/// first budget that selects it (`getPdbForPod`).
pub(super) fn on_change(state: &State, info: &ResourceInfo, object: &Value) -> Option<Pending> {
    let namespace = object::namespace(object).to_owned();
    if is_budget(info) {
        let name = object::name(object).to_owned();
        return Some(Pending::SyncDisruptionBudget { namespace, name });
    }
    if !(info.builtin && info.group.is_empty() && info.plural == "pods") {
        return None;
    }
    let budget = budgets_selecting(state, object).into_iter().next()?;
    let name = object::name(&budget).to_owned();
    Some(Pending::SyncDisruptionBudget { namespace, name })
}

/// The budgets of the pod's namespace whose selector selects it, in the lister's order (an
/// absent selector selects nothing, an empty one everything).
pub(crate) fn budgets_selecting(state: &State, pod: &Value) -> Vec<Arc<Value>> {
    let Some(budgets) = state.registry.find("policy", "v1", "poddisruptionbudgets") else {
        return Vec::new();
    };
    let empty = Map::new();
    let labels = object::labels(pod).unwrap_or(&empty);
    state
        .store
        .iter(&budgets.storage_key(), Some(object::namespace(pod)))
        .map(|(_, budget)| budget)
        .filter(|budget| selects(budget.pointer("/spec/selector"), labels))
        .cloned()
        .collect()
}

/// `trySync` of the budget `namespace/name`, with `failSafe` when its expected pods cannot be
/// counted.
pub(super) fn sync(state: &mut State, namespace: &str, name: &str) {
    let Some(info) = state.registry.find("policy", "v1", "poddisruptionbudgets").cloned() else {
        return;
    };
    let Some(budget) = state.object(&info, Some(namespace), name) else {
        return;
    };
    let pods = selected_pods(state, &budget);
    if pods.is_empty() {
        events::record(
            state,
            &info,
            &budget,
            "Normal",
            "NoPods",
            "No matching pods found",
            COMPONENT,
        );
    }
    let updated = match expected_pod_count(state, &budget, &pods) {
        Ok(counts) => {
            if counts.unmanaged {
                events::record(
                    state,
                    &info,
                    &budget,
                    "Warning",
                    "UnmanagedPods",
                    &unmanaged_message(&budget),
                    COMPONENT,
                );
            }
            with_status(&budget, &pods, counts)
        }
        Err(why) => {
            let message = format!("Failed to calculate the number of expected pods: {why}");
            events::record(
                state,
                &info,
                &budget,
                "Warning",
                "CalculateExpectedPodCountFailed",
                &message,
                COMPONENT,
            );
            Some(fail_safe(&budget, &why))
        }
    };
    if let Some(updated) = updated
        && let Err(status) = state.update_object(&info, budget, updated, Some(CONTROLLER_MANAGER), Some("status"))
    {
        tracing::warn!(namespace, name, %status, "could not update the disruption budget's status");
    }
}

/// `getPodsForPdb`: the pods of the budget's namespace its selector selects.
fn selected_pods(state: &State, budget: &Value) -> Vec<Arc<Value>> {
    let info = state.info("", "v1", "pods");
    let Some(selector) = as_selector(budget.pointer("/spec/selector")) else {
        return Vec::new();
    };
    state
        .store
        .iter(&info.storage_key(), Some(object::namespace(budget)))
        .map(|(_, pod)| pod)
        .filter(|pod| selector.matches(object::labels(pod)))
        .cloned()
        .collect()
}

/// `getExpectedPodCount`: an integer `minAvailable` expects the selected pods; a percentage or
/// `maxUnavailable` expects the scale of their controllers, scaled rounding up.
fn expected_pod_count(state: &State, budget: &Value, pods: &[Arc<Value>]) -> Result<Counts, String> {
    let scaled = |field: &Value, total: i64| -> Result<i64, String> {
        match field {
            Value::Number(n) => Ok(n.as_i64().unwrap_or_default()),
            Value::String(text) => {
                let percent: i64 = text
                    .strip_suffix('%')
                    .and_then(|digits| digits.parse().ok())
                    .ok_or_else(|| format!("invalid value for IntOrString: invalid value {text:?}"))?;
                Ok((percent * total + 99) / 100)
            }
            _ => Ok(0),
        }
    };
    if let Some(max_unavailable) = budget.pointer("/spec/maxUnavailable") {
        let (expected, unmanaged) = expected_scale(state, pods)?;
        let desired_healthy = (expected - scaled(max_unavailable, expected)?).max(0);
        return Ok(Counts {
            expected,
            desired_healthy,
            unmanaged,
        });
    }
    match budget.pointer("/spec/minAvailable") {
        Some(Value::Number(n)) => Ok(Counts {
            expected: pods.len() as i64,
            desired_healthy: n.as_i64().unwrap_or_default(),
            unmanaged: false,
        }),
        Some(min_available @ Value::String(_)) => {
            let (expected, unmanaged) = expected_scale(state, pods)?;
            let desired_healthy = scaled(min_available, expected)?;
            Ok(Counts {
                expected,
                desired_healthy,
                unmanaged,
            })
        }
        _ => Ok(Counts {
            expected: 0,
            desired_healthy: 0,
            unmanaged: false,
        }),
    }
}

/// `getExpectedScale`: the sum of the scales of the pods' controllers, each found by the
/// finders in order (ReplicationController, a ReplicaSet's Deployment, a ReplicaSet of no
/// Deployment, StatefulSet, then any kind with a `scale` subresource); whether a pod has no
/// controller; an error for a controller none of them finds.
fn expected_scale(state: &State, pods: &[Arc<Value>]) -> Result<(i64, bool), String> {
    let mut scales: HashMap<String, i64> = HashMap::new();
    let mut unmanaged = false;
    for pod in pods {
        let Some(owner) = controller_of(pod) else {
            unmanaged = true;
            continue;
        };
        if scales.contains_key(str_of(owner, "uid")) {
            continue;
        }
        let namespace = object::namespace(pod);
        let (uid, scale) = find_controller(state, owner, namespace)?
            .ok_or_else(|| format!("found no controllers for pod {:?}", object::name(pod)))?;
        scales.insert(uid, scale);
    }
    Ok((scales.values().sum(), unmanaged))
}

/// The finders of `getExpectedScale` for the controller reference `owner`: its uid and scale.
fn find_controller(state: &State, owner: &Value, namespace: &str) -> Result<Option<(String, i64)>, String> {
    let group = str_of(owner, "apiVersion")
        .rsplit_once('/')
        .map_or("", |(group, _)| group);
    let kind = str_of(owner, "kind");
    let apps = matches!(group, "apps" | "extensions");
    let fetch = |group: &str, plural: &str, reference: &Value| {
        let info = state.registry.find(group, "v1", plural)?;
        let found = state.object(info, Some(namespace), str_of(reference, "name"))?;
        (object::uid(&found) == str_of(reference, "uid")).then_some(found)
    };
    let replicas = |object: &Value| object.pointer("/spec/replicas").and_then(Value::as_i64).unwrap_or(1);
    let with_scale = |object: Arc<Value>| Some((object::uid(&object).to_owned(), replicas(&object)));
    match (group, kind) {
        ("", "ReplicationController") => return Ok(fetch("", "replicationcontrollers", owner).and_then(with_scale)),
        (_, "ReplicaSet") if apps => {
            let Some(set) = fetch("apps", "replicasets", owner) else {
                return Ok(None);
            };
            return Ok(match controller_of(&set) {
                Some(parent) if str_of(parent, "kind") == "Deployment" => {
                    fetch("apps", "deployments", parent).and_then(with_scale)
                }
                _ => with_scale(set),
            });
        }
        ("apps", "StatefulSet") => return Ok(fetch("apps", "statefulsets", owner).and_then(with_scale)),
        _ => {}
    }
    // `getScaleController`: any other kind needs the scale subresource.
    let Some(info) = state.registry.by_kind(str_of(owner, "apiVersion"), kind) else {
        return Err(format!(
            "no matches for kind {kind:?} in version {:?}",
            str_of(owner, "apiVersion")
        ));
    };
    if info.scale.is_none() {
        return Err(format!(
            "{} does not implement the scale subresource",
            info.group_resource()
        ));
    }
    let found = state
        .object(info, Some(namespace), str_of(owner, "name"))
        .filter(|found| object::uid(found) == str_of(owner, "uid"));
    Ok(found.map(|found| {
        let replicas = info
            .scale
            .as_ref()
            .and_then(|scale| object::field(&found, &scale.spec_replicas))
            .and_then(Value::as_i64)
            .unwrap_or_default();
        (object::uid(&found).to_owned(), replicas)
    }))
}

/// `metav1.GetControllerOf`: the owner reference marked as the controller.
fn controller_of(object: &Value) -> Option<&Value> {
    object::owner_references(object)
        .iter()
        .find(|owner| owner.get("controller").and_then(Value::as_bool) == Some(true))
}

/// The `UnmanagedPods` warning, naming the selector as Go's `%v` prints it.
fn unmanaged_message(budget: &Value) -> String {
    let selector = budget
        .pointer("/spec/selector")
        .map(selector::gogo_string)
        .unwrap_or_else(|| "nil".to_owned());
    format!(
        "Pods selected by this PodDisruptionBudget (selector: {selector}) were found to be unmanaged. As a result, \
         the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account \
         for these pods please set \".spec.minAvailable\" field of the PDB to an integer value."
    )
}
