//! Validation of pods and pod templates as `pkg/apis/core/validation/validation.go` has it, for
//! its main rules: `ValidatePodSpec` (volumes, containers — see `container_validation` —,
//! restart and DNS policies, names of the service account, node, host and subdomain, the
//! deadline, tolerations — `toleration_validation` —, the priority and runtime class names,
//! preemption, the overhead), `ValidatePodTemplateSpec` and `ValidatePodCreate` (no ephemeral
//! containers yet); the annotations a pod reads are `pod_annotation_validation`'s and
//! `security_annotation_validation`'s; what an update may change is `pod_update_validation`'s;
//! the volumes are `volume_validation`'s; host network ports, host aliases and gates are
//! `pod_host_validation`'s; the pod's security context, Windows host process pods and user
//! namespaces are `security_context_validation`'s and `windows_security_validation`'s; affinity
//! `pod_affinity_validation`'s, the DNS configuration `pod_dns_validation`'s, topology spread
//! constraints `topology_spread_validation`'s and the OS `pod_os_validation`'s.

use serde_json::{Map, Value};

use crate::semantics::container_resources_validation::resources_errors;
use crate::semantics::container_validation::{choice, containers_errors, image_whitespace_errors};
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::pod_affinity_validation::affinity_errors;
use crate::semantics::pod_annotation_validation::{allows_invalid_cost, pod_annotation_errors};
use crate::semantics::pod_dns_validation::dns_config_errors;
use crate::semantics::pod_host_validation::{
    host_alias_errors, host_network_errors, readiness_gate_errors, scheduling_gate_errors,
};
use crate::semantics::pod_os_validation::os_errors;
use crate::semantics::security_annotation_validation::{apparmor_match_errors, seccomp_match_errors};
use crate::semantics::security_context_validation::{host_users_errors, pod_security_context_errors};
use crate::semantics::sysctl_validation::host_sysctls_allowed;
use crate::semantics::template_metadata::template_metadata_errors;
use crate::semantics::toleration_validation::toleration_errors;
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

/// `ValidatePodTemplateSpec` of the template at `path` (labels and annotations, the annotations
/// a pod reads, the spec, the seccomp and AppArmor annotations against their fields, and no
/// ephemeral containers); `lenient_cost` is `AllowInvalidPodDeletionCost`, which the
/// strategies set from the stored template (`pod_annotation_validation::allows_invalid_cost`).
pub(crate) fn pod_template_errors(template: &Value, path: &str, lenient_cost: bool, minor: u32) -> Vec<FieldError> {
    let mut errors = template_metadata_errors(template, path);
    errors.extend(pod_annotation_errors(
        template,
        &format!("{path}.annotations"),
        lenient_cost,
    ));
    let empty = Value::Object(Map::new());
    let spec = template.get("spec").unwrap_or(&empty);
    let spec_path = format!("{path}.spec");
    errors.extend(pod_spec_errors(spec, None, &spec_path, None, minor));
    errors.extend(seccomp_match_errors(template, &spec_path));
    errors.extend(apparmor_match_errors(template, &spec_path, minor));
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

/// `ValidatePodCreate`: the annotations a pod reads, the spec, images without surrounding space,
/// ephemeral containers only through their subresource, no node before the scheduling gates
/// are gone, and the seccomp and AppArmor annotations agreeing with their fields.
pub(crate) fn pod_create_errors(pod: &Value, minor: u32) -> Vec<FieldError> {
    let empty = Value::Object(Map::new());
    let spec = pod.get("spec").unwrap_or(&empty);
    let mut errors = pod_metadata_and_spec_errors(pod, None, minor);
    let non_empty = |key: &str| spec.get(key).and_then(Value::as_array).is_some_and(|e| !e.is_empty());
    if non_empty("ephemeralContainers") {
        errors.push(FieldError::forbidden(
            "spec.ephemeralContainers",
            "cannot be set on create",
        ));
    }
    let node = spec.get("nodeName").and_then(Value::as_str).unwrap_or_default();
    if !node.is_empty() && non_empty("schedulingGates") {
        errors.push(FieldError::forbidden(
            "spec.nodeName",
            "cannot be set until all schedulingGates have been cleared",
        ));
    }
    errors.extend(seccomp_match_errors(pod, "spec"));
    errors.extend(apparmor_match_errors(pod, "spec", minor));
    errors
}

/// `validatePodMetadataAndSpec`, less the object metadata checked for every kind: the
/// annotations a pod reads, the spec, and images without surrounding space; `old` is the stored
/// pod of an update (its spec and deletion cost loosen some rules).
pub(crate) fn pod_metadata_and_spec_errors(pod: &Value, old: Option<&Value>, minor: u32) -> Vec<FieldError> {
    let empty = Value::Object(Map::new());
    let spec = pod.get("spec").unwrap_or(&empty);
    let name = pod.pointer("/metadata/name").and_then(Value::as_str);
    let mut errors = pod_annotation_errors(pod, "metadata.annotations", allows_invalid_cost(old));
    let old_spec = old.map(|old| old.get("spec").unwrap_or(&empty));
    errors.extend(pod_spec_errors(spec, old_spec, "spec", name, minor));
    errors.extend(images_errors(spec));
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
    fn annotations_should_come_first_and_their_match_with_fields_last() {
        let mut with = pod();
        with["metadata"] = json!({"annotations": {
            "kubernetes.io/config.mirror": "m",
            "seccomp.security.alpha.kubernetes.io/pod": "unconfined"
        }});
        with["spec"]["restartPolicy"] = json!("Sometimes");
        with["spec"]["securityContext"] = json!({"seccompProfile": {"type": "RuntimeDefault"}});
        let fields: Vec<String> = pod_create_errors(&with, 28).iter().map(|e| e.field.clone()).collect();
        assert_eq!(
            fields,
            [
                "metadata.annotations[kubernetes.io/config.mirror]",
                "spec.restartPolicy",
                "spec.securityContext.seccompProfile.type",
            ]
        );
        with["spec"]["nodeName"] = json!("n");
        with["spec"]["schedulingGates"] = json!([{"name": "example.com/wait"}]);
        let errors = crate::semantics::field_error::rendered(pod_create_errors(&with, 28));
        assert_eq!(
            errors[1..],
            [
                "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared",
                "spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match",
            ]
        );
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
