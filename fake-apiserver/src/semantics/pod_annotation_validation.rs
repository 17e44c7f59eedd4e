//! The annotations kube-apiserver reads as part of a pod, as
//! `pkg/apis/core/validation/validation.go` checks them on pods and pod templates:
//! `ValidatePodSpecificAnnotations` (a mirror pod names its node; the tolerations annotation
//! holds valid tolerations, `ValidateTolerationsInPodAnnotations`; the deletion cost is a
//! 32-bit integer, `helper.GetDeletionCostFromPodAnnotations`; then the seccomp and AppArmor
//! annotations, `security_annotation_validation`'s) and `ValidatePodSpecificAnnotationUpdates`
//! (the AppArmor and mirror annotations are fixed at creation). `AllowInvalidPodDeletionCost`
//! is set as `GetValidationOptionsFromPodSpecAndMeta` (`pkg/api/pod/util.go`) sets it. Go
//! ranges over the annotation map in random order; keys are taken sorted here.

use serde_json::{Map, Value};

use crate::semantics::field_error::FieldError;
use crate::semantics::security_annotation_validation::{
    APPARMOR_PREFIX, apparmor_annotation_errors, seccomp_annotation_errors,
};
use crate::semantics::toleration_annotation::tolerations_from_annotation;
use crate::semantics::toleration_validation::toleration_errors;

/// `core.MirrorPodAnnotationKey`: the pod is the API's copy of a kubelet's static pod.
pub(crate) const MIRROR: &str = "kubernetes.io/config.mirror";

/// `core.TolerationsAnnotationKey`.
const TOLERATIONS: &str = "scheduler.alpha.kubernetes.io/tolerations";

/// `core.PodDeletionCost`.
const DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// The annotations of a pod or pod template (none when it has none).
fn annotations(object: &Value) -> Option<&Map<String, Value>> {
    object.pointer("/metadata/annotations").and_then(Value::as_object)
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// `ValidatePodSpecificAnnotations` of a pod or pod template (`object`, whose `spec` the mirror
/// and AppArmor rules read), its errors under `path` (`metadata.annotations`,
/// `spec.template.annotations`).
pub(crate) fn pod_annotation_errors(object: &Value, path: &str, lenient_cost: bool) -> Vec<FieldError> {
    let Some(annotations) = annotations(object) else {
        return Vec::new();
    };
    let spec = object.get("spec").unwrap_or(&Value::Null);
    let mut errors = Vec::new();
    if let Some(mirror) = annotations.get(MIRROR)
        && spec
            .get("nodeName")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .is_empty()
    {
        errors.push(FieldError::invalid(
            format!("{path}[{MIRROR}]"),
            text(mirror).into(),
            "must set spec.nodeName if mirror pod annotation is set",
        ));
    }
    let tolerations = annotations.get(TOLERATIONS).map(text).unwrap_or_default();
    if !tolerations.is_empty() {
        errors.extend(annotation_toleration_errors(tolerations, path));
    }
    if !lenient_cost
        && let Some(cost) = annotations.get(DELETION_COST).map(text)
        && !is_deletion_cost(cost)
    {
        errors.push(FieldError::invalid(
            format!("{path}[{DELETION_COST}]"),
            cost.into(),
            "must be a 32bit integer",
        ));
    }
    errors.extend(seccomp_annotation_errors(annotations, path));
    errors.extend(apparmor_annotation_errors(annotations, spec, path));
    errors
}

/// `ValidateTolerationsInPodAnnotations`: a decoding error is the annotations' (its value the
/// key), the tolerations' errors are under the key as a child (`Child`, not `Key`: a dotted
/// path).
fn annotation_toleration_errors(annotation: &str, path: &str) -> Vec<FieldError> {
    match tolerations_from_annotation(annotation) {
        Err(why) => vec![FieldError::invalid(path, TOLERATIONS.into(), why)],
        Ok(tolerations) if tolerations.is_empty() => Vec::new(),
        Ok(tolerations) => toleration_errors(Some(&Value::Array(tolerations)), &format!("{path}.{TOLERATIONS}")),
    }
}

/// Whether `GetDeletionCostFromPodAnnotations` reads the value: no sign but a minus, no
/// leading zero, and then `strconv.ParseInt(value, 10, 32)`.
fn is_deletion_cost(value: &str) -> bool {
    let valid_first_digit = match value.as_bytes().first() {
        Some(b'-' | b'1'..=b'9') => true,
        Some(b'0') => value == "0",
        _ => false,
    };
    valid_first_digit && value.parse::<i32>().is_ok()
}

/// `AllowInvalidPodDeletionCost` of an update whose stored pod or template is `old` (off for a
/// create): a cost that was already invalid may stay.
pub(crate) fn allows_invalid_cost(old: Option<&Value>) -> bool {
    let cost = old.and_then(annotations).and_then(|a| a.get(DELETION_COST));
    cost.is_some_and(|cost| !is_deletion_cost(text(cost)))
}

/// `ValidatePodSpecificAnnotationUpdates` of a pod update: no AppArmor or mirror annotation
/// removed, changed or added, then `ValidatePodSpecificAnnotations` of the new pod (again, after
/// `validatePodMetadataAndSpec`, so its errors come twice).
pub(crate) fn pod_annotation_update_errors(pod: &Value, old: &Value, lenient_cost: bool) -> Vec<FieldError> {
    let path = "metadata.annotations";
    let empty = Map::new();
    let (new, before) = (annotations(pod).unwrap_or(&empty), annotations(old).unwrap_or(&empty));
    let fixed = |key: &str| key.starts_with(APPARMOR_PREFIX) || key == MIRROR;
    let what = |key: &str| {
        if key == MIRROR {
            "mirror pod annotation"
        } else {
            "AppArmor annotations"
        }
    };
    let mut errors = Vec::new();
    for (key, value) in before {
        if new.get(key).is_some_and(|now| now == value) || !fixed(key) {
            continue;
        }
        errors.push(FieldError::forbidden(
            format!("{path}[{key}]"),
            format!("may not remove or update {}", what(key)),
        ));
    }
    for key in new.keys().filter(|key| !before.contains_key(*key) && fixed(key)) {
        let what = what(key);
        errors.push(FieldError::forbidden(
            format!("{path}[{key}]"),
            format!("may not add {what}"),
        ));
    }
    errors.extend(pod_annotation_errors(pod, path, lenient_cost));
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    fn pod(annotations: Value) -> Value {
        json!({"metadata": {"annotations": annotations}, "spec": {"containers": [{"name": "c"}]}})
    }

    #[test]
    fn the_deletion_cost_should_parse_as_go_parses_it() {
        for good in ["0", "-15", "2147483647", "-2147483648", "-05"] {
            assert!(is_deletion_cost(good), "{good}");
        }
        for bad in ["", "+1", "007", "00", "-", "2147483648", "1.5", "one", " 1"] {
            assert!(!is_deletion_cost(bad), "{bad}");
        }
        let old = pod(json!({DELETION_COST: "x"}));
        assert!(allows_invalid_cost(Some(&old)));
        assert!(!allows_invalid_cost(Some(&pod(json!({DELETION_COST: "1"})))));
        assert!(!allows_invalid_cost(None));
        assert!(pod_annotation_errors(&old, "metadata.annotations", true).is_empty());
    }

    #[test]
    fn pod_annotations_should_be_checked_in_go_order() {
        let errors = pod_annotation_errors(
            &pod(json!({MIRROR: "m", TOLERATIONS: "{}", DELETION_COST: "one"})),
            "spec.template.annotations",
            false,
        );
        assert_eq!(
            rendered(errors),
            [
                "spec.template.annotations[kubernetes.io/config.mirror]: Invalid value: \"m\": must set spec.nodeName if mirror pod annotation is set",
                "spec.template.annotations: Invalid value: \"scheduler.alpha.kubernetes.io/tolerations\": json: cannot unmarshal object into Go value of type []core.Toleration",
                "spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: \"one\": must be a 32bit integer",
            ]
        );
        let tolerations = pod(json!({TOLERATIONS: r#"[{"key":"k","operator":"In"}]"#}));
        assert_eq!(
            rendered(pod_annotation_errors(&tolerations, "metadata.annotations", false)),
            [
                "metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[0].operator: Unsupported value: \"In\": supported values: \"Equal\", \"Exists\""
            ]
        );
        let mut mirror = pod(json!({MIRROR: "m", TOLERATIONS: ""}));
        mirror["spec"]["nodeName"] = json!("n");
        assert!(pod_annotation_errors(&mirror, "metadata.annotations", false).is_empty());
    }

    #[test]
    fn apparmor_and_mirror_annotations_should_be_fixed_at_creation() {
        let old = pod(json!({"container.apparmor.security.beta.kubernetes.io/c": "unconfined", MIRROR: "x", "a": "1"}));
        let mut new =
            pod(json!({"container.apparmor.security.beta.kubernetes.io/d": "unconfined", MIRROR: "y", "a": "2"}));
        new["spec"]["nodeName"] = json!("n");
        assert_eq!(
            rendered(pod_annotation_update_errors(&new, &old, false)),
            [
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: Forbidden: may not remove or update AppArmor annotations",
                "metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not remove or update mirror pod annotation",
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/d]: Forbidden: may not add AppArmor annotations",
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/d]: Invalid value: \"d\": container not found",
            ]
        );
        // Unchanged, only the mirror pod's missing node name is an error.
        assert_eq!(pod_annotation_update_errors(&old, &old, false).len(), 1);
    }
}
