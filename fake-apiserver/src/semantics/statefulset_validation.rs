//! apps/v1 StatefulSets as kube-apiserver v1.28 validates them (`pkg/apis/apps/validation/validation.go`:
//! `ValidateStatefulSetSpec`, `ValidateStatefulSetUpdate`, `ValidateStatefulSetStatus(Update)`,
//! `ValidatePodTemplateSpecForStatefulSet`, `validateRollingUpdateStatefulSet`,
//! `ValidatePersistentVolumeClaimRetentionPolicy`). Object metadata is checked for every kind
//! elsewhere (a StatefulSet's name is a DNS label).
//!
//! A StatefulSet's pod template is not validated as a pod's (only its labels and annotations,
//! with `ValidatePodSpecificAnnotations`), nor are its claim templates; an update may change
//! only replicas, ordinals, template, update strategy, claim retention and minReadySeconds.

use serde_json::{Map, Value};

use crate::semantics::apps_set_strategy::semantic_equal;
use crate::semantics::daemonset_validation::collision_count_decremented;
use crate::semantics::deployment_strategy_validation::{
    int_or_percent_errors, int_or_percent_value, int_or_string_go, percent_value,
};
use crate::semantics::field_error::{BadValue, FieldError, go_quote, nonnegative};
use crate::semantics::label_selector_validation::{
    is_empty_selector, label_selector_go, selector_fails, selects, string_map_go,
};
use crate::semantics::pod_annotation_validation::{allows_invalid_cost, pod_annotation_errors};
use crate::semantics::template_metadata::template_metadata_errors;
use crate::semantics::workload_validation::{always_running_errors, required_selector_errors, spec_of};

/// `ValidateStatefulSetUpdate`'s refusal of any other change.
const FORBIDDEN_UPDATE: &str = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/// The spec fields an update may change.
const UPDATABLE: [&str; 6] = [
    "replicas",
    "template",
    "updateStrategy",
    "minReadySeconds",
    "ordinals",
    "persistentVolumeClaimRetentionPolicy",
];

/// `ValidateStatefulSet`, less the object metadata.
pub(crate) fn stateful_set_errors(stateful_set: &Value) -> Vec<FieldError> {
    spec_errors(spec_of(stateful_set), false)
}

/// `ValidateStatefulSetUpdate`: the spec again (a deletion cost already invalid in the stored
/// template may stay), then whether anything but the updatable fields changed.
pub(crate) fn stateful_set_update_errors(stateful_set: &Value, old: &Value) -> Vec<FieldError> {
    let (spec, old_spec) = (spec_of(stateful_set), spec_of(old));
    let mut errors = spec_errors(spec, allows_invalid_cost(old_spec.get("template")));
    let fixed = |spec: &Value| -> Value {
        let mut fields = spec.as_object().cloned().unwrap_or_default();
        fields.retain(|key, _| !UPDATABLE.contains(&key.as_str()));
        Value::Object(fields)
    };
    if !semantic_equal(Some(&fixed(spec)), Some(&fixed(old_spec))) {
        errors.push(FieldError::forbidden("spec", FORBIDDEN_UPDATE));
    }
    errors
}

/// `ValidateStatefulSetStatusUpdate`: the counts, and a collision count that only grows.
pub(crate) fn stateful_set_status_update_errors(stateful_set: &Value, old: &Value) -> Vec<FieldError> {
    let status = stateful_set.get("status").unwrap_or(&Value::Null);
    let int = |key: &str| status.get(key).and_then(Value::as_i64).unwrap_or(0);
    let mut errors = Vec::new();
    for key in [
        "replicas",
        "readyReplicas",
        "currentReplicas",
        "updatedReplicas",
        "availableReplicas",
    ] {
        errors.extend(nonnegative(int(key), &format!("status.{key}")));
    }
    for key in ["observedGeneration", "collisionCount"] {
        if let Some(value) = status.get(key).and_then(Value::as_i64) {
            errors.extend(nonnegative(value, &format!("status.{key}")));
        }
    }
    for key in [
        "readyReplicas",
        "currentReplicas",
        "updatedReplicas",
        "availableReplicas",
    ] {
        if int(key) > int("replicas") {
            errors.push(FieldError::invalid(
                format!("status.{key}"),
                BadValue::Int(int(key)),
                "cannot be greater than status.replicas",
            ));
        }
    }
    if int("availableReplicas") > int("readyReplicas") {
        errors.push(FieldError::invalid(
            "status.availableReplicas",
            BadValue::Int(int("availableReplicas")),
            "cannot be greater than status.readyReplicas",
        ));
    }
    errors.extend(collision_count_decremented(stateful_set, old));
    errors
}

/// `ValidateStatefulSetSpec`; `lenient_cost` is the template's
/// `AllowInvalidPodDeletionCost`.
fn spec_errors(spec: &Value, lenient_cost: bool) -> Vec<FieldError> {
    let text = |key: &str| spec.get(key).and_then(Value::as_str).unwrap_or_default();
    let int = |key: &str| spec.get(key).and_then(Value::as_i64).unwrap_or(0);
    let mut errors = Vec::new();
    match text("podManagementPolicy") {
        "" => errors.push(FieldError::required("spec.podManagementPolicy", "")),
        "OrderedReady" | "Parallel" => {}
        other => errors.push(FieldError::invalid(
            "spec.podManagementPolicy",
            other.into(),
            "must be 'OrderedReady' or 'Parallel'",
        )),
    }
    errors.extend(update_strategy_errors(
        spec.get("updateStrategy").unwrap_or(&Value::Null),
    ));
    if let Some(policy) = spec
        .get("persistentVolumeClaimRetentionPolicy")
        .filter(|p| !p.is_null())
    {
        for key in ["whenDeleted", "whenScaled"] {
            let value = policy.get(key).and_then(Value::as_str).unwrap_or_default();
            if !matches!(value, "Retain" | "Delete") {
                errors.push(FieldError::not_supported(
                    format!("spec.persistentVolumeClaimRetentionPolicy.{key}"),
                    value.into(),
                    &["Retain".to_owned(), "Delete".to_owned()],
                ));
            }
        }
    }
    errors.extend(nonnegative(int("replicas"), "spec.replicas"));
    errors.extend(nonnegative(int("minReadySeconds"), "spec.minReadySeconds"));
    if let Some(ordinals) = spec.get("ordinals").filter(|o| !o.is_null()) {
        let start = ordinals.get("start").and_then(Value::as_i64).unwrap_or(0);
        errors.extend(nonnegative(start, "spec.ordinals.start"));
    }
    let selector = spec.get("selector").filter(|s| !s.is_null());
    errors.extend(required_selector_errors(selector, "statefulset"));
    let empty = Value::Object(Map::new());
    let template = spec.get("template").filter(|t| t.is_object()).unwrap_or(&empty);
    match selector.filter(|s| selector_fails(s)) {
        // `LabelSelectorAsSelector` failed: the selector is invalid, with no detail.
        Some(selector) => errors.push(FieldError::invalid("spec.selector", label_selector_go(selector), "")),
        None => errors.extend(template_errors(template, selector, lenient_cost)),
    }
    errors.extend(always_running_errors(template, "StatefulSet"));
    errors
}

/// `ValidatePodTemplateSpecForStatefulSet`: the labels must be selected (a missing selector is
/// `labels.Nothing()`, which is not empty and selects nothing; an empty one selects all and is
/// not compared), then the template's labels and annotations alone, with the annotations a pod
/// reads.
fn template_errors(template: &Value, selector: Option<&Value>, lenient_cost: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let labels = template.pointer("/metadata/labels").and_then(Value::as_object);
    let everything = selector.is_some_and(is_empty_selector);
    if !everything && !selects(selector, labels.unwrap_or(&Map::new())) {
        errors.push(FieldError::invalid(
            "spec.template.metadata.labels",
            BadValue::Raw(string_map_go(labels)),
            "`selector` does not match template `labels`",
        ));
    }
    errors.extend(template_metadata_errors(template, "spec.template"));
    errors.extend(pod_annotation_errors(
        template,
        "spec.template.annotations",
        lenient_cost,
    ));
    errors
}

/// The update strategy's part of `ValidateStatefulSetSpec`.
fn update_strategy_errors(strategy: &Value) -> Vec<FieldError> {
    let path = "spec.updateStrategy";
    let rolling = strategy.get("rollingUpdate").filter(|r| !r.is_null());
    match strategy.get("type").and_then(Value::as_str).unwrap_or_default() {
        "" => vec![FieldError::required(path, "")],
        "OnDelete" => rolling
            .map(|rolling| {
                FieldError::invalid(
                    format!("{path}.rollingUpdate"),
                    BadValue::Raw(rolling_update_go(rolling)),
                    "only allowed for updateStrategy 'RollingUpdate'",
                )
            })
            .into_iter()
            .collect(),
        "RollingUpdate" => rolling.map(rolling_update_errors).unwrap_or_default(),
        other => {
            // Go prints the internal struct; its pointer is an address, so only nil is exact.
            let pointer = if rolling.is_some() {
                "(*apps.RollingUpdateStatefulSetStrategy)(0xc000000000)"
            } else {
                "(*apps.RollingUpdateStatefulSetStrategy)(nil)"
            };
            let shown = format!(
                "apps.StatefulSetUpdateStrategy{{Type:{}, RollingUpdate:{pointer}}}",
                go_quote(other)
            );
            vec![FieldError::invalid(
                path,
                BadValue::Raw(shown),
                "must be 'RollingUpdate' or 'OnDelete'",
            )]
        }
    }
}

/// `validateRollingUpdateStatefulSet`: a non-negative partition, and a `maxUnavailable` (kept
/// only where the stored object had one) that is a valid non-zero bound of at most 100%.
fn rolling_update_errors(rolling: &Value) -> Vec<FieldError> {
    let path = "spec.updateStrategy.rollingUpdate";
    let partition = rolling.get("partition").and_then(Value::as_i64).unwrap_or(0);
    let mut errors = nonnegative(partition, &format!("{path}.partition"));
    if let Some(unavailable) = rolling.get("maxUnavailable").filter(|m| !m.is_null()) {
        let at = format!("{path}.maxUnavailable");
        errors.extend(int_or_percent_errors(unavailable, &at));
        if int_or_percent_value(unavailable) == 0 {
            errors.push(FieldError::invalid(&at, int_or_string_go(unavailable), "cannot be 0"));
        }
        if percent_value(unavailable).is_some_and(|p| p > 100) {
            errors.push(FieldError::invalid(
                &at,
                int_or_string_go(unavailable),
                "must not be greater than 100%",
            ));
        }
    }
    errors
}

/// Go's `%#v` of an `apps.RollingUpdateStatefulSetStrategy` (its `MaxUnavailable` pointer an
/// address unless nil).
fn rolling_update_go(rolling: &Value) -> String {
    let partition = rolling.get("partition").and_then(Value::as_i64).unwrap_or(0);
    let unavailable = match rolling.get("maxUnavailable").filter(|m| !m.is_null()) {
        Some(_) => "(*intstr.IntOrString)(0xc000000000)",
        None => "(*intstr.IntOrString)(nil)",
    };
    format!("apps.RollingUpdateStatefulSetStrategy{{Partition:{partition}, MaxUnavailable:{unavailable}}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::field_error::{reasons, rendered};
    use serde_json::json;

    fn stateful_set() -> Value {
        json!({"metadata": {"name": "s"}, "spec": {
            "replicas": 1, "serviceName": "s", "podManagementPolicy": "OrderedReady", "revisionHistoryLimit": 10,
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
            "selector": {"matchLabels": {"app": "s"}},
            "template": {"metadata": {"labels": {"app": "s"}}, "spec": {"restartPolicy": "Always", "containers": []}},
            "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"resources": {"requests": {"storage": "1Gi"}}}}]}})
    }

    #[test]
    fn a_defaulted_stateful_set_is_valid_whatever_its_pod_spec() {
        assert!(stateful_set_errors(&stateful_set()).is_empty());
    }

    #[test]
    fn policies_strategy_and_counts_are_checked_in_gos_order() {
        let mut sts = stateful_set();
        let spec = &mut sts["spec"];
        spec["podManagementPolicy"] = json!("Sometimes");
        spec["updateStrategy"] = json!({"type": "Sideways", "rollingUpdate": {"partition": 0}});
        spec["persistentVolumeClaimRetentionPolicy"]["whenScaled"] = json!("Drop");
        spec["replicas"] = json!(-1);
        spec["ordinals"] = json!({"start": -1});
        spec["revisionHistoryLimit"] = json!(-3);
        let errors = stateful_set_errors(&sts);
        assert_eq!(
            reasons(&errors),
            [
                "FieldValueInvalid spec.podManagementPolicy",
                "FieldValueInvalid spec.updateStrategy",
                "FieldValueNotSupported spec.persistentVolumeClaimRetentionPolicy.whenScaled",
                "FieldValueInvalid spec.replicas",
                "FieldValueInvalid spec.ordinals.start",
            ]
        );
        assert!(rendered(&errors)[1].contains(
            "apps.StatefulSetUpdateStrategy{Type:\"Sideways\", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(0xc000000000)}"
        ));
    }

    #[test]
    fn rolling_updates_belong_to_the_rolling_strategy_with_a_valid_max_unavailable() {
        let mut sts = stateful_set();
        sts["spec"]["updateStrategy"] = json!({"type": "OnDelete", "rollingUpdate": {"partition": 1}});
        assert_eq!(
            rendered(stateful_set_errors(&sts)),
            [
                "spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:1, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'"
            ]
        );
        sts["spec"]["updateStrategy"] =
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": -1, "maxUnavailable": "0%"}});
        assert_eq!(
            reasons(stateful_set_errors(&sts)),
            [
                "FieldValueInvalid spec.updateStrategy.rollingUpdate.partition",
                "FieldValueInvalid spec.updateStrategy.rollingUpdate.maxUnavailable",
            ]
        );
    }

    #[test]
    fn the_template_must_be_selected_and_always_restart() {
        let mut sts = stateful_set();
        sts["spec"]["selector"] = Value::Null;
        sts["spec"]["template"]["spec"]["restartPolicy"] = json!("Never");
        sts["spec"]["template"]["spec"]["activeDeadlineSeconds"] = json!(5);
        assert_eq!(
            reasons(stateful_set_errors(&sts)),
            [
                "FieldValueRequired spec.selector",
                "FieldValueInvalid spec.template.metadata.labels",
                "FieldValueNotSupported spec.template.spec.restartPolicy",
                "FieldValueForbidden spec.template.spec.activeDeadlineSeconds",
            ]
        );
        sts["spec"]["selector"] = json!({});
        sts["spec"]["template"]["spec"] = json!({"restartPolicy": "Always"});
        assert_eq!(reasons(stateful_set_errors(&sts)), ["FieldValueInvalid spec.selector"]);
    }

    #[test]
    fn updates_may_change_only_the_updatable_fields() {
        let old = stateful_set();
        let mut new = stateful_set();
        new["spec"]["replicas"] = json!(3);
        new["spec"]["minReadySeconds"] = json!(5);
        new["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"] = json!("1024Mi");
        assert!(stateful_set_update_errors(&new, &old).is_empty());
        new["spec"]["serviceName"] = json!("other");
        assert_eq!(
            reasons(stateful_set_update_errors(&new, &old)),
            ["FieldValueForbidden spec"]
        );
        let mut claims = stateful_set();
        claims["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"] = json!("2Gi");
        assert_eq!(
            reasons(stateful_set_update_errors(&claims, &old)),
            ["FieldValueForbidden spec"]
        );
    }

    #[test]
    fn status_counts_stay_within_replicas_and_collisions_only_grow() {
        let old = json!({"status": {"collisionCount": 2}});
        let new = json!({"status": {"replicas": 1, "readyReplicas": 2, "availableReplicas": 1, "collisionCount": 1}});
        assert_eq!(
            rendered(stateful_set_status_update_errors(&new, &old)),
            [
                "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
                "status.collisionCount: Invalid value: 1: cannot be decremented",
            ]
        );
    }
}
