//! What an update of a PersistentVolumeClaim may change, as `pkg/apis/core/validation/validation.go`
//! has it: `ValidatePersistentVolumeClaimUpdate` (a spec frozen but for the volume name once, a
//! bound claim's storage request, the beta storage-class annotation's upgrade paths; 1.29's
//! attributes class rules) and `ValidatePersistentVolumeClaimStatusUpdate` (capacities, and the
//! allocated resources a stored claim already reports).

use std::cmp::Ordering;

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::pvc_validation::{BETA_STORAGE_CLASS, ClaimOptions, claim_errors, field, text};
use crate::semantics::quantity::Quantity;
use crate::semantics::quantity_validation::resource_quantity_errors;
use crate::semantics::workload_validation::semantic;

/// `ValidatePersistentVolumeClaimUpdate` less the object metadata: the spec is immutable but
/// for the volume name (once), the storage class set from the beta annotation or from nothing,
/// and a bound claim's storage request, which may only grow.
pub(crate) fn claim_update_errors(claim: &Value, old: &Value, options: ClaimOptions) -> Vec<FieldError> {
    let mut errors = claim_errors(claim, options);
    let (spec, old_spec) = (field(claim, "spec"), field(old, "spec"));
    let mut new_view = spec.as_object().cloned().unwrap_or_default();
    let mut old_view = old_spec.as_object().cloned().unwrap_or_default();
    if text(old_spec, "volumeName").is_empty() {
        copy_key(&mut old_view, &new_view, "volumeName");
    }
    let annotation = |object: &Value| {
        object
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(BETA_STORAGE_CLASS))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let (old_annotation, new_annotation) = (annotation(old), annotation(claim));
    let class = |spec: &Value| spec.get("storageClassName").and_then(Value::as_str).map(str::to_owned);
    let (old_class, new_class) = (class(old_spec), class(spec));
    // validateStorageClassUpgradeFromAnnotation.
    let from_annotation = old_annotation.is_some()
        && old_class.is_none()
        && new_class.is_some()
        && new_class == old_annotation
        && (new_annotation.is_none() || new_annotation == old_annotation);
    if from_annotation {
        new_view.remove("storageClassName");
    } else {
        // ValidateImmutableAnnotation of the beta annotation (absent reads as empty).
        let (new_text, old_text) = (
            new_annotation.unwrap_or_default(),
            old_annotation.clone().unwrap_or_default(),
        );
        if new_text != old_text {
            errors.push(FieldError::invalid(
                format!("metadata.annotations.{BETA_STORAGE_CLASS}"),
                new_text.as_str().into(),
                "field is immutable",
            ));
        }
        // validateStorageClassUpgradeFromNil.
        if new_class.is_some()
            && old_class.is_none()
            && old_annotation.as_ref().is_none_or(|a| Some(a) == new_class.as_ref())
        {
            copy_key(&mut new_view, &old_view, "storageClassName");
        }
    }
    let bound = claim.pointer("/status/phase").and_then(Value::as_str) == Some("Bound");
    if bound
        && let Some(requests) = new_view
            .get_mut("resources")
            .and_then(|r| r.get_mut("requests"))
            .and_then(Value::as_object_mut)
    {
        match old_spec.pointer("/resources/requests/storage") {
            Some(storage) => requests.insert("storage".to_owned(), storage.clone()),
            None => requests.remove("storage"),
        };
    }
    if options.minor >= 29 && bound && new_view.get("volumeAttributesClassName").is_some_and(|v| !v.is_null()) {
        copy_key(&mut new_view, &old_view, "volumeAttributesClassName");
    }
    let (new_view, old_view) = (Value::Object(new_view), Value::Object(old_view));
    if !same_claim_spec(&new_view, &old_view) {
        let headline = if options.minor >= 29 {
            "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"
        } else {
            "spec is immutable after creation except resources.requests for bound claims"
        };
        errors.push(FieldError::forbidden(
            "spec",
            format!(
                "{headline}\n{}",
                spec_diff("core.PersistentVolumeClaimSpec", &old_view, &new_view)
            ),
        ));
    }
    let storage = |spec: &Value| {
        spec.pointer("/resources/requests/storage")
            .and_then(Value::as_str)
            .and_then(|s| Quantity::parse(s).ok())
            .unwrap_or_else(|| Quantity::from_int(0))
    };
    let (old_size, new_size) = (storage(old_spec), storage(spec));
    if new_size.cmp_value(&old_size) == Ordering::Less {
        let at = "spec.resources.requests.storage";
        if !options.recover_expansion {
            errors.push(FieldError::forbidden(at, "field can not be less than previous value"));
        } else {
            let capacity = old
                .pointer("/status/capacity/storage")
                .and_then(Value::as_str)
                .and_then(|s| Quantity::parse(s).ok())
                .unwrap_or_else(|| Quantity::from_int(0));
            if new_size.cmp_value(&capacity) != Ordering::Greater {
                errors.push(FieldError::forbidden(at, "field can not be less than status.capacity"));
            }
        }
    }
    // ValidateImmutableField(VolumeMode) names the field without its parent.
    let (mode, old_mode) = (field(spec, "volumeMode"), field(old_spec, "volumeMode"));
    if mode != old_mode {
        let shown = match mode.as_str() {
            Some(mode) => BadValue::Str(mode.to_owned()),
            None => BadValue::Raw("(*core.PersistentVolumeMode)(nil)".to_owned()),
        };
        errors.push(FieldError::invalid("volumeMode", shown, "field is immutable"));
    }
    if options.minor >= 29 {
        errors.extend(attributes_class_update_errors(spec, old_spec));
    }
    errors
}

/// 1.29's rules on `volumeAttributesClassName`: with the gate off (as served) any change is
/// refused, and once set it may not be unset or emptied.
fn attributes_class_update_errors(spec: &Value, old_spec: &Value) -> Vec<FieldError> {
    let (new, old) = (
        field(spec, "volumeAttributesClassName"),
        field(old_spec, "volumeAttributesClassName"),
    );
    if new == old {
        return Vec::new();
    }
    let at = "spec.volumeAttributesClassName";
    let mut errors = vec![FieldError::forbidden(
        at,
        "update is forbidden when the VolumeAttributesClass feature gate is disabled",
    )];
    // A stored class name keeps its validation on.
    if !old.is_null() {
        match new.as_str() {
            None => errors.push(FieldError::forbidden(
                at,
                "update from non-nil value to nil is forbidden",
            )),
            Some("") => errors.push(FieldError::forbidden(
                at,
                "update from non-nil value to an empty string is forbidden",
            )),
            Some(_) => {}
        }
    }
    errors
}

fn copy_key(to: &mut Map<String, Value>, from: &Map<String, Value>, key: &str) {
    match from.get(key) {
        Some(value) => to.insert(key.to_owned(), value.clone()),
        None => to.remove(key),
    };
}

/// `apiequality.Semantic.DeepEqual` of two claim specs: quantities compare by value.
fn same_claim_spec(a: &Value, b: &Value) -> bool {
    semantic(&canonical_quantities(a)) == semantic(&canonical_quantities(b))
}

/// The spec with its resource quantities in canonical form.
fn canonical_quantities(spec: &Value) -> Value {
    let mut spec = spec.clone();
    for list in ["requests", "limits"] {
        if let Some(map) = spec
            .pointer_mut(&format!("/resources/{list}"))
            .and_then(Value::as_object_mut)
        {
            for value in map.values_mut() {
                if let Some(quantity) = value.as_str().and_then(|s| Quantity::parse(s).ok()) {
                    *value = Value::String(quantity.to_string());
                }
            }
        }
    }
    spec
}

/// What Go's `cmp.Diff(old, new)` shows of two structs (of `go_type`), in its layout (`-` old, `+` new, the
/// unchanged fields counted); cmp's own spacing is deliberately unstable, so only its shape is
/// kept.
pub(crate) fn spec_diff(go_type: &str, old: &Value, new: &Value) -> String {
    let empty = Map::new();
    let (old, new) = (old.as_object().unwrap_or(&empty), new.as_object().unwrap_or(&empty));
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut lines = vec![format!("  {go_type}{{")];
    let mut identical = 0;
    for key in keys {
        let (a, b) = (old.get(key), new.get(key));
        if a.map(semantic) == b.map(semantic) {
            identical += 1;
            continue;
        }
        let go_name = upper_first(key);
        if let Some(a) = a {
            lines.push(format!("- \t{go_name}: {},", names::go_syntax(a)));
        }
        if let Some(b) = b {
            lines.push(format!("+ \t{go_name}: {},", names::go_syntax(b)));
        }
    }
    if identical > 0 {
        lines.push(format!("  \t... // {identical} identical fields"));
    }
    lines.push("  }".to_owned());
    lines.join("\n") + "\n"
}

fn upper_first(key: &str) -> String {
    let mut chars = key.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// `resizeStatusSet` of the minor, sorted (1.31 renamed `ControllerResizeFailed` to
/// `ControllerResizeInfeasible` and `NodeResizeFailed` to `NodeResizeInfeasible`).
fn resize_statuses(minor: u32) -> Vec<String> {
    let names: &[&str] = if minor >= 31 {
        &[
            "ControllerResizeInProgress",
            "ControllerResizeInfeasible",
            "NodeResizeInProgress",
            "NodeResizeInfeasible",
            "NodeResizePending",
        ]
    } else {
        &[
            "ControllerResizeFailed",
            "ControllerResizeInProgress",
            "NodeResizeFailed",
            "NodeResizeInProgress",
            "NodeResizePending",
        ]
    };
    names.iter().map(|s| (*s).to_owned()).collect()
}

/// `ValidatePersistentVolumeClaimStatusUpdate` less the object metadata.
pub(crate) fn claim_status_update_errors(claim: &Value, options: ClaimOptions) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if claim
        .pointer("/spec/accessModes")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        errors.push(FieldError::required("Spec.accessModes", ""));
    }
    let status = field(claim, "status");
    for (resource, value) in sorted(field(status, "capacity")) {
        errors.extend(basic_resource_errors(value, &format!("status.capacity[{resource}]")));
    }
    if !options.recover_expansion {
        return errors;
    }
    let statuses = resize_statuses(options.minor);
    for (resource, value) in sorted(field(status, "allocatedResourceStatuses")) {
        let at = "status.allocatedResourceStatus";
        errors.extend(resource_key_errors(resource, at));
        if !statuses.iter().any(|s| Some(s.as_str()) == value.as_str()) {
            errors.push(FieldError::not_supported(at, resource.as_str().into(), &statuses));
        }
    }
    for (resource, value) in sorted(field(status, "allocatedResources")) {
        let at = "status.allocatedResources";
        let key_errors = resource_key_errors(resource, at);
        if !key_errors.is_empty() {
            errors.extend(key_errors);
            continue;
        }
        let keyed = format!("{at}[{resource}]");
        let basic = basic_resource_errors(value, &keyed);
        if basic.is_empty() {
            errors.extend(resource_quantity_errors(
                "storage",
                value.as_str().unwrap_or_default(),
                &keyed,
            ));
        } else {
            errors.extend(basic);
        }
    }
    errors
}

/// A map's entries by key (Go ranges over it in random order; the causes compare as a set).
fn sorted(map: &Value) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = map.as_object().into_iter().flatten().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

/// `validateBasicResource`: `Value()` (rounded away from zero) must not be negative.
pub(crate) fn basic_resource_errors(value: &Value, at: &str) -> Vec<FieldError> {
    let Some(quantity) = value.as_str().and_then(|s| Quantity::parse(s).ok()) else {
        return Vec::new();
    };
    let whole = quantity.value();
    if whole < 0 {
        return vec![FieldError::invalid(
            at,
            BadValue::Int(whole),
            "must be a valid resource quantity",
        )];
    }
    Vec::new()
}

/// `validatePersistentVolumeClaimResourceKey`: a qualified name, and `storage` alone among the
/// native resources.
fn resource_key_errors(key: &str, at: &str) -> Vec<FieldError> {
    let errors: Vec<FieldError> = names::qualified_name_errors(key)
        .into_iter()
        .map(|why| FieldError::invalid(at, key.into(), why))
        .collect();
    if !errors.is_empty() {
        return errors;
    }
    let native = !key.contains('/') || key.contains("kubernetes.io/");
    if native && key != "storage" {
        return vec![FieldError::not_supported(at, key.into(), &["storage".to_owned()])];
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    fn claim() -> Value {
        json!({"metadata": {"name": "c"}, "spec": {"accessModes": ["ReadWriteOnce"], "volumeMode": "Filesystem",
            "resources": {"requests": {"storage": "1Gi"}}}, "status": {"phase": "Pending"}})
    }

    #[test]
    fn an_unbound_claim_should_keep_its_spec() {
        let options = ClaimOptions::for_claim(Some(&claim()), 28);
        let mut grown = claim();
        grown["spec"]["resources"]["requests"]["storage"] = json!("1024Mi");
        assert!(claim_update_errors(&grown, &claim(), options).is_empty());
        let mut shrunk = claim();
        shrunk["spec"]["resources"]["requests"]["storage"] = json!("1Mi");
        let errors = claim_update_errors(&shrunk, &claim(), options);
        assert_eq!(
            errors.iter().map(|e| e.field.as_str()).collect::<Vec<_>>(),
            ["spec", "spec.resources.requests.storage"]
        );
        let mut named = claim();
        named["spec"]["volumeName"] = json!("pv1");
        assert!(claim_update_errors(&named, &claim(), options).is_empty());
    }

    #[test]
    fn a_status_should_have_no_negative_capacity() {
        let mut claim = claim();
        claim["status"]["capacity"] = json!({"storage": "-1Gi"});
        assert_eq!(
            rendered(&claim_status_update_errors(&claim, ClaimOptions::default())),
            ["status.capacity[storage]: Invalid value: -1073741824: must be a valid resource quantity"]
        );
    }
}
