//! What the PersistentVolume strategy changes before validation
//! (`pkg/registry/core/persistentvolume/strategy.go`, with `pkg/api/persistentvolume/util.go`):
//! a new volume's status is reset to phase `Pending` (which the storage's decoding defaults in
//! 1.28, and the strategy sets with the transition time from 1.29, where
//! `PersistentVolumeLastPhaseTransitionTime` is on); an update keeps the stored status; a
//! `/status` write stamps a changed phase's transition time (1.29+), or drops a transition time
//! the stored volume never had (1.28, the gate off). From 1.29 the attributes class, whose gate
//! is off, is dropped unless stored (`DropDisabledSpecFields`).

use serde_json::{Value, json};

use crate::storage::object::{keep_stored, now};
use crate::storage::resource::ResourceInfo;

/// Whether `info` is the volumes' resource.
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && info.kind == "PersistentVolume"
}

/// `PrepareForCreate` on the Kubernetes `minor`.
pub(crate) fn prepare_create(info: &ResourceInfo, object: &mut Value, minor: u32) {
    if !concerns(info) {
        return;
    }
    object["status"] = json!({"phase": "Pending"});
    if minor >= 29 {
        object["status"]["lastPhaseTransitionTime"] = json!(now());
        drop_attributes_class(object, None);
    }
}

/// `PrepareForUpdate` of the main resource or of `/status` on the Kubernetes `minor`.
pub(crate) fn prepare_update(info: &ResourceInfo, old: &Value, new: &mut Value, subresource: Option<&str>, minor: u32) {
    if !concerns(info) {
        return;
    }
    match subresource {
        None => {
            keep_stored(new, old, "status");
            if minor >= 29 {
                drop_attributes_class(new, Some(old));
            }
        }
        Some("status") => {
            let phase = |o: &Value| o.pointer("/status/phase").cloned();
            let time = |o: &Value| {
                o.pointer("/status/lastPhaseTransitionTime")
                    .filter(|t| !t.is_null())
                    .cloned()
            };
            let Some(status) = new.get_mut("status").filter(|s| s.is_object()) else {
                return;
            };
            let sent = status.get("lastPhaseTransitionTime").filter(|t| !t.is_null()).cloned();
            if minor < 29 {
                if time(old).is_none() {
                    status
                        .as_object_mut()
                        .expect("checked")
                        .remove("lastPhaseTransitionTime");
                }
                return;
            }
            let same_phase = status.get("phase").cloned() == phase(old);
            if same_phase && sent.is_none() {
                match time(old) {
                    Some(stored) => status["lastPhaseTransitionTime"] = stored,
                    None => {
                        status
                            .as_object_mut()
                            .expect("checked")
                            .remove("lastPhaseTransitionTime");
                    }
                }
            } else if !same_phase && (sent.is_none() || sent == time(old)) {
                status["lastPhaseTransitionTime"] = json!(now());
            }
        }
        Some(_) => {}
    }
}

/// Drops `spec.volumeAttributesClassName` unless `old` had one.
fn drop_attributes_class(object: &mut Value, old: Option<&Value>) {
    let stored = old.is_some_and(|o| {
        o.pointer("/spec/volumeAttributesClassName")
            .is_some_and(|c| !c.is_null())
    });
    if !stored && let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
        spec.remove("volumeAttributesClassName");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn volumes() -> ResourceInfo {
        ResourceInfo::builtin("", "v1", "PersistentVolume", "persistentvolumes")
    }

    #[test]
    fn a_new_volume_should_be_pending_and_stamped_from_1_29() {
        let mut volume = json!({"spec": {"volumeAttributesClassName": "x"}, "status": {"phase": "Bound"}});
        prepare_create(&volumes(), &mut volume, 28);
        assert_eq!(volume["status"], json!({"phase": "Pending"}));
        prepare_create(&volumes(), &mut volume, 31);
        assert!(volume["status"]["lastPhaseTransitionTime"].is_string());
        assert!(volume["spec"].get("volumeAttributesClassName").is_none());
    }

    #[test]
    fn a_status_write_should_stamp_a_new_phase() {
        let old = json!({"status": {"phase": "Available", "lastPhaseTransitionTime": "2020-01-01T00:00:00Z"}});
        let mut same = json!({"status": {"phase": "Available"}});
        prepare_update(&volumes(), &old, &mut same, Some("status"), 31);
        assert_eq!(same["status"]["lastPhaseTransitionTime"], "2020-01-01T00:00:00Z");
        let mut moved = json!({"status": {"phase": "Failed"}});
        prepare_update(&volumes(), &old, &mut moved, Some("status"), 31);
        assert_ne!(moved["status"]["lastPhaseTransitionTime"], "2020-01-01T00:00:00Z");
        let mut dropped = json!({"status": {"phase": "Failed", "lastPhaseTransitionTime": "2021-01-01T00:00:00Z"}});
        prepare_update(&volumes(), &json!({"status": {}}), &mut dropped, Some("status"), 28);
        assert_eq!(dropped["status"], json!({"phase": "Failed"}));
    }
}
