//! PersistentVolumes as `pkg/apis/core/validation/validation.go` validates them:
//! `ValidatePersistentVolumeSpec` (modes, capacity, reclaim policy, node affinity through
//! `validateVolumeNodeAffinity` and `node_selector_validation`, the sources of `pv_sources`,
//! class and mode; updates are `pv_update_validation`'s); `checkMountOption` of
//! `pkg/volume/validation/pv_validation.go`; and the warnings of
//! `pkg/api/persistentvolume/util.go` (`GetWarningsForPersistentVolume`).

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::node_label_warnings::node_selector_term_warnings;
use crate::semantics::node_selector_validation::node_selector_errors;
use crate::semantics::pv_sources::sources_errors;
use crate::semantics::pvc_update_validation::basic_resource_errors;
use crate::semantics::pvc_validation::{BETA_STORAGE_CLASS, VOLUME_MODES, class_name_errors};
use crate::semantics::quantity::Quantity;
use crate::storage::object;

/// `core.MountOptionAnnotation`.
const MOUNT_OPTIONS: &str = "volume.beta.kubernetes.io/mount-options";

/// Why a field may not be in a VolumeAttachment's inline volume spec.
const INLINE_FORBIDDEN: &str = "may not be specified in the context of inline volumes";

/// The sources whose plugins take mount options (`checkMountOption`).
const MOUNTABLE: [&str; 13] = [
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "glusterfs",
    "nfs",
    "rbd",
    "quobyte",
    "iscsi",
    "cinder",
    "cephfs",
    "azureFile",
    "vsphereVolume",
    "azureDisk",
    "photonPersistentDisk",
];

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `ValidatePersistentVolume` less the object metadata, with `checkMountOption`, on the
/// Kubernetes `minor`; `stored_class` says the stored volume had an attributes class (1.29+
/// then validates it, its gate being off).
pub(crate) fn volume_errors(volume: &Value, stored_class: bool, minor: u32) -> Vec<FieldError> {
    let spec = volume.get("spec").unwrap_or(&Value::Null);
    let mut errors = spec_errors(spec, object::name(volume), Context::Volume, "spec");
    if minor >= 29 && stored_class {
        errors.extend(attributes_class_errors(spec));
    }
    // `checkMountOption`: the deprecated annotation only on plugins that mount.
    let mounts = MOUNTABLE.iter().any(|k| spec.get(*k).is_some_and(|s| !s.is_null()));
    let annotated = volume
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(MOUNT_OPTIONS))
        .is_some();
    if !mounts && annotated {
        errors.push(FieldError::forbidden(
            format!("metadata.annotations.{MOUNT_OPTIONS}"),
            "may not specify mount options for this volume type",
        ));
    }
    errors
}

/// Where a `PersistentVolumeSpec` stands: a PersistentVolume's, or a VolumeAttachment's inline
/// one (`validateInlinePersistentVolumeSpec`: CSI only, no capacity, claim, affinity or class).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    Volume,
    Inline,
}

/// `ValidatePersistentVolumeSpec` of the spec at `at`, of the volume named `pv_name`.
pub(crate) fn spec_errors(spec: &Value, pv_name: &str, context: Context, at: &str) -> Vec<FieldError> {
    let inline = context == Context::Inline;
    let set = |key: &str| spec.get(key).is_some_and(|v| !v.is_null());
    let mut errors = Vec::new();
    if inline {
        if set("claimRef") {
            errors.push(FieldError::forbidden(format!("{at}.claimRef"), INLINE_FORBIDDEN));
        }
        if spec
            .get("capacity")
            .and_then(Value::as_object)
            .is_some_and(|c| !c.is_empty())
        {
            errors.push(FieldError::forbidden(format!("{at}.capacity"), INLINE_FORBIDDEN));
        }
        if !set("csi") {
            errors.push(FieldError::required(
                format!("{at}.csi"),
                "has to be specified in the context of inline volumes",
            ));
        }
    }
    let modes = object::string_list(spec.get("accessModes"));
    let modes_at = format!("{at}.accessModes");
    if modes.is_empty() {
        errors.push(FieldError::required(&modes_at, ""));
    }
    let supported = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"].map(str::to_owned);
    let (mut once_pod, mut other) = (false, false);
    for mode in &modes {
        if !supported.contains(mode) {
            errors.push(FieldError::not_supported(&modes_at, mode.as_str().into(), &supported));
        }
        if mode == "ReadWriteOncePod" {
            once_pod = true;
        } else if supported.contains(mode) {
            other = true;
        }
    }
    if once_pod && other {
        errors.push(FieldError::forbidden(
            &modes_at,
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
    if !inline {
        errors.extend(capacity_errors(spec.get("capacity").and_then(Value::as_object), at));
    }
    let policy = text(spec, "persistentVolumeReclaimPolicy");
    let policy_at = format!("{at}.persistentVolumeReclaimPolicy");
    if inline && !policy.is_empty() && policy != "Retain" {
        errors.push(FieldError::forbidden(
            &policy_at,
            "may only be Retain in the context of inline volumes",
        ));
    } else if !inline && !policy.is_empty() && !matches!(policy, "Delete" | "Recycle" | "Retain") {
        let supported = ["Delete", "Recycle", "Retain"].map(str::to_owned);
        errors.push(FieldError::not_supported(&policy_at, policy.into(), &supported));
    }
    let affinity = spec.get("nodeAffinity").filter(|a| !a.is_null());
    let mut affinity_given = false;
    if let Some(affinity) = affinity {
        if inline {
            errors.push(FieldError::forbidden(format!("{at}.nodeAffinity"), INLINE_FORBIDDEN));
        } else {
            // `validateVolumeNodeAffinity` reports an affinity given, with or without terms.
            affinity_given = true;
            let required_at = format!("{at}.nodeAffinity.required");
            match affinity.get("required").filter(|r| !r.is_null()) {
                Some(required) => errors.extend(node_selector_errors(required, &required_at)),
                None => errors.push(FieldError::required(
                    required_at,
                    "must specify required node constraints",
                )),
            }
        }
    }
    let (found, source_errors) = sources_errors(spec, at, pv_name);
    errors.extend(source_errors);
    if set("local") && !affinity_given && !more_before_local(spec) {
        errors.push(FieldError::required(
            format!("{at}.nodeAffinity"),
            "Local volume requires node affinity",
        ));
    }
    if found == 0 {
        errors.push(FieldError::required(at, "must specify a volume type"));
    }
    if let Some(path) = spec.pointer("/hostPath/path").and_then(Value::as_str)
        && clean_path(path) == "/"
        && policy == "Recycle"
    {
        errors.push(FieldError::forbidden(
            policy_at,
            "may not be 'recycle' for a hostPath mount of '/'",
        ));
    }
    if inline && !text(spec, "storageClassName").is_empty() {
        errors.push(FieldError::forbidden(
            format!("{at}.storageClassName"),
            INLINE_FORBIDDEN,
        ));
    } else if !inline {
        errors.extend(class_name_errors(spec, "storageClassName", at));
    }
    if let Some(mode) = spec.get("volumeMode").and_then(Value::as_str) {
        if inline && mode != "Filesystem" {
            errors.push(FieldError::forbidden(
                format!("{at}.volumeMode"),
                "may not specify volumeMode other than Filesystem in the context of inline volumes",
            ));
        } else if !inline && !VOLUME_MODES.contains(&mode) {
            errors.push(FieldError::not_supported(
                format!("{at}.volumeMode"),
                mode.into(),
                &VOLUME_MODES.map(str::to_owned),
            ));
        }
    }
    errors
}

/// Whether a source before `local` in Go's order (a flex volume too, which counts) made
/// `local` a forbidden second one: its affinity rule is then not reached.
fn more_before_local(spec: &Value) -> bool {
    crate::semantics::pv_sources::SOURCES
        .iter()
        .take_while(|(key, _)| *key != "local")
        .any(|(key, _)| spec.get(*key).is_some_and(|s| !s.is_null()))
}

/// 1.29's attributes class rules, applied when the stored volume had one.
fn attributes_class_errors(spec: &Value) -> Vec<FieldError> {
    let Some(class) = spec.get("volumeAttributesClassName").and_then(Value::as_str) else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    let at = "spec.volumeAttributesClassName";
    if class.is_empty() {
        errors.push(FieldError::required(at, "an empty string is disallowed"));
    } else {
        for why in names::dns1123_subdomain_errors(class) {
            errors.push(FieldError::invalid(at, class.into(), why));
        }
    }
    if spec.get("csi").is_none_or(Value::is_null) {
        errors.push(FieldError::required(
            "spec.csi",
            "has to be specified when using volumeAttributesClassName",
        ));
    }
    errors
}

/// The capacity at `at`: set, `storage` alone, each quantity whole-valued non-negative and
/// positive.
fn capacity_errors(capacity: Option<&Map<String, Value>>, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let empty = Map::new();
    let list = capacity.unwrap_or(&empty);
    let capacity_at = format!("{at}.capacity");
    if list.is_empty() {
        errors.push(FieldError::required(&capacity_at, ""));
    }
    if !list.contains_key("storage") || list.len() > 1 {
        errors.push(FieldError::not_supported(
            &capacity_at,
            BadValue::Raw(resource_list_go(capacity)),
            &["storage".to_owned()],
        ));
    }
    let mut entries: Vec<(&String, &Value)> = list.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    for (name, value) in entries {
        let at = format!("{capacity_at}[{name}]");
        errors.extend(basic_resource_errors(value, &at));
        if let Some(quantity) = value.as_str().and_then(|s| Quantity::parse(s).ok())
            && quantity.cmp_value(&Quantity::from_int(0)) != std::cmp::Ordering::Greater
        {
            errors.push(FieldError::invalid(
                at,
                quantity.to_string().as_str().into(),
                "must be greater than zero",
            ));
        }
    }
    errors
}

/// Go's `%#v` of a `core.ResourceList`.
fn resource_list_go(list: Option<&Map<String, Value>>) -> String {
    let Some(list) = list.filter(|l| !l.is_empty()) else {
        return "core.ResourceList(nil)".to_owned();
    };
    let mut entries: Vec<(&String, &Value)> = list.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let shown: Vec<String> = entries
        .iter()
        .filter_map(|(k, v)| Some(format!("{k:?}:{}", Quantity::parse(v.as_str()?).ok()?.go_syntax())))
        .collect();
    format!("core.ResourceList{{{}}}", shown.join(", "))
}

/// Go's `path.Clean` as far as telling `/` apart: repeated slashes and `.`/`..` segments folded.
fn clean_path(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    if path.starts_with('/') {
        format!("/{}", parts.join("/"))
    } else if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// `GetWarningsForPersistentVolume` on the Kubernetes `minor`: deprecated annotations (1.31
/// adds the mount options one) and reclaim policy (1.31), node labels in the affinity, and
/// the volume plugins that are deprecated.
pub(crate) fn volume_warnings(volume: &Value, minor: u32) -> Vec<String> {
    let mut warnings = Vec::new();
    let annotations = volume.pointer("/metadata/annotations");
    let mut deprecated = vec![(
        BETA_STORAGE_CLASS,
        r#"deprecated since v1.8; use "storageClassName" attribute instead"#,
    )];
    if minor >= 31 {
        deprecated.push((
            MOUNT_OPTIONS,
            r#"deprecated since v1.31; use "mountOptions" attribute instead"#,
        ));
    }
    for (key, message) in deprecated {
        if annotations.and_then(|a| a.get(key)).is_some() {
            warnings.push(format!("metadata.annotations[{key}]: {message}"));
        }
    }
    let spec = volume.get("spec").unwrap_or(&Value::Null);
    if minor >= 31 && text(spec, "persistentVolumeReclaimPolicy") == "Recycle" {
        warnings.push("spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.".to_owned());
    }
    let terms = spec
        .pointer("/nodeAffinity/required/nodeSelectorTerms")
        .and_then(Value::as_array);
    for (i, term) in terms.into_iter().flatten().enumerate() {
        let at = format!("spec.nodeAffinity.required.nodeSelectorTerms[{i}]");
        warnings.extend(node_selector_term_warnings(term, &at, minor));
    }
    for (key, path, message) in [
        ("cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"),
        (
            "photonPersistentDisk",
            "photonPersistentDisk",
            "deprecated in v1.11, non-functional in v1.16+",
        ),
        ("scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
        (
            "storageos",
            "storageOS",
            "deprecated in v1.22, non-functional in v1.25+",
        ),
        (
            "glusterfs",
            "glusterfs",
            "deprecated in v1.25, non-functional in v1.26+",
        ),
        ("rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"),
    ] {
        if spec.get(key).is_some_and(|s| !s.is_null()) {
            warnings.push(format!("spec.{path}: {message}"));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn volume() -> Value {
        json!({"metadata": {"name": "pv"}, "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Retain", "volumeMode": "Filesystem", "hostPath": {"path": "/data", "type": ""}}})
    }

    fn fields(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(|e| e.field.clone()).collect()
    }

    #[test]
    fn a_volume_should_name_one_source_and_its_storage() {
        assert!(volume_errors(&volume(), false, 28).is_empty());
        assert_eq!(
            fields(&volume_errors(&json!({"spec": {}}), false, 28)),
            ["spec.accessModes", "spec.capacity", "spec.capacity", "spec"]
        );
        let mut local = volume();
        local["spec"]["hostPath"] = Value::Null;
        local["spec"]["local"] = json!({"path": "/mnt"});
        assert_eq!(fields(&volume_errors(&local, false, 28)), ["spec.nodeAffinity"]);
    }

    #[test]
    fn deprecated_plugins_should_warn() {
        let mut rbd = volume();
        rbd["spec"]["rbd"] = json!({"monitors": ["m"], "image": "i"});
        assert_eq!(
            volume_warnings(&rbd, 28),
            ["spec.rbd: deprecated in v1.28, non-functional in v1.31+"]
        );
    }
}
