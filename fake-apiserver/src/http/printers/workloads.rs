//! The printers of the workloads served here (`pkg/printers/internalversion/printers.go`:
//! `printDeployment`, `printReplicaSet`, `printJob`).

use serde_json::{Value, json};

use super::{BuiltinColumn, column, human_duration, int, wide};
use super::{format_label_selector, selector_string};
use crate::storage::object;

/// The documentation of `JobStatus.succeeded`, the Completions column's description: 1.31
/// documents that an elastic indexed job may lower it.
fn completions_description(minor: u32) -> &'static str {
    if minor >= 31 {
        "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs."
    } else {
        "The number of pods which reached phase Succeeded."
    }
}

/// The columns after Name of a workload's printer on a server of `minor` (`age` is the Age
/// column); a Job's table gains its Status in 1.31.
pub(super) fn columns(group: &str, kind: &str, age: BuiltinColumn, minor: u32) -> Option<Vec<BuiltinColumn>> {
    Some(match (group, kind) {
        ("apps", "Deployment") => vec![
            column("Ready", "string", "Number of the pod with ready state", |o| {
                json!(format!(
                    "{}/{}",
                    int(o, "/status/readyReplicas"),
                    int(o, "/spec/replicas")
                ))
            }),
            // The Deployment printer declares its counts as strings, though its cells are numbers.
            column(
                "Up-to-date",
                "string",
                "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
                |o| json!(int(o, "/status/updatedReplicas")),
            ),
            column(
                "Available",
                "string",
                "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
                |o| json!(int(o, "/status/availableReplicas")),
            ),
            age,
        ]
        .into_iter()
        .chain(template_columns("Deployment"))
        .collect(),
        ("batch", "Job") => (minor >= 31)
            .then(|| column("Status", "string", "Status of the job.", job_status))
            .into_iter()
            .chain([
            column("Completions", "string", completions_description(minor), job_completions),
            column("Duration", "string", "Time required to complete the job.", job_duration),
            age,
            wide("Containers", "Names of each container in the template.", |o| containers(o, "name")),
            wide("Images", "Images referenced by each container in the template.", |o| containers(o, "image")),
            wide(
                "Selector",
                "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
                |o| json!(format_label_selector(o.pointer("/spec/selector"))),
            ),
        ])
            .collect(),
        ("apps", "ReplicaSet") => vec![
            column(
                "Desired",
                "integer",
                "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
                |o| json!(int(o, "/spec/replicas")),
            ),
            column(
                "Current",
                "integer",
                "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
                |o| json!(int(o, "/status/replicas")),
            ),
            column(
                "Ready",
                "integer",
                "The number of ready replicas for this replica set.",
                |o| json!(int(o, "/status/readyReplicas")),
            ),
            age,
        ]
        .into_iter()
        .chain(template_columns("ReplicaSet"))
        .collect(),
        _ => return None,
    })
}

/// `succeeded/completions`, or `succeeded/1 of parallelism` for a work queue.
fn job_completions(job: &Value) -> Value {
    let succeeded = int(job, "/status/succeeded");
    let parallelism = int(job, "/spec/parallelism");
    json!(match job.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(completions) => format!("{succeeded}/{completions}"),
        None if parallelism > 1 => format!("{succeeded}/1 of {parallelism}"),
        None => format!("{succeeded}/1"),
    })
}

/// `printJob`'s status: the first of its conditions that holds, in the printer's order, else
/// Running.
fn job_status(job: &Value) -> Value {
    let holds = |kind: &str| {
        job.pointer("/status/conditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|c| {
                c.get("type").and_then(Value::as_str) == Some(kind)
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
    };
    let deleting = job.pointer("/metadata/deletionTimestamp").is_some_and(|t| !t.is_null());
    json!(if holds("Complete") {
        "Complete"
    } else if holds("Failed") {
        "Failed"
    } else if deleting {
        "Terminating"
    } else if holds("Suspended") {
        "Suspended"
    } else if holds("FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    })
}

/// How long the job ran, or has been running; nothing before it started.
fn job_duration(job: &Value) -> Value {
    let time = |key: &str| {
        job.pointer(&format!("/status/{key}"))
            .and_then(Value::as_str)
            .and_then(object::timestamp_seconds)
    };
    json!(match (time("startTime"), time("completionTime")) {
        (None, _) => String::new(),
        (Some(start), None) => human_duration(jiff::Timestamp::now().as_second() - start),
        (Some(start), Some(end)) => human_duration(end - start),
    })
}

/// The `-o wide` columns of Deployments and ReplicaSets: their pod template's containers, and
/// their selector (a Deployment's as `selector.String()`, `<invalid>` when it does not
/// convert; a ReplicaSet's as `metav1.FormatLabelSelector`), each described by its own field.
fn template_columns(kind: &str) -> [BuiltinColumn; 3] {
    let selector = if kind == "Deployment" {
        wide(
            "Selector",
            "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
            |o| json!(selector_string(o.pointer("/spec/selector")).unwrap_or_else(|| "<invalid>".to_owned())),
        )
    } else {
        wide(
            "Selector",
            "Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
            |o| json!(format_label_selector(o.pointer("/spec/selector"))),
        )
    };
    [
        wide("Containers", "Names of each container in the template.", |o| {
            containers(o, "name")
        }),
        wide("Images", "Images referenced by each container in the template.", |o| {
            containers(o, "image")
        }),
        selector,
    ]
}

pub(super) fn containers(object: &Value, field: &str) -> Value {
    let names: Vec<&str> = object
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get(field).and_then(Value::as_str))
        .collect();
    json!(names.join(","))
}
