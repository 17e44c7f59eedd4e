//! Defaulting of built-in kinds, as kube-apiserver's decoder applies it to every create, update
//! and patch result (the `SetDefaults_*` functions of `k8s.io/kubernetes/pkg/apis/*/v1`), and the
//! conversions that run with it (a Secret's `stringData` merged into `data`).
//!
//! Only the kinds this server serves, and only what their Go defaulting sets; the strategies'
//! own changes (a namespace's phase) are the lifecycle's.

use base64::Engine;
use serde_json::{Map, Value, json};

use crate::semantics::endpoints_validation;
use crate::semantics::endpointslice_validation;
use crate::semantics::flowcontrol_defaults;
use crate::semantics::limitrange_validation;
use crate::semantics::omit_empty::{self, Empty};
use crate::semantics::pdb_validation;
use crate::semantics::priorityclass;
use crate::semantics::service_strategy;
use crate::semantics::shape::Shape;
use crate::semantics::zero;

pub(crate) mod admission_policies;
pub(crate) mod apps_sets;
pub(crate) mod autoscaling;
mod core_kinds;
mod core_types;
mod networking;
mod storage;
mod walker;
mod webhooks;
mod workloads;
use crate::status::ApiStatus;
use crate::storage::object::meta_mut;
use crate::storage::resource::ResourceInfo;

/// Defaults `object` of `info`'s built-in kind in place, as the Kubernetes `minor` does;
/// refuses what the decoder refuses. Every kind's metadata loses its empty maps and lists.
pub(crate) fn apply(info: &ResourceInfo, object: &mut Value, minor: u32) -> Result<(), ApiStatus> {
    // Custom resources' metadata goes through `ObjectMeta` too (apiextensions' coercion).
    drop_empty_metadata(object);
    if !info.builtin {
        return Ok(());
    }
    // Decoding into the Go type first: an empty `omitempty` scalar is no value, which the
    // defaulters then fill as they fill an absent one.
    omit_empty::drop_empty(object, Shape::of(info), Empty::Scalars);
    decoded(info, object);
    match (info.group.as_str(), info.kind.as_str()) {
        ("apps", "Deployment") => workloads::deployment(object),
        ("apps", "ReplicaSet") => workloads::replica_set(object),
        ("apps", "StatefulSet") => apps_sets::stateful_set(object),
        ("apps", "DaemonSet") => apps_sets::daemon_set(object)?,
        ("batch", "Job") => workloads::job(object, minor),
        ("batch", "CronJob") => workloads::cron_job(object),
        ("autoscaling", "HorizontalPodAutoscaler") => autoscaling::horizontal_pod_autoscaler(object, &info.version),
        ("", "Endpoints") => endpoints_validation::set_defaults(object),
        ("networking.k8s.io", "NetworkPolicy") => networking::network_policy(object),
        ("networking.k8s.io", "IngressClass") => networking::ingress_class(object),
        // No defaults; the v1 conversion's selector cleanup runs on every decode.
        // No defaults; `handler` has no `omitempty`.
        ("node.k8s.io", "RuntimeClass") => zero::fill_unset(object, "node.k8s.io", "RuntimeClass"),
        ("discovery.k8s.io", "EndpointSlice") => endpointslice_validation::set_defaults(object),
        ("scheduling.k8s.io", "PriorityClass") => {
            // `value` has no `omitempty`: a class sent without one is stored with 0.
            zero::fill_unset(object, "scheduling.k8s.io", "PriorityClass");
            priorityclass::set_defaults(object);
        }
        ("policy", "PodDisruptionBudget") => pdb_validation::strip_v1beta1_label(object),
        ("apps", "ControllerRevision") => storage::controller_revision(object),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration") => webhooks::configuration(object, false),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration") => webhooks::configuration(object, true),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy") => admission_policies::policy(object),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding") => admission_policies::binding(object),
        ("storage.k8s.io", "StorageClass") => storage::storage_class(object),
        ("storage.k8s.io", "CSIDriver") => storage::csi_driver(object),
        ("storage.k8s.io", "CSINode") => storage::csi_node(object),
        ("storage.k8s.io", "CSIStorageCapacity") => storage::csi_storage_capacity(object),
        // `attached` has no `omitempty`: a status without it is written `false`.
        ("storage.k8s.io", "VolumeAttachment") => {
            if let Some(status) = object.get_mut("status").filter(|s| s.is_object()) {
                default(status, "attached", json!(false));
            }
        }
        ("", "PersistentVolumeClaim") => core_kinds::persistent_volume_claim(object),
        ("", "PodTemplate") => workloads::pod_template_object(object),
        ("", "LimitRange") => limitrange_validation::set_defaults(object),
        ("", "ReplicationController") => workloads::replication_controller(object),
        ("", "Secret") => secret(object)?,
        ("", "Namespace") => namespace(object),
        ("", "Event") => zero::fill_unset(object, "", "Event"),
        // `spec` is a struct: `omitempty` never leaves it out.
        ("coordination.k8s.io", "Lease") => zero::fill_unset(object, "coordination.k8s.io", "Lease"),
        ("", "Service") => service(object, minor),
        ("", "Node") => node(object),
        ("certificates.k8s.io", "CertificateSigningRequest") => certificate_signing_request(object)?,
        ("apiregistration.k8s.io", "APIService") => {
            // `SetDefaults_ServiceReference`.
            if let Some(service) = object.pointer_mut("/spec/service").filter(|s| s.is_object()) {
                default(service, "port", json!(443));
            }
        }
        ("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding") => role_binding(object),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => custom_resource_definition(object),
        ("flowcontrol.apiserver.k8s.io", kind) => {
            flowcontrol_defaults::set_defaults(object, kind, &info.version, minor)
        }
        _ => {}
    }
    // The kinds whose generated `SetObjectDefaults_*` reach the core types' defaults.
    if matches!(
        (info.group.as_str(), info.kind.as_str()),
        (
            "",
            "Pod" | "PodTemplate" | "ReplicationController" | "PersistentVolume" | "PersistentVolumeClaim"
        ) | ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet")
            | ("batch", "Job" | "CronJob")
            | ("storage.k8s.io", "VolumeAttachment")
    ) {
        walker::set_object_defaults(object, Shape::of(info), minor);
    }
    Ok(())
}

/// What decoding `info`'s object and encoding it again changes that is no default (a pod's
/// status conversion and its condition times): also what the field manager compares.
pub(crate) fn decoded(info: &ResourceInfo, object: &mut Value) {
    if info.builtin && info.group.is_empty() && info.kind == "Pod" {
        core_kinds::pod(object);
    }
}

/// `ObjectMeta`'s maps and lists are `omitempty`: an empty one decodes to nothing.
fn drop_empty_metadata(object: &mut Value) {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.retain(|key, value| {
            let empty = value.is_null()
                || value.as_object().is_some_and(Map::is_empty)
                || value.as_array().is_some_and(Vec::is_empty);
            !(empty
                && matches!(
                    key.as_str(),
                    "labels" | "annotations" | "finalizers" | "ownerReferences"
                ))
        });
    }
}

/// Sets `key` to `value` in `map` when it is absent or null.
pub(super) fn default(map: &mut Value, key: &str, value: Value) {
    if let Some(map) = map.as_object_mut()
        && map.get(key).is_none_or(Value::is_null)
    {
        map.insert(key.to_owned(), value);
    }
}

/// Sets the string `key` of `map` where Go defaults it, when empty (`== ""`): absent, null or "".
pub(super) fn default_text(map: &mut Value, key: &str, value: &str) {
    if map.get(key).is_some_and(|v| v == "") {
        map[key] = json!(value);
    }
    default(map, key, json!(value));
}

/// Refuses a `[]byte` field that is not base64 as Go's decoder does (400), naming the first
/// byte outside the alphabet.
fn check_base64(kind: &str, text: &str) -> Result<(), ApiStatus> {
    if base64::engine::general_purpose::STANDARD.decode(text).is_ok() {
        return Ok(());
    }
    let at = text
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || b"+/=".contains(&b)));
    Err(ApiStatus::bad_request(format!(
        "{kind} in version \"v1\" cannot be handled as a {kind}: illegal base64 data at input byte {}",
        at.unwrap_or(text.len())
    )))
}

/// A CertificateSigningRequest's request and certificate are bytes, written in base64.
fn certificate_signing_request(object: &Value) -> Result<(), ApiStatus> {
    for pointer in ["/spec/request", "/status/certificate"] {
        if let Some(text) = object.pointer(pointer).and_then(Value::as_str) {
            check_base64("CertificateSigningRequest", text)?;
        }
    }
    Ok(())
}

/// `stringData` is merged into `data` (base64-encoded, winning over `data`), `type` defaults to
/// `Opaque`, and `data` values must be base64.
fn secret(object: &mut Value) -> Result<(), ApiStatus> {
    let engine = base64::engine::general_purpose::STANDARD;
    for value in object
        .get("data")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::values)
    {
        check_base64("Secret", value.as_str().unwrap_or_default())?;
    }
    if let Some(Value::Object(string_data)) = object.as_object_mut().and_then(|o| o.remove("stringData")) {
        default(object, "data", json!({}));
        for (key, value) in string_data {
            let text = value.as_str().unwrap_or_default();
            object["data"][key] = json!(engine.encode(text));
        }
    }
    default(object, "type", json!("Opaque"));
    Ok(())
}

/// Every namespace carries its name as the `kubernetes.io/metadata.name` label.
fn namespace(object: &mut Value) {
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if name.is_empty() {
        return;
    }
    let meta = meta_mut(object);
    let labels = meta.entry("labels").or_insert_with(|| json!({}));
    if let Some(labels) = labels.as_object_mut() {
        labels.insert("kubernetes.io/metadata.name".to_owned(), json!(name));
    }
}

/// `SetDefaults_Service`: session affinity and its ClientIP timeout (none without affinity),
/// type, port protocols and target ports (a zero or empty one is the port), the traffic
/// policies, a LoadBalancer's node port allocation and, from 1.30 (`LoadBalancerIPMode` on),
/// the `VIP` mode of its ingress points that have an address.
fn service(object: &mut Value, minor: u32) {
    let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    // Go's zero value, "", is unset too.
    for (key, zero) in [("sessionAffinity", "None"), ("type", "ClusterIP")] {
        if spec[key] == "" {
            spec[key] = json!(zero);
        }
    }
    default(spec, "sessionAffinity", json!("None"));
    if spec["sessionAffinity"] == "None"
        && let Some(map) = spec.as_object_mut()
    {
        map.remove("sessionAffinityConfig");
    }
    if spec["sessionAffinity"] == "ClientIP"
        && spec
            .pointer("/sessionAffinityConfig/clientIP/timeoutSeconds")
            .is_none_or(Value::is_null)
    {
        spec["sessionAffinityConfig"] = json!({"clientIP": {"timeoutSeconds": 10800}});
    }
    default(spec, "type", json!("ClusterIP"));
    for port in spec
        .get_mut("ports")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        default(port, "protocol", json!("TCP"));
        let number = port.get("port").cloned().unwrap_or(json!(0));
        if matches!(port.get("targetPort"), Some(t) if *t == json!(0) || *t == json!("")) {
            port["targetPort"] = number.clone();
        }
        default(port, "targetPort", number);
    }
    let kind = spec["type"].as_str().unwrap_or_default().to_owned();
    if service_strategy::externally_accessible(spec, minor)
        && spec
            .get("externalTrafficPolicy")
            .is_none_or(|p| p.is_null() || *p == "")
    {
        spec["externalTrafficPolicy"] = json!("Cluster");
    }
    if matches!(kind.as_str(), "ClusterIP" | "NodePort" | "LoadBalancer") {
        default(spec, "internalTrafficPolicy", json!("Cluster"));
    }
    if kind == "LoadBalancer" {
        default(spec, "allocateLoadBalancerNodePorts", json!(true));
    }
    let balancer = kind == "LoadBalancer";
    // Go encodes the status' load balancer struct, empty or not.
    if let Some(status) = object.get_mut("status").filter(|s| s.is_object()) {
        default(status, "loadBalancer", json!({}));
        if balancer && minor >= 30 {
            let ingress = status
                .pointer_mut("/loadBalancer/ingress")
                .and_then(Value::as_array_mut);
            for point in ingress.into_iter().flatten().filter(|p| p.is_object()) {
                let has_ip = point.get("ip").and_then(Value::as_str).is_some_and(|ip| !ip.is_empty());
                if has_ip && point.get("ipMode").is_none_or(Value::is_null) {
                    point["ipMode"] = json!("VIP");
                }
            }
        }
    }
}

/// A Node's pod CIDRs as the v1 conversion reconciles `podCIDR` and `podCIDRs` (the first wins
/// when they differ), its allocatable resources defaulted to its capacity
/// (`SetDefaults_NodeStatus`), and the status structs Go always encodes.
fn node(object: &mut Value) {
    zero::fill_unset(object, "", "Node");
    // A body whose spec or status is no object was refused when it was decoded.
    if !object.get("spec").is_some_and(Value::is_object) || !object.get("status").is_some_and(Value::is_object) {
        return;
    }
    let spec = &mut object["spec"];
    // `unschedulable` is `omitempty`: false is not written.
    if spec.get("unschedulable") == Some(&Value::Bool(false))
        && let Some(map) = spec.as_object_mut()
    {
        map.remove("unschedulable");
    }
    let cidr = spec
        .get("podCIDR")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let first = spec.pointer("/podCIDRs/0").and_then(Value::as_str).map(str::to_owned);
    match first {
        Some(first) if cidr.is_empty() => spec["podCIDR"] = json!(first),
        Some(first) if first != cidr => spec["podCIDRs"] = json!([cidr]),
        None if !cidr.is_empty() => spec["podCIDRs"] = json!([cidr]),
        _ => {}
    }
    let status = &mut object["status"];
    if status.get("allocatable").is_none_or(Value::is_null)
        && let Some(capacity) = status.get("capacity").filter(|c| c.is_object()).cloned()
    {
        status["allocatable"] = capacity;
    }
    default(status, "daemonEndpoints", json!({}));
    if let Some(endpoints) = status.get_mut("daemonEndpoints").filter(|e| e.is_object()) {
        default(endpoints, "kubeletEndpoint", json!({}));
        if let Some(kubelet) = endpoints.get_mut("kubeletEndpoint") {
            default(kubelet, "Port", json!(0));
        }
    }
    default(status, "nodeInfo", json!({}));
    let Some(info) = status.get_mut("nodeInfo") else { return };
    for field in [
        "machineID",
        "systemUUID",
        "bootID",
        "kernelVersion",
        "osImage",
        "containerRuntimeVersion",
        "kubeletVersion",
        "kubeProxyVersion",
        "operatingSystem",
        "architecture",
    ] {
        default(info, field, json!(""));
    }
}

/// apiextensions' `SetDefaults_CustomResourceDefinitionSpec`: names, no conversion, and a
/// conversion webhook service's port (`SetDefaults_ServiceReference`).
fn custom_resource_definition(object: &mut Value) {
    let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    if let Some(names) = spec.get_mut("names").filter(|n| n.is_object()) {
        let kind = names.get("kind").and_then(Value::as_str).unwrap_or_default().to_owned();
        let unset = |names: &Value, key: &str| names.get(key).and_then(Value::as_str).is_none_or(str::is_empty);
        if unset(names, "singular") {
            names["singular"] = json!(kind.to_lowercase());
        }
        if unset(names, "listKind") && !kind.is_empty() {
            names["listKind"] = json!(format!("{kind}List"));
        }
    }
    default(spec, "conversion", json!({ "strategy": "None" }));
    if let Some(service) = spec
        .pointer_mut("/conversion/webhook/clientConfig/service")
        .filter(|s| s.is_object())
    {
        default(service, "port", json!(443));
    }
}

/// A subject's empty `apiGroup` defaults by its kind (`SetDefaults_Subject`: `len(APIGroup) ==
/// 0`, so `""` too); an empty one, a ServiceAccount's, is not written (`omitempty`).
fn role_binding(object: &mut Value) {
    for subject in object
        .get_mut("subjects")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        match subject.get("kind").and_then(Value::as_str) {
            Some("User" | "Group") => {
                if subject.get("apiGroup").and_then(Value::as_str) == Some("") {
                    subject["apiGroup"] = Value::Null;
                }
                default(subject, "apiGroup", json!("rbac.authorization.k8s.io"));
            }
            _ => {
                if let Some(fields) = subject.as_object_mut()
                    && fields.get("apiGroup").and_then(Value::as_str) == Some("")
                {
                    fields.remove("apiGroup");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_merge_string_data_and_refuse_bad_base64() {
        let info = ResourceInfo::builtin("", "v1", "Secret", "secrets");
        let mut secret =
            json!({"metadata": {"name": "s"}, "data": {"user": "YWRtaW4="}, "stringData": {"user": "root"}});
        apply(&info, &mut secret, 28).unwrap();
        assert_eq!(
            secret,
            json!({"metadata": {"name": "s"}, "data": {"user": "cm9vdA=="}, "type": "Opaque"})
        );
        let mut bad = json!({"metadata": {"name": "s"}, "data": {"k": "not base64!"}});
        assert_eq!(apply(&info, &mut bad, 28).unwrap_err().code, 400);
    }

    #[test]
    fn a_jobs_replacement_policy_and_manual_selector_follow_the_minor() {
        let info = ResourceInfo::builtin("batch", "v1", "Job", "jobs");
        let job = json!({"metadata": {"name": "j"}, "spec": {"backoffLimitPerIndex": 1, "template": {"spec": {}}}});
        let mut on_1_28 = job.clone();
        apply(&info, &mut on_1_28, 28).unwrap();
        // The feature is off in 1.28, but dropping its fields is the strategy's job, after
        // defaulting has seen them.
        assert!(on_1_28["spec"].get("podReplacementPolicy").is_none());
        assert_eq!(on_1_28["spec"]["backoffLimit"], i64::from(i32::MAX));
        assert!(on_1_28["spec"].get("manualSelector").is_none());
        let mut on_1_31 = json!({"metadata": {"name": "j"}, "spec": {"template": {"spec": {}}}});
        apply(&info, &mut on_1_31, 31).unwrap();
        assert_eq!(on_1_31["spec"]["podReplacementPolicy"], "TerminatingOrFailed");
        assert_eq!(on_1_31["spec"]["manualSelector"], false);
    }
}
