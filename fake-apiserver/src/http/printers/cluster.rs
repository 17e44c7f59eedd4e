//! The printers of the cluster's own kinds served here: Leases
//! (`pkg/printers/internalversion/printers.go`: `printLease`) and APIServices (kube-aggregator's
//! `registry/apiservice/etcd/etcd.go`: `ConvertToTable`).

use serde_json::{Value, json};

use super::{BuiltinColumn, column, text};

/// The columns after Name of a cluster kind's printer (`age` is the Age column).
pub(super) fn columns(group: &str, kind: &str, age: BuiltinColumn) -> Option<Vec<BuiltinColumn>> {
    Some(match (group, kind) {
        ("coordination.k8s.io", "Lease") => vec![
            column(
                "Holder",
                "string",
                "HolderIdentity contains the identity of the holder of a current lease.",
                |o| text(o, "/spec/holderIdentity"),
            ),
            age,
        ],
        ("apiregistration.k8s.io", "APIService") => vec![
            column(
                "Service",
                "string",
                "The reference to the service that hosts this API endpoint.",
                |o| match o.pointer("/spec/service").filter(|s| s.is_object()) {
                    Some(service) => json!(format!(
                        "{}/{}",
                        service.get("namespace").and_then(Value::as_str).unwrap_or_default(),
                        service.get("name").and_then(Value::as_str).unwrap_or_default()
                    )),
                    None => json!("Local"),
                },
            ),
            column(
                "Available",
                "string",
                "Whether this service is available.",
                api_service_available,
            ),
            age,
        ],
        _ => return None,
    })
}

/// The Available condition's status, with its reason unless it is True; Unknown without one.
fn api_service_available(service: &Value) -> Value {
    let condition = service
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|c| {
            c.iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some("Available"))
        });
    let Some(condition) = condition else {
        return json!("Unknown");
    };
    let status = condition.get("status").and_then(Value::as_str).unwrap_or_default();
    match condition.get("reason").and_then(Value::as_str).unwrap_or_default() {
        reason if status != "True" && !reason.is_empty() => json!(format!("{status} ({reason})")),
        _ => json!(status),
    }
}
