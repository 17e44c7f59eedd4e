//! The defaults of pods and of the workloads that hold pod templates (`SetDefaults_Pod`,
//! `SetDefaults_PodSpec`, `SetDefaults_Container` of `pkg/apis/core/v1/defaults.go`;
//! `SetDefaults_Deployment`, `SetDefaults_ReplicaSet` of `pkg/apis/apps/v1`; `SetDefaults_Job` of
//! `pkg/apis/batch/v1`).

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
    pod_template(spec);
}

pub(super) fn replica_set(object: &mut Value) {
    let Some(spec) = object.get_mut("spec") else { return };
    default(spec, "replicas", json!(1));
    pod_template(spec);
}

/// `SetDefaults_Job`: counts, completion mode, suspension, the job's labels from its template
/// when it has none, and pod failure policy conditions. The fields of features off in 1.28
/// (`podReplacementPolicy`, `backoffLimitPerIndex`, `maxFailedIndexes`) are dropped there as
/// the strategy drops them; from 1.29 (`JobPodReplacementPolicy` and `BackoffLimitPerIndex`
/// beta) they are kept, the replacement policy defaulted (`Failed` with a pod failure policy,
/// `TerminatingOrFailed` without), and `manualSelector` defaults to false.
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
    default(spec, "backoffLimit", json!(6));
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
    } else if let Some(fields) = spec.as_object_mut() {
        for dropped in ["podReplacementPolicy", "backoffLimitPerIndex", "maxFailedIndexes"] {
            fields.remove(dropped);
        }
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
            default(pattern, "status", json!("True"));
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

fn pod_template(spec: &mut Value) {
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
    let policy = if image_tag(image) == "latest" {
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

/// The tag of an image reference as kube-apiserver's parser reads it: `latest` when there is
/// neither a tag nor a digest, empty with a digest alone.
fn image_tag(image: &str) -> &str {
    if image.contains('@') {
        return "";
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    last.split_once(':').map_or("latest", |(_, tag)| tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_tags_decide_the_pull_policy() {
        assert_eq!(image_tag("registry.example/app:1"), "1");
        assert_eq!(image_tag("registry.example:5000/app"), "latest");
        assert_eq!(image_tag("app:latest"), "latest");
        assert_eq!(image_tag("app@sha256:abc"), "");
    }
}
