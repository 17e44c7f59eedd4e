//! The arithmetic and bookkeeping of kube-controller-manager's Deployment controller
//! (`pkg/controller/deployment/util/deployment_util.go`: the replica annotations and revisions of
//! a ReplicaSet, `MaxSurge`, `MaxUnavailable`, `ResolveFenceposts`, `NewRSNewReplicas`,
//! `EqualIgnoreHash`, `FindNewReplicaSet`, `GetProportion`, the deployment conditions; the
//! counts of `GetReplicaCountForReplicaSets` and its siblings).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::storage::object;

/// The label that tells a Deployment's ReplicaSets apart (`DefaultDeploymentUniqueLabelKey`).
pub(crate) const HASH_LABEL: &str = "pod-template-hash";
pub(crate) const REVISION: &str = "deployment.kubernetes.io/revision";
pub(crate) const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";
pub(crate) const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
pub(crate) const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";

/// The annotations a Deployment does not copy to its ReplicaSets (`annotationsToSkip`).
const NOT_COPIED: [&str; 6] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    REVISION_HISTORY,
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    "deprecated.deployment.rollback.to",
];

/// `spec.replicas` of a Deployment or ReplicaSet (defaulted to 1).
pub(crate) fn replicas(object: &Value) -> i64 {
    object.pointer("/spec/replicas").and_then(Value::as_i64).unwrap_or(1)
}

/// A status count (zero when absent).
pub(crate) fn status_count(object: &Value, key: &str) -> i64 {
    object
        .get("status")
        .and_then(|s| s.get(key))
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// `GetReplicaCountForReplicaSets` (`spec`), `GetActualReplicaCountForReplicaSets`
/// (`status.replicas`) and the ready and available sums.
pub(crate) fn sum(sets: &[Arc<Value>], count: impl Fn(&Value) -> i64) -> i64 {
    sets.iter().map(|rs| count(rs)).sum()
}

pub(crate) fn is_rolling(deployment: &Value) -> bool {
    deployment.pointer("/spec/strategy/type").and_then(Value::as_str) == Some("RollingUpdate")
}

/// `intstr.GetScaledValueFromIntOrPercent`: a number, or a percentage of `total` rounded up or
/// down.
fn scaled(value: Option<&Value>, total: i64, round_up: bool) -> i64 {
    match value {
        Some(Value::Number(number)) => number.as_i64().unwrap_or(0),
        Some(Value::String(text)) => {
            let percent: i64 = text.trim_end_matches('%').parse().unwrap_or(0);
            let product = percent * total;
            if round_up {
                (product + 99).div_euclid(100)
            } else {
                product.div_euclid(100)
            }
        }
        _ => 0,
    }
}

/// `ResolveFenceposts`: the surge and unavailability a rolling update allows; both zero would
/// never progress, so one pod may then be unavailable.
fn fenceposts(deployment: &Value) -> (i64, i64) {
    let rolling = deployment.pointer("/spec/strategy/rollingUpdate");
    let desired = replicas(deployment);
    let surge = scaled(rolling.and_then(|r| r.get("maxSurge")), desired, true);
    let unavailable = scaled(rolling.and_then(|r| r.get("maxUnavailable")), desired, false);
    if surge == 0 && unavailable == 0 {
        (0, 1)
    } else {
        (surge, unavailable)
    }
}

pub(crate) fn max_surge(deployment: &Value) -> i64 {
    if is_rolling(deployment) {
        fenceposts(deployment).0
    } else {
        0
    }
}

pub(crate) fn max_unavailable(deployment: &Value) -> i64 {
    let desired = replicas(deployment);
    if !is_rolling(deployment) || desired == 0 {
        return 0;
    }
    fenceposts(deployment).1.min(desired)
}

/// `NewRSNewReplicas`: the size the new ReplicaSet may grow to now.
pub(crate) fn new_rs_replicas(deployment: &Value, all: &[Arc<Value>], new_rs: &Value) -> i64 {
    let desired = replicas(deployment);
    let current_new = replicas(new_rs);
    if !is_rolling(deployment) {
        return desired;
    }
    let surge = scaled(
        deployment.pointer("/spec/strategy/rollingUpdate/maxSurge"),
        desired,
        true,
    );
    let current = sum(all, replicas);
    let most = desired + surge;
    if current >= most {
        return current_new;
    }
    current_new + (most - current).min(desired - current_new)
}

/// The revision annotation of a ReplicaSet (0 when absent or not a number).
pub(crate) fn revision(rs: &Value) -> i64 {
    annotation(rs, REVISION).and_then(|r| r.parse().ok()).unwrap_or(0)
}

pub(crate) fn annotation<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object::annotations(object)
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
}

fn annotations_mut(object: &mut Value) -> &mut Map<String, Value> {
    let meta = object::meta_mut(object);
    if !meta.get("annotations").is_some_and(Value::is_object) {
        meta.insert("annotations".to_owned(), json!({}));
    }
    meta.get_mut("annotations")
        .and_then(Value::as_object_mut)
        .expect("just made an object")
}

/// `SetReplicasAnnotations`: whether either annotation changed.
pub(crate) fn set_replicas_annotations(rs: &mut Value, desired: i64, most: i64) -> bool {
    let annotations = annotations_mut(rs);
    let mut changed = false;
    for (key, value) in [(DESIRED_REPLICAS, desired), (MAX_REPLICAS, most)] {
        if annotations.get(key).and_then(Value::as_str) != Some(value.to_string().as_str()) {
            annotations.insert(key.to_owned(), json!(value.to_string()));
            changed = true;
        }
    }
    changed
}

/// `ReplicasAnnotationsNeedUpdate`.
pub(crate) fn replicas_annotations_differ(rs: &Value, desired: i64, most: i64) -> bool {
    annotation(rs, DESIRED_REPLICAS) != Some(desired.to_string().as_str())
        || annotation(rs, MAX_REPLICAS) != Some(most.to_string().as_str())
}

/// `SetNewReplicaSetAnnotations`: the Deployment's own annotations copied, the revision raised
/// (the one it replaces kept in the history), and for a new ReplicaSet the replica
/// annotations. Whether anything changed.
pub(crate) fn set_new_rs_annotations(deployment: &Value, rs: &mut Value, new_revision: i64, exists: bool) -> bool {
    let mut changed = false;
    let copied = object::annotations(deployment).cloned().unwrap_or_default();
    let annotations = annotations_mut(rs);
    for (key, value) in copied {
        if NOT_COPIED.contains(&key.as_str()) || annotations.get(&key) == Some(&value) {
            continue;
        }
        annotations.insert(key, value);
        changed = true;
    }
    let old = annotations.get(REVISION).and_then(Value::as_str).map(str::to_owned);
    let old_number = match old.as_deref() {
        None | Some("") => 0,
        Some(text) => match text.parse::<i64>() {
            Ok(number) => number,
            Err(_) => return false,
        },
    };
    if old_number < new_revision {
        annotations.insert(REVISION.to_owned(), json!(new_revision.to_string()));
        changed = true;
        if let Some(old) = old {
            let history = annotations
                .get(REVISION_HISTORY)
                .and_then(Value::as_str)
                .unwrap_or_default();
            // Go caps the history at 2000 characters, dropping the oldest revisions.
            let mut revisions: Vec<&str> = history.split(',').filter(|r| !r.is_empty()).collect();
            revisions.push(&old);
            while revisions.join(",").len() > 2000 && revisions.len() > 1 {
                revisions.remove(0);
            }
            let joined = revisions.join(",");
            annotations.insert(REVISION_HISTORY.to_owned(), json!(joined));
        }
    }
    if !exists {
        let desired = replicas(deployment);
        changed |= set_replicas_annotations(rs, desired, desired + max_surge(deployment));
    }
    changed
}

/// `EqualIgnoreHash`: the templates equal but for the hash label (`Semantic.DeepEqual`, where an
/// empty map is no map).
pub(crate) fn equal_ignore_hash(a: &Value, b: &Value) -> bool {
    let strip = |template: &Value| {
        let mut copy = template.clone();
        if let Some(labels) = copy.pointer_mut("/metadata/labels").and_then(Value::as_object_mut) {
            labels.remove(HASH_LABEL);
        }
        if let Some(meta) = copy.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.retain(|_, v| !v.is_null() && v.as_object().is_none_or(|m| !m.is_empty()));
        }
        copy
    };
    strip(a) == strip(b)
}

/// `ReplicaSetsByCreationTimestamp`: oldest first, then by name.
pub(crate) fn sort_by_creation(sets: &mut [Arc<Value>]) {
    sets.sort_by(|a, b| {
        object::meta_str(a, "creationTimestamp")
            .cmp(object::meta_str(b, "creationTimestamp"))
            .then_with(|| object::name(a).cmp(object::name(b)))
    });
}

/// `FindNewReplicaSet`: the oldest ReplicaSet whose template is the Deployment's.
pub(crate) fn find_new(deployment: &Value, sets: &[Arc<Value>]) -> Option<Arc<Value>> {
    let mut sorted = sets.to_vec();
    sort_by_creation(&mut sorted);
    let template = deployment.pointer("/spec/template").unwrap_or(&Value::Null);
    sorted
        .into_iter()
        .find(|rs| equal_ignore_hash(rs.pointer("/spec/template").unwrap_or(&Value::Null), template))
}

/// `GetProportion`: the share of a proportional scaling that falls to `rs`.
pub(crate) fn proportion(rs: &Value, deployment: &Value, to_add: i64, added: i64) -> i64 {
    let size = replicas(rs);
    if size == 0 || to_add == 0 || to_add == added {
        return 0;
    }
    let fraction = if replicas(deployment) == 0 {
        -size
    } else {
        let total = replicas(deployment) + max_surge(deployment);
        let annotated = annotation(rs, MAX_REPLICAS)
            .and_then(|m| m.parse::<i64>().ok())
            .unwrap_or_else(|| status_count(deployment, "replicas"));
        // `integer.RoundToInt32`: half away from zero.
        ((size * total) as f64 / annotated as f64).round() as i64 - size
    };
    let allowed = to_add - added;
    if to_add > 0 {
        fraction.min(allowed)
    } else {
        fraction.max(allowed)
    }
}

/// A condition of the status by type.
pub(crate) fn condition<'a>(status: &'a Map<String, Value>, kind: &str) -> Option<&'a Value> {
    status
        .get("conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(kind))
}

fn text<'a>(condition: &'a Value, key: &str) -> &'a str {
    condition.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `NewDeploymentCondition`, both times now.
pub(crate) fn new_condition(kind: &str, status: &str, reason: &str, message: &str) -> Value {
    let now = object::now();
    json!({"type": kind, "status": status, "lastUpdateTime": now, "lastTransitionTime": now,
        "reason": reason, "message": message})
}

/// `SetDeploymentCondition`: nothing when status and reason are the same; the transition time
/// kept when only the reason changes; the condition moved to the end.
pub(crate) fn set_condition(status: &mut Map<String, Value>, mut new: Value) {
    let kind = text(&new, "type").to_owned();
    if let Some(current) = condition(status, &kind) {
        if text(current, "status") == text(&new, "status") && text(current, "reason") == text(&new, "reason") {
            return;
        }
        if text(current, "status") == text(&new, "status") {
            new["lastTransitionTime"] = current.get("lastTransitionTime").cloned().unwrap_or(Value::Null);
        }
    }
    remove_condition(status, &kind);
    let conditions = status.entry("conditions").or_insert_with(|| json!([]));
    if let Some(list) = conditions.as_array_mut() {
        list.push(new);
    }
}

pub(crate) fn remove_condition(status: &mut Map<String, Value>, kind: &str) {
    if let Some(list) = status.get_mut("conditions").and_then(Value::as_array_mut) {
        list.retain(|c| text(c, "type") != kind);
    }
}
