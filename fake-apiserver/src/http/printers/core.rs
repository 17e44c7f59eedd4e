//! The printers of the core group's kinds served here (`pkg/printers/internalversion/
//! printers.go`: `printConfigMap`, `printSecret`, `printNamespace`, `printServiceAccount`,
//! `printComponentStatus`, `printNode`).

use serde_json::{Value, json};

use super::{BuiltinColumn, column, count, text, wide};
use crate::storage::object;

/// The columns after Name of a core kind's printer (`age` is the Age column).
pub(super) fn columns(kind: &str, age: BuiltinColumn) -> Option<Vec<BuiltinColumn>> {
    Some(match kind {
        "ConfigMap" => vec![
            column(
                "Data",
                "string",
                "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
                |o| json!(count(o, "data") + count(o, "binaryData")),
            ),
            age,
        ],
        "Secret" => vec![
            column("Type", "string", "The type of secret", |o| text(o, "/type")),
            column(
                "Data",
                "string",
                "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
                |o| json!(count(o, "data")),
            ),
            age,
        ],
        "Namespace" => vec![
            column("Status", "string", "The status of the namespace", |o| {
                text(o, "/status/phase")
            }),
            age,
        ],
        "ServiceAccount" => vec![
            column(
                "Secrets",
                "string",
                "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
                |o| json!(count(o, "secrets")),
            ),
            age,
        ],
        // `printComponentStatus`: the Healthy condition's verdict, message and error.
        "ComponentStatus" => vec![
            column("Status", "string", "Status of the component conditions", |o| {
                let healthy = healthy_condition(o);
                json!(match healthy.and_then(|c| c.get("status")).and_then(Value::as_str) {
                    Some("True") => "Healthy",
                    Some(_) => "Unhealthy",
                    None => "Unknown",
                })
            }),
            column("Message", "string", "Message of the component conditions", |o| {
                healthy_condition(o).map_or(json!(""), |c| text(c, "/message"))
            }),
            column("Error", "string", "Error of the component conditions", |o| {
                healthy_condition(o).map_or(json!(""), |c| text(c, "/error"))
            }),
        ],
        "Node" => vec![
            column("Status", "string", "The status of the node", node_status),
            column("Roles", "string", "The roles of the node", node_roles),
            age,
            column("Version", "string", "Kubelet Version reported by the node.", |o| {
                text(o, "/status/nodeInfo/kubeletVersion")
            }),
            wide("Internal-IP", NODE_ADDRESSES, |o| node_address(o, "InternalIP")),
            wide("External-IP", NODE_ADDRESSES, |o| node_address(o, "ExternalIP")),
            wide(
                "OS-Image",
                "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
                |o| node_info(o, "osImage"),
            ),
            wide(
                "Kernel-Version",
                "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
                |o| node_info(o, "kernelVersion"),
            ),
            wide(
                "Container-Runtime",
                "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
                |o| node_info(o, "containerRuntimeVersion"),
            ),
        ],
        _ => return None,
    })
}

/// A component status' first `Healthy` condition, the one the printer reads.
fn healthy_condition(object: &Value) -> Option<&Value> {
    object
        .get("conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Healthy"))
}

/// `NodeStatus.addresses`' documentation, the description of the address columns.
const NODE_ADDRESSES: &str = "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/concepts/nodes/node/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).";

/// `printNode`'s status: Ready or NotReady (Unknown without the condition), and
/// SchedulingDisabled when cordoned.
fn node_status(node: &Value) -> Value {
    let ready = node
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|conditions| {
            conditions
                .iter()
                .rfind(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
        });
    let mut status = vec![match ready.and_then(|c| c.get("status")).and_then(Value::as_str) {
        Some("True") => "Ready",
        Some(_) => "NotReady",
        None => "Unknown",
    }];
    if node.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        status.push("SchedulingDisabled");
    }
    json!(status.join(","))
}

/// `findNodeRoles`: the `node-role.kubernetes.io/<role>` labels and `kubernetes.io/role`, sorted.
fn node_roles(node: &Value) -> Value {
    let mut roles: Vec<&str> = object::labels(node)
        .into_iter()
        .flatten()
        .filter_map(|(key, value)| match key.strip_prefix("node-role.kubernetes.io/") {
            Some(role) if !role.is_empty() => Some(role),
            Some(_) => None,
            None if key == "kubernetes.io/role" => value.as_str().filter(|v| !v.is_empty()),
            None => None,
        })
        .collect();
    roles.sort_unstable();
    roles.dedup();
    json!(if roles.is_empty() {
        "<none>".to_owned()
    } else {
        roles.join(",")
    })
}

/// The node's first address of `kind`, or `<none>`.
fn node_address(node: &Value, kind: &str) -> Value {
    let addresses = node.pointer("/status/addresses").and_then(Value::as_array);
    let found = addresses
        .into_iter()
        .flatten()
        .find(|a| a.get("type").and_then(Value::as_str) == Some(kind))
        .and_then(|a| a.get("address").and_then(Value::as_str));
    json!(found.unwrap_or("<none>"))
}

/// A field of the node's `nodeInfo`, or `<unknown>`.
fn node_info(node: &Value, field: &str) -> Value {
    let found = node
        .pointer(&format!("/status/nodeInfo/{field}"))
        .and_then(Value::as_str)
        .filter(|v| !v.is_empty());
    json!(found.unwrap_or("<unknown>"))
}
