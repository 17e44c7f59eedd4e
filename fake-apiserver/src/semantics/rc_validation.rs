//! PodTemplates and ReplicationControllers as `pkg/apis/core/validation/validation.go`
//! validates them: `ValidatePodTemplate(+Update)`, `ValidateReplicationController(+Update)`
//! with `ValidateReplicationControllerSpec`, `ValidateNonEmptySelector` and
//! `ValidatePodTemplateSpecForRC`, `ValidateReplicationControllerStatusUpdate`; and what the
//! replicationcontroller strategy's `ValidateUpdate` adds for non-convertible annotations
//! (`pkg/registry/core/replicationcontroller/strategy.go`).

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError, nonnegative};
use crate::semantics::label_selector_validation::string_map_go;
use crate::semantics::pod_annotation_validation::allows_invalid_cost;
use crate::semantics::pod_validation::pod_template_errors;
use crate::semantics::workload_validation::{always_running_errors, read_only_disk_errors, read_only_disks_checked};

/// `helper.NonConvertibleFields`' annotation prefix.
const NON_CONVERTIBLE: &str = "non-convertible.kubernetes.io";

fn int(value: &Value, key: &str) -> i64 {
    value.get(key).and_then(Value::as_i64).unwrap_or(0)
}

/// `ValidatePodTemplate` (and `ValidatePodTemplateUpdate` of the stored `old`, the same checks
/// with its template's options) less the object metadata: the template at `template`, which an
/// absent one fails as an empty one does.
pub(crate) fn pod_template_object_errors(object: &Value, old: Option<&Value>, minor: u32) -> Vec<FieldError> {
    let empty = Value::Object(Map::new());
    let lenient_cost = allows_invalid_cost(old.and_then(|old| old.get("template")));
    pod_template_errors(
        object.get("template").unwrap_or(&empty),
        "template",
        lenient_cost,
        minor,
    )
}

/// `ValidateReplicationController` less the object metadata, on the Kubernetes `minor`; `old`
/// is the stored controller of an update (its volumes for the read-only disk rule),
/// `lenient_cost` the template's `AllowInvalidPodDeletionCost`.
pub(crate) fn controller_errors(
    controller: &Value,
    old: Option<&Value>,
    lenient_cost: bool,
    minor: u32,
) -> Vec<FieldError> {
    let spec = controller.get("spec").unwrap_or(&Value::Null);
    let mut errors = nonnegative(int(spec, "minReadySeconds"), "spec.minReadySeconds");
    let selector = spec.get("selector").and_then(Value::as_object);
    // `ValidateNonEmptySelector`: `labels.Set(...).AsSelector().Empty()`.
    if selector.is_none_or(Map::is_empty) {
        errors.push(FieldError::required("spec.selector", ""));
    }
    errors.extend(nonnegative(int(spec, "replicas"), "spec.replicas"));
    let Some(template) = spec.get("template").filter(|t| !t.is_null()) else {
        errors.push(FieldError::required("spec.template", ""));
        return errors;
    };
    let labels = template.pointer("/metadata/labels").and_then(Value::as_object);
    if let Some(selector) = selector.filter(|s| !s.is_empty()) {
        let matches = selector.iter().all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v));
        if !matches {
            errors.push(FieldError::invalid(
                "spec.template.metadata.labels",
                BadValue::Raw(string_map_go(labels.filter(|l| !l.is_empty()))),
                "`selector` does not match template `labels`",
            ));
        }
    }
    errors.extend(pod_template_errors(template, "spec.template", lenient_cost, minor));
    if int(spec, "replicas") > 1 && read_only_disks_checked(minor) {
        let old_volumes = old.and_then(|o| o.pointer("/spec/template/spec/volumes"));
        errors.extend(read_only_disk_errors(template.pointer("/spec/volumes"), old_volumes));
    }
    errors.extend(always_running_errors(template, "ReplicationController"));
    errors
}

/// The strategy's `ValidateUpdate`: `ValidateReplicationController`, then
/// `ValidateReplicationControllerUpdate`, which checks the spec again (so each spec error comes
/// twice, as kube-apiserver's causes list it), then a non-convertible selector must stay and
/// any other non-convertible field is unknown.
pub(crate) fn controller_update_errors(controller: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    // Both checks take the options of the stored template.
    let lenient_cost = allows_invalid_cost(old.pointer("/spec/template"));
    let mut errors = controller_errors(controller, None, lenient_cost, minor);
    errors.extend(controller_errors(controller, Some(old), lenient_cost, minor));
    let annotations = old.pointer("/metadata/annotations").and_then(Value::as_object);
    let mut broken: Vec<(&String, &Value)> = annotations
        .into_iter()
        .flatten()
        .filter(|(key, _)| key.starts_with(NON_CONVERTIBLE))
        .collect();
    broken.sort_by(|a, b| a.0.cmp(b.0));
    for (key, value) in broken {
        let parts: Vec<&str> = key.split('/').collect();
        let [_, field] = parts[..] else {
            continue;
        };
        if field.contains("selector") {
            let selector = controller.pointer("/spec/selector").and_then(Value::as_object);
            let old_selector = old.pointer("/spec/selector").and_then(Value::as_object);
            if selector.filter(|s| !s.is_empty()) != old_selector.filter(|s| !s.is_empty()) {
                errors.push(FieldError::invalid(
                    "spec.selector",
                    BadValue::Raw(string_map_go(selector)),
                    "cannot update non-convertible selector",
                ));
            }
        } else {
            let mut error = FieldError::not_found(field, BadValue::Str(value.as_str().unwrap_or_default().to_owned()));
            error.detail = "unknown non-convertible field".to_owned();
            errors.push(error);
        }
    }
    errors
}

/// `ValidateReplicationControllerStatus` of a `/status` write.
pub(crate) fn controller_status_errors(controller: &Value) -> Vec<FieldError> {
    let status = controller.get("status").unwrap_or(&Value::Null);
    let count = |key: &str| int(status, key);
    let mut errors: Vec<FieldError> = [
        "replicas",
        "fullyLabeledReplicas",
        "readyReplicas",
        "availableReplicas",
        "observedGeneration",
    ]
    .iter()
    .flat_map(|key| nonnegative(count(key), &format!("status.{key}")))
    .collect();
    let above = "cannot be greater than status.replicas";
    for key in ["fullyLabeledReplicas", "readyReplicas", "availableReplicas"] {
        if count(key) > count("replicas") {
            errors.push(FieldError::invalid(
                format!("status.{key}"),
                BadValue::Int(count(key)),
                above,
            ));
        }
    }
    if count("availableReplicas") > count("readyReplicas") {
        errors.push(FieldError::invalid(
            "status.availableReplicas",
            BadValue::Int(count("availableReplicas")),
            "cannot be greater than readyReplicas",
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_controller_should_select_its_template() {
        let good = json!({"spec": {"replicas": 0, "selector": {"app": "web"}, "template": {"metadata": {"labels": {"app": "web"}},
            "spec": {"restartPolicy": "Always", "dnsPolicy": "ClusterFirst",
            "containers": [{"name": "c", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}]}}}});
        assert!(controller_errors(&good, None, false, 28).is_empty());
        let mut bad = good.clone();
        bad["spec"]["selector"] = json!({"app": "api"});
        assert_eq!(
            rendered(&controller_errors(&bad, None, false, 28)),
            [
                "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`"
            ]
        );
        assert_eq!(
            rendered(&controller_errors(&json!({"spec": {}}), None, false, 28)),
            ["spec.selector: Required value", "spec.template: Required value"]
        );
    }

    #[test]
    fn a_controller_status_should_count_consistently() {
        let status = json!({"status": {"replicas": 1, "readyReplicas": 2, "availableReplicas": 3}});
        assert_eq!(controller_status_errors(&status).len(), 3);
    }

    #[test]
    fn a_non_convertible_field_should_be_unknown() {
        let old = json!({"metadata": {"annotations": {"non-convertible.kubernetes.io/spec.foo": "x"}}, "spec": {}});
        let errors = controller_update_errors(&old, &old, 28);
        assert!(rendered(&errors).contains(&"spec.foo: Not found: \"x\": unknown non-convertible field".to_owned()));
    }
}
