//! CSIDrivers and CSINodes validated as kube-apiserver validates them
//! (`pkg/apis/storage/validation/validation.go`: `ValidateCSIDriver(Update)`,
//! `ValidateCSINode(Update)`, with `ValidateCSIDriverName` of `pkg/apis/core/validation`);
//! object names are checked with every kind's metadata.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, nonnegative};
use crate::semantics::names::{go_pointer, go_strings, qualified_name_errors};
use crate::semantics::pv_source_checks;

/// `csiNodeIDLongerMaxLength`: the strategy allows long node IDs.
const MAX_NODE_ID: usize = 256;

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `validateCSIDriverSpec` (the spec after defaulting).
pub(crate) fn csi_driver_errors(driver: &Value) -> Vec<FieldError> {
    let spec = driver.get("spec").cloned().unwrap_or(Value::Null);
    let mut errors = Vec::new();
    // Go names the first path `attachedRequired`, not the field's JSON name.
    for (field, path) in [
        ("attachRequired", "spec.attachedRequired"),
        ("podInfoOnMount", "spec.podInfoOnMount"),
        ("storageCapacity", "spec.storageCapacity"),
    ] {
        if spec.get(field).is_none_or(Value::is_null) {
            errors.push(FieldError::required(path, ""));
        }
    }
    if let Some(policy) = spec.get("fsGroupPolicy").and_then(Value::as_str)
        && !matches!(policy, "File" | "None" | "ReadWriteOnceWithFSType")
    {
        let supported = ["File", "None", "ReadWriteOnceWithFSType"].map(str::to_owned);
        errors.push(FieldError::not_supported(
            "spec.fsGroupPolicy",
            policy.into(),
            &supported,
        ));
    }
    errors.extend(token_requests_errors(&spec));
    for mode in strings(&spec, "volumeLifecycleModes") {
        if !matches!(mode, "Persistent" | "Ephemeral") {
            let supported = ["Persistent", "Ephemeral"].map(str::to_owned);
            errors.push(FieldError::not_supported(
                "spec.volumeLifecycleModes",
                mode.into(),
                &supported,
            ));
        }
    }
    // `SELinuxMountReadWriteOncePod` is on (beta) in 1.28 and 1.31.
    if spec.get("seLinuxMount").is_none_or(Value::is_null) {
        errors.push(FieldError::required("spec.seLinuxMount", ""));
    }
    errors
}

fn strings<'v>(object: &'v Value, key: &str) -> Vec<&'v str> {
    object
        .get(key)
        .and_then(Value::as_array)
        .map(|items| items.iter().map(|s| s.as_str().unwrap_or_default()).collect())
        .unwrap_or_default()
}

/// `validateTokenRequests`: one request per audience, each lasting 10 minutes to 2^32 seconds.
fn token_requests_errors(spec: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut audiences = BTreeSet::new();
    let requests = spec.get("tokenRequests").and_then(Value::as_array);
    for (i, request) in requests.into_iter().flatten().enumerate() {
        let path = format!("spec.tokenRequests[{i}]");
        let audience = text(request, "audience");
        if !audiences.insert(audience) {
            errors.push(FieldError::duplicate(format!("{path}.audience"), audience.into()));
            continue;
        }
        let Some(seconds) = request.get("expirationSeconds").and_then(Value::as_i64) else {
            continue;
        };
        if seconds < 600 {
            errors.push(FieldError::invalid(
                format!("{path}.expirationSeconds"),
                BadValue::Int(seconds),
                "may not specify a duration less than 10 minutes",
            ));
        }
        if seconds > 1 << 32 {
            errors.push(FieldError::invalid(
                format!("{path}.expirationSeconds"),
                BadValue::Int(seconds),
                "may not specify a duration larger than 2^32 seconds",
            ));
        }
    }
    errors
}

/// `ValidateCSIDriverUpdate` less its metadata on the Kubernetes `minor`: the spec's rules,
/// then what may not change (1.28 also fixes the fsGroup policy and pod info on mount, and
/// checks the token requests twice).
pub(crate) fn csi_driver_update_errors(driver: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = csi_driver_errors(driver);
    let field = |object: &Value, key: &str| {
        object
            .pointer(&format!("/spec/{key}"))
            .filter(|v| !v.is_null())
            .cloned()
    };
    let mut immutable = vec![("attachRequired", "spec.attachedRequired")];
    if minor < 31 {
        immutable.extend([
            ("fsGroupPolicy", "spec.fsGroupPolicy"),
            ("podInfoOnMount", "spec.podInfoOnMount"),
        ]);
    }
    immutable.push(("volumeLifecycleModes", "spec.volumeLifecycleModes"));
    for (key, path) in immutable {
        let new = field(driver, key);
        if new != field(old, key) {
            errors.push(FieldError::invalid(
                path,
                immutable_value(key, new.as_ref()),
                "field is immutable",
            ));
        }
    }
    if minor < 31 {
        errors.extend(token_requests_errors(driver.get("spec").unwrap_or(&Value::Null)));
    }
    errors
}

/// The value `ValidateImmutableField` prints: pointers dereferenced, the lifecycle modes as
/// their named slice type.
fn immutable_value(key: &str, value: Option<&Value>) -> BadValue {
    match (key, value) {
        ("volumeLifecycleModes", Some(Value::Array(items))) => {
            let modes: Vec<String> = items
                .iter()
                .map(|m| m.as_str().unwrap_or_default().to_owned())
                .collect();
            BadValue::Raw(go_strings(&modes).replacen("[]string", "[]storage.VolumeLifecycleMode", 1))
        }
        ("volumeLifecycleModes", _) => BadValue::Raw("[]storage.VolumeLifecycleMode(nil)".to_owned()),
        (_, Some(value)) => BadValue::Json(value.clone()),
        ("fsGroupPolicy", None) => BadValue::Raw("(*storage.FSGroupPolicy)(nil)".to_owned()),
        (_, None) => BadValue::Raw("(*bool)(nil)".to_owned()),
    }
}

/// `ValidateCSINode` less its metadata: each driver's name, node ID, allocatable count and
/// topology keys, no driver twice.
pub(crate) fn csi_node_errors(node: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut names = BTreeSet::new();
    let drivers = node.pointer("/spec/drivers").and_then(Value::as_array);
    for (i, driver) in drivers.into_iter().flatten().enumerate() {
        let path = format!("spec.drivers[{i}]");
        let name = text(driver, "name");
        errors.extend(pv_source_checks::csi_driver_name_errors(name, &format!("{path}.name")));
        let node_id = text(driver, "nodeID");
        if node_id.is_empty() {
            errors.push(FieldError::required(format!("{path}.nodeID"), ""));
        }
        if node_id.len() > MAX_NODE_ID {
            errors.push(FieldError::invalid(
                format!("{path}.nodeID"),
                node_id.into(),
                format!("must be {MAX_NODE_ID} characters or less"),
            ));
        }
        if let Some(count) = driver.pointer("/allocatable/count").and_then(Value::as_i64) {
            errors.extend(nonnegative(count, &format!("{path}.allocatable.count")));
        }
        if !names.insert(name) {
            errors.push(FieldError::duplicate(format!("{path}.name"), name.into()));
        }
        let mut keys = BTreeSet::new();
        for key in strings(driver, "topologyKeys") {
            if key.is_empty() {
                errors.push(FieldError::required(path.as_str(), ""));
            }
            if !keys.insert(key) {
                errors.push(FieldError::duplicate(path.as_str(), key.into()));
            }
            for why in qualified_name_errors(key) {
                errors.push(FieldError::invalid(path.as_str(), key.into(), why));
            }
        }
    }
    errors
}

/// The CSINode strategy's `ValidateUpdate`: the create's rules, then `ValidateCSINodeUpdate`
/// (its own create rules again, and no driver kept by name may change).
pub(crate) fn csi_node_update_errors(node: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = csi_node_errors(node);
    errors.extend(csi_node_errors(node));
    let drivers = |n: &Value| {
        n.pointer("/spec/drivers")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let new_drivers = drivers(node);
    for old_driver in drivers(old) {
        for new_driver in &new_drivers {
            if text(&old_driver, "name") == text(new_driver, "name") && !same_driver(&old_driver, new_driver) {
                errors.push(FieldError::invalid(
                    "CSINodeDriver",
                    driver_go(new_driver),
                    "field is immutable",
                ));
            }
        }
    }
    errors
}

/// Semantic equality of two drivers: an empty topology key list equals none.
fn same_driver(a: &Value, b: &Value) -> bool {
    let keys = |d: &Value| {
        strings(d, "topologyKeys")
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let count = |d: &Value| {
        d.get("allocatable")
            .filter(|v| !v.is_null())
            .map(|a| a.get("count").cloned())
    };
    text(a, "name") == text(b, "name")
        && text(a, "nodeID") == text(b, "nodeID")
        && keys(a) == keys(b)
        && count(a) == count(b)
}

/// Go's `%#v` of a `storage.CSINodeDriver`.
fn driver_go(driver: &Value) -> BadValue {
    let keys = match driver.get("topologyKeys").and_then(Value::as_array) {
        Some(items) => {
            let keys: Vec<String> = items
                .iter()
                .map(|k| k.as_str().unwrap_or_default().to_owned())
                .collect();
            if keys.is_empty() {
                "[]string{}".to_owned()
            } else {
                go_strings(&keys)
            }
        }
        None => "[]string(nil)".to_owned(),
    };
    // Go prints the pointer's address; any address stands for it.
    let allocatable = go_pointer(
        "storage.VolumeNodeResources",
        driver.get("allocatable").filter(|a| a.is_object()),
    );
    let quote = crate::semantics::field_error::go_quote;
    BadValue::Raw(format!(
        "storage.CSINodeDriver{{Name:{}, NodeID:{}, TopologyKeys:{keys}, Allocatable:{allocatable}}}",
        quote(text(driver, "name")),
        quote(text(driver, "nodeID")),
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::{reasons, rendered};

    #[test]
    fn a_csi_driver_spec_should_be_checked_after_defaulting() {
        let driver = json!({"spec": {
            "attachRequired": true, "podInfoOnMount": false, "storageCapacity": false, "seLinuxMount": false,
            "fsGroupPolicy": "Sometimes", "volumeLifecycleModes": ["Persistent", "Forever"],
            "tokenRequests": [{"audience": "a", "expirationSeconds": 60}, {"audience": "a"}],
        }});
        assert_eq!(
            reasons(csi_driver_errors(&driver)),
            [
                "FieldValueNotSupported spec.fsGroupPolicy",
                "FieldValueInvalid spec.tokenRequests[0].expirationSeconds",
                "FieldValueDuplicate spec.tokenRequests[1].audience",
                "FieldValueNotSupported spec.volumeLifecycleModes",
            ]
        );
    }

    #[test]
    fn a_csi_driver_update_should_keep_what_1_28_fixes() {
        let old = json!({"spec": {"attachRequired": true, "podInfoOnMount": false, "storageCapacity": false,
            "seLinuxMount": false, "fsGroupPolicy": "File", "volumeLifecycleModes": ["Persistent"]}});
        let mut new = old.clone();
        new["spec"]["attachRequired"] = json!(false);
        new["spec"]["podInfoOnMount"] = json!(true);
        new["spec"]["volumeLifecycleModes"] = json!(["Ephemeral"]);
        assert_eq!(
            rendered(csi_driver_update_errors(&new, &old, 28)),
            [
                "spec.attachedRequired: Invalid value: false: field is immutable",
                "spec.podInfoOnMount: Invalid value: true: field is immutable",
                "spec.volumeLifecycleModes: Invalid value: []storage.VolumeLifecycleMode{\"Ephemeral\"}: field is immutable",
            ]
        );
        assert_eq!(csi_driver_update_errors(&new, &old, 31).len(), 2);
    }

    #[test]
    fn a_csi_node_driver_should_be_checked_and_kept() {
        let node = json!({"spec": {"drivers": [
            {"name": "Bad Driver", "nodeID": "", "topologyKeys": ["", "a", "a"], "allocatable": {"count": -1}},
        ]}});
        assert_eq!(
            reasons(csi_node_errors(&node)),
            [
                "FieldValueInvalid spec.drivers[0].name",
                "FieldValueRequired spec.drivers[0].nodeID",
                "FieldValueInvalid spec.drivers[0].allocatable.count",
                "FieldValueRequired spec.drivers[0]",
                "FieldValueInvalid spec.drivers[0]",
                "FieldValueInvalid spec.drivers[0]",
                "FieldValueDuplicate spec.drivers[0]",
            ]
        );
        let old = json!({"spec": {"drivers": [{"name": "d", "nodeID": "1", "topologyKeys": null}]}});
        let new = json!({"spec": {"drivers": [{"name": "d", "nodeID": "2", "topologyKeys": null}]}});
        assert_eq!(
            rendered(csi_node_update_errors(&new, &old)),
            [
                "CSINodeDriver: Invalid value: storage.CSINodeDriver{Name:\"d\", NodeID:\"2\", TopologyKeys:[]string(nil), Allocatable:(*storage.VolumeNodeResources)(nil)}: field is immutable"
            ]
        );
    }
}
