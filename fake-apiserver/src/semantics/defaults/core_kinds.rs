//! What decoding a pod or a PersistentVolumeClaim and encoding it again does besides defaulting:
//! their Go types (`k8s.io/api/core/v1/types.go`) write fields without `omitempty` as `null`,
//! and a pod's status conversion (`Convert_v1_PodStatus_To_core_PodStatus` and back,
//! `pkg/apis/core/v1/conversion.go`) makes `podIP` authoritative over `podIPs`. Their defaults
//! (`pkg/apis/core/v1/defaults.go`) are `walker`'s.

use serde_json::{Value, json};

use crate::storage::object::text;

/// What the Go types write of a claim that has no `omitempty`, as `null` when unset: a data
/// source's API group and a condition's probe and transition times; the field manager counts
/// those as set. (Its defaults are the walker's.)
pub(super) fn persistent_volume_claim(object: &mut Value) {
    if let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) {
        for source in ["dataSource", "dataSourceRef"] {
            if let Some(source) = spec.get_mut(source).filter(|s| s.is_object()) {
                source
                    .as_object_mut()
                    .expect("checked")
                    .entry("apiGroup")
                    .or_insert(Value::Null);
            }
        }
    }
    write_condition_times(object);
}

/// Each status condition's probe and transition times, which have no `omitempty`, written
/// `null` when unset (the field manager counts those as set).
fn write_condition_times(object: &mut Value) {
    let conditions = object.pointer_mut("/status/conditions").and_then(Value::as_array_mut);
    for condition in conditions.into_iter().flatten().filter_map(Value::as_object_mut) {
        for time in ["lastProbeTime", "lastTransitionTime"] {
            condition.entry(time).or_insert(Value::Null);
        }
    }
}

/// What decoding a pod and encoding it again makes of its status: `podIP` authoritative over
/// `podIPs`, condition times written.
pub(super) fn pod(pod: &mut Value) {
    convert_pod_ips(pod);
    write_condition_times(pod);
}

/// `Convert_v1_PodStatus_To_core_PodStatus` and back: `podIP` wins over a `podIPs` that starts
/// elsewhere, and fills an empty one.
fn convert_pod_ips(pod: &mut Value) {
    let Some(status) = pod.get_mut("status").and_then(Value::as_object_mut) else {
        return;
    };
    let pod_ip = text(status.get("podIP")).to_owned();
    let first = status
        .get("podIPs")
        .and_then(Value::as_array)
        .and_then(|ips| ips.first())
        .map(|entry| text(entry.get("ip")).to_owned());
    match first {
        // Encoding sets `podIP` from the first of `podIPs`.
        Some(first) if pod_ip.is_empty() => {
            status.insert("podIP".to_owned(), json!(first));
        }
        Some(first) if first == pod_ip => {}
        _ if pod_ip.is_empty() => {}
        _ => {
            status.insert("podIPs".to_owned(), json!([{ "ip": pod_ip }]));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_claims_pointers_without_omitempty_should_be_written_null() {
        let mut claim = json!({"spec": {"dataSource": {"kind": "PersistentVolumeClaim", "name": "a"}},
            "status": {"conditions": [{"type": "Resizing"}]}});
        persistent_volume_claim(&mut claim);
        assert_eq!(claim["spec"]["dataSource"]["apiGroup"], Value::Null);
        assert!(claim["status"]["conditions"][0].get("lastProbeTime").is_some());
        assert!(claim["spec"].get("volumeMode").is_none(), "the walker's");
    }

    fn status(status: Value) -> Value {
        json!({"spec": {"nodeName": "n"}, "status": status})
    }

    #[test]
    fn pod_ip_should_win_over_pod_ips_and_condition_times_be_written() {
        let mut mismatched = status(
            json!({"podIP": "10.0.0.6", "podIPs": [{"ip": "10.0.0.5"}, {"ip": "fd00::5"}],
            "conditions": [{"type": "Ready", "status": "True"}]}),
        );
        pod(&mut mismatched);
        assert_eq!(mismatched["status"]["podIPs"], json!([{"ip": "10.0.0.6"}]));
        assert_eq!(
            mismatched["status"]["conditions"][0].get("lastProbeTime"),
            Some(&Value::Null)
        );
        let mut dual = status(json!({"podIP": "10.0.0.5", "podIPs": [{"ip": "10.0.0.5"}, {"ip": "fd00::5"}]}));
        pod(&mut dual);
        assert_eq!(dual["status"]["podIPs"].as_array().map(Vec::len), Some(2));
        let mut only_list = status(json!({"podIPs": [{"ip": "10.0.0.9"}]}));
        pod(&mut only_list);
        assert_eq!(only_list["status"]["podIP"], "10.0.0.9");
    }
}
