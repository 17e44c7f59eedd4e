//! What a pod update may change, as `pkg/apis/core/validation/validation.go` has it:
//! `ValidatePodUpdate` (the pod checked again as `validatePodMetadataAndSpec` does, then
//! `ValidatePodSpecificAnnotationUpdates`; the images, a shorter deadline, added tolerations)
//! and `ValidatePodEphemeralContainersUpdate` (ephemeral containers are only added). The
//! diffs Go appends to its "may not change" messages (go-cmp's, randomized on purpose) are
//! shortened to the fields that changed.

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::pod_annotation_validation::{allows_invalid_cost, pod_annotation_update_errors};
use crate::semantics::pod_validation::pod_metadata_and_spec_errors;

/// What a pod update may change, as `updatablePodSpecFieldsNoResources` lists it.
const UPDATABLE: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// `validateOnlyDeletedSchedulingGates`: a gate may be removed, never added. (Go walks the
/// added gates in map order; one added gate, the usual case, reads the same.)
fn added_scheduling_gates(spec: &Value, old_spec: &Value) -> Vec<FieldError> {
    let names = |s: &Value| -> Vec<String> {
        s.get("schedulingGates")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|gate| gate.get("name").and_then(Value::as_str).unwrap_or_default().to_owned())
            .collect()
    };
    let (new, old) = (names(spec), names(old_spec));
    new.iter()
        .enumerate()
        // A name at its last index, as the map Go fills keeps it.
        .filter(|(i, name)| !old.contains(name) && !new[i + 1..].contains(name))
        .map(|(i, name)| {
            FieldError::forbidden(
                format!("spec.schedulingGates[{i}].name"),
                format!("only deletion is allowed, but found new scheduling gate '{name}'"),
            )
        })
        .collect()
}

/// `ValidatePodUpdate`: the pod as a create checks it, the annotations fixed at creation kept,
/// and no change but the images, the deadline (only shorter) and added tolerations.
pub(crate) fn pod_update_errors(pod: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let empty = Value::Object(Map::new());
    let (spec, old_spec) = (pod.get("spec").unwrap_or(&empty), old.get("spec").unwrap_or(&empty));
    let mut errors = pod_metadata_and_spec_errors(pod, Some(old), minor);
    errors.extend(pod_annotation_update_errors(pod, old, allows_invalid_cost(Some(old))));
    for list in ["containers", "initContainers"] {
        let count = |s: &Value| s.get(list).and_then(Value::as_array).map_or(0, Vec::len);
        if count(spec) != count(old_spec) {
            errors.push(FieldError::forbidden(
                format!("spec.{list}"),
                "pod updates may not add or remove containers",
            ));
            return errors;
        }
    }
    let deadline = |s: &Value| s.get("activeDeadlineSeconds").and_then(Value::as_i64);
    match (deadline(spec), deadline(old_spec)) {
        (Some(new), Some(before)) if new > before => {
            let why = "must be less than or equal to previous value";
            errors.push(FieldError::invalid(
                "spec.activeDeadlineSeconds",
                BadValue::Int(new),
                why,
            ));
            return errors;
        }
        (None, Some(_)) => errors.push(FieldError::invalid(
            "spec.activeDeadlineSeconds",
            BadValue::Raw("(*int64)(nil)".to_owned()),
            "must not update from a positive integer to nil value",
        )),
        _ => {}
    }
    errors.extend(added_scheduling_gates(spec, old_spec));
    let mut munged = spec.clone();
    for list in ["containers", "initContainers"] {
        let olds = old_spec
            .get(list)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if let Some(items) = munged.get_mut(list).and_then(Value::as_array_mut) {
            for (item, before) in items.iter_mut().zip(&olds) {
                item["image"] = before.get("image").cloned().unwrap_or(Value::Null);
            }
        }
    }
    if let Some(fields) = munged.as_object_mut() {
        for key in ["activeDeadlineSeconds", "tolerations", "schedulingGates"] {
            match old_spec.get(key) {
                Some(value) => fields.insert(key.to_owned(), value.clone()),
                None => fields.remove(key),
            };
        }
    }
    if munged != *old_spec {
        errors.push(FieldError::forbidden(
            "spec",
            format!(
                "pod updates may not change fields other than {UPDATABLE}\n{}",
                changed_fields(old_spec, &munged)
            ),
        ));
    }
    errors
}

/// `ValidatePodEphemeralContainersUpdate`: the pod as a whole, the annotations fixed at
/// creation kept, and every ephemeral container the pod had is still there, unchanged.
pub(crate) fn ephemeral_update_errors(pod: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = pod_metadata_and_spec_errors(pod, Some(old), minor);
    errors.extend(pod_annotation_update_errors(pod, old, allows_invalid_cost(Some(old))));
    let list = |p: &Value| {
        p.pointer("/spec/ephemeralContainers")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let (new, before) = (list(pod), list(old));
    for container in &before {
        let name = container.get("name").and_then(Value::as_str).unwrap_or_default();
        match new.iter().find(|c| c.get("name").and_then(Value::as_str) == Some(name)) {
            None => errors.push(FieldError::forbidden(
                "spec.ephemeralContainers",
                format!("existing ephemeral containers {name:?} may not be removed\n"),
            )),
            Some(now) if now != container => errors.push(FieldError::forbidden(
                "spec.ephemeralContainers",
                format!(
                    "existing ephemeral containers {name:?} may not be changed\n{}",
                    changed_fields(container, now)
                ),
            )),
            Some(_) => {}
        }
    }
    errors
}

/// The fields that differ between two objects, one per line, in the place of go-cmp's diff.
fn changed_fields(old: &Value, new: &Value) -> String {
    let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else {
        return String::new();
    };
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| old.get(*k) != new.get(*k))
        .map(|k| {
            format!(
                "  {k}: {} -> {}\n",
                old.get(k).unwrap_or(&Value::Null),
                new.get(k).unwrap_or(&Value::Null)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    fn pod() -> Value {
        json!({"spec": {"restartPolicy": "Never", "dnsPolicy": "ClusterFirst",
            "containers": [{"name": "c", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}]}})
    }

    #[test]
    fn scheduling_gates_should_only_be_removed() {
        let gated = |names: &[&str]| {
            let mut pod = pod();
            pod["spec"]["schedulingGates"] = names.iter().map(|n| json!({"name": n})).collect();
            pod
        };
        assert!(pod_update_errors(&gated(&["a"]), &gated(&["a", "b"]), 28).is_empty());
        let added = pod_update_errors(&gated(&["a", "b"]), &gated(&["a"]), 28);
        assert_eq!(
            rendered(&added),
            ["spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'b'"]
        );
    }

    #[test]
    fn a_pod_update_should_change_images_only() {
        let mut image = pod();
        image["spec"]["containers"][0]["image"] = json!("busybox:2");
        assert!(pod_update_errors(&image, &pod(), 28).is_empty());
        let mut policy = pod();
        policy["spec"]["restartPolicy"] = json!("Always");
        let errors = pod_update_errors(&policy, &pod(), 28);
        assert!(
            errors[0]
                .detail
                .starts_with("pod updates may not change fields other than")
        );
    }

    #[test]
    fn pod_annotations_should_be_checked_twice_and_an_invalid_cost_kept() {
        let cost = |value: &str| {
            let mut pod = pod();
            pod["metadata"] = json!({"annotations": {"controller.kubernetes.io/pod-deletion-cost": value}});
            pod
        };
        let fields: Vec<String> = pod_update_errors(&cost("x"), &pod(), 28)
            .iter()
            .map(|e| e.field.clone())
            .collect();
        let field = "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]";
        assert_eq!(fields, [field, field]);
        assert!(pod_update_errors(&cost("y"), &cost("x"), 28).is_empty());
    }

    #[test]
    fn ephemeral_containers_should_only_be_added() {
        let mut one = pod();
        one["spec"]["ephemeralContainers"] =
            json!([{"name": "e", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}]);
        assert!(ephemeral_update_errors(&one, &pod(), 28).is_empty());
        let errors = ephemeral_update_errors(&pod(), &one, 28);
        assert_eq!(
            errors[0].detail,
            "existing ephemeral containers \"e\" may not be removed\n"
        );
    }
}
