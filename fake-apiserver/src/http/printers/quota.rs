//! ResourceQuota tables as `pkg/printers/internalversion/printers.go` prints them
//! (`printResourceQuota`: each hard resource as `used/hard`, the `limits.*` ones apart), and
//! LimitRange tables as the generic registry's `rest.DefaultTableConvertor` prints a kind with
//! no printer (`staging/src/k8s.io/apiserver/pkg/registry/rest/table.go`: the creation time as
//! RFC 3339).

use serde_json::{Value, json};

use super::volumes::quantity_text;
use super::{AGE_DESCRIPTION, BuiltinColumn, column};

/// The columns after Name of a quota's printer (`age` is the Age column, second here).
pub(super) fn quota_columns(age: BuiltinColumn) -> Vec<BuiltinColumn> {
    vec![
        age,
        column(
            "Request",
            "string",
            "Request represents a minimum amount of cpu/memory that a container may consume.",
            |o| json!(usage(o, false)),
        ),
        column(
            "Limit",
            "string",
            "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
            |o| json!(usage(o, true)),
        ),
    ]
}

/// The columns after Name of the default table convertor.
pub(super) fn default_columns() -> Vec<BuiltinColumn> {
    vec![column("Created At", "date", AGE_DESCRIPTION, |o| {
        json!(
            o.pointer("/metadata/creationTimestamp")
                .and_then(Value::as_str)
                .unwrap_or_default()
        )
    })]
}

/// `name: used/hard` of the status' hard resources sorted by name, the `limits.*` ones
/// (`limits` = true) or the others.
fn usage(quota: &Value, limits: bool) -> String {
    let mut names: Vec<&String> = quota
        .pointer("/status/hard")
        .and_then(Value::as_object)
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .filter(|name| {
            let pieces: Vec<&str> = name.split('.').collect();
            (pieces.len() > 1 && pieces[0] == "limits") == limits
        })
        .map(|name| {
            let used = quantity_text(quota.pointer("/status/used").and_then(|u| u.get(name.as_str())));
            let hard = quantity_text(quota.pointer("/status/hard").and_then(|h| h.get(name.as_str())));
            format!("{name}: {used}/{hard}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quota_row_should_split_requests_and_limits() {
        let quota =
            json!({"status": {"hard": {"pods": "10", "limits.memory": "4Gi", "count/x": "3"}, "used": {"pods": "2"}}});
        assert_eq!(usage(&quota, false), "count/x: 0/3, pods: 2/10");
        assert_eq!(usage(&quota, true), "limits.memory: 0/4Gi");
    }
}
