//! The printers of StatefulSets and DaemonSets (`pkg/printers/internalversion/printers.go`:
//! `printStatefulSet`, `printDaemonSet`, with `labels.FormatLabels` for the node selector and
//! `metav1.FormatLabelSelector` for the selector).

use serde_json::{Value, json};

use super::workloads::containers;
use super::{BuiltinColumn, column, format_label_selector, int, wide};

const CONTAINERS: &str = "Names of each container in the template.";
const IMAGES: &str = "Images referenced by each container in the template.";

/// The columns after Name of `kind`'s printer (`age` is the Age column).
pub(super) fn columns(kind: &str, age: BuiltinColumn) -> Option<Vec<BuiltinColumn>> {
    Some(match kind {
        "StatefulSet" => vec![
            column("Ready", "string", "Number of the pod with ready state", |o| {
                json!(format!(
                    "{}/{}",
                    int(o, "/status/readyReplicas"),
                    int(o, "/spec/replicas")
                ))
            }),
            age,
            wide("Containers", CONTAINERS, |o| containers(o, "name")),
            wide("Images", IMAGES, |o| containers(o, "image")),
        ],
        "DaemonSet" => vec![
            column(
                "Desired",
                "integer",
                "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
                |o| json!(int(o, "/status/desiredNumberScheduled")),
            ),
            column(
                "Current",
                "integer",
                "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
                |o| json!(int(o, "/status/currentNumberScheduled")),
            ),
            column(
                "Ready",
                "integer",
                "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.",
                |o| json!(int(o, "/status/numberReady")),
            ),
            column(
                "Up-to-date",
                "integer",
                "The total number of nodes that are running updated daemon pod",
                |o| json!(int(o, "/status/updatedNumberScheduled")),
            ),
            column(
                "Available",
                "integer",
                "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
                |o| json!(int(o, "/status/numberAvailable")),
            ),
            column(
                "Node Selector",
                "string",
                "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
                |o| json!(format_labels(o.pointer("/spec/template/spec/nodeSelector"))),
            ),
            age,
            wide("Containers", CONTAINERS, |o| containers(o, "name")),
            wide("Images", IMAGES, |o| containers(o, "image")),
            wide(
                "Selector",
                "A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
                |o| json!(format_label_selector(o.pointer("/spec/selector"))),
            ),
        ],
        _ => return None,
    })
}

/// `labels.FormatLabels`: `k=v` pairs sorted by key, or `<none>`.
pub(super) fn format_labels(labels: Option<&Value>) -> String {
    let mut entries: Vec<(&String, &Value)> = labels.and_then(Value::as_object).into_iter().flatten().collect();
    // Go sorts the keys.
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let pairs: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    if pairs.is_empty() {
        "<none>".to_owned()
    } else {
        pairs.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_print_sorted_or_as_none() {
        let selector = json!({"matchLabels": {"zone": "a"},
            "matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "api"]},
                                 {"key": "legacy", "operator": "DoesNotExist"}]});
        assert_eq!(
            format_label_selector(Some(&selector)),
            "app in (api,web),!legacy,zone=a"
        );
        assert_eq!(format_label_selector(Some(&json!({}))), "<none>");
        assert_eq!(format_label_selector(None), "<none>");
        let bad = json!({"matchLabels": {"a": "not valid!"}});
        assert_eq!(format_label_selector(Some(&bad)), "<error>");
    }

    #[test]
    fn node_selectors_print_as_labels() {
        assert_eq!(
            format_labels(Some(&json!({"b": "2", "a.b": "3", "a": "1"}))),
            "a=1,a.b=3,b=2"
        );
        assert_eq!(format_labels(Some(&json!({}))), "<none>");
    }

    #[test]
    fn a_stateful_set_shows_ready_of_desired_replicas() {
        let columns = columns("StatefulSet", column("Age", "string", "", |_| json!(""))).unwrap_or_default();
        let sts = json!({"spec": {"replicas": 3}, "status": {"readyReplicas": 1}});
        assert_eq!((columns[0].cell)(&sts), json!("1/3"));
        assert_eq!(columns.iter().filter(|c| c.priority == 1).count(), 2);
    }
}
