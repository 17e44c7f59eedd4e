//! kube-controller-manager's endpoints controller writing a Service's Endpoints object
//! (`pkg/controller/endpoint/endpoints_controller.go` `syncService`,
//! `podToEndpointAddressForService`, `addEndpointSubset`, `endpointPortFromServicePort`,
//! `capacityAnnotationSetCorrectly`): an address per selected pod with an IP of the Service's
//! first family, ready or not (all ready when the Service publishes not-ready addresses), for
//! each Service port the pod offers, repacked into the canonical subsets; the object is written
//! only when its subsets, labels or capacity annotation differ.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::lifecycle::disruption_status::is_pod_ready;
use crate::lifecycle::endpoint_rules::{self, HEADLESS, MANAGER};
use crate::lifecycle::events;
use crate::lifecycle::writes::Writes;
use crate::semantics::endpoint_subsets::{self, AddressPort, MAX_CAPACITY};
use crate::semantics::service_ip_validation::is_ipv6;
use crate::storage::State;
use crate::storage::object;

/// `v1.EndpointsOverCapacity`.
const OVER_CAPACITY: &str = "endpoints.kubernetes.io/over-capacity";

/// The endpoints controller's part of `syncService` for a Service with a selector.
pub(super) fn sync(state: &mut State, service: &Value, pods: &[Arc<Value>], trigger: Option<&str>) {
    let publish = endpoint_rules::publishes_not_ready(service);
    let mut entries = Vec::new();
    for pod in pods {
        if !endpoint_rules::should_pod_be_in_endpoints(pod, publish) {
            continue;
        }
        let Some(mut address) = pod_address(service, pod) else {
            continue;
        };
        if endpoint_rules::should_set_hostname(pod, service) {
            address["hostname"] = json!(object::text(pod.pointer("/spec/hostname")));
        }
        let ready = publish || is_pod_ready(pod);
        let ports = service.pointer("/spec/ports").and_then(Value::as_array);
        match ports.filter(|ports| !ports.is_empty()) {
            // A headless Service may have no ports.
            None if object::text(service.pointer("/spec/clusterIP")) == "None" => entries.push(AddressPort {
                address,
                port: None,
                ready,
            }),
            None => {}
            Some(ports) => {
                for service_port in ports {
                    let Some(number) = endpoint_rules::find_port(pod, service_port) else {
                        continue;
                    };
                    entries.push(AddressPort {
                        address: address.clone(),
                        port: Some(endpoint_port(service_port, number)),
                        ready,
                    });
                }
            }
        }
    }
    let subsets = endpoint_subsets::repack(&entries, state.options.minor());
    write(state, service, subsets, trigger);
}

/// `podToEndpointAddressForService`: the pod's IP of the Service's first family (with no
/// families, the family of its cluster IP, or for a headless Service of the pod's IP).
fn pod_address(service: &Value, pod: &Value) -> Option<Value> {
    let family = object::string_list(service.pointer("/spec/ipFamilies"))
        .into_iter()
        .next();
    let ipv6 = match family.as_deref() {
        Some(family) => family == "IPv6",
        None if !endpoint_rules::is_headless(service) => is_ipv6(object::text(service.pointer("/spec/clusterIP"))),
        None => is_ipv6(object::text(pod.pointer("/status/podIP"))),
    };
    let ips = pod.pointer("/status/podIPs").and_then(Value::as_array);
    let ip = ips
        .into_iter()
        .flatten()
        .map(|ip| object::text(ip.get("ip")))
        .find(|ip| is_ipv6(ip) == ipv6)?;
    Some(json!({
        "ip": ip,
        "nodeName": object::text(pod.pointer("/spec/nodeName")),
        "targetRef": {
            "kind": "Pod",
            "namespace": object::namespace(pod),
            "name": object::name(pod),
            "uid": object::uid(pod),
        },
    }))
}

/// `endpointPortFromServicePort`: the Service port's name, protocol and app protocol, with
/// the number the pod offers it on.
fn endpoint_port(service_port: &Value, number: i64) -> Value {
    let mut port = Map::new();
    let name = object::text(service_port.get("name"));
    if !name.is_empty() {
        port.insert("name".to_owned(), json!(name));
    }
    port.insert("port".to_owned(), json!(number));
    if let Some(protocol) = service_port.get("protocol").filter(|p| !p.is_null()) {
        port.insert("protocol".to_owned(), protocol.clone());
    }
    if let Some(app) = object::present(service_port, "appProtocol") {
        port.insert("appProtocol".to_owned(), app.clone());
    }
    Value::Object(port)
}

/// Creates or updates the Endpoints object unless it already says all this.
fn write(state: &mut State, service: &Value, mut subsets: Vec<Value>, trigger: Option<&str>) {
    let info = state.info("", "v1", "endpoints");
    let (namespace, name) = (object::namespace(service), object::name(service));
    let current = state.object(&info, Some(namespace), name);
    let service_labels = object::labels(service).cloned().unwrap_or_default();
    if let Some(current) = &current {
        let mut compared = object::labels(current).cloned().unwrap_or_default();
        compared.remove(HEADLESS);
        let capacity_noted = object::annotations(current).is_some_and(|a| a.contains_key(OVER_CAPACITY));
        let current_subsets: Vec<Value> = current
            .get("subsets")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let capacity_right = endpoint_subsets::address_count(&current_subsets) <= MAX_CAPACITY && !capacity_noted;
        if endpoint_subsets::same_subsets(current.get("subsets"), &subsets)
            && compared == service_labels
            && capacity_right
        {
            return;
        }
    }
    let mut updated = current
        .as_deref()
        .cloned()
        .unwrap_or_else(|| json!({"apiVersion": "v1", "kind": "Endpoints", "metadata": {"name": name}}));
    endpoint_rules::set_trigger_time(&mut updated, trigger);
    let truncated = endpoint_subsets::truncate(&mut subsets);
    if let Some(annotations) = object::meta_mut(&mut updated)
        .get_mut("annotations")
        .and_then(Value::as_object_mut)
    {
        if truncated {
            annotations.insert(OVER_CAPACITY.to_owned(), json!("truncated"));
        } else {
            annotations.remove(OVER_CAPACITY);
        }
    }
    let mut labels = service_labels;
    if endpoint_rules::is_headless(service) {
        labels.insert(HEADLESS.to_owned(), json!(""));
    } else {
        labels.remove(HEADLESS);
    }
    object::meta_mut(&mut updated).insert("labels".to_owned(), Value::Object(labels));
    if let Some(map) = updated.as_object_mut() {
        match subsets.is_empty() {
            true => map.remove("subsets"),
            false => map.insert("subsets".to_owned(), Value::Array(subsets)),
        };
    }
    let created = current.is_none();
    let result = match current {
        Some(current) => state.update_object(&info, current, updated.clone(), Some(MANAGER), None),
        None => state.create_object(&info, Some(namespace), updated.clone(), Some(MANAGER)),
    };
    match result {
        Ok(_) => {}
        // Creates in a terminating namespace keep failing: the controller drops the Service.
        Err(status) if created && status.has_cause("NamespaceTerminating") => {}
        Err(status) => {
            let error = &status.message;
            // The event is about the object the controller wrote: a new one has no namespace
            // or uid yet.
            let (reason, message, involved) = if created {
                let message = format!("Failed to create endpoint for service {namespace}/{name}: {error}");
                let involved = json!({"kind": "Endpoints", "name": name, "apiVersion": "v1"});
                ("FailedToCreateEndpoint", message, involved)
            } else {
                let message = format!("Failed to update endpoint {namespace}/{name}: {error}");
                let involved = json!({"kind": "Endpoints", "namespace": namespace, "name": name,
                    "uid": object::uid(&updated), "apiVersion": "v1"});
                ("FailedToUpdateEndpoint", message, involved)
            };
            events::record_about(state, involved, "Warning", reason, &message, "endpoint-controller");
        }
    }
}
