//! Validation of pods and pod templates as `pkg/apis/core/validation/validation.go` has it, for
//! its main rules: `ValidatePodSpec` (volumes, containers — see `container_validation` —,
//! restart and DNS policies, names of the service account, node, host and subdomain, the
//! deadline, tolerations, the priority and runtime class names, preemption, the overhead),
//! `ValidatePodTemplateSpec` and `ValidatePodCreate` (no ephemeral containers yet); what an
//! update may change is `pod_update_validation`'s; the volumes are `volume_validation`'s; host
//! network ports, host aliases and gates are `pod_host_validation`'s; the pod's security
//! context, Windows host process pods and user namespaces are `security_context_validation`'s
//! and `windows_security_validation`'s; affinity `pod_affinity_validation`'s, the DNS
//! configuration `pod_dns_validation`'s, topology spread constraints
//! `topology_spread_validation`'s and the OS `pod_os_validation`'s.

use serde_json::{Map, Value};

use crate::semantics::container_resources_validation::resources_errors;
use crate::semantics::container_validation::{choice, containers_errors, image_whitespace_errors};
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::pod_affinity_validation::affinity_errors;
use crate::semantics::pod_dns_validation::dns_config_errors;
use crate::semantics::pod_host_validation::{
    host_alias_errors, host_network_errors, readiness_gate_errors, scheduling_gate_errors,
};
use crate::semantics::pod_os_validation::os_errors;
use crate::semantics::security_context_validation::{host_users_errors, pod_security_context_errors};
use crate::semantics::sysctl_validation::host_sysctls_allowed;
use crate::semantics::template_metadata::template_metadata_errors;
use crate::semantics::topology_spread_validation::topology_spread_errors;
use crate::semantics::volume_validation::volumes_errors;
use crate::semantics::windows_security_validation::host_process_errors;

/// `ValidatePodSpec` of the spec at `path`, of the pod named `pod_name` (none for a template),
/// updating the stored spec `old` if any, on the Kubernetes `minor`, its checks in Go's order
/// (the order of a refusal's causes).
pub(crate) fn pod_spec_errors(
    spec: &Value,
    old: Option<&Value>,
    path: &str,
    pod_name: Option<&str>,
    minor: u32,
) -> Vec<FieldError> {
    let text = |key: &str| spec.get(key).and_then(Value::as_str).unwrap_or_default();
    let (volumes, mut errors) = volumes_errors(spec.get("volumes"), &format!("{path}.volumes"), pod_name, minor);
    errors.extend(containers_errors(spec, path, &volumes, minor));
    errors.extend(host_network_errors(spec, path, pod_name.is_some()));
    errors.extend(choice(
        text("restartPolicy"),
        &format!("{path}.restartPolicy"),
        &["Always", "OnFailure", "Never"],
    ));
    errors.extend(choice(
        text("dnsPolicy"),
        &format!("{path}.dnsPolicy"),
        &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
    ));
    errors.extend(node_selector_errors(spec, path));
    errors.extend(pod_security_context_errors(
        spec,
        path,
        host_sysctls_allowed(old),
        minor,
    ));
    // `validateImagePullSecrets` refuses a reference with more than a name, which the v1 type
    // cannot carry.
    // `AllowInvalidLabelValueInSelector` and `AllowInvalidTopologySpreadConstraintLabelSelector`
    // are only set for an update whose stored spec has such selectors, which validation never
    // lets in here: they are off.
    errors.extend(affinity_errors(spec, path, false, minor));
    errors.extend(dns_config_errors(spec, path, minor));
    errors.extend(readiness_gate_errors(spec, path));
    errors.extend(scheduling_gate_errors(spec, path));
    errors.extend(topology_spread_errors(spec, path, false));
    errors.extend(host_process_errors(spec, path));
    errors.extend(host_users_errors(spec, path));
    // `ValidateServiceAccountName` and `ValidateNodeName` are DNS subdomain checks.
    for key in ["serviceAccountName", "nodeName"] {
        let value = text(key);
        if !value.is_empty() {
            for why in names::dns1123_subdomain_errors(value) {
                errors.push(FieldError::invalid(format!("{path}.{key}"), value.into(), why));
            }
        }
    }
    if let Some(deadline) = spec.get("activeDeadlineSeconds").and_then(Value::as_i64)
        && !(1..=i64::from(i32::MAX)).contains(&deadline)
    {
        let why = format!("must be between 1 and {}, inclusive", i32::MAX);
        errors.push(FieldError::invalid(
            format!("{path}.activeDeadlineSeconds"),
            BadValue::Int(deadline),
            why,
        ));
    }
    for key in ["hostname", "subdomain"] {
        let value = text(key);
        if !value.is_empty() {
            for why in names::dns1123_label_errors(value) {
                errors.push(FieldError::invalid(format!("{path}.{key}"), value.into(), why));
            }
        }
    }
    errors.extend(toleration_errors(
        spec.get("tolerations"),
        &format!("{path}.tolerations"),
    ));
    errors.extend(host_alias_errors(spec, path, minor));
    // `ValidatePriorityClassName` and `ValidateRuntimeClassName` are DNS subdomain checks; a
    // runtime class is checked when set at all, even empty.
    let priority_class = text("priorityClassName");
    if !priority_class.is_empty() {
        for why in names::dns1123_subdomain_errors(priority_class) {
            errors.push(FieldError::invalid(
                format!("{path}.priorityClassName"),
                priority_class.into(),
                why,
            ));
        }
    }
    if let Some(runtime_class) = spec.get("runtimeClassName").and_then(Value::as_str) {
        for why in names::dns1123_subdomain_errors(runtime_class) {
            errors.push(FieldError::invalid(
                format!("{path}.runtimeClassName"),
                runtime_class.into(),
                why,
            ));
        }
    }
    if let Some(policy) = spec.get("preemptionPolicy").and_then(Value::as_str) {
        errors.extend(choice(
            policy,
            &format!("{path}.preemptionPolicy"),
            &["PreemptLowerPriority", "Never"],
        ));
    }
    errors.extend(overhead_errors(spec, path, minor));
    errors.extend(os_errors(spec, path, minor));
    errors
}

/// `validateOverhead`: the overhead checked as a container's resource limits would be.
fn overhead_errors(spec: &Value, path: &str, minor: u32) -> Vec<FieldError> {
    let Some(overhead) = spec.get("overhead").filter(|o| !o.is_null()) else {
        return Vec::new();
    };
    let limits = serde_json::json!({ "limits": overhead });
    resources_errors(Some(&limits), &format!("{path}.overhead"), minor)
}

/// `ValidateLabels` of the node selector: each key a qualified name, each value a label value.
fn node_selector_errors(spec: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (key, value) in spec
        .get("nodeSelector")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        for why in names::qualified_name_errors(key) {
            errors.push(FieldError::invalid(
                format!("{path}.nodeSelector"),
                key.as_str().into(),
                why,
            ));
        }
        let value = value.as_str().unwrap_or_default();
        for why in names::label_value_errors(value) {
            errors.push(FieldError::invalid(format!("{path}.nodeSelector"), value.into(), why));
        }
    }
    errors
}

/// `ValidatePodTemplateSpec` of the template at `path` (labels and annotations, the spec, and
/// no ephemeral containers).
pub(crate) fn pod_template_errors(template: &Value, path: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = template_metadata_errors(template, path);
    let empty = Value::Object(Map::new());
    let spec = template.get("spec").unwrap_or(&empty);
    errors.extend(pod_spec_errors(spec, None, &format!("{path}.spec"), None, minor));
    if spec
        .get("ephemeralContainers")
        .and_then(Value::as_array)
        .is_some_and(|e| !e.is_empty())
    {
        errors.push(FieldError::forbidden(
            format!("{path}.spec.ephemeralContainers"),
            "ephemeral containers not allowed in pod template",
        ));
    }
    errors
}

/// `ValidatePodCreate`: the spec, images without surrounding space, and ephemeral containers
/// only through their subresource.
pub(crate) fn pod_create_errors(pod: &Value, minor: u32) -> Vec<FieldError> {
    let empty = Value::Object(Map::new());
    let spec = pod.get("spec").unwrap_or(&empty);
    let name = pod.pointer("/metadata/name").and_then(Value::as_str);
    let mut errors = pod_spec_errors(spec, None, "spec", name, minor);
    errors.extend(images_errors(spec));
    if spec
        .get("ephemeralContainers")
        .and_then(Value::as_array)
        .is_some_and(|e| !e.is_empty())
    {
        errors.push(FieldError::forbidden(
            "spec.ephemeralContainers",
            "cannot be set on create",
        ));
    }
    errors
}

/// `validateContainersOnlyForPod` of the regular and init containers.
pub(crate) fn images_errors(spec: &Value) -> Vec<FieldError> {
    ["containers", "initContainers"]
        .iter()
        .flat_map(|list| {
            spec.get(*list)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
                .flat_map(move |(i, c)| image_whitespace_errors(c, &format!("spec.{list}[{i}]")))
        })
        .collect()
}

/// `ValidateTolerations`.
pub(crate) fn toleration_errors(tolerations: Option<&Value>, field: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (i, toleration) in tolerations.and_then(Value::as_array).into_iter().flatten().enumerate() {
        let at = format!("{field}[{i}]");
        let text = |key: &str| toleration.get(key).and_then(Value::as_str).unwrap_or_default();
        let (key, operator, value, effect) = (text("key"), text("operator"), text("value"), text("effect"));
        let key_errors = if key.is_empty() {
            Vec::new()
        } else {
            names::qualified_name_errors(key)
        };
        for why in key_errors {
            errors.push(FieldError::invalid(format!("{at}.key"), key.into(), why));
        }
        if key.is_empty() && operator != "Exists" {
            errors.push(FieldError::invalid(
                format!("{at}.operator"),
                operator.into(),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if toleration.get("tolerationSeconds").is_some_and(|s| !s.is_null()) && effect != "NoExecute" {
            errors.push(FieldError::invalid(
                format!("{at}.effect"),
                effect.into(),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match operator {
            "Equal" | "" => {
                let why = names::label_value_errors(value);
                if !why.is_empty() {
                    errors.push(FieldError::invalid(
                        format!("{at}.operator"),
                        value.into(),
                        why.join(";"),
                    ));
                }
            }
            "Exists" if !value.is_empty() => errors.push(FieldError::invalid(
                format!("{at}.operator"),
                BadValue::Json(toleration.clone()),
                "value must be empty when `operator` is 'Exists'",
            )),
            "Exists" => {}
            other => {
                let supported = ["Equal".to_owned(), "Exists".to_owned()];
                errors.push(FieldError::not_supported(
                    format!("{at}.operator"),
                    other.into(),
                    &supported,
                ));
            }
        }
        if !effect.is_empty() && !["NoSchedule", "PreferNoSchedule", "NoExecute"].contains(&effect) {
            let supported = [
                "NoSchedule".to_owned(),
                "PreferNoSchedule".to_owned(),
                "NoExecute".to_owned(),
            ];
            errors.push(FieldError::not_supported(
                format!("{at}.effect"),
                effect.into(),
                &supported,
            ));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod() -> Value {
        json!({"spec": {"restartPolicy": "Never", "dnsPolicy": "ClusterFirst",
            "containers": [{"name": "c", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}]}})
    }

    #[test]
    fn a_pod_should_be_created_without_ephemeral_containers() {
        assert!(pod_create_errors(&pod(), 28).is_empty());
        let mut with = pod();
        with["spec"]["ephemeralContainers"] =
            json!([{"name": "e", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}]);
        let errors: Vec<String> = pod_create_errors(&with, 28).iter().map(ToString::to_string).collect();
        assert_eq!(errors, ["spec.ephemeralContainers: Forbidden: cannot be set on create"]);
        let mut bad = pod();
        bad["spec"]["restartPolicy"] = json!("Sometimes");
        assert_eq!(pod_create_errors(&bad, 28)[0].field, "spec.restartPolicy");
    }

    #[test]
    fn class_names_and_overhead_should_follow_the_tolerations_in_go_order() {
        let mut with = pod();
        with["spec"]["priorityClassName"] = json!("Bad_Class");
        with["spec"]["runtimeClassName"] = json!("");
        with["spec"]["preemptionPolicy"] = json!("Sometimes");
        with["spec"]["overhead"] = json!({"cpu": "-1"});
        with["spec"]["securityContext"] = json!({"runAsUser": -1});
        let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
        assert_eq!(
            crate::semantics::field_error::rendered(pod_create_errors(&with, 31)),
            [
                "spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive".to_owned(),
                format!("spec.priorityClassName: Invalid value: \"Bad_Class\": {subdomain}"),
                format!("spec.runtimeClassName: Invalid value: \"\": {subdomain}"),
                "spec.preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", \"Never\"".to_owned(),
                "spec.overhead.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0".to_owned(),
            ]
        );
    }
}
