//! kube-apiserver's storage admission plugins for claims:
//! - `StorageObjectInUseProtection` (`plugin/pkg/admission/storage/storageobjectinuseprotection`)
//!   adds the `kubernetes.io/pvc-protection` finalizer to every new claim and
//!   `kubernetes.io/pv-protection` to every new volume, after the field manager recorded the
//!   create (nobody owns it);
//! - `PersistentVolumeClaimResize` (`plugin/pkg/admission/storage/persistentvolume/resize`)
//!   refuses a claim's storage request to grow unless it is bound and its StorageClass allows
//!   expansion; no StorageClass is served here, so a bound claim may not grow either.

use serde_json::Value;

use crate::semantics::quantity::Quantity;
use crate::status::ApiStatus;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// `volumeutil.PVCProtectionFinalizer`.
pub(super) const CLAIM_PROTECTION: &str = "kubernetes.io/pvc-protection";

/// `volumeutil.PVProtectionFinalizer`.
pub(super) const VOLUME_PROTECTION: &str = "kubernetes.io/pv-protection";

/// Whether `info` is the claims' resource.
pub(super) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && info.kind == "PersistentVolumeClaim"
}

/// Whether `info` is the claims' or the volumes' resource.
pub(super) fn protects(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && matches!(info.kind.as_str(), "PersistentVolumeClaim" | "PersistentVolume")
}

/// `admitPVC` and `admitPV`: the protection finalizer, appended unless present.
pub(super) fn admit_create(info: &ResourceInfo, object: &mut Value) {
    let protection = if info.kind == "PersistentVolume" {
        VOLUME_PROTECTION
    } else {
        CLAIM_PROTECTION
    };
    let mut finalizers = object::finalizers(object);
    if !finalizers.iter().any(|f| f == protection) {
        finalizers.push(protection.to_owned());
        object::set_finalizers(object, &finalizers);
    }
}

/// `persistentVolumeClaimResize.Validate` of an update of the main resource.
pub(super) fn admit_update(info: &ResourceInfo, claim: &Value, old: &Value) -> Result<(), ApiStatus> {
    let storage = |o: &Value| {
        o.pointer("/spec/resources/requests/storage")
            .and_then(Value::as_str)
            .and_then(|s| Quantity::parse(s).ok())
            .unwrap_or_else(|| Quantity::from_int(0))
    };
    if storage(claim).cmp_value(&storage(old)) != std::cmp::Ordering::Greater {
        return Ok(());
    }
    let reason = if old.pointer("/status/phase").and_then(Value::as_str) != Some("Bound") {
        "Only bound persistent volume claims can be expanded"
    } else {
        // `allowResize` needs the claim's StorageClass to allow expansion.
        "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize"
    };
    Err(ApiStatus::forbidden_object(info, object::name(claim), reason))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_claim_should_be_protected_once_and_grow_only_when_bound() {
        let info = ResourceInfo::builtin("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims");
        let mut claim = json!({"metadata": {"name": "c", "finalizers": ["a"]}});
        admit_create(&info, &mut claim);
        admit_create(&info, &mut claim);
        assert_eq!(claim["metadata"]["finalizers"], json!(["a", CLAIM_PROTECTION]));
        let old = json!({"metadata": {"name": "c"}, "spec": {"resources": {"requests": {"storage": "1Gi"}}}});
        let mut grown = old.clone();
        grown["spec"]["resources"]["requests"]["storage"] = json!("2Gi");
        assert_eq!(admit_update(&info, &grown, &old).unwrap_err().code, 403);
        assert!(admit_update(&info, &old, &grown).is_ok());
    }
}
