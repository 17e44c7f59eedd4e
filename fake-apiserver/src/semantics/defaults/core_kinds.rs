//! `SetObjectDefaults_*` of the core kinds served beside the workloads
//! (`pkg/apis/core/v1/defaults.go`, `zz_generated.defaults.go`): PersistentVolumeClaims and
//! PersistentVolumes.

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

/// `SetObjectDefaults_PersistentVolume`: `Pending`, `Retain`, a filesystem, and the defaults
/// of the sources that have some (`SetDefaults_HostPathVolumeSource`,
/// `SetDefaults_RBDPersistentVolumeSource`, `SetDefaults_ISCSIPersistentVolumeSource`,
/// `SetDefaults_AzureDiskVolumeSource`, `SetDefaults_ScaleIOPersistentVolumeSource`).
pub(super) fn persistent_volume(object: &mut Value) {
    default(object, "status", json!({}));
    if let Some(status) = object.get_mut("status").filter(|s| s.is_object())
        && status.get("phase").and_then(Value::as_str).is_none_or(str::is_empty)
    {
        status["phase"] = json!("Pending");
    }
    let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    default_text(spec, "persistentVolumeReclaimPolicy", "Retain");
    default(spec, "volumeMode", json!("Filesystem"));
    if let Some(host_path) = spec.get_mut("hostPath").filter(|s| s.is_object()) {
        default(host_path, "type", json!(""));
    }
    if let Some(rbd) = spec.get_mut("rbd").filter(|s| s.is_object()) {
        default_text(rbd, "pool", "rbd");
        default_text(rbd, "user", "admin");
        default_text(rbd, "keyring", "/etc/ceph/keyring");
    }
    if let Some(iscsi) = spec.get_mut("iscsi").filter(|s| s.is_object()) {
        default_text(iscsi, "iscsiInterface", "default");
    }
    if let Some(disk) = spec.get_mut("azureDisk").filter(|s| s.is_object()) {
        default(disk, "cachingMode", json!("ReadWrite"));
        default(disk, "kind", json!("Shared"));
        default(disk, "fsType", json!("ext4"));
        default(disk, "readOnly", json!(false));
    }
    if let Some(scale_io) = spec.get_mut("scaleIO").filter(|s| s.is_object()) {
        default_text(scale_io, "storageMode", "ThinProvisioned");
        default_text(scale_io, "fsType", "xfs");
    }
}

/// Sets a string field Go defaults when empty.
fn default_text(map: &mut Value, key: &str, value: &str) {
    if map.get(key).and_then(Value::as_str).is_none_or(str::is_empty) {
        map[key] = json!(value);
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
