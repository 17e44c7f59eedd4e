//! PersistentVolumes as `pkg/apis/core/validation/validation.go` validates them:
//! `ValidatePersistentVolumeSpec` (modes, capacity, reclaim policy, node affinity through
//! `validateVolumeNodeAffinity` and `ValidateNodeSelector`, the sources of `pv_sources`, class
//! and mode), `ValidatePersistentVolumeUpdate` (the source and mode are immutable, node affinity
//! too once set but for beta labels moving to GA: `validatePvNodeAffinity`),
//! `ValidatePersistentVolumeStatusUpdate`; `checkMountOption` of
//! `pkg/volume/validation/pv_validation.go`; and the warnings of
//! `pkg/api/persistentvolume/util.go` (`GetWarningsForPersistentVolume`).

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::node_label_warnings::node_selector_term_warnings;
use crate::semantics::pv_sources::sources_errors;
use crate::semantics::pvc_validation::{
    BETA_STORAGE_CLASS, VOLUME_MODES, basic_resource_errors, class_name_errors, spec_diff,
};
use crate::semantics::quantity::Quantity;
use crate::semantics::workload_validation::semantic;

/// `core.MountOptionAnnotation`.
const MOUNT_OPTIONS: &str = "volume.beta.kubernetes.io/mount-options";

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

/// `betaToGALabel`: the node labels a volume's affinity may move to their GA names.
const BETA_TO_GA: [(&str, &str); 5] = [
    ("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"),
    (
        "failure-domain.beta.kubernetes.io/region",
        "topology.kubernetes.io/region",
    ),
    ("beta.kubernetes.io/os", "kubernetes.io/os"),
    ("beta.kubernetes.io/arch", "kubernetes.io/arch"),
    ("beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type"),
];

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|v| v.as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// `ValidatePersistentVolume` less the object metadata, with `checkMountOption`, on the
/// Kubernetes `minor`; `stored_class` says the stored volume had an attributes class (1.29+
/// then validates it, its gate being off).
pub(crate) fn volume_errors(volume: &Value, stored_class: bool, minor: u32) -> Vec<FieldError> {
    let spec = volume.get("spec").unwrap_or(&Value::Null);
    let mut errors = Vec::new();
    let modes = strings(spec.get("accessModes"));
    if modes.is_empty() {
        errors.push(FieldError::required("spec.accessModes", ""));
    }
    let supported = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"].map(str::to_owned);
    let (mut once_pod, mut other) = (false, false);
    for mode in &modes {
        if !supported.contains(mode) {
            errors.push(FieldError::not_supported(
                "spec.accessModes",
                mode.as_str().into(),
                &supported,
            ));
        }
        if mode == "ReadWriteOncePod" {
            once_pod = true;
        } else if supported.contains(mode) {
            other = true;
        }
    }
    if once_pod && other {
        errors.push(FieldError::forbidden(
            "spec.accessModes",
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
    errors.extend(capacity_errors(spec.get("capacity").and_then(Value::as_object)));
    let policy = text(spec, "persistentVolumeReclaimPolicy");
    if !policy.is_empty() && !matches!(policy, "Delete" | "Recycle" | "Retain") {
        let supported = ["Delete", "Recycle", "Retain"].map(str::to_owned);
        errors.push(FieldError::not_supported(
            "spec.persistentVolumeReclaimPolicy",
            policy.into(),
            &supported,
        ));
    }
    let affinity = spec.get("nodeAffinity").filter(|a| !a.is_null());
    if let Some(affinity) = affinity {
        match affinity.get("required").filter(|r| !r.is_null()) {
            Some(required) => errors.extend(node_selector_errors(required, "spec.nodeAffinity.required")),
            None => errors.push(FieldError::required(
                "spec.nodeAffinity.required",
                "must specify required node constraints",
            )),
        }
    }
    let (found, source_errors) = sources_errors(spec, crate::storage::object::name(volume));
    errors.extend(source_errors);
    if spec.get("local").is_some_and(|l| !l.is_null()) && affinity.is_none() && !more_before_local(spec) {
        errors.push(FieldError::required(
            "spec.nodeAffinity",
            "Local volume requires node affinity",
        ));
    }
    if found == 0 {
        errors.push(FieldError::required("spec", "must specify a volume type"));
    }
    if let Some(path) = spec.pointer("/hostPath/path").and_then(Value::as_str)
        && clean_path(path) == "/"
        && policy == "Recycle"
    {
        errors.push(FieldError::forbidden(
            "spec.persistentVolumeReclaimPolicy",
            "may not be 'recycle' for a hostPath mount of '/'",
        ));
    }
    errors.extend(class_name_errors(spec, "storageClassName", "spec"));
    if let Some(mode) = spec.get("volumeMode").and_then(Value::as_str)
        && !VOLUME_MODES.contains(&mode)
    {
        errors.push(FieldError::not_supported(
            "spec.volumeMode",
            mode.into(),
            &VOLUME_MODES.map(str::to_owned),
        ));
    }
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

/// The capacity: set, `storage` alone, each quantity whole-valued non-negative and positive.
fn capacity_errors(capacity: Option<&Map<String, Value>>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let empty = Map::new();
    let list = capacity.unwrap_or(&empty);
    if list.is_empty() {
        errors.push(FieldError::required("spec.capacity", ""));
    }
    if !list.contains_key("storage") || list.len() > 1 {
        errors.push(FieldError::not_supported(
            "spec.capacity",
            BadValue::Raw(resource_list_go(capacity)),
            &["storage".to_owned()],
        ));
    }
    let mut entries: Vec<(&String, &Value)> = list.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    for (name, value) in entries {
        let at = format!("spec.capacity[{name}]");
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

/// `ValidateNodeSelector` of the selector at `at`.
pub(crate) fn node_selector_errors(selector: &Value, at: &str) -> Vec<FieldError> {
    let terms_at = format!("{at}.nodeSelectorTerms");
    let terms = selector.get("nodeSelectorTerms").and_then(Value::as_array);
    let Some(terms) = terms.filter(|t| !t.is_empty()) else {
        return vec![FieldError::required(
            terms_at,
            "must have at least one node selector term",
        )];
    };
    let mut errors = Vec::new();
    for (i, term) in terms.iter().enumerate() {
        let term_at = format!("{terms_at}[{i}]");
        let list = |key: &str| term.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
        for (j, requirement) in list("matchExpressions").iter().enumerate() {
            errors.extend(requirement_errors(
                requirement,
                &format!("{term_at}.matchExpressions[{j}]"),
            ));
        }
        for (j, requirement) in list("matchFields").iter().enumerate() {
            errors.extend(field_requirement_errors(
                requirement,
                &format!("{term_at}.matchFields[{j}]"),
            ));
        }
    }
    errors
}

/// `ValidateNodeSelectorRequirement`: the values its operator takes, and the key a label name.
fn requirement_errors(requirement: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let values = strings(requirement.get("values"));
    let operator = text(requirement, "operator");
    match operator {
        "In" | "NotIn" if values.is_empty() => errors.push(FieldError::required(
            format!("{at}.values"),
            "must be specified when `operator` is 'In' or 'NotIn'",
        )),
        "Exists" | "DoesNotExist" if !values.is_empty() => errors.push(FieldError::forbidden(
            format!("{at}.values"),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        )),
        "Gt" | "Lt" if values.len() != 1 => errors.push(FieldError::required(
            format!("{at}.values"),
            "must be specified single value when `operator` is 'Lt' or 'Gt'",
        )),
        "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
        other => errors.push(FieldError::invalid(
            format!("{at}.operator"),
            other.into(),
            "not a valid selector operator",
        )),
    }
    // `ValidateLabelName`.
    let key = text(requirement, "key");
    for why in names::qualified_name_errors(key) {
        errors.push(FieldError::invalid(format!("{at}.key"), key.into(), why));
    }
    errors
}

/// `ValidateNodeFieldSelectorRequirement`: one value of `In`/`NotIn`, on `metadata.name`, a
/// node name.
fn field_requirement_errors(requirement: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let values = strings(requirement.get("values"));
    match text(requirement, "operator") {
        "In" | "NotIn" if values.len() != 1 => errors.push(FieldError::required(
            format!("{at}.values"),
            "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        )),
        "In" | "NotIn" => {}
        other => errors.push(FieldError::invalid(
            format!("{at}.operator"),
            other.into(),
            "not a valid selector operator",
        )),
    }
    let key = text(requirement, "key");
    if key == "metadata.name" {
        for (i, value) in values.iter().enumerate() {
            for why in names::dns1123_subdomain_errors(value) {
                errors.push(FieldError::invalid(
                    format!("{at}.values[{i}]"),
                    value.as_str().into(),
                    why,
                ));
            }
        }
    } else {
        errors.push(FieldError::invalid(
            format!("{at}.key"),
            key.into(),
            "not a valid field selector key",
        ));
    }
    errors
}

/// The strategy's `ValidateUpdate`: `ValidatePersistentVolume` twice (the strategy's own call
/// and `ValidatePersistentVolumeUpdate`'s), `checkMountOption`, then the update's rules.
pub(crate) fn volume_update_errors(volume: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let stored_class = old
        .pointer("/spec/volumeAttributesClassName")
        .is_some_and(|c| !c.is_null());
    let mut errors = volume_errors(volume, stored_class, minor);
    // `checkMountOption` comes once, with the strategy's call.
    let mut again = volume_errors(volume, stored_class, minor);
    again.retain(|e| !e.field.starts_with("metadata.annotations."));
    errors.extend(again);
    let (spec, old_spec) = (
        volume.get("spec").unwrap_or(&Value::Null),
        old.get("spec").unwrap_or(&Value::Null),
    );
    let mut new_source = sources_of(spec);
    let old_source = sources_of(old_spec);
    // A CSI volume may gain a controller expansion secret.
    let gains_secret = |spec: &Value, key: &str| spec.pointer(&format!("/csi/{key}")).is_some_and(|s| !s.is_null());
    if old_spec.get("csi").is_some_and(|c| !c.is_null())
        && !gains_secret(old_spec, "controllerExpandSecretRef")
        && gains_secret(spec, "controllerExpandSecretRef")
        && let Some(csi) = new_source.get_mut("csi").and_then(Value::as_object_mut)
    {
        csi.remove("controllerExpandSecretRef");
    }
    let (new_source, old_source) = (Value::Object(new_source), Value::Object(old_source));
    if semantic(&new_source) != semantic(&old_source) {
        let diff = spec_diff("core.PersistentVolumeSource", &old_source, &new_source);
        errors.push(FieldError::forbidden(
            "spec.persistentvolumesource",
            format!("spec.persistentvolumesource is immutable after creation\n{diff}"),
        ));
    }
    let (mode, old_mode) = (spec.get("volumeMode"), old_spec.get("volumeMode"));
    if mode.filter(|m| !m.is_null()) != old_mode.filter(|m| !m.is_null()) {
        let shown = match mode.and_then(Value::as_str) {
            Some(mode) => BadValue::Str(mode.to_owned()),
            None => BadValue::Raw("(*core.PersistentVolumeMode)(nil)".to_owned()),
        };
        errors.push(FieldError::invalid("volumeMode", shown, "field is immutable"));
    }
    if let Some(old_affinity) = old_spec.get("nodeAffinity").filter(|a| !a.is_null()) {
        let affinity = spec.get("nodeAffinity").filter(|a| !a.is_null());
        if affinity.map(|a| semantic(&with_ga_keys(a, Some(old_affinity)))) != Some(semantic(old_affinity)) {
            // Go prints the pointer inside the struct; any address stands for it.
            let shown = match affinity {
                Some(_) => "core.VolumeNodeAffinity{Required:(*core.NodeSelector)(0xc000100000)}",
                None => "(*core.VolumeNodeAffinity)(nil)",
            };
            errors.push(FieldError::invalid(
                "nodeAffinity",
                BadValue::Raw(shown.to_owned()),
                "field is immutable, except for updating from beta label to GA",
            ));
        }
    }
    if minor >= 29 {
        let (class, old_class) = (
            spec.get("volumeAttributesClassName"),
            old_spec.get("volumeAttributesClassName"),
        );
        if class.filter(|c| !c.is_null()) != old_class.filter(|c| !c.is_null()) {
            errors.push(FieldError::forbidden(
                "spec.volumeAttributesClassName",
                "update is forbidden when the VolumeAttributesClass feature gate is disabled",
            ));
            if old_class.is_some_and(|c| !c.is_null()) && class.is_none_or(Value::is_null) {
                errors.push(FieldError::forbidden(
                    "spec.volumeAttributesClassName",
                    "update from non-nil value to nil is forbidden",
                ));
            }
        }
    }
    errors
}

/// The `PersistentVolumeSource` part of a spec.
fn sources_of(spec: &Value) -> Map<String, Value> {
    crate::semantics::pv_sources::SOURCES
        .iter()
        .filter_map(|(key, _)| Some(((*key).to_owned(), spec.get(*key).filter(|s| !s.is_null())?.clone())))
        .collect()
}

/// The affinity with each requirement's key that is the GA name of the old requirement's beta
/// key (at the same place) read as the old one, as `getMaskNodeSelectorLabelChangeEqualities`
/// compares them.
fn with_ga_keys(affinity: &Value, old: Option<&Value>) -> Value {
    let mut masked = affinity.clone();
    let terms = masked
        .pointer_mut("/required/nodeSelectorTerms")
        .and_then(Value::as_array_mut);
    for (i, term) in terms.into_iter().flatten().enumerate() {
        for list in ["matchExpressions", "matchFields"] {
            let requirements = term.get_mut(list).and_then(Value::as_array_mut);
            for (j, requirement) in requirements.into_iter().flatten().enumerate() {
                let pointer = format!("/required/nodeSelectorTerms/{i}/{list}/{j}/key");
                let old_key = old.and_then(|o| o.pointer(&pointer)).and_then(Value::as_str);
                let key = requirement.get("key").and_then(Value::as_str).unwrap_or_default();
                if let Some(old_key) = old_key
                    && BETA_TO_GA.iter().any(|(beta, ga)| *beta == old_key && *ga == key)
                {
                    requirement["key"] = Value::String(old_key.to_owned());
                }
            }
        }
    }
    masked
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
    fn node_selectors_should_be_checked_term_by_term() {
        let selector = json!({"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Gt", "values": []}],
            "matchFields": [{"key": "spec.x", "operator": "In", "values": ["a"]}]}]});
        assert_eq!(
            fields(&node_selector_errors(&selector, "r")),
            [
                "r.nodeSelectorTerms[0].matchExpressions[0].values",
                "r.nodeSelectorTerms[0].matchFields[0].key"
            ]
        );
        assert_eq!(fields(&node_selector_errors(&json!({}), "r")), ["r.nodeSelectorTerms"]);
    }

    #[test]
    fn an_update_should_keep_the_source_and_move_affinity_labels_to_ga_only() {
        let mut old = volume();
        let term = |key: &str| json!({"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": ["a"]}]}]}});
        old["spec"]["nodeAffinity"] = term("failure-domain.beta.kubernetes.io/zone");
        let mut ga = old.clone();
        ga["spec"]["nodeAffinity"] = term("topology.kubernetes.io/zone");
        assert!(volume_update_errors(&ga, &old, 28).is_empty());
        let mut other = old.clone();
        other["spec"]["nodeAffinity"] = term("zone");
        assert_eq!(fields(&volume_update_errors(&other, &old, 28)), ["nodeAffinity"]);
        let mut moved = old.clone();
        moved["spec"]["hostPath"]["path"] = json!("/elsewhere");
        assert_eq!(
            fields(&volume_update_errors(&moved, &old, 28)),
            ["spec.persistentvolumesource"]
        );
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
