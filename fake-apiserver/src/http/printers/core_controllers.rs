//! PodTemplate and ReplicationController tables as `pkg/printers/internalversion/printers.go`
//! prints them (`printPodTemplate`, `printReplicationController` and their column
//! definitions, with `layoutContainerCells` and `labels.FormatLabels`). A PodTemplate's table
//! has no Age column.

use serde_json::{Value, json};

use super::apps_sets::format_labels;
use super::workloads::containers;
use super::{BuiltinColumn, column, int, wide};

const CONTAINERS: &str = "Names of each container in the template.";
const IMAGES: &str = "Images referenced by each container in the template.";

/// The columns after Name of a PodTemplate's printer.
pub(super) fn pod_template_columns() -> Vec<BuiltinColumn> {
    vec![
        column("Containers", "string", CONTAINERS, |o| template_containers(o, "name")),
        column("Images", "string", IMAGES, |o| template_containers(o, "image")),
        column("Pod Labels", "string", "The labels for the pod template.", |o| {
            json!(format_labels(o.pointer("/template/metadata/labels")))
        }),
    ]
}

/// The columns after Name of a ReplicationController's printer (`age` is the Age column).
pub(super) fn replication_controller_columns(age: BuiltinColumn) -> Vec<BuiltinColumn> {
    vec![
        column(
            "Desired",
            "integer",
            "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
            |o| json!(int(o, "/spec/replicas")),
        ),
        column(
            "Current",
            "integer",
            "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller",
            |o| json!(int(o, "/status/replicas")),
        ),
        column(
            "Ready",
            "integer",
            "The number of ready replicas for this replication controller.",
            |o| json!(int(o, "/status/readyReplicas")),
        ),
        age,
        wide("Containers", CONTAINERS, |o| containers(o, "name")),
        wide("Images", IMAGES, |o| containers(o, "image")),
        wide(
            "Selector",
            "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
            |o| json!(format_labels(o.pointer("/spec/selector"))),
        ),
    ]
}

/// `layoutContainerCells` of a PodTemplate's `template`: one field of each container, joined.
fn template_containers(object: &Value, field: &str) -> Value {
    let values: Vec<&str> = object
        .pointer("/template/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get(field).and_then(Value::as_str))
        .collect();
    json!(values.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pod_template_row_should_show_its_containers_and_labels() {
        let template = json!({"template": {"metadata": {"labels": {"b": "2", "a": "1"}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}, {"name": "d", "image": "nginx"}]}}});
        let cells: Vec<Value> = pod_template_columns().iter().map(|c| (c.cell)(&template)).collect();
        assert_eq!(cells, [json!("c,d"), json!("busybox,nginx"), json!("a=1,b=2")]);
    }
}
