//! A pod's volumes as `ValidateVolumes` and `validateVolumeSource` of
//! `pkg/apis/core/validation/validation.go` (v1.28.7, v1.31.2) check them: each volume's source
//! in Go's order, a second one forbidden at `<volume>.<source>` without its own checks, each
//! source's checks (the sources a PersistentVolume shares are `pv_sources`', the file sources
//! `volume_file_validation`'s), the name a DNS label seen once; and only a volume without
//! errors is one the containers may mount.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::pv_source_checks::{csi_driver_name_errors, text};
use crate::semantics::pv_sources::source_errors;
use crate::semantics::pvc_validation::{ClaimOptions, claim_spec_errors};
use crate::semantics::template_metadata::template_metadata_errors;
use crate::semantics::volume_file_validation::{
    downward_api_errors, key_file_source_errors, local_descending_path_errors, projected_errors,
};

/// `validateVolumeSource`'s order: each source's JSON key and the path Go names its own
/// checks under (a GCE disk's are `persistentDisk`; Go's forbidden second downward API source
/// is spelled `downwarAPI` and CephFS's `cephFS`).
const SOURCES: [(&str, &str, &str); 29] = [
    ("emptyDir", "emptyDir", "emptyDir"),
    ("hostPath", "hostPath", "hostPath"),
    ("gitRepo", "gitRepo", "gitRepo"),
    ("gcePersistentDisk", "gcePersistentDisk", "persistentDisk"),
    ("awsElasticBlockStore", "awsElasticBlockStore", "awsElasticBlockStore"),
    ("secret", "secret", "secret"),
    ("nfs", "nfs", "nfs"),
    ("iscsi", "iscsi", "iscsi"),
    ("glusterfs", "glusterfs", "glusterfs"),
    ("flocker", "flocker", "flocker"),
    (
        "persistentVolumeClaim",
        "persistentVolumeClaim",
        "persistentVolumeClaim",
    ),
    ("rbd", "rbd", "rbd"),
    ("cinder", "cinder", "cinder"),
    ("cephfs", "cephFS", "cephfs"),
    ("quobyte", "quobyte", "quobyte"),
    ("downwardAPI", "downwarAPI", "downwardAPI"),
    ("fc", "fc", "fc"),
    ("flexVolume", "flexVolume", "flexVolume"),
    ("configMap", "configMap", "configMap"),
    ("azureFile", "azureFile", "azureFile"),
    ("vsphereVolume", "vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk", "photonPersistentDisk"),
    ("portworxVolume", "portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk", "azureDisk"),
    ("storageos", "storageos", "storageos"),
    ("projected", "projected", "projected"),
    ("scaleIO", "scaleIO", "scaleIO"),
    ("csi", "csi", "csi"),
    ("ephemeral", "ephemeral", "ephemeral"),
];

/// A volume the containers may mount: its name, and whether it is a claim (what a block
/// device must be).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MountableVolume {
    pub(crate) name: String,
    pub(crate) claim: bool,
}

/// `ValidateVolumes` of the list at `field`, for the pod named `pod_name` (a template has
/// none): the errors, and the volumes that had none.
pub(crate) fn volumes_errors(
    volumes: Option<&Value>,
    field: &str,
    pod_name: Option<&str>,
    minor: u32,
) -> (Vec<MountableVolume>, Vec<FieldError>) {
    let list: Vec<&Value> = volumes.and_then(Value::as_array).into_iter().flatten().collect();
    // The claims the pod's ephemeral volumes will create, which no claim source may name.
    let created: Vec<String> = match pod_name.filter(|n| !n.is_empty()) {
        Some(pod) => list
            .iter()
            .filter(|v| v.get("ephemeral").is_some_and(|e| !e.is_null()))
            .map(|v| format!("{pod}-{}", text(v, "name")))
            .collect(),
        None => Vec::new(),
    };
    let mut mountable: Vec<MountableVolume> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let mut errors = Vec::new();
    for (i, volume) in list.iter().enumerate() {
        let at = format!("{field}[{i}]");
        let name = text(volume, "name");
        let mut own = source_errors_of(volume, &at, name, pod_name, minor);
        if name.is_empty() {
            own.push(FieldError::required(format!("{at}.name"), ""));
        } else {
            for why in names::dns1123_label_errors(name) {
                own.push(FieldError::invalid(format!("{at}.name"), name.into(), why));
            }
        }
        if seen.contains(&name) {
            own.push(FieldError::duplicate(format!("{at}.name"), name.into()));
        }
        if own.is_empty() {
            seen.push(name);
            let claim = ["persistentVolumeClaim", "ephemeral"]
                .iter()
                .any(|key| volume.get(*key).is_some_and(|s| !s.is_null()));
            mountable.push(MountableVolume {
                name: name.to_owned(),
                claim,
            });
        } else {
            errors.extend(own);
        }
        let claim_name = volume
            .get("persistentVolumeClaim")
            .map(|c| text(c, "claimName"))
            .unwrap_or_default();
        if !claim_name.is_empty() && created.iter().any(|c| c == claim_name) {
            errors.push(FieldError::invalid(
                format!("{at}.persistentVolumeClaim.claimName"),
                claim_name.into(),
                "must not reference a PVC that gets created for an ephemeral volume",
            ));
        }
    }
    (mountable, errors)
}

/// `validateVolumeSource`: the first source checked, any other forbidden, none required.
fn source_errors_of(volume: &Value, at: &str, name: &str, pod_name: Option<&str>, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut found = 0;
    for (key, forbidden_at, checked_at) in SOURCES {
        let Some(source) = volume.get(key).filter(|s| !s.is_null()) else {
            continue;
        };
        if found > 0 {
            errors.push(FieldError::forbidden(
                format!("{at}.{forbidden_at}"),
                "may not specify more than 1 volume type",
            ));
        } else {
            found += 1;
            errors.extend(one_source_errors(key, source, &format!("{at}.{checked_at}"), minor));
            if key == "ephemeral"
                && let Some(pod) = pod_name.filter(|p| !p.is_empty() && !name.is_empty())
            {
                let claim = format!("{pod}-{name}");
                for why in names::dns1123_subdomain_errors(&claim) {
                    errors.push(FieldError::invalid(
                        format!("{at}.name"),
                        name.into(),
                        format!("PVC name {}: {why}", crate::semantics::field_error::go_quote(&claim)),
                    ));
                }
            }
        }
        // Checked whether or not it is the first source.
        if key == "iscsi"
            && source.get("initiatorName").is_some_and(|i| !i.is_null())
            && name.len() + 1 + text(source, "targetPortal").len() > 64
        {
            errors.push(FieldError::invalid(
                format!("{at}.name"),
                name.into(),
                "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
            ));
        }
    }
    if found == 0 {
        errors.push(FieldError::required(at, "must specify a volume type"));
    }
    errors
}

/// One source's own checks, at `at`.
fn one_source_errors(key: &str, source: &Value, at: &str, minor: u32) -> Vec<FieldError> {
    match key {
        "emptyDir" => {
            let negative = source
                .get("sizeLimit")
                .and_then(Value::as_str)
                .and_then(|q| crate::semantics::quantity::Quantity::parse(q).ok())
                .is_some_and(|q| q.is_negative());
            if negative {
                return vec![FieldError::forbidden(
                    format!("{at}.sizeLimit"),
                    "SizeLimit field must be a valid resource quantity",
                )];
            }
            Vec::new()
        }
        "gitRepo" => {
            let mut errors = Vec::new();
            if text(source, "repository").is_empty() {
                errors.push(FieldError::required(format!("{at}.repository"), ""));
            }
            errors.extend(local_descending_path_errors(
                text(source, "directory"),
                &format!("{at}.directory"),
            ));
            errors
        }
        "secret" => key_file_source_errors(source, "secretName", at),
        "configMap" => key_file_source_errors(source, "name", at),
        "downwardAPI" => downward_api_errors(source, at),
        "projected" => projected_errors(source, at),
        "persistentVolumeClaim" if text(source, "claimName").is_empty() => {
            vec![FieldError::required(format!("{at}.claimName"), "")]
        }
        "persistentVolumeClaim" => Vec::new(),
        "iscsi" => iscsi_errors(source, at),
        "cinder" | "storageos" => {
            // The pod's kinds name no secret namespace: only the name is checked.
            let mut errors = match key {
                "cinder" if text(source, "volumeID").is_empty() => {
                    vec![FieldError::required(format!("{at}.volumeID"), "")]
                }
                "cinder" => Vec::new(),
                _ => {
                    let without_secret = strip(source, "secretRef");
                    source_errors("storageos", &without_secret, at, "")
                }
            };
            if let Some(secret) = source.get("secretRef").filter(|s| !s.is_null())
                && text(secret, "name").is_empty()
            {
                errors.push(FieldError::required(format!("{at}.secretRef.name"), ""));
            }
            errors
        }
        "csi" => csi_errors(source, at),
        "ephemeral" => match source.get("volumeClaimTemplate").filter(|t| !t.is_null()) {
            None => vec![FieldError::required(format!("{at}.volumeClaimTemplate"), "")],
            Some(template) => claim_template_errors(template, &format!("{at}.volumeClaimTemplate"), minor),
        },
        _ => source_errors(key, source, at, ""),
    }
}

fn strip(source: &Value, key: &str) -> Value {
    let mut copy = source.clone();
    if let Some(fields) = copy.as_object_mut() {
        fields.remove(key);
    }
    copy
}

/// `validateISCSIVolumeSource`: the PersistentVolume's checks, with the pod's wording of a
/// name without a known prefix and no check of the secret's name.
fn iscsi_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let unprefixed = |name: &str| !["iqn", "eui", "naa"].iter().any(|p| name.starts_with(p));
    let reword = "must be valid format starting with iqn, eui, or naa";
    let mut errors = source_errors("iscsi", &strip(source, "secretRef"), at, "");
    if source.get("secretRef").is_some_and(|s| !s.is_null()) {
        // Present, so no "secretRef: Required" for CHAP; the name is not checked.
        errors.retain(|e| e.field != format!("{at}.secretRef"));
    }
    for error in &mut errors {
        let field = error.field.rsplit('.').next().unwrap_or_default();
        let name = match field {
            "iqn" => text(source, "iqn"),
            "initiatorname" => text(source, "initiatorName"),
            _ => continue,
        };
        if unprefixed(name) && error.detail == "must be valid format" {
            error.detail = reword.to_owned();
        }
    }
    // The pod's check of the name's length is the volume's, not the source's.
    errors.retain(|e| e.field != format!("{at}.targetportal"));
    errors
}

/// `validateCSIVolumeSource`: the driver's name, a node-publish secret's name.
fn csi_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = csi_driver_name_errors(text(source, "driver"), &format!("{at}.driver"));
    if let Some(secret) = source.get("nodePublishSecretRef").filter(|s| !s.is_null()) {
        let name = text(secret, "name");
        if name.is_empty() {
            errors.push(FieldError::required(format!("{at}.nodePublishSecretRef.name"), ""));
        }
        for why in names::dns1123_subdomain_errors(name)
            .into_iter()
            .filter(|_| !name.is_empty())
        {
            // Go names the field `csi.name`.
            errors.push(FieldError::invalid(format!("{at}.name"), BadValue::from(name), why));
        }
    }
    errors
}

/// `ValidatePersistentVolumeClaimTemplate`: labels and annotations only
/// (`ValidateTemplateObjectMeta`), and the claim's spec.
fn claim_template_errors(template: &Value, at: &str, minor: u32) -> Vec<FieldError> {
    let meta_at = format!("{at}.metadata");
    let mut errors = template_metadata_errors(template, &meta_at);
    for (key, value) in template
        .get("metadata")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let empty = value.is_null()
            || value.as_str() == Some("")
            || value.as_object().is_some_and(|m| m.is_empty())
            || value.as_array().is_some_and(|a| a.is_empty());
        if !matches!(key.as_str(), "labels" | "annotations") && !empty {
            errors.push(FieldError::forbidden(format!("{meta_at}.{key}"), "cannot be set"));
        }
    }
    let empty = Value::Object(serde_json::Map::new());
    let spec = template.get("spec").unwrap_or(&empty);
    errors.extend(claim_spec_errors(
        spec,
        &format!("{at}.spec"),
        ClaimOptions::for_claim(None, minor),
    ));
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn a_second_source_should_be_forbidden_at_its_own_path_and_the_volume_unmountable() {
        let volumes = json!([{"name": "both", "configMap": {"name": "x"}, "secret": {"secretName": "y"}},
            {"name": "ok", "emptyDir": {}}]);
        let (mountable, errors) = volumes_errors(Some(&volumes), "spec.volumes", None, 28);
        assert_eq!(
            rendered(errors),
            ["spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type"]
        );
        assert_eq!(
            mountable,
            [MountableVolume {
                name: "ok".to_owned(),
                claim: false
            }]
        );
    }

    #[test]
    fn pod_sources_should_keep_their_own_wording() {
        let volumes = json!([{"name": "i", "iscsi": {"targetPortal": "p", "iqn": "x", "lun": 0,
                "chapAuthSession": true, "secretRef": {}}},
            {"name": "c", "csi": {"driver": "d.example.com", "nodePublishSecretRef": {"name": "a/b"}}},
            {"name": "e", "emptyDir": {"sizeLimit": "-1"}}, {"name": "n"}]);
        let (mountable, errors) = volumes_errors(Some(&volumes), "v", None, 28);
        let fields: Vec<String> = rendered(errors)
            .iter()
            .map(|e| e.split(':').next().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(
            fields,
            ["v[0].iscsi.iqn", "v[1].csi.name", "v[2].emptyDir.sizeLimit", "v[3]"]
        );
        assert!(mountable.is_empty());
    }
}
