//! The rules both of kube-controller-manager's endpoints controllers apply to a Service and its
//! pods (`staging/src/k8s.io/endpointslice/util/controller_utils.go` `ShouldPodBeInEndpoints`,
//! `ShouldSetHostname`; `pkg/api/v1/pod/util.go` `FindPort`; `pkg/apis/core/v1/helper`
//! `IsServiceIPSet`) and the names they write (the trigger-time annotation, the headless,
//! service-name and managed-by labels).

use serde_json::{Value, json};

use crate::storage::object;

/// The field manager both controllers write with.
pub(super) const MANAGER: &str = "kube-controller-manager";
/// `v1.EndpointsLastChangeTriggerTime`.
const TRIGGER_TIME: &str = "endpoints.kubernetes.io/last-change-trigger-time";
/// `v1.IsHeadlessService`.
pub(super) const HEADLESS: &str = "service.kubernetes.io/headless";
/// `discovery.LabelServiceName`.
pub(super) const SERVICE_NAME: &str = "kubernetes.io/service-name";
/// `discovery.LabelManagedBy`, and the endpointslice controller's name in it.
pub(super) const MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";
pub(super) const SLICE_CONTROLLER: &str = "endpointslice-controller.k8s.io";
/// The pod's IPs, as `status.podIPs` lists them.
pub(super) fn pod_ips(pod: &Value) -> Vec<&str> {
    let ips = pod.pointer("/status/podIPs").and_then(Value::as_array);
    ips.into_iter().flatten().map(|ip| object::text(ip.get("ip"))).collect()
}

/// `helper.IsServiceIPSet` negated: no cluster IP, or `None`.
pub(super) fn is_headless(service: &Value) -> bool {
    let ip = object::text(service.pointer("/spec/clusterIP"));
    ip.is_empty() || ip == "None"
}

/// Whether the Service publishes its pods before they are ready.
pub(super) fn publishes_not_ready(service: &Value) -> bool {
    service.pointer("/spec/publishNotReadyAddresses") == Some(&json!(true))
}

/// Sets or clears the trigger-time annotation, as both controllers do on every write.
pub(super) fn set_trigger_time(object: &mut Value, trigger: Option<&str>) {
    let meta = object::meta_mut(object);
    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
    if let Some(map) = annotations.as_object_mut() {
        match trigger {
            Some(time) => {
                map.insert(TRIGGER_TIME.to_owned(), json!(time));
            }
            None => {
                map.remove(TRIGGER_TIME);
            }
        }
    }
}

/// `ShouldPodBeInEndpoints`: not terminal, with an IP, and not terminating unless terminating
/// pods are included.
pub(super) fn should_pod_be_in_endpoints(pod: &Value, include_terminating: bool) -> bool {
    let phase = object::text(pod.pointer("/status/phase"));
    if phase == "Failed" || phase == "Succeeded" {
        return false;
    }
    if object::text(pod.pointer("/status/podIP")).is_empty() && pod_ips(pod).is_empty() {
        return false;
    }
    include_terminating || !object::is_deleting(pod)
}

/// `ShouldSetHostname`: a pod with a hostname whose subdomain is the Service's name.
pub(super) fn should_set_hostname(pod: &Value, service: &Value) -> bool {
    !object::text(pod.pointer("/spec/hostname")).is_empty()
        && object::text(pod.pointer("/spec/subdomain")) == object::name(service)
        && object::namespace(pod) == object::namespace(service)
}

/// `podutil.FindPort`: a numeric target port as it is; a named one, the container port of
/// that name and the Service port's protocol.
pub(super) fn find_port(pod: &Value, service_port: &Value) -> Option<i64> {
    let protocol = object::text(service_port.get("protocol"));
    match service_port.get("targetPort") {
        Some(Value::String(name)) => pod
            .pointer("/spec/containers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .flat_map(|container| container.get("ports").and_then(Value::as_array).into_iter().flatten())
            .find(|port| object::text(port.get("name")) == name && object::text(port.get("protocol")) == protocol)
            .and_then(|port| port.get("containerPort").and_then(Value::as_i64)),
        Some(number) => Some(number.as_i64().unwrap_or(0)),
        None => Some(0),
    }
}
