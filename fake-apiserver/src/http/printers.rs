//! kube-apiserver's table printers for the built-in kinds served here (its
//! `pkg/printers/internalversion`): their columns, and how each cell is computed.

use serde_json::{Value, json};

use crate::semantics::label_selector_validation::selector_fails;
use crate::semantics::selector::requirement_text;
use crate::storage::object;

mod apps_sets;
mod autoscaling;
mod cluster;
mod core;
mod core_controllers;
mod cronjob_endpoints;
mod discovery;
mod flowcontrol;
mod networking;
mod pods;
mod policy;
mod quota;
mod services;
mod storage;
mod volumes;
mod workloads;

/// `ObjectMeta.name`'s documentation, the description of every table's Name column.
pub(crate) const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

/// `ObjectMeta.creationTimestamp`'s documentation, the description of the built-in Age columns.
pub(crate) const AGE_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// One column of a built-in printer.
pub(crate) struct BuiltinColumn {
    pub(crate) name: &'static str,
    pub(crate) type_: &'static str,
    /// `name` for a column that holds an object's name, empty otherwise.
    pub(crate) format: &'static str,
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
        format: "",
        description,
        priority: 0,
        cell,
    }
}

/// A column that holds the name of another object (`Format: "name"` in the printer).
const fn name_column(name: &'static str, description: &'static str, cell: fn(&Value) -> Value) -> BuiltinColumn {
    BuiltinColumn {
        format: "name",
        ..column(name, "string", description, cell)
    }
}

const fn wide(name: &'static str, description: &'static str, cell: fn(&Value) -> Value) -> BuiltinColumn {
    BuiltinColumn {
        name,
        type_: "string",
        format: "",
        description,
        priority: 1,
        cell,
    }
}

/// The columns after Name of a built-in kind's printer on a server of `minor`, or `None` for
/// kinds printed by the default printer (Name and Age).
pub(crate) fn columns(group: &str, kind: &str, minor: u32) -> Option<Vec<BuiltinColumn>> {
    let age = column("Age", "string", AGE_DESCRIPTION, age);
    match group {
        "" if kind == "Pod" => Some(pods::columns(age, minor)),
        "" if kind == "ResourceQuota" => Some(quota::quota_columns(age)),
        // The registries that keep `rest.NewDefaultTableConvertor` (Name and Created At).
        "" if kind == "LimitRange" => Some(quota::default_columns()),
        "rbac.authorization.k8s.io" if matches!(kind, "Role" | "ClusterRole") => Some(quota::default_columns()),
        "apiextensions.k8s.io" if kind == "CustomResourceDefinition" => Some(quota::default_columns()),
        "" if kind == "PodTemplate" => Some(core_controllers::pod_template_columns()),
        "" if kind == "ReplicationController" => Some(core_controllers::replication_controller_columns(age)),
        "" if kind == "PersistentVolume" => Some(volumes::volume_columns(age, minor)),
        "" if kind == "PersistentVolumeClaim" => Some(volumes::claim_columns(age, minor)),
        "" if kind == "Endpoints" => Some(cronjob_endpoints::endpoints_columns(age)),
        "" if kind == "Service" => Some(services::columns(age)),
        "batch" if kind == "CronJob" => Some(cronjob_endpoints::cron_job_columns(age, minor)),
        "" => core::columns(kind, age),
        "apps" if matches!(kind, "StatefulSet" | "DaemonSet") => apps_sets::columns(kind, age),
        "apps" if kind == "ControllerRevision" => storage::columns(group, kind, age, minor),
        "storage.k8s.io" => storage::columns(group, kind, age, minor),
        "apps" | "batch" => workloads::columns(group, kind, age, minor),
        "networking.k8s.io" => networking::columns(kind, age),
        "autoscaling" => autoscaling::columns(kind, age, minor),
        "policy" | "scheduling.k8s.io" | "node.k8s.io" => policy::columns(kind, age),
        "discovery.k8s.io" => discovery::columns(kind, age),
        "flowcontrol.apiserver.k8s.io" => flowcontrol::columns(kind, age, minor),
        _ => cluster::columns(group, kind, age, minor),
    }
}

/// The order a built-in kind's list printer puts its rows in, when it sorts them.
pub(crate) fn row_order(group: &str, kind: &str) -> Option<fn(&Value, &Value) -> std::cmp::Ordering> {
    match group {
        "flowcontrol.apiserver.k8s.io" => flowcontrol::row_order(kind),
        _ => None,
    }
}

/// The Name cell of a built-in kind whose printer writes more than the object's name.
pub(crate) fn name_cell(group: &str, kind: &str) -> Option<fn(&Value) -> Value> {
    storage::name_cell(group, kind)
}

/// `metav1.FormatLabelSelector`: the selector's `String()`, `<none>` when that is empty
/// (unset, or selecting everything), `<error>` when it does not convert.
pub(crate) fn format_label_selector(selector: Option<&Value>) -> String {
    match selector_string(selector) {
        None => "<error>".to_owned(),
        Some(text) if text.is_empty() => "<none>".to_owned(),
        Some(text) => text,
    }
}

/// `metav1.LabelSelectorAsSelector(selector).String()`: the requirements sorted by key, an
/// `In`/`NotIn` requirement's values sorted; empty for an unset or empty selector; `None`
/// when the selector does not convert.
pub(crate) fn selector_string(selector: Option<&Value>) -> Option<String> {
    let Some(selector) = selector.filter(|s| s.is_object()) else {
        return Some(String::new());
    };
    if selector_fails(selector) {
        return None;
    }
    let labels = selector.get("matchLabels").and_then(Value::as_object);
    let mut terms: Vec<(String, String)> = labels
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), format!("{k}={}", v.as_str().unwrap_or_default())))
        .collect();
    for expression in selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = expression
            .get("key")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        terms.push((key, requirement_text(expression, true)));
    }
    terms.sort_by(|a, b| a.0.cmp(&b.0));
    let text: Vec<String> = terms.into_iter().map(|(_, term)| term).collect();
    Some(text.join(","))
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
