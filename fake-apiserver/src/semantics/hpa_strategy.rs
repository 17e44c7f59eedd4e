//! The horizontalpodautoscaler strategies (`pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go`)
//! where autoscaling/v1 needs more than the generic path: a v1 autoscaler's status and spec
//! are partly annotations, so what `PrepareForCreate` resets and what `PrepareForUpdate` keeps
//! of the stored object include them; and validation, which runs on the internal object, sees
//! a v1 autoscaler converted.

use serde_json::Value;

use crate::semantics::field_error::FieldError;
use crate::semantics::hpa_conversion::{BEHAVIOR, CONDITIONS, CURRENT_METRICS, METRICS, from_v1, is_v1};
use crate::semantics::hpa_validation;
use crate::storage::object::meta_mut;
use crate::storage::resource::ResourceInfo;

/// The annotations that hold a v1 autoscaler's status.
const STATUS_ANNOTATIONS: [&str; 2] = [CURRENT_METRICS, CONDITIONS];
/// The annotations that hold the rest of a v1 autoscaler's spec.
const SPEC_ANNOTATIONS: [&str; 2] = [METRICS, BEHAVIOR];

/// Whether `info` is a HorizontalPodAutoscaler resource (of either version).
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group == "autoscaling" && info.kind == "HorizontalPodAutoscaler"
}

fn concerns_v1(info: &ResourceInfo) -> bool {
    concerns(info) && is_v1(&info.api_version())
}

/// Whether the strategy changes a new v1 autoscaler before it is validated, so the field
/// manager must see it as sent.
pub(crate) fn changes_on_create(info: &ResourceInfo) -> bool {
    concerns_v1(info)
}

/// `PrepareForCreate`: the status is reset (the generic path resets v1's status field; its
/// annotations go here).
pub(crate) fn prepare_create(info: &ResourceInfo, hpa: &mut Value) {
    if concerns_v1(info) {
        keep_annotations(hpa, None, &STATUS_ANNOTATIONS);
    }
}

/// `PrepareForUpdate` (the status is the stored one) and the status strategy's (the spec is
/// the stored one), for the annotations of a v1 autoscaler that hold them.
pub(crate) fn prepare_update(info: &ResourceInfo, old: &Value, hpa: &mut Value, subresource: Option<&str>) {
    if !concerns_v1(info) {
        return;
    }
    match subresource {
        None => keep_annotations(hpa, Some(old), &STATUS_ANNOTATIONS),
        Some("status") => keep_annotations(hpa, Some(old), &SPEC_ANNOTATIONS),
        Some(_) => {}
    }
}

/// Sets `keys` in `hpa`'s annotations to `old`'s (none without `old`).
fn keep_annotations(hpa: &mut Value, old: Option<&Value>, keys: &[&str]) {
    let stored = old.and_then(|o| o.pointer("/metadata/annotations"));
    let meta = meta_mut(hpa);
    let annotations = meta
        .entry("annotations")
        .or_insert_with(|| Value::Object(Default::default()));
    if let Some(map) = annotations.as_object_mut() {
        for key in keys {
            match stored.and_then(|s| s.get(*key)) {
                Some(value) => map.insert((*key).to_owned(), value.clone()),
                None => map.remove(*key),
            };
        }
        if map.is_empty() {
            meta.remove("annotations");
        }
    }
}

/// The strategies' `Validate`, `ValidateUpdate` and the status strategy's, on the internal
/// (v2) form of the autoscaler.
pub(crate) fn errors(hpa: &Value, old: Option<&Value>, subresource: Option<&str>, minor: u32) -> Vec<FieldError> {
    let internal = |object: &Value| -> Value {
        if is_v1(object.get("apiVersion").and_then(Value::as_str).unwrap_or_default()) {
            from_v1(object)
        } else {
            object.clone()
        }
    };
    let hpa = internal(hpa);
    match (old, subresource) {
        (None, _) => hpa_validation::create_errors(&hpa, minor),
        (Some(_), Some("status")) => hpa_validation::status_update_errors(&hpa),
        (Some(old), _) => hpa_validation::update_errors(&hpa, &internal(old), minor),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn v1_updates_should_keep_the_stored_status_annotations_and_status_writes_the_spec_ones() {
        let info = ResourceInfo::builtin(
            "autoscaling",
            "v1",
            "HorizontalPodAutoscaler",
            "horizontalpodautoscalers",
        );
        let old = json!({"metadata": {"annotations": {CONDITIONS: "[]", METRICS: "[old]"}}});
        let mut update = json!({"metadata": {"annotations": {CURRENT_METRICS: "[x]", METRICS: "[new]"}}});
        prepare_update(&info, &old, &mut update, None);
        assert_eq!(
            update["metadata"]["annotations"],
            json!({CONDITIONS: "[]", METRICS: "[new]"})
        );
        let mut status = json!({"metadata": {"annotations": {CONDITIONS: "[c]", METRICS: "[new]"}}});
        prepare_update(&info, &old, &mut status, Some("status"));
        assert_eq!(
            status["metadata"]["annotations"],
            json!({CONDITIONS: "[c]", METRICS: "[old]"})
        );
        let mut created = json!({"metadata": {"annotations": {CONDITIONS: "[c]"}}});
        prepare_create(&info, &mut created);
        assert_eq!(created["metadata"], json!({}));
    }
}
