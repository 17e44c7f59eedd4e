//! The validation of each `PersistentVolumeSource` a PersistentVolume may name, as
//! `ValidatePersistentVolumeSpec` of `pkg/apis/core/validation/validation.go` walks them (in
//! its order, counting them: a second source is forbidden, a flex volume is counted without
//! that check), with `validateHostPathVolumeSource`, `validateGCEPersistentDiskVolumeSource`,
//! `validateAWSElasticBlockStoreVolumeSource`, `validateGlusterfsPersistentVolumeSource`,
//! `validateFlockerVolumeSource`, `validateNFSVolumeSource`, `validateRBDPersistentVolumeSource`,
//! `validateQuobyteVolumeSource`, `validateCephFSPersistentVolumeSource`,
//! `validateISCSIPersistentVolumeSource`, `validateCinderPersistentVolumeSource`,
//! `validateFlexPersistentVolumeSource`, `validateAzureFilePV`, `validateVsphereVolumeSource`,
//! `validatePhotonPersistentDiskVolumeSource`, `validatePortworxVolumeSource`,
//! `validateScaleIOPersistentVolumeSource` and `validateLocalVolumeSource`; the longer ones are
//! `pv_source_checks`'.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::pv_source_checks::{
    azure_disk_errors, count, csi_errors, fc_errors, int, iscsi_errors, quobyte_errors, required, storageos_errors,
    text,
};

/// The sources in `ValidatePersistentVolumeSpec`'s order: the JSON key and the path Go names
/// its fields under (a GCE disk's are `persistentDisk`, CephFS's `cephfs`).
pub(crate) const SOURCES: [(&str, &str); 22] = [
    ("hostPath", "hostPath"),
    ("gcePersistentDisk", "persistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("glusterfs", "glusterfs"),
    ("flocker", "flocker"),
    ("nfs", "nfs"),
    ("rbd", "rbd"),
    ("quobyte", "quobyte"),
    ("cephfs", "cephfs"),
    ("iscsi", "iscsi"),
    ("cinder", "cinder"),
    ("fc", "fc"),
    ("flexVolume", "flexVolume"),
    ("azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"),
    ("scaleIO", "scaleIO"),
    ("local", "local"),
    ("storageos", "storageos"),
    ("csi", "csi"),
];

/// `supportedHostPathTypes`, sorted.
const HOST_PATH_TYPES: [&str; 8] = [
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
];

/// The sources' checks of the spec at `at`, and how many sources it names.
pub(crate) fn sources_errors(spec: &Value, at: &str, pv_name: &str) -> (usize, Vec<FieldError>) {
    let mut errors = Vec::new();
    let mut found = 0;
    for (key, path) in SOURCES {
        let Some(source) = spec.get(key).filter(|s| !s.is_null()) else {
            continue;
        };
        if found > 0 && key != "flexVolume" {
            errors.push(FieldError::forbidden(
                format!("{at}.{key}"),
                "may not specify more than 1 volume type",
            ));
            continue;
        }
        found += 1;
        errors.extend(source_errors(key, source, &format!("{at}.{path}"), pv_name));
    }
    (found, errors)
}

/// One source's own validation (also a pod volume's, for the sources whose checks are the same).
pub(crate) fn source_errors(key: &str, source: &Value, at: &str, pv_name: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    match key {
        "hostPath" => {
            let path = text(source, "path");
            if path.is_empty() {
                errors.push(FieldError::required(format!("{at}.path"), ""));
                return errors;
            }
            errors.extend(no_backsteps(path, &format!("{at}.path")));
            if let Some(kind) = source.get("type").and_then(Value::as_str)
                && !HOST_PATH_TYPES.contains(&kind)
            {
                errors.push(FieldError::not_supported(
                    format!("{at}.type"),
                    kind.into(),
                    &HOST_PATH_TYPES.map(str::to_owned),
                ));
            }
        }
        "gcePersistentDisk" | "awsElasticBlockStore" => {
            required(
                &mut errors,
                source,
                if key == "gcePersistentDisk" {
                    "pdName"
                } else {
                    "volumeID"
                },
                at,
            );
            let partition = int(source, "partition");
            if !(0..=255).contains(&partition) {
                // `pdPartitionErrorMsg` names 1 although 0 passes.
                errors.push(FieldError::invalid(
                    format!("{at}.partition"),
                    BadValue::Int(partition),
                    "must be between 1 and 255, inclusive",
                ));
            }
        }
        "glusterfs" => {
            required(&mut errors, source, "endpoints", at);
            required(&mut errors, source, "path", at);
            if let Some(namespace) = source.get("endpointsNamespace").and_then(Value::as_str) {
                if namespace.is_empty() {
                    errors.push(FieldError::invalid(
                        format!("{at}.endpointsNamespace"),
                        "".into(),
                        "if the endpointnamespace is set, it must be a valid namespace name",
                    ));
                }
                for why in names::dns1123_label_errors(namespace)
                    .into_iter()
                    .filter(|_| !namespace.is_empty())
                {
                    errors.push(FieldError::invalid(
                        format!("{at}.endpointsNamespace"),
                        namespace.into(),
                        why,
                    ));
                }
            }
        }
        "flocker" => {
            let (name, uuid) = (text(source, "datasetName"), text(source, "datasetUUID"));
            if name.is_empty() && uuid.is_empty() {
                errors.push(FieldError::required(
                    at,
                    "one of datasetName and datasetUUID is required",
                ));
            }
            if !name.is_empty() && !uuid.is_empty() {
                errors.push(FieldError::invalid(
                    at,
                    "resource".into(),
                    "datasetName and datasetUUID can not be specified simultaneously",
                ));
            }
            if name.contains('/') {
                errors.push(FieldError::invalid(
                    format!("{at}.datasetName"),
                    name.into(),
                    "must not contain '/'",
                ));
            }
        }
        "nfs" => {
            required(&mut errors, source, "server", at);
            required(&mut errors, source, "path", at);
            let path = text(source, "path");
            if !path.starts_with('/') {
                errors.push(FieldError::invalid(
                    format!("{at}.path"),
                    path.into(),
                    "must be an absolute path",
                ));
            }
        }
        "rbd" => {
            if count(source, "monitors") == 0 {
                errors.push(FieldError::required(format!("{at}.monitors"), ""));
            }
            required(&mut errors, source, "image", at);
        }
        "quobyte" => errors.extend(quobyte_errors(source, at)),
        "cephfs" if count(source, "monitors") == 0 => {
            errors.push(FieldError::required(format!("{at}.monitors"), ""));
        }
        "iscsi" => errors.extend(iscsi_errors(source, at, pv_name)),
        "cinder" => {
            required(&mut errors, source, "volumeID", at);
            if let Some(secret) = source.get("secretRef").filter(|s| !s.is_null()) {
                required(&mut errors, secret, "name", &format!("{at}.secretRef"));
                required(&mut errors, secret, "namespace", &format!("{at}.secretRef"));
            }
        }
        "fc" => errors.extend(fc_errors(source, at)),
        "flexVolume" => {
            required(&mut errors, source, "driver", at);
            let mut options: Vec<&String> = source
                .get("options")
                .and_then(Value::as_object)
                .map(|m| m.keys().collect())
                .unwrap_or_default();
            options.sort();
            for option in options {
                let namespace = option.split_once('/').map_or(option.as_str(), |(n, _)| n);
                let normalized = format!(".{}", namespace.to_lowercase());
                if normalized.ends_with(".kubernetes.io") || normalized.ends_with(".k8s.io") {
                    errors.push(FieldError::invalid(
                        format!("{at}.options[{option}]"),
                        option.as_str().into(),
                        "kubernetes.io and k8s.io namespaces are reserved",
                    ));
                }
            }
        }
        "azureFile" => {
            required(&mut errors, source, "secretName", at);
            required(&mut errors, source, "shareName", at);
            if source.get("secretNamespace").and_then(Value::as_str) == Some("") {
                errors.push(FieldError::required(format!("{at}.secretNamespace"), ""));
            }
        }
        "vsphereVolume" => required(&mut errors, source, "volumePath", at),
        "photonPersistentDisk" => required(&mut errors, source, "pdID", at),
        "portworxVolume" => required(&mut errors, source, "volumeID", at),
        "azureDisk" => errors.extend(azure_disk_errors(source, at)),
        "scaleIO" => {
            for key in ["gateway", "system", "volumeName"] {
                required(&mut errors, source, key, at);
            }
        }
        "local" => {
            let path = text(source, "path");
            if path.is_empty() {
                errors.push(FieldError::required(format!("{at}.path"), ""));
            } else {
                errors.extend(no_backsteps(path, &format!("{at}.path")));
            }
        }
        "storageos" => errors.extend(storageos_errors(source, at)),
        "csi" => errors.extend(csi_errors(source, at)),
        _ => {}
    }
    errors
}

/// `validatePathNoBacksteps`: one error for any `..` segment.
pub(crate) fn no_backsteps(path: &str, at: &str) -> Vec<FieldError> {
    if path.split('/').any(|part| part == "..") {
        return vec![FieldError::invalid(at, path.into(), "must not contain '..'")];
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(spec: &Value) -> Vec<String> {
        sources_errors(spec, "spec", "pv")
            .1
            .iter()
            .map(|e| e.field.clone())
            .collect()
    }

    #[test]
    fn a_second_source_should_be_forbidden_but_flex_counts_silently() {
        let spec = json!({"hostPath": {"path": "/x"}, "nfs": {"server": "s", "path": "/p"}});
        assert_eq!(fields(&spec), ["spec.nfs"]);
        let (found, errors) = sources_errors(
            &json!({"hostPath": {"path": "/x"}, "flexVolume": {"driver": "d"}}),
            "spec",
            "pv",
        );
        assert_eq!((found, errors.len()), (2, 0));
        assert_eq!(sources_errors(&json!({}), "spec", "pv").0, 0);
    }
}
