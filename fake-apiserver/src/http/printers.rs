//! kube-apiserver's table printers for the built-in kinds served here (its
//! `pkg/printers/internalversion`): their columns, and how each cell is computed.

use serde_json::{Value, json};

use crate::semantics::selector::label_selector_text;
use crate::storage::object;

/// `ObjectMeta.name`'s documentation, the description of every table's Name column.
pub(crate) const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

/// `ObjectMeta.creationTimestamp`'s documentation, the description of the built-in Age columns.
const AGE_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// One column of a built-in printer.
pub(crate) struct BuiltinColumn {
    pub(crate) name: &'static str,
    pub(crate) type_: &'static str,
    pub(crate) description: &'static str,
    /// 0 in plain `get`, 1 only with `-o wide`.
    pub(crate) priority: i64,
    pub(crate) cell: fn(&Value) -> Value,
}

const fn column(
    name: &'static str,
    type_: &'static str,
    description: &'static str,
    cell: fn(&Value) -> Value,
) -> BuiltinColumn {
    BuiltinColumn {
        name,
        type_,
        description,
        priority: 0,
        cell,
    }
}

const fn wide(name: &'static str, description: &'static str, cell: fn(&Value) -> Value) -> BuiltinColumn {
    BuiltinColumn {
        name,
        type_: "string",
        description,
        priority: 1,
        cell,
    }
}

/// The columns after Name of a built-in kind's printer, or `None` for kinds printed by the
/// default printer (Name and Age).
pub(crate) fn columns(group: &str, kind: &str) -> Option<Vec<BuiltinColumn>> {
    let age = column("Age", "string", AGE_DESCRIPTION, age);
    Some(match (group, kind) {
        ("", "ConfigMap") => vec![
            column(
                "Data",
                "string",
                "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
                |o| json!(count(o, "data") + count(o, "binaryData")),
            ),
            age,
        ],
        ("", "Secret") => vec![
            column("Type", "string", "The type of secret", |o| text(o, "/type")),
            column(
                "Data",
                "string",
                "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
                |o| json!(count(o, "data")),
            ),
            age,
        ],
        ("", "Namespace") => vec![
            column("Status", "string", "The status of the namespace", |o| {
                text(o, "/status/phase")
            }),
            age,
        ],
        ("", "ServiceAccount") => vec![
            column(
                "Secrets",
                "string",
                "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
                |o| json!(count(o, "secrets")),
            ),
            age,
        ],
        // `printComponentStatus`: the Healthy condition's verdict, message and error.
        ("", "ComponentStatus") => vec![
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
        ("", "Node") => vec![
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
        ("coordination.k8s.io", "Lease") => vec![
            column(
                "Holder",
                "string",
                "HolderIdentity contains the identity of the holder of a current lease.",
                |o| text(o, "/spec/holderIdentity"),
            ),
            age,
        ],
        ("apps", "Deployment") => vec![
            column("Ready", "string", "Number of the pod with ready state", |o| {
                json!(format!(
                    "{}/{}",
                    int(o, "/status/readyReplicas"),
                    int(o, "/spec/replicas")
                ))
            }),
            column(
                "Up-to-date",
                "integer",
                "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
                |o| json!(int(o, "/status/updatedReplicas")),
            ),
            column(
                "Available",
                "integer",
                "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
                |o| json!(int(o, "/status/availableReplicas")),
            ),
            age,
        ]
        .into_iter()
        .chain(template_columns())
        .collect(),
        ("apps", "ReplicaSet") => vec![
            column(
                "Desired",
                "integer",
                "Number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
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
                "readyReplicas is the number of pods targeted by this ReplicaSet with a Ready Condition.",
                |o| json!(int(o, "/status/readyReplicas")),
            ),
            age,
        ]
        .into_iter()
        .chain(template_columns())
        .collect(),
        _ => return None,
    })
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

/// The `-o wide` columns of the workloads: their pod template's containers and selector.
fn template_columns() -> [BuiltinColumn; 3] {
    [
        wide("Containers", "Names of each container in the template.", |o| {
            containers(o, "name")
        }),
        wide("Images", "Images referenced by each container in the template.", |o| {
            containers(o, "image")
        }),
        wide(
            "Selector",
            "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
            |o| json!(o.pointer("/spec/selector").map(label_selector_text).unwrap_or_default()),
        ),
    ]
}

/// The Age of an object, as `kubectl get` shows it.
fn age(object: &Value) -> Value {
    let created = object.pointer("/metadata/creationTimestamp").and_then(Value::as_str);
    json!(created.and_then(since).unwrap_or_else(|| "<unknown>".to_owned()))
}

/// How long ago an RFC 3339 `timestamp` was, as tables show ages; `None` when it is not one.
pub(crate) fn since(timestamp: &str) -> Option<String> {
    let then = object::timestamp_seconds(timestamp)?;
    Some(human_duration(jiff::Timestamp::now().as_second() - then))
}

/// A component status' first `Healthy` condition, the one the printer reads.
fn healthy_condition(object: &Value) -> Option<&Value> {
    object
        .get("conditions")
        .and_then(Value::as_array)?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Healthy"))
}

fn count(object: &Value, field: &str) -> usize {
    match object.get(field) {
        Some(Value::Object(map)) => map.len(),
        Some(Value::Array(items)) => items.len(),
        _ => 0,
    }
}

fn text(object: &Value, pointer: &str) -> Value {
    json!(object.pointer(pointer).and_then(Value::as_str).unwrap_or_default())
}

fn int(object: &Value, pointer: &str) -> i64 {
    object.pointer(pointer).and_then(Value::as_i64).unwrap_or_default()
}

fn containers(object: &Value, field: &str) -> Value {
    let names: Vec<&str> = object
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get(field).and_then(Value::as_str))
        .collect();
    json!(names.join(","))
}

/// apimachinery's `duration.HumanDuration`: `45s`, `3m12s`, `5h2m`, `3d4h`, `2y10d`.
pub(crate) fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".to_owned();
    }
    if seconds < 0 {
        return "0s".to_owned();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    let days = hours / 24;
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{days}d")
        } else {
            format!("{days}d{h}h")
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{days}d");
    }
    let years = days / 365;
    if hours < 24 * 365 * 8 {
        let d = days % 365;
        return if d == 0 {
            format!("{years}y")
        } else {
            format!("{years}y{d}d")
        };
    }
    format!("{years}y")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_duration_should_match_apimachinery() {
        assert_eq!(human_duration(45), "45s");
        assert_eq!(human_duration(192), "3m12s");
        assert_eq!(human_duration(600), "10m");
        assert_eq!(human_duration(5 * 3600 + 120), "5h2m");
        assert_eq!(human_duration(3 * 86400 + 4 * 3600), "3d4h");
        assert_eq!(human_duration(-5), "<invalid>");
    }
}
