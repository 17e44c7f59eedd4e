//! PersistentVolumeClaim and PersistentVolume tables as `pkg/printers/internalversion/printers.go`
//! prints them (`printPersistentVolumeClaim`, `printPersistentVolume` and their column
//! definitions; 1.29 added the VolumeAttributesClass columns), with
//! `helper.GetAccessModesAsString`, `helper.GetPersistentVolumeClaimClass` and
//! `helper.GetPersistentVolumeClass` of `pkg/apis/core/helper/helpers.go`.

use serde_json::{Value, json};

use super::{BuiltinColumn, column, wide};
use crate::semantics::pvc_validation::BETA_STORAGE_CLASS;
use crate::semantics::quantity::Quantity;

/// The columns after Name of a claim's printer on a server of `minor` (`age` is the Age column).
pub(super) fn claim_columns(age: BuiltinColumn, minor: u32) -> Vec<BuiltinColumn> {
    let attributes_class = (minor >= 29).then(|| {
        column(
            "VolumeAttributesClass",
            "string",
            "VolumeAttributesClass of the pvc",
            |o| {
                json!(
                    o.pointer("/spec/volumeAttributesClassName")
                        .and_then(Value::as_str)
                        .unwrap_or("<unset>")
                )
            },
        )
    });
    [
        column(
            "Status",
            "string",
            "phase represents the current phase of PersistentVolumeClaim.",
            phase,
        ),
        column(
            "Volume",
            "string",
            "volumeName is the binding reference to the PersistentVolume backing this claim.",
            |o| json!(volume_name(o)),
        ),
        column(
            "Capacity",
            "string",
            "capacity represents the actual resources of the underlying volume.",
            claim_capacity,
        ),
        column(
            "Access Modes",
            "string",
            "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1",
            |o| match volume_name(o) {
                "" => json!(""),
                _ => json!(access_modes(o.pointer("/status/accessModes"))),
            },
        ),
        column("StorageClass", "string", "StorageClass of the pvc", claim_class),
    ]
    .into_iter()
    .chain(attributes_class)
    .chain([
        age,
        wide(
            "VolumeMode",
            "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.",
            volume_mode,
        ),
    ])
    .collect()
}

/// The columns after Name of a volume's printer on a server of `minor` (`age` is the Age
/// column).
pub(super) fn volume_columns(age: BuiltinColumn, minor: u32) -> Vec<BuiltinColumn> {
    let attributes_class = (minor >= 29).then(|| {
        column(
            "VolumeAttributesClass",
            "string",
            "VolumeAttributesClass of the pv",
            |o| {
                json!(
                    o.pointer("/spec/volumeAttributesClassName")
                        .and_then(Value::as_str)
                        .unwrap_or("<unset>")
                )
            },
        )
    });
    [
        column(
            "Capacity",
            "string",
            "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
            |o| json!(quantity_text(o.pointer("/spec/capacity/storage"))),
        ),
        column(
            "Access Modes",
            "string",
            "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes",
            |o| json!(access_modes(o.pointer("/spec/accessModes"))),
        ),
        column(
            "Reclaim Policy",
            "string",
            "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming",
            |o| json!(o.pointer("/spec/persistentVolumeReclaimPolicy").and_then(Value::as_str).unwrap_or_default()),
        ),
        column(
            "Status",
            "string",
            "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase",
            phase,
        ),
        column(
            "Claim",
            "string",
            "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding",
            claim_reference,
        ),
        column("StorageClass", "string", "StorageClass of the pv", claim_class),
    ]
    .into_iter()
    .chain(attributes_class)
    .chain([
        column(
            "Reason",
            "string",
            "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.",
            |o| json!(o.pointer("/status/reason").and_then(Value::as_str).unwrap_or_default()),
        ),
        age,
        wide(
            "VolumeMode",
            "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.",
            volume_mode,
        ),
    ])
    .collect()
}

/// `namespace/name` of the claim a volume is bound to, nothing without one.
fn claim_reference(volume: &Value) -> Value {
    match volume.pointer("/spec/claimRef").filter(|r| !r.is_null()) {
        Some(claim) => {
            let text = |key: &str| claim.get(key).and_then(Value::as_str).unwrap_or_default();
            json!(format!("{}/{}", text("namespace"), text("name")))
        }
        None => json!(""),
    }
}

fn volume_name(object: &Value) -> &str {
    object
        .pointer("/spec/volumeName")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The phase, `Terminating` once deleted.
fn phase(object: &Value) -> Value {
    if object
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null())
    {
        return json!("Terminating");
    }
    json!(
        object
            .pointer("/status/phase")
            .and_then(Value::as_str)
            .unwrap_or_default()
    )
}

/// A bound claim's capacity (the zero quantity prints `0`); nothing before it is bound.
fn claim_capacity(object: &Value) -> Value {
    if volume_name(object).is_empty() {
        return json!("");
    }
    json!(quantity_text(object.pointer("/status/capacity/storage")))
}

/// `Quantity.String()` of an optional quantity (`0` when missing).
pub(super) fn quantity_text(value: Option<&Value>) -> String {
    value
        .and_then(Value::as_str)
        .and_then(|s| Quantity::parse(s).ok())
        .map_or_else(|| "0".to_owned(), |q| q.to_string())
}

/// `GetAccessModesAsString`: each mode once, in a fixed order.
pub(super) fn access_modes(modes: Option<&Value>) -> String {
    let modes: Vec<&str> = modes
        .and_then(Value::as_array)
        .map(|m| m.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    [
        ("ReadWriteOnce", "RWO"),
        ("ReadOnlyMany", "ROX"),
        ("ReadWriteMany", "RWX"),
        ("ReadWriteOncePod", "RWOP"),
    ]
    .iter()
    .filter(|(mode, _)| modes.contains(mode))
    .map(|(_, short)| *short)
    .collect::<Vec<_>>()
    .join(",")
}

/// `GetPersistentVolumeClaimClass` (and `GetPersistentVolumeClass`): the beta annotation
/// first, then the spec's class.
fn claim_class(object: &Value) -> Value {
    let annotation = object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(BETA_STORAGE_CLASS))
        .and_then(Value::as_str);
    let class = annotation.or_else(|| object.pointer("/spec/storageClassName").and_then(Value::as_str));
    json!(class.unwrap_or_default())
}

/// The spec's volume mode, `<unset>` without one.
pub(super) fn volume_mode(object: &Value) -> Value {
    json!(
        object
            .pointer("/spec/volumeMode")
            .and_then(Value::as_str)
            .unwrap_or("<unset>")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_claim_should_show_its_capacity_and_modes() {
        let claim = json!({"spec": {"volumeName": "pv", "storageClassName": "fast"},
            "status": {"phase": "Bound", "capacity": {"storage": "1024Mi"}, "accessModes": ["ReadWriteMany", "ReadWriteOnce"]}});
        assert_eq!(claim_capacity(&claim), json!("1Gi"));
        assert_eq!(access_modes(claim.pointer("/status/accessModes")), "RWO,RWX");
        assert_eq!(claim_class(&claim), json!("fast"));
        assert_eq!(claim_columns(json_age(), 31).len(), 8);
        assert_eq!(claim_columns(json_age(), 28).len(), 7);
    }

    fn json_age() -> BuiltinColumn {
        column("Age", "string", "", |_| json!(""))
    }
}
