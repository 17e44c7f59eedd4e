//! apps/v1 Deployments and ReplicaSets, as kube-apiserver v1.28 validates them
//! (`pkg/apis/apps/validation/validation.go`: `ValidateDeployment(Spec, Update, Status,
//! StatusUpdate)`, `ValidateDeploymentStrategy`, `ValidateRollingUpdateDeployment`,
//! `ValidateReplicaSet(Spec, Update, Status, StatusUpdate)`,
//! `ValidatePodTemplateSpecForReplicaSet`) with what their strategies add
//! (`pkg/registry/apps/{deployment,replicaset}/strategy.go`): through apps/v1 the selector of
//! both kinds never changes, and a ReplicaSet's update runs the create validation and then the
//! update one, so its spec errors come twice. Object metadata is checked for every kind
//! elsewhere; the strategies reset status on create and spec on `/status` before this runs.

use serde_json::{Map, Value};

use crate::semantics::deployment_strategy_validation::strategy_errors;
use crate::semantics::field_error::{BadValue, FieldError, nonnegative};
use crate::semantics::label_selector_validation::{
    is_empty_selector, label_selector_errors, label_selector_go, selector_fails, selects, string_map_go,
};
use crate::semantics::pod_annotation_validation::allows_invalid_cost;
use crate::semantics::pod_validation::pod_template_errors;

const ABOVE_REPLICAS: &str = "cannot be greater than status.replicas";

/// `ValidateDeployment`, less the object metadata.
pub(crate) fn deployment_errors(deployment: &Value, minor: u32) -> Vec<FieldError> {
    deployment_spec_errors(spec_of(deployment), None, false, minor)
}

/// The deployment strategy's `ValidateUpdate`: `ValidateDeploymentUpdate` and, for apps/v1,
/// the selector's immutability.
pub(crate) fn deployment_update_errors(deployment: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let lenient_cost = allows_invalid_cost(spec_of(old).get("template"));
    let mut errors = deployment_spec_errors(spec_of(deployment), Some(spec_of(old)), lenient_cost, minor);
    errors.extend(selector_immutable(deployment, old));
    errors
}

/// `ValidateDeploymentStatusUpdate`: the counts and a collision count that only grows.
pub(crate) fn deployment_status_update_errors(deployment: &Value, old: &Value) -> Vec<FieldError> {
    let status = deployment.get("status").unwrap_or(&Value::Null);
    let mut errors = Vec::new();
    let int = |key: &str| status.get(key).and_then(Value::as_i64).unwrap_or(0);
    for key in [
        "observedGeneration",
        "replicas",
        "updatedReplicas",
        "readyReplicas",
        "availableReplicas",
        "unavailableReplicas",
    ] {
        errors.extend(nonnegative(int(key), &format!("status.{key}")));
    }
    let collisions = |object: &Value| object.pointer("/status/collisionCount").and_then(Value::as_i64);
    if let Some(count) = collisions(deployment) {
        errors.extend(nonnegative(count, "status.collisionCount"));
    }
    errors.extend(counts_above_replicas(
        status,
        &["updatedReplicas", "readyReplicas", "availableReplicas"],
    ));
    // `IsDecremented`: removing the count decrements it too, shown as 0.
    if let Some(before) = collisions(old)
        && collisions(deployment).is_none_or(|now| now < before)
    {
        let now = collisions(deployment).unwrap_or(0);
        errors.push(FieldError::invalid(
            "status.collisionCount",
            BadValue::Int(now),
            "cannot be decremented",
        ));
    }
    errors
}

/// `ValidateReplicaSet`, less the object metadata.
pub(crate) fn replica_set_errors(replica_set: &Value, minor: u32) -> Vec<FieldError> {
    replica_set_spec_errors(spec_of(replica_set), None, false, minor)
}

/// The replica set strategy's `ValidateUpdate`: `ValidateReplicaSet` again, then
/// `ValidateReplicaSetUpdate` (both with the options of the stored template) and, for apps/v1,
/// the selector's immutability.
pub(crate) fn replica_set_update_errors(replica_set: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let (spec, old_spec) = (spec_of(replica_set), spec_of(old));
    let lenient_cost = allows_invalid_cost(old_spec.get("template"));
    let mut errors = replica_set_spec_errors(spec, None, lenient_cost, minor);
    errors.extend(replica_set_spec_errors(spec, Some(old_spec), lenient_cost, minor));
    errors.extend(selector_immutable(replica_set, old));
    errors
}

/// `ValidateReplicaSetStatusUpdate`: the counts.
pub(crate) fn replica_set_status_errors(replica_set: &Value) -> Vec<FieldError> {
    let status = replica_set.get("status").unwrap_or(&Value::Null);
    let int = |key: &str| status.get(key).and_then(Value::as_i64).unwrap_or(0);
    let mut errors = Vec::new();
    for key in [
        "replicas",
        "fullyLabeledReplicas",
        "readyReplicas",
        "availableReplicas",
        "observedGeneration",
    ] {
        errors.extend(nonnegative(int(key), &format!("status.{key}")));
    }
    errors.extend(counts_above_replicas(
        status,
        &["fullyLabeledReplicas", "readyReplicas", "availableReplicas"],
    ));
    errors
}

/// The status counts above `status.replicas`, and available ones above ready ones.
fn counts_above_replicas(status: &Value, keys: &[&str]) -> Vec<FieldError> {
    let int = |key: &str| status.get(key).and_then(Value::as_i64).unwrap_or(0);
    let mut errors: Vec<FieldError> = keys
        .iter()
        .filter(|key| int(key) > int("replicas"))
        .map(|key| FieldError::invalid(format!("status.{key}"), BadValue::Int(int(key)), ABOVE_REPLICAS))
        .collect();
    if int("availableReplicas") > int("readyReplicas") {
        errors.push(FieldError::invalid(
            "status.availableReplicas",
            BadValue::Int(int("availableReplicas")),
            "cannot be greater than readyReplicas",
        ));
    }
    errors
}

/// `ValidateDeploymentSpec`; `lenient_cost` is the template's `AllowInvalidPodDeletionCost`.
fn deployment_spec_errors(spec: &Value, old_spec: Option<&Value>, lenient_cost: bool, minor: u32) -> Vec<FieldError> {
    let int = |key: &str| spec.get(key).and_then(Value::as_i64);
    let mut errors = nonnegative(int("replicas").unwrap_or(0), "spec.replicas");
    errors.extend(selector_and_template_errors(spec, old_spec, lenient_cost, minor));
    errors.extend(strategy_errors(spec.get("strategy").unwrap_or(&Value::Null)));
    let min_ready = int("minReadySeconds").unwrap_or(0);
    errors.extend(nonnegative(min_ready, "spec.minReadySeconds"));
    if let Some(limit) = int("revisionHistoryLimit") {
        errors.extend(nonnegative(limit, "spec.revisionHistoryLimit"));
    }
    if let Some(deadline) = int("progressDeadlineSeconds") {
        errors.extend(nonnegative(deadline, "spec.progressDeadlineSeconds"));
        if deadline <= min_ready {
            errors.push(FieldError::invalid(
                "spec.progressDeadlineSeconds",
                BadValue::Int(deadline),
                "must be greater than minReadySeconds",
            ));
        }
    }
    errors
}

/// `ValidateReplicaSetSpec`.
fn replica_set_spec_errors(spec: &Value, old_spec: Option<&Value>, lenient_cost: bool, minor: u32) -> Vec<FieldError> {
    let int = |key: &str| spec.get(key).and_then(Value::as_i64).unwrap_or(0);
    let mut errors = nonnegative(int("replicas"), "spec.replicas");
    errors.extend(nonnegative(int("minReadySeconds"), "spec.minReadySeconds"));
    errors.extend(selector_and_template_errors(spec, old_spec, lenient_cost, minor));
    errors
}

/// The selector part both specs share (the message says "deployment" for ReplicaSets too),
/// then `ValidatePodTemplateSpecForReplicaSet` — skipped when the selector does not parse.
fn selector_and_template_errors(
    spec: &Value,
    old_spec: Option<&Value>,
    lenient_cost: bool,
    minor: u32,
) -> Vec<FieldError> {
    let selector = spec.get("selector").filter(|s| !s.is_null());
    let mut errors = required_selector_errors(selector, "deployment");
    if let Some(selector) = selector.filter(|s| selector_fails(s)) {
        errors.push(FieldError::invalid(
            "spec.selector",
            label_selector_go(selector),
            "invalid label selector",
        ));
        return errors;
    }
    let empty = Value::Object(Map::new());
    let template = spec.get("template").unwrap_or(&empty);
    let no_labels = Map::new();
    let labels = template.pointer("/metadata/labels").and_then(Value::as_object);
    // An empty selector selects everything and is not compared; a missing one selects nothing.
    let everything = selector.is_some_and(is_empty_selector);
    if !everything && !selects(selector, labels.unwrap_or(&no_labels)) {
        errors.push(FieldError::invalid(
            "spec.template.metadata.labels",
            BadValue::Raw(string_map_go(labels)),
            "`selector` does not match template `labels`",
        ));
    }
    errors.extend(pod_template_errors(template, "spec.template", lenient_cost, minor));
    let replicas = spec.get("replicas").and_then(Value::as_i64).unwrap_or(0);
    if replicas > 1 && read_only_disks_checked(minor) {
        let old_volumes = old_spec.and_then(|s| s.pointer("/template/spec/volumes"));
        errors.extend(read_only_disk_errors(template.pointer("/spec/volumes"), old_volumes));
    }
    errors.extend(always_running_errors(template, "ReplicaSet"));
    errors
}

/// What every controller of long-running pods requires of its template at `spec.template`:
/// pods that always restart, without a deadline (`kind` names the controller in the message,
/// "ReplicaSet" for Deployments too).
pub(crate) fn always_running_errors(template: &Value, kind: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let restart = template
        .pointer("/spec/restartPolicy")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if restart != "Always" {
        errors.push(FieldError::not_supported(
            "spec.template.spec.restartPolicy",
            restart.into(),
            &["Always".to_owned()],
        ));
    }
    if template
        .pointer("/spec/activeDeadlineSeconds")
        .is_some_and(|v| !v.is_null())
    {
        errors.push(FieldError::forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            format!("activeDeadlineSeconds in {kind} is not Supported"),
        ));
    }
    errors
}

/// A selector the workload requires, checked strictly, and not empty (`kind` names the
/// workload in the message).
pub(crate) fn required_selector_errors(selector: Option<&Value>, kind: &str) -> Vec<FieldError> {
    let Some(selector) = selector else {
        return vec![FieldError::required("spec.selector", "")];
    };
    let mut errors = label_selector_errors(selector, "spec.selector", false);
    if is_empty_selector(selector) {
        errors.push(FieldError::invalid(
            "spec.selector",
            label_selector_go(selector),
            format!("empty selector is invalid for {kind}"),
        ));
    }
    errors
}

/// Whether the minor still checks `ValidateReadOnlyPersistentDisks` (1.28 does, 1.31 has
/// dropped it with the in-tree GCE PD plugin; the minors between are unrecorded).
pub(crate) fn read_only_disks_checked(minor: u32) -> bool {
    minor < 31
}

/// `ValidateReadOnlyPersistentDisks`: replicated pods may share a GCE disk only read-only,
/// unless the old template already had a writable one.
pub(crate) fn read_only_disk_errors(volumes: Option<&Value>, old_volumes: Option<&Value>) -> Vec<FieldError> {
    let writable = |volume: &Value| {
        volume.get("gcePersistentDisk").is_some_and(|d| d.is_object())
            && volume.pointer("/gcePersistentDisk/readOnly").and_then(Value::as_bool) != Some(true)
    };
    let list = |v: Option<&Value>| v.and_then(Value::as_array).cloned().unwrap_or_default();
    if list(old_volumes).iter().any(writable) {
        return Vec::new();
    }
    list(volumes)
        .iter()
        .enumerate()
        .filter(|(_, volume)| writable(volume))
        .map(|(i, _)| {
            FieldError::invalid(
                format!("spec.template.spec.volumes[{i}].gcePersistentDisk.readOnly"),
                BadValue::Raw("false".to_owned()),
                "must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it is read-only",
            )
        })
        .collect()
}

/// `ValidateImmutableField` of `spec.selector` (nil and empty lists or maps are equal, as
/// `apiequality.Semantic.DeepEqual` has them).
pub(crate) fn selector_immutable(object: &Value, old: &Value) -> Vec<FieldError> {
    let new = object.pointer("/spec/selector").filter(|s| !s.is_null());
    let before = old.pointer("/spec/selector").filter(|s| !s.is_null());
    if new.map(semantic) == before.map(semantic) {
        return Vec::new();
    }
    // A field error shows a nil pointer as "null".
    let shown = new.map_or(BadValue::Str("null".to_owned()), label_selector_go);
    vec![FieldError::invalid("spec.selector", shown, "field is immutable")]
}

/// A value with its empty lists and maps (and nulls) left out.
pub(crate) fn semantic(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), semantic(v)))
                .filter(|(_, v)| !is_zero(v))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(semantic).collect()),
        other => other.clone(),
    }
}

fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

pub(crate) fn spec_of(object: &Value) -> &Value {
    object.get("spec").unwrap_or(&Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Value {
        json!({"metadata": {"name": "d"}, "spec": {
            "replicas": 1, "progressDeadlineSeconds": 600, "revisionHistoryLimit": 10,
            "selector": {"matchLabels": {"app": "d"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": {"metadata": {"labels": {"app": "d"}}, "spec": {
                "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "terminationGracePeriodSeconds": 30,
                "containers": [{"name": "c", "image": "nginx", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}]}}}})
    }

    use crate::semantics::field_error::reasons as fields;

    #[test]
    fn a_defaulted_deployment_should_be_valid() {
        assert_eq!(fields(deployment_errors(&deployment(), 28)), Vec::<String>::new());
    }

    #[test]
    fn rolling_update_bounds_should_not_both_be_zero_nor_above_100_percent() {
        let mut d = deployment();
        d["spec"]["strategy"]["rollingUpdate"] = json!({"maxSurge": "0%", "maxUnavailable": 0});
        assert_eq!(
            fields(deployment_errors(&d, 28)),
            ["FieldValueInvalid spec.strategy.rollingUpdate.maxUnavailable"]
        );
        d["spec"]["strategy"]["rollingUpdate"] = json!({"maxSurge": "abc", "maxUnavailable": "150%"});
        let errors = deployment_errors(&d, 28);
        assert_eq!(errors.len(), 2);
        assert!(errors[1].body().ends_with("must not be greater than 100%"));
    }

    #[test]
    fn the_selector_should_never_change_and_a_replica_set_should_say_so_after_its_spec_twice() {
        let old = deployment();
        let mut new = deployment();
        new["spec"]["selector"] = json!({"matchLabels": {"app": "d", "tier": "web"}});
        assert_eq!(
            fields(deployment_update_errors(&new, &old, 28)),
            [
                "FieldValueInvalid spec.template.metadata.labels",
                "FieldValueInvalid spec.selector"
            ]
        );
        let mut rs = deployment();
        rs["spec"]["replicas"] = json!(-1);
        assert_eq!(
            fields(replica_set_update_errors(&rs, &old, 28)),
            ["FieldValueInvalid spec.replicas", "FieldValueInvalid spec.replicas"]
        );
    }

    #[test]
    fn a_collision_count_should_only_grow() {
        let old = json!({"status": {"collisionCount": 3}});
        let errors = deployment_status_update_errors(&json!({"status": {}}), &old);
        assert_eq!(
            errors[0].to_string(),
            "status.collisionCount: Invalid value: 0: cannot be decremented"
        );
        assert!(deployment_status_update_errors(&json!({"status": {"collisionCount": 4}}), &old).is_empty());
    }
}
