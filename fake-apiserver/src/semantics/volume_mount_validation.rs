//! A container's volume mounts and block devices as `ValidateVolumeMounts`,
//! `ValidateVolumeDevices` and `validateMountPropagation` of
//! `pkg/apis/core/validation/validation.go` (v1.28.7) check them, against the volumes
//! `volume_validation` found valid.

use std::collections::HashSet;

use serde_json::Value;

use crate::semantics::field_error::FieldError;
use crate::semantics::pv_source_checks::text;
use crate::semantics::pv_sources::no_backsteps;
use crate::semantics::volume_file_validation::local_descending_path_errors;
use crate::semantics::volume_validation::MountableVolume;

/// `MountPropagationMode`s, sorted.
const PROPAGATIONS: [&str; 3] = ["Bidirectional", "HostToContainer", "None"];

fn list(container: &Value, key: &str) -> Vec<Value> {
    container
        .get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Name → path of the mounts or devices (`GetVolumeMountMap`, `GetVolumeDeviceMap`): the last
/// of a name wins.
fn by_name(items: &[Value], path_key: &str) -> Vec<(String, String)> {
    let mut map: Vec<(String, String)> = Vec::new();
    for item in items {
        let (name, path) = (text(item, "name").to_owned(), text(item, path_key).to_owned());
        match map.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = path,
            None => map.push((name, path)),
        }
    }
    map
}

/// The mounts' and devices' errors of the container at `at`.
pub(crate) fn container_volume_errors(container: &Value, at: &str, volumes: &[MountableVolume]) -> Vec<FieldError> {
    let (mounts, devices) = (list(container, "volumeMounts"), list(container, "volumeDevices"));
    let (mount_map, device_map) = (by_name(&mounts, "mountPath"), by_name(&devices, "devicePath"));
    let mut errors = mount_errors(&mounts, &device_map, volumes, container, &format!("{at}.volumeMounts"));
    errors.extend(device_errors(
        &devices,
        &mount_map,
        volumes,
        &format!("{at}.volumeDevices"),
    ));
    errors
}

/// `ValidateVolumeMounts`; the sub-path and propagation errors are on the list's path, as Go's.
fn mount_errors(
    mounts: &[Value],
    devices: &[(String, String)],
    volumes: &[MountableVolume],
    container: &Value,
    field: &str,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut paths: HashSet<&str> = HashSet::new();
    for (i, mount) in mounts.iter().enumerate() {
        let at = format!("{field}[{i}]");
        let (name, path) = (text(mount, "name"), text(mount, "mountPath"));
        if name.is_empty() {
            errors.push(FieldError::required(format!("{at}.name"), ""));
        }
        if !volumes.iter().any(|v| v.name == name) {
            errors.push(FieldError::not_found(format!("{at}.name"), name.into()));
        }
        if path.is_empty() {
            errors.push(FieldError::required(format!("{at}.mountPath"), ""));
        }
        if !paths.insert(path) {
            errors.push(FieldError::invalid(
                format!("{at}.mountPath"),
                path.into(),
                "must be unique",
            ));
        }
        if devices.iter().any(|(n, _)| n == name) {
            let why = "must not already exist in volumeDevices";
            errors.push(FieldError::invalid(format!("{at}.name"), name.into(), why));
        }
        if devices.iter().any(|(_, p)| p == path) {
            let why = "must not already exist as a path in volumeDevices";
            errors.push(FieldError::invalid(format!("{at}.mountPath"), path.into(), why));
        }
        let (sub, expr) = (text(mount, "subPath"), text(mount, "subPathExpr"));
        if !sub.is_empty() {
            errors.extend(local_descending_path_errors(sub, &format!("{field}.subPath")));
        }
        if !expr.is_empty() {
            if !sub.is_empty() {
                let why = "subPathExpr and subPath are mutually exclusive";
                errors.push(FieldError::invalid(format!("{at}.subPathExpr"), expr.into(), why));
            }
            errors.extend(local_descending_path_errors(expr, &format!("{field}.subPathExpr")));
        }
        if let Some(propagation) = mount.get("mountPropagation").and_then(Value::as_str) {
            errors.extend(propagation_errors(
                propagation,
                container,
                &format!("{field}.mountPropagation"),
            ));
        }
        errors.extend(recursive_read_only_errors(mount, &format!("{field}.recursiveReadOnly")));
    }
    errors
}

/// `validateMountRecursiveReadOnly` (served from 1.31; the field is dropped where its gate is off): a
/// recursive read-only mount is read-only and propagates nothing. Go names the list's path,
/// not the mount's.
fn recursive_read_only_errors(mount: &Value, field: &str) -> Vec<FieldError> {
    let Some(mode) = mount.get("recursiveReadOnly").and_then(Value::as_str) else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    match mode {
        "Disabled" => {}
        "Enabled" | "IfPossible" => {
            if mount.get("readOnly").and_then(Value::as_bool) != Some(true) {
                errors.push(FieldError::forbidden(
                    field,
                    "may only be specified when readOnly is true",
                ));
            }
            let propagation = mount.get("mountPropagation").and_then(Value::as_str);
            if propagation.is_some_and(|p| p != "None") {
                errors.push(FieldError::forbidden(
                    field,
                    "may only be specified when mountPropagation is None or not specified",
                ));
            }
        }
        other => {
            let supported = ["Disabled", "Enabled", "IfPossible"].map(str::to_owned);
            errors.push(FieldError::not_supported(field, other.into(), &supported));
        }
    }
    errors
}

/// `validateMountPropagation`: a known mode, `Bidirectional` only for privileged containers.
fn propagation_errors(propagation: &str, container: &Value, field: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if !PROPAGATIONS.contains(&propagation) {
        let supported = PROPAGATIONS.map(str::to_owned);
        errors.push(FieldError::not_supported(field, propagation.into(), &supported));
    }
    let privileged = container
        .pointer("/securityContext/privileged")
        .and_then(Value::as_bool)
        == Some(true);
    if propagation == "Bidirectional" && !privileged {
        errors.push(FieldError::forbidden(
            field,
            "Bidirectional mount propagation is available only to privileged containers",
        ));
    }
    errors
}

/// `ValidateVolumeDevices`: each names a claim volume, once, at a path of its own.
fn device_errors(
    devices: &[Value],
    mounts: &[(String, String)],
    volumes: &[MountableVolume],
    field: &str,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let (mut paths, mut names): (HashSet<&str>, HashSet<&str>) = (HashSet::new(), HashSet::new());
    for (i, device) in devices.iter().enumerate() {
        let at = format!("{field}[{i}]");
        let (name, path) = (text(device, "name"), text(device, "devicePath"));
        let volume = volumes.iter().find(|v| v.name == name);
        if name.is_empty() {
            errors.push(FieldError::required(format!("{at}.name"), ""));
        }
        if names.contains(name) {
            errors.push(FieldError::invalid(format!("{at}.name"), name.into(), "must be unique"));
        }
        match volume {
            Some(volume) if !volume.claim => errors.push(FieldError::invalid(
                format!("{at}.name"),
                name.into(),
                "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode",
            )),
            Some(_) => {}
            None => errors.push(FieldError::not_found(format!("{at}.name"), name.into())),
        }
        if path.is_empty() {
            errors.push(FieldError::required(format!("{at}.devicePath"), ""));
        }
        if paths.contains(path) {
            errors.push(FieldError::invalid(
                format!("{at}.devicePath"),
                path.into(),
                "must be unique",
            ));
        }
        if !path.is_empty() && !no_backsteps(path, &at).is_empty() {
            let why = "can not contain backsteps ('..')";
            errors.push(FieldError::invalid(format!("{at}.devicePath"), path.into(), why));
        } else {
            paths.insert(path);
        }
        if mounts.iter().any(|(n, _)| n == name) {
            let why = "must not already exist in volumeMounts";
            errors.push(FieldError::invalid(format!("{at}.name"), name.into(), why));
        }
        if mounts.iter().any(|(_, p)| p == path) {
            let why = "must not already exist as a path in volumeMounts";
            errors.push(FieldError::invalid(format!("{at}.devicePath"), path.into(), why));
        }
        if !name.is_empty() {
            names.insert(name);
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::reasons;

    fn volume(name: &str, claim: bool) -> MountableVolume {
        MountableVolume {
            name: name.to_owned(),
            claim,
        }
    }

    #[test]
    fn mounts_and_devices_should_not_overlap_and_devices_need_claims() {
        let container = json!({"volumeMounts": [{"name": "a", "mountPath": "/x", "subPath": "../up"}],
            "volumeDevices": [{"name": "a", "devicePath": "/d"}, {"name": "c", "devicePath": "/e"}]});
        let errors = container_volume_errors(&container, "c", &[volume("a", false), volume("c", true)]);
        assert_eq!(
            reasons(errors),
            [
                "FieldValueInvalid c.volumeMounts[0].name",
                "FieldValueInvalid c.volumeMounts.subPath",
                "FieldValueInvalid c.volumeDevices[0].name",
                "FieldValueInvalid c.volumeDevices[0].name",
            ]
        );
    }

    #[test]
    fn bidirectional_propagation_should_need_a_privileged_container() {
        let mount = json!({"volumeMounts": [{"name": "a", "mountPath": "/x", "mountPropagation": "Bidirectional"}]});
        assert_eq!(container_volume_errors(&mount, "c", &[volume("a", false)]).len(), 1);
        let mut privileged = mount.clone();
        privileged["securityContext"] = json!({"privileged": true});
        assert!(container_volume_errors(&privileged, "c", &[volume("a", false)]).is_empty());
    }

    #[test]
    fn a_recursive_read_only_mount_should_be_read_only_and_not_propagate() {
        let mount = |extra: Value| {
            let mut mount = json!({"name": "a", "mountPath": "/x", "recursiveReadOnly": "Enabled"});
            mount
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            json!({"volumeMounts": [mount]})
        };
        let volumes = [volume("a", false)];
        assert!(container_volume_errors(&mount(json!({"readOnly": true})), "c", &volumes).is_empty());
        assert_eq!(
            reasons(container_volume_errors(
                &mount(json!({"mountPropagation": "HostToContainer"})),
                "c",
                &volumes
            )),
            [
                "FieldValueForbidden c.volumeMounts.recursiveReadOnly",
                "FieldValueForbidden c.volumeMounts.recursiveReadOnly",
            ]
        );
        assert_eq!(
            reasons(container_volume_errors(
                &mount(json!({"recursiveReadOnly": "Always"})),
                "c",
                &volumes
            )),
            ["FieldValueNotSupported c.volumeMounts.recursiveReadOnly"]
        );
    }
}
