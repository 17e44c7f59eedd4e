//! The defaults of pods and of the workloads that hold pod templates (`SetDefaults_Pod`,
//! `SetDefaults_PodSpec`, `SetDefaults_Container` of `pkg/apis/core/v1/defaults.go`;
//! `SetDefaults_Deployment`, `SetDefaults_ReplicaSet` of `pkg/apis/apps/v1`; `SetDefaults_Job` and
//! `SetDefaults_CronJob` of `pkg/apis/batch/v1`).

use serde_json::{Map, Value, json};

use super::default;
use crate::semantics::image_reference;
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
    pod_template(spec);
}

/// A PodTemplate's template, a struct Go always has: its pod spec's defaults even when absent.
pub(super) fn pod_template_object(object: &mut Value) {
    let Some(template) = struct_at(object, "template") else {
        return;
    };
    if let Some(spec) = struct_at(template, "spec") {
        pod_spec(spec);
    }
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
    pod_template(spec);
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
    pod_template(spec);
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
    pod_template(spec);
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
    pod_template(job_spec);
}

/// The struct at `key` of `object`, made empty when unset; `None` when it is no object.
fn struct_at<'v>(object: &'v mut Value, key: &str) -> Option<&'v mut Value> {
    default(object, key, json!({}));
    object.get_mut(key).filter(|v| v.is_object())
}

pub(super) fn pod_template(spec: &mut Value) {
    if let Some(pod) = spec.pointer_mut("/template/spec") {
        pod_spec(pod);
    }
}

/// `SetDefaults_Pod` on top of the spec's: requests defaulted to limits, service links on, and
/// the deprecated `serviceAccount` kept equal to `serviceAccountName` (the v1 conversion).
pub(super) fn pod(object: &mut Value) {
    let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    pod_spec(spec);
    for list in ["initContainers", "containers"] {
        for container in spec.get_mut(list).and_then(Value::as_array_mut).into_iter().flatten() {
            let Some(resources) = container.get_mut("resources").filter(|r| r.is_object()) else {
                continue;
            };
            let Some(limits) = resources.get("limits").and_then(Value::as_object).cloned() else {
                continue;
            };
            default(resources, "requests", json!({}));
            for (resource, quantity) in limits {
                default(&mut resources["requests"], &resource, quantity);
            }
        }
    }
    default(spec, "enableServiceLinks", json!(true));
    let account = spec
        .get("serviceAccountName")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let deprecated = spec.get("serviceAccount").and_then(Value::as_str).unwrap_or_default();
    let name = if account.is_empty() { deprecated } else { account }.to_owned();
    if let Some(fields) = spec.as_object_mut() {
        if name.is_empty() {
            fields.remove("serviceAccount");
            fields.remove("serviceAccountName");
        } else {
            fields.insert("serviceAccountName".to_owned(), json!(name));
            fields.insert("serviceAccount".to_owned(), json!(name));
        }
    }
}

/// `SetDefaults_PodSpec`, and each container's defaults.
fn pod_spec(spec: &mut Value) {
    default(spec, "dnsPolicy", json!("ClusterFirst"));
    default(spec, "restartPolicy", json!("Always"));
    default(spec, "securityContext", json!({}));
    default(spec, "terminationGracePeriodSeconds", json!(30));
    default(spec, "schedulerName", json!("default-scheduler"));
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        for container in spec.get_mut(list).and_then(Value::as_array_mut).into_iter().flatten() {
            container_defaults(container);
        }
    }
}

fn container_defaults(container: &mut Value) {
    default(container, "terminationMessagePath", json!("/dev/termination-log"));
    default(container, "terminationMessagePolicy", json!("File"));
    let image = container.get("image").and_then(Value::as_str).unwrap_or_default();
    // An image that does not parse reads as no tag: `IfNotPresent`.
    let policy = if image_reference::tag(image).as_deref() == Some("latest") {
        "Always"
    } else {
        "IfNotPresent"
    };
    default(container, "imagePullPolicy", json!(policy));
    // `resources` is a struct without omitempty: it is always encoded.
    default(container, "resources", json!({}));
    for port in container
        .get_mut("ports")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        default(port, "protocol", json!("TCP"));
    }
}
