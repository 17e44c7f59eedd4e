//! The defaults of the workloads that hold pod templates (`SetDefaults_ReplicationController`
//! of `pkg/apis/core/v1/defaults.go`; `SetDefaults_Deployment`, `SetDefaults_ReplicaSet` of
//! `pkg/apis/apps/v1`; `SetDefaults_Job` and `SetDefaults_CronJob` of `pkg/apis/batch/v1`) and
//! the template structs Go always has; the pod templates' own defaults are `walker`'s.

use serde_json::{Map, Value, json};

use super::default;
use crate::storage::object::meta_mut;

pub(super) fn deployment(object: &mut Value) {
    let Some(spec) = object.get_mut("spec") else { return };
    default(spec, "replicas", json!(1));
    default(spec, "strategy", json!({}));
    let strategy = &mut spec["strategy"];
    default(strategy, "type", json!("RollingUpdate"));
    if strategy["type"] == "RollingUpdate" {
        default(strategy, "rollingUpdate", json!({}));
        default(&mut strategy["rollingUpdate"], "maxUnavailable", json!("25%"));
        default(&mut strategy["rollingUpdate"], "maxSurge", json!("25%"));
    }
    default(spec, "revisionHistoryLimit", json!(10));
    default(spec, "progressDeadlineSeconds", json!(600));
}

/// A PodTemplate's template, a struct Go always has: its pod spec's defaults even when absent.
pub(super) fn pod_template_object(object: &mut Value) {
    let Some(template) = struct_at(object, "template") else {
        return;
    };
    // The pod spec's own defaults are the walker's.
    struct_at(template, "spec");
}

/// `SetDefaults_ReplicationController` (`pkg/apis/core/v1/defaults.go`): the selector and the
/// controller's labels from the template's labels when unset, one replica, and the template's
/// pod defaults.
pub(super) fn replication_controller(object: &mut Value) {
    let labels = object
        .pointer("/spec/template/metadata/labels")
        .and_then(Value::as_object)
        .filter(|l| !l.is_empty())
        .cloned();
    let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    if let Some(labels) = &labels
        && spec
            .get("selector")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty)
    {
        spec["selector"] = Value::Object(labels.clone());
    }
    default(spec, "replicas", json!(1));
    // The template is a pointer here, and its metadata's creation time, which Go always
    // encodes, is no one's default: the field manager sees it as the writer's.
    if let Some(template) = spec.get_mut("template").filter(|t| t.is_object())
        && let Some(meta) = struct_at(template, "metadata").and_then(Value::as_object_mut)
    {
        meta.entry("creationTimestamp").or_insert(Value::Null);
    }
    if let Some(labels) = labels
        && object
            .pointer("/metadata/labels")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty)
    {
        meta_mut(object).insert("labels".to_owned(), Value::Object(labels));
    }
}

pub(super) fn replica_set(object: &mut Value) {
    let Some(spec) = object.get_mut("spec") else { return };
    default(spec, "replicas", json!(1));
}

/// `SetDefaults_Job`: counts (the backoff limit unbounded when there is one per index),
/// completion mode, suspension, the job's labels from its template when it has none, and pod
/// failure policy conditions. From 1.29 (`JobPodReplacementPolicy` beta) the replacement
/// policy is defaulted (`Failed` with a pod failure policy, `TerminatingOrFailed` without),
/// and `manualSelector` defaults to false. The fields of gates that are off are the
/// strategy's to drop (`job_strategy`), after the field manager has seen them.
pub(super) fn job(object: &mut Value, minor: u32) {
    let template_labels = object
        .pointer("/spec/template/metadata/labels")
        .filter(|l| l.is_object())
        .cloned();
    let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    if spec.get("completions").is_none_or(Value::is_null) && spec.get("parallelism").is_none_or(Value::is_null) {
        spec["completions"] = json!(1);
    }
    default(spec, "parallelism", json!(1));
    let per_index = spec.get("backoffLimitPerIndex").is_some_and(|b| !b.is_null());
    default(
        spec,
        "backoffLimit",
        json!(if per_index { i64::from(i32::MAX) } else { 6 }),
    );
    default(spec, "completionMode", json!("NonIndexed"));
    default(spec, "suspend", json!(false));
    if minor >= 29 {
        let replacement = if spec.get("podFailurePolicy").is_some_and(|p| !p.is_null()) {
            "Failed"
        } else {
            "TerminatingOrFailed"
        };
        default(spec, "podReplacementPolicy", json!(replacement));
        default(spec, "manualSelector", json!(false));
    }
    let rules = spec
        .pointer_mut("/podFailurePolicy/rules")
        .and_then(Value::as_array_mut);
    for rule in rules.into_iter().flatten() {
        for pattern in rule
            .get_mut("onPodConditions")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            // Go tests for the empty string (the field is no pointer): `""` is defaulted too.
            if let Some(pattern) = pattern.as_object_mut()
                && pattern.get("status").and_then(Value::as_str).is_none_or(str::is_empty)
            {
                pattern.insert("status".to_owned(), json!("True"));
            }
        }
    }
    let unlabelled = object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    if let Some(labels) = template_labels.filter(|_| unlabelled) {
        meta_mut(object).insert("labels".to_owned(), labels);
    }
}

/// `SetObjectDefaults_CronJob`: `SetDefaults_CronJob` (concurrency, suspension, history
/// limits) and the job template's pod spec; the job template's own spec is not defaulted
/// (`SetDefaults_Job` is a Job's, not a `JobSpec`'s).
pub(super) fn cron_job(object: &mut Value) {
    let Some(spec) = struct_at(object, "spec") else { return };
    if spec
        .get("concurrencyPolicy")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        spec["concurrencyPolicy"] = json!("Allow");
    }
    default(spec, "suspend", json!(false));
    default(spec, "successfulJobsHistoryLimit", json!(3));
    default(spec, "failedJobsHistoryLimit", json!(1));
    // Go writes the template structs even when empty (`omitempty` never omits a struct), so
    // there is always a pod spec to default; each template's metadata has its zero creation
    // time, written null.
    let Some(template) = struct_at(spec, "jobTemplate") else {
        return;
    };
    default(template, "metadata", json!({"creationTimestamp": null}));
    let Some(job_spec) = struct_at(template, "spec") else {
        return;
    };
    let Some(pod) = struct_at(job_spec, "template") else {
        return;
    };
    default(pod, "metadata", json!({"creationTimestamp": null}));
    if let Some(pod_spec) = struct_at(pod, "spec") {
        default(pod_spec, "containers", Value::Null);
    }
}

/// The struct at `key` of `object`, made empty when unset; `None` when it is no object.
fn struct_at<'v>(object: &'v mut Value, key: &str) -> Option<&'v mut Value> {
    default(object, key, json!({}));
    object.get_mut(key).filter(|v| v.is_object())
}
