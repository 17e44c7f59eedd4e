//! Decoding of storage.k8s.io/v1 kinds and ControllerRevisions as kube-apiserver does it
//! (`pkg/apis/storage/v1/defaults.go`: `SetDefaults_StorageClass`, `SetDefaults_CSIDriver`),
//! with the fields their Go types write even when empty (`zero.rs`).

use serde_json::{Value, json};

use super::default;
use crate::semantics::zero;

/// A ControllerRevision has no defaults; its `revision` is always written.
pub(crate) fn controller_revision(object: &mut Value) {
    zero::fill_unset(object, "apps", "ControllerRevision");
}

/// `SetDefaults_StorageClass`: reclaim policy Delete, binding mode Immediate; a topology
/// requirement's key and values are always written.
pub(crate) fn storage_class(object: &mut Value) {
    zero::fill_unset(object, "storage.k8s.io", "StorageClass");
    default(object, "reclaimPolicy", json!("Delete"));
    default(object, "volumeBindingMode", json!("Immediate"));
    let terms = object.get_mut("allowedTopologies").and_then(Value::as_array_mut);
    for term in terms.into_iter().flatten() {
        let requirements = term.get_mut("matchLabelExpressions").and_then(Value::as_array_mut);
        for requirement in requirements.into_iter().flatten() {
            default(requirement, "key", json!(""));
            if let Some(map) = requirement.as_object_mut() {
                map.entry("values").or_insert(Value::Null);
            }
        }
    }
}

/// `SetDefaults_CSIDriver` (`SELinuxMountReadWriteOncePod` is on in 1.28 and 1.31): attach
/// required, no pod info, no capacity tracking, fsGroup by fs type, persistent volumes, no
/// republishing, no SELinux mount; a token request's audience is always written.
pub(crate) fn csi_driver(object: &mut Value) {
    zero::fill_unset(object, "storage.k8s.io", "CSIDriver");
    let spec = &mut object["spec"];
    if !spec.is_object() {
        *spec = json!({});
    }
    default(spec, "attachRequired", json!(true));
    default(spec, "podInfoOnMount", json!(false));
    default(spec, "storageCapacity", json!(false));
    default(spec, "fsGroupPolicy", json!("ReadWriteOnceWithFSType"));
    if spec
        .get("volumeLifecycleModes")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        spec["volumeLifecycleModes"] = json!(["Persistent"]);
    }
    default(spec, "requiresRepublish", json!(false));
    default(spec, "seLinuxMount", json!(false));
    let requests = spec.get_mut("tokenRequests").and_then(Value::as_array_mut);
    for request in requests.into_iter().flatten() {
        default(request, "audience", json!(""));
    }
}

/// A CSINode has no defaults; its drivers list, and each driver's name, node ID and topology
/// keys, are always written.
pub(crate) fn csi_node(object: &mut Value) {
    zero::fill_unset(object, "storage.k8s.io", "CSINode");
    let spec = &mut object["spec"];
    if !spec.is_object() {
        *spec = json!({});
    }
    if let Some(map) = spec.as_object_mut() {
        map.entry("drivers").or_insert(Value::Null);
    }
    let drivers = spec.get_mut("drivers").and_then(Value::as_array_mut);
    for driver in drivers.into_iter().flatten() {
        default(driver, "name", json!(""));
        default(driver, "nodeID", json!(""));
        if let Some(map) = driver.as_object_mut() {
            map.entry("topologyKeys").or_insert(Value::Null);
        }
    }
}

/// A CSIStorageCapacity has no defaults; its storage class name is always written.
pub(crate) fn csi_storage_capacity(object: &mut Value) {
    zero::fill_unset(object, "storage.k8s.io", "CSIStorageCapacity");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_classes_and_drivers_should_be_defaulted_as_go_defaults_them() {
        let mut class = json!({"provisioner": "p", "allowedTopologies": [{"matchLabelExpressions": [{"key": "k"}]}]});
        storage_class(&mut class);
        assert_eq!(
            class,
            json!({"provisioner": "p", "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate",
                   "allowedTopologies": [{"matchLabelExpressions": [{"key": "k", "values": null}]}]})
        );
        let mut driver = json!({});
        csi_driver(&mut driver);
        assert_eq!(
            driver["spec"],
            json!({"attachRequired": true, "podInfoOnMount": false, "storageCapacity": false,
                   "fsGroupPolicy": "ReadWriteOnceWithFSType", "volumeLifecycleModes": ["Persistent"],
                   "requiresRepublish": false, "seLinuxMount": false})
        );
    }

    #[test]
    fn csi_nodes_and_revisions_should_write_their_empty_fields() {
        let mut node = json!({"spec": {"drivers": [{"name": "d", "nodeID": "n"}]}});
        csi_node(&mut node);
        assert_eq!(node["spec"]["drivers"][0]["topologyKeys"], Value::Null);
        assert!(node["spec"]["drivers"][0].get("topologyKeys").is_some());
        let mut empty = json!({});
        csi_node(&mut empty);
        assert!(empty["spec"].get("drivers").is_some());
        let mut revision = json!({"data": 1});
        controller_revision(&mut revision);
        assert_eq!(revision, json!({"data": 1, "revision": 0}));
    }
}
