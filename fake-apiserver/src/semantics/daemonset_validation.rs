//! apps/v1 DaemonSets as kube-apiserver v1.28 validates them (`pkg/apis/apps/validation/validation.go`:
//! `ValidateDaemonSetSpec`, `ValidateDaemonSetUpdate`, `ValidateDaemonSetSpecUpdate`,
//! `ValidateDaemonSetStatusUpdate`, `ValidateDaemonSetUpdateStrategy`,
//! `ValidateRollingUpdateDaemonSet`) with what the strategy adds
//! (`pkg/registry/apps/daemonset/strategy.go`): an update runs the create validation, then the
//! update one (so spec errors come twice), then the selector's immutability. Object metadata is
//! checked for every kind elsewhere.
//!
//! The internal `spec.templateGeneration` is the `deprecated.daemonset.template.generation`
//! annotation in apps/v1; the strategy has set it before this runs.

use serde_json::{Map, Value};

use crate::semantics::apps_set_strategy::semantic_equal;
use crate::semantics::defaults::apps_sets::template_generation;
use crate::semantics::deployment_strategy_validation::{
    int_or_percent_errors, int_or_percent_value, int_or_string_go, percent_value,
};
use crate::semantics::field_error::{BadValue, FieldError, go_quote, nonnegative};
use crate::semantics::label_selector_validation::{
    has_invalid_label_value, is_empty_selector, label_selector_errors, label_selector_go, selector_fails, selects,
    string_map_go,
};
use crate::semantics::pod_annotation_validation::allows_invalid_cost;
use crate::semantics::pod_validation::pod_template_errors;
use crate::semantics::workload_validation::{
    always_running_errors, read_only_disk_errors, read_only_disks_checked, selector_immutable,
};

/// `ValidateDaemonSet`, less the object metadata.
pub(crate) fn daemon_set_errors(daemon_set: &Value, minor: u32) -> Vec<FieldError> {
    spec_errors(daemon_set, None, false, false, minor)
}

/// The strategy's `ValidateUpdate`: `ValidateDaemonSet`, `ValidateDaemonSetUpdate` and the
/// selector's immutability. A stored selector with an invalid label value lets the new one
/// keep such values (`AllowInvalidLabelValueInSelector`), a stored template with an invalid
/// deletion cost its own (`AllowInvalidPodDeletionCost`).
pub(crate) fn daemon_set_update_errors(daemon_set: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let lenient = old
        .pointer("/spec/selector")
        .filter(|s| !s.is_null())
        .is_some_and(has_invalid_label_value);
    let lenient_cost = allows_invalid_cost(old.pointer("/spec/template"));
    let mut errors = spec_errors(daemon_set, None, lenient, lenient_cost, minor);
    errors.extend(template_generation_errors(daemon_set, old));
    errors.extend(spec_errors(daemon_set, Some(old), lenient, lenient_cost, minor));
    errors.extend(selector_immutable(daemon_set, old));
    errors
}

/// `ValidateDaemonSetStatusUpdate`: the counts, and a collision count that only grows.
pub(crate) fn daemon_set_status_update_errors(daemon_set: &Value, old: &Value) -> Vec<FieldError> {
    let status = daemon_set.get("status").unwrap_or(&Value::Null);
    let mut errors = Vec::new();
    for key in [
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
        "observedGeneration",
        "updatedNumberScheduled",
        "numberAvailable",
        "numberUnavailable",
    ] {
        let value = status.get(key).and_then(Value::as_i64).unwrap_or(0);
        errors.extend(nonnegative(value, &format!("status.{key}")));
    }
    if let Some(count) = status.get("collisionCount").and_then(Value::as_i64) {
        errors.extend(nonnegative(count, "status.collisionCount"));
    }
    errors.extend(collision_count_decremented(daemon_set, old));
    errors
}

/// `IsDecremented` of `status.collisionCount`: removing the count decrements it too, shown as 0.
pub(crate) fn collision_count_decremented(object: &Value, old: &Value) -> Option<FieldError> {
    let count = |object: &Value| object.pointer("/status/collisionCount").and_then(Value::as_i64);
    let before = count(old)?;
    let now = count(object);
    now.is_none_or(|now| now < before).then(|| {
        FieldError::invalid(
            "status.collisionCount",
            BadValue::Int(now.unwrap_or(0)),
            "cannot be decremented",
        )
    })
}

/// `ValidateDaemonSetSpecUpdate`: the template generation never goes down, and goes up with
/// the template alone.
fn template_generation_errors(daemon_set: &Value, old: &Value) -> Vec<FieldError> {
    let (new_generation, old_generation) = (
        template_generation(daemon_set).unwrap_or(0),
        template_generation(old).unwrap_or(0),
    );
    let path = "spec.templateGeneration";
    let shown = BadValue::Int(new_generation);
    let mut errors = Vec::new();
    if new_generation < old_generation {
        errors.push(FieldError::invalid(path, shown.clone(), "must not be decremented"));
    }
    let updated = !semantic_equal(daemon_set.pointer("/spec/template"), old.pointer("/spec/template"));
    if new_generation == old_generation && updated {
        errors.push(FieldError::invalid(
            path,
            shown,
            "must be incremented upon template update",
        ));
    } else if new_generation > old_generation && !updated {
        errors.push(FieldError::invalid(
            path,
            shown,
            "must not be incremented without template update",
        ));
    }
    errors
}

/// `ValidateDaemonSetSpec`, with the stored object for the read-only disk check; `lenient` is
/// `AllowInvalidLabelValueInSelector`, `lenient_cost` `AllowInvalidPodDeletionCost`.
fn spec_errors(
    daemon_set: &Value,
    old: Option<&Value>,
    lenient: bool,
    lenient_cost: bool,
    minor: u32,
) -> Vec<FieldError> {
    let spec = daemon_set.get("spec").unwrap_or(&Value::Null);
    let mut errors = Vec::new();
    let selector = spec.get("selector").filter(|s| !s.is_null());
    if let Some(selector) = selector {
        errors.extend(label_selector_errors(selector, "spec.selector", lenient));
    }
    let empty = Value::Object(Map::new());
    let template = spec.get("template").filter(|t| t.is_object()).unwrap_or(&empty);
    let labels = template.pointer("/metadata/labels").and_then(Value::as_object);
    // `LabelSelectorAsSelector`: none selects nothing, an empty one everything, and one that
    // does not parse is not compared.
    let everything = selector.is_some_and(is_empty_selector);
    if !selector.is_some_and(selector_fails) && !everything && !selects(selector, labels.unwrap_or(&Map::new())) {
        errors.push(FieldError::invalid(
            "spec.template.metadata.labels",
            BadValue::Raw(string_map_go(labels)),
            "`selector` does not match template `labels`",
        ));
    }
    if let Some(selector) = selector.filter(|s| is_empty_selector(s)) {
        errors.push(FieldError::invalid(
            "spec.selector",
            label_selector_go(selector),
            "empty selector is invalid for daemonset",
        ));
    }
    errors.extend(pod_template_errors(template, "spec.template", lenient_cost, minor));
    if read_only_disks_checked(minor) {
        let old_volumes = old.and_then(|o| o.pointer("/spec/template/spec/volumes"));
        errors.extend(read_only_disk_errors(template.pointer("/spec/volumes"), old_volumes));
    }
    errors.extend(always_running_errors(template, "DaemonSet"));
    let int = |key: &str| spec.get(key).and_then(Value::as_i64);
    errors.extend(nonnegative(int("minReadySeconds").unwrap_or(0), "spec.minReadySeconds"));
    let generation = template_generation(daemon_set).unwrap_or(0);
    errors.extend(nonnegative(generation, "spec.templateGeneration"));
    errors.extend(update_strategy_errors(
        spec.get("updateStrategy").unwrap_or(&Value::Null),
    ));
    if let Some(limit) = int("revisionHistoryLimit") {
        errors.extend(nonnegative(limit, "spec.revisionHistoryLimit"));
    }
    errors
}

/// `ValidateDaemonSetUpdateStrategy`.
fn update_strategy_errors(strategy: &Value) -> Vec<FieldError> {
    let path = "spec.updateStrategy";
    let rolling = strategy.get("rollingUpdate").filter(|r| !r.is_null());
    match strategy.get("type").and_then(Value::as_str).unwrap_or_default() {
        "OnDelete" => Vec::new(),
        "RollingUpdate" => match rolling {
            None => vec![FieldError::required(format!("{path}.rollingUpdate"), "")],
            Some(rolling) => rolling_update_errors(rolling),
        },
        other => {
            // Go prints the internal struct; its pointer is an address, so only nil is exact.
            let pointer = if rolling.is_some() {
                "(*apps.RollingUpdateDaemonSet)(0xc000000000)"
            } else {
                "(*apps.RollingUpdateDaemonSet)(nil)"
            };
            let shown = format!(
                "apps.DaemonSetUpdateStrategy{{Type:{}, RollingUpdate:{pointer}}}",
                go_quote(other)
            );
            let supported = ["RollingUpdate".to_owned(), "OnDelete".to_owned()];
            vec![FieldError::not_supported(path, BadValue::Raw(shown), &supported)]
        }
    }
}

/// `ValidateRollingUpdateDaemonSet`: both bounds non-negative ints or percentages of at most
/// 100%, exactly one of them non-zero.
fn rolling_update_errors(rolling: &Value) -> Vec<FieldError> {
    let path = "spec.updateStrategy.rollingUpdate";
    // The internal bounds are values: an unset one is the integer 0.
    let zero = Value::from(0);
    let unavailable = rolling.get("maxUnavailable").filter(|v| !v.is_null()).unwrap_or(&zero);
    let surge = rolling.get("maxSurge").filter(|v| !v.is_null()).unwrap_or(&zero);
    let (unavailable_at, surge_at) = (format!("{path}.maxUnavailable"), format!("{path}.maxSurge"));
    let mut errors = int_or_percent_errors(unavailable, &unavailable_at);
    errors.extend(int_or_percent_errors(surge, &surge_at));
    for (value, at) in [(unavailable, &unavailable_at), (surge, &surge_at)] {
        if percent_value(value).is_some_and(|p| p > 100) {
            errors.push(FieldError::invalid(
                at,
                int_or_string_go(value),
                "must not be greater than 100%",
            ));
        }
    }
    match (int_or_percent_value(unavailable) != 0, int_or_percent_value(surge) != 0) {
        (true, true) => errors.push(FieldError::invalid(
            surge_at,
            int_or_string_go(surge),
            "may not be set when maxUnavailable is non-zero",
        )),
        (false, false) => errors.push(FieldError::required(unavailable_at, "cannot be 0 when maxSurge is 0")),
        _ => {}
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::defaults::apps_sets::TEMPLATE_GENERATION;
    use crate::semantics::field_error::{reasons, rendered};
    use serde_json::json;

    fn daemon_set() -> Value {
        json!({"metadata": {"name": "d", "annotations": {TEMPLATE_GENERATION: "1"}}, "spec": {
            "revisionHistoryLimit": 10, "selector": {"matchLabels": {"app": "d"}},
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
            "template": {"metadata": {"labels": {"app": "d"}}, "spec": {
                "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "terminationGracePeriodSeconds": 30,
                "containers": [{"name": "c", "image": "nginx", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}]}}}})
    }

    #[test]
    fn a_defaulted_daemon_set_is_valid() {
        assert_eq!(reasons(daemon_set_errors(&daemon_set(), 28)), Vec::<String>::new());
    }

    #[test]
    fn counts_and_an_unknown_strategy_are_refused_in_gos_order() {
        let mut ds = daemon_set();
        ds["spec"]["minReadySeconds"] = json!(-1);
        ds["spec"]["revisionHistoryLimit"] = json!(-1);
        ds["spec"]["updateStrategy"] = json!({"type": "Sideways"});
        let errors = daemon_set_errors(&ds, 28);
        assert_eq!(
            reasons(&errors),
            [
                "FieldValueInvalid spec.minReadySeconds",
                "FieldValueNotSupported spec.updateStrategy",
                "FieldValueInvalid spec.revisionHistoryLimit",
            ]
        );
        assert_eq!(
            rendered(&errors)[1],
            "spec.updateStrategy: Unsupported value: apps.DaemonSetUpdateStrategy{Type:\"Sideways\", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported values: \"RollingUpdate\", \"OnDelete\""
        );
    }

    #[test]
    fn exactly_one_rolling_bound_is_non_zero_and_at_most_100_percent() {
        let mut ds = daemon_set();
        ds["spec"]["updateStrategy"]["rollingUpdate"] = json!({"maxUnavailable": 0, "maxSurge": 0});
        assert_eq!(
            rendered(daemon_set_errors(&ds, 28)),
            ["spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"]
        );
        ds["spec"]["updateStrategy"]["rollingUpdate"] = json!({"maxUnavailable": "150%", "maxSurge": 1});
        assert_eq!(
            rendered(daemon_set_errors(&ds, 28)),
            [
                "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"150%\"}: must not be greater than 100%",
                "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:\"\"}: may not be set when maxUnavailable is non-zero",
            ]
        );
    }

    #[test]
    fn an_empty_selector_selects_all_and_a_missing_one_nothing() {
        let mut ds = daemon_set();
        ds["spec"]["selector"] = json!({});
        ds["spec"]["template"]["spec"]["restartPolicy"] = json!("OnFailure");
        assert_eq!(
            reasons(daemon_set_errors(&ds, 28)),
            [
                "FieldValueInvalid spec.selector",
                "FieldValueNotSupported spec.template.spec.restartPolicy"
            ]
        );
        ds["spec"]["selector"] = Value::Null;
        assert_eq!(
            reasons(daemon_set_errors(&ds, 28))[0],
            "FieldValueInvalid spec.template.metadata.labels"
        );
    }

    #[test]
    fn an_update_repeats_the_spec_checks_and_keeps_the_selector() {
        let old = daemon_set();
        let mut new = daemon_set();
        new["spec"]["minReadySeconds"] = json!(-1);
        new["spec"]["selector"] = json!({"matchLabels": {"app": "d", "x": "y"}});
        new["spec"]["template"]["metadata"]["labels"]["x"] = json!("y");
        new["metadata"]["annotations"][TEMPLATE_GENERATION] = json!("2");
        assert_eq!(
            reasons(daemon_set_update_errors(&new, &old, 28)),
            [
                "FieldValueInvalid spec.minReadySeconds",
                "FieldValueInvalid spec.minReadySeconds",
                "FieldValueInvalid spec.selector"
            ]
        );
        new["metadata"]["annotations"][TEMPLATE_GENERATION] = json!("1");
        assert!(rendered(daemon_set_update_errors(&new, &old, 28)).contains(
            &"spec.templateGeneration: Invalid value: 1: must be incremented upon template update".to_owned()
        ));
    }

    #[test]
    fn status_counts_are_non_negative() {
        let new = json!({"status": {"numberReady": -1, "collisionCount": 0}});
        let old = json!({"status": {"collisionCount": 1}});
        assert_eq!(
            reasons(daemon_set_status_update_errors(&new, &old)),
            [
                "FieldValueInvalid status.numberReady",
                "FieldValueInvalid status.collisionCount"
            ]
        );
    }
}
