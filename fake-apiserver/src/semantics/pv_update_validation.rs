//! What an update of a PersistentVolume may change, as the persistentvolume strategy's
//! `ValidateUpdate` (`pkg/registry/core/persistentvolume/strategy.go`) and
//! `ValidatePersistentVolumeUpdate` (`pkg/apis/core/validation/validation.go`) have it: the
//! source and mode are immutable (a CSI volume may gain a controller expansion secret), node
//! affinity too once set but for beta labels moving to GA (`validatePvNodeAffinity` with
//! `getMaskNodeSelectorLabelChangeEqualities`), and 1.29's attributes class rules.

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::pv_sources::SOURCES;
use crate::semantics::pv_validation::volume_errors;
use crate::semantics::pvc_update_validation::spec_diff;
use crate::semantics::workload_validation::semantic;

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
    SOURCES
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
}
