//! `SetObjectDefaults_*` of the core kinds served beside the workloads
//! (`pkg/apis/core/v1/defaults.go`, `zz_generated.defaults.go`): PersistentVolumeClaims.

use serde_json::{Value, json};

use super::default;

/// `SetDefaults_PersistentVolumeClaim` and `SetDefaults_PersistentVolumeClaimSpec`: a claim is
/// `Pending` and a filesystem until said otherwise.
///
/// The Go types also write what has no `omitempty`, as `null` when unset: a data source's API
/// group and a condition's probe and transition times; the field manager counts those as set.
pub(super) fn persistent_volume_claim(object: &mut Value) {
    if let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) {
        default(spec, "volumeMode", json!("Filesystem"));
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
    let conditions = object.pointer_mut("/status/conditions").and_then(Value::as_array_mut);
    for condition in conditions.into_iter().flatten().filter_map(Value::as_object_mut) {
        for time in ["lastProbeTime", "lastTransitionTime"] {
            condition.entry(time).or_insert(Value::Null);
        }
    }
    default(object, "status", json!({}));
    if let Some(status) = object.get_mut("status").filter(|s| s.is_object())
        && status.get("phase").and_then(Value::as_str).is_none_or(str::is_empty)
    {
        status["phase"] = json!("Pending");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_should_default_to_a_pending_filesystem() {
        let mut claim = json!({"spec": {"accessModes": ["ReadWriteOnce"]}});
        persistent_volume_claim(&mut claim);
        assert_eq!(claim["spec"]["volumeMode"], "Filesystem");
        assert_eq!(claim["status"], json!({"phase": "Pending"}));
    }
}
