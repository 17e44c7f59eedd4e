//! What kube-controller-manager's endpointslice reconciler builds and compares
//! (`staging/src/k8s.io/endpointslice/utils.go` `podToEndpoint`, `getEndpointPorts`,
//! `newEndpointSlice`, `setEndpointSliceLabels`, `ownedBy`; `util/controller_utils.go`
//! `NewPortMapKey`, `EndpointsEqualBeyondHash`; `util/endpointset.go` `hashEndpoint`;
//! `reconciler.go` `placeholderSliceCompare`; `getAddressTypesForService`): a pod's endpoint,
//! the ports it offers in their hash order, a new slice with its labels and owner, the address
//! types a Service has, the zone hints of its endpoints (`trafficdist/trafficdist.go`,
//! `topologycache/utils.go` `RemoveHintsFromSlices`).

use serde_json::{Map, Value, json};

use crate::lifecycle::disruption_status::is_pod_ready;
use crate::lifecycle::endpoint_rules::{self, HEADLESS, MANAGED_BY, SERVICE_NAME, SLICE_CONTROLLER};
use crate::semantics::service_ip_validation::is_ipv6;
use crate::semantics::{go_spew, go_types};
use crate::storage::State;
use crate::storage::object;

/// `v1.LabelTopologyZone`.
const ZONE: &str = "topology.kubernetes.io/zone";

/// `EndpointSet`'s key (`endpointHashObj`): an endpoint's sorted addresses, hostname and
/// target's namespace and name.
pub(super) type EndpointKey = (Vec<String>, String, String, String);

/// `NewPortMapKey`: the ports sorted by their hashes, printed as Go hashes them (a nil list
/// prints otherwise than an empty one).
pub(super) fn port_map_key(state: &State, ports: &[Value], nil: bool) -> String {
    if nil {
        return "<nil>".to_owned();
    }
    let types = go_types::endpoint_types(state.options.minor());
    let mut printed: Vec<([u8; 16], String)> = ports
        .iter()
        .map(|port| {
            (
                go_spew::md5_of(types, "discovery.EndpointPort", port),
                go_spew::sprint_as(types, "discovery.EndpointPort", port),
            )
        })
        .collect();
    printed.sort_by_key(|(hash, _)| *hash);
    printed
        .into_iter()
        .map(|(_, print)| print)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `getEndpointPorts`: each Service port the pod offers, with its number there, sorted as
/// `NewPortMapKey` sorts them in place (by the hex of their hashes).
pub(super) fn endpoint_ports(state: &State, service: &Value, pod: &Value) -> Vec<Value> {
    let types = go_types::endpoint_types(state.options.minor());
    let service_ports = service.pointer("/spec/ports").and_then(Value::as_array);
    let mut ports: Vec<([u8; 16], Value)> = service_ports
        .into_iter()
        .flatten()
        .filter_map(|service_port| {
            let number = endpoint_rules::find_port(pod, service_port)?;
            let mut port = Map::new();
            port.insert("name".to_owned(), json!(object::text(service_port.get("name"))));
            port.insert("protocol".to_owned(), json!(object::text(service_port.get("protocol"))));
            port.insert("port".to_owned(), json!(number));
            if let Some(app) = object::present(service_port, "appProtocol") {
                port.insert("appProtocol".to_owned(), app.clone());
            }
            let port = Value::Object(port);
            Some((go_spew::md5_of(types, "discovery.EndpointPort", &port), port))
        })
        .collect();
    ports.sort_by_key(|a| a.0);
    ports.into_iter().map(|(_, port)| port).collect()
}

/// `podToEndpoint`: the pod's IPs of the address type, its conditions (ready: serving and not
/// terminating, or always when the Service publishes not-ready addresses), node, zone, target
/// and hostname.
pub(super) fn pod_to_endpoint(pod: &Value, node: Option<&Value>, service: &Value, address_type: &str) -> Value {
    let serving = is_pod_ready(pod);
    let terminating = object::is_deleting(pod);
    let ready = endpoint_rules::publishes_not_ready(service) || (serving && !terminating);
    let ips = pod.pointer("/status/podIPs").and_then(Value::as_array);
    let addresses: Vec<&str> = ips
        .into_iter()
        .flatten()
        .map(|ip| object::text(ip.get("ip")))
        .filter(|ip| is_ipv6(ip) == (address_type == "IPv6"))
        .collect();
    let mut endpoint = json!({
        "addresses": addresses,
        "conditions": {"ready": ready, "serving": serving, "terminating": terminating},
        "targetRef": {
            "kind": "Pod",
            "namespace": object::namespace(pod),
            "name": object::name(pod),
            "uid": object::uid(pod),
        },
    });
    let node_name = object::text(pod.pointer("/spec/nodeName"));
    if !node_name.is_empty() {
        endpoint["nodeName"] = json!(node_name);
    }
    let zone = node
        .and_then(object::labels)
        .map(|labels| object::text(labels.get(ZONE)));
    if let Some(zone) = zone.filter(|zone| !zone.is_empty()) {
        endpoint["zone"] = json!(zone);
    }
    if endpoint_rules::should_set_hostname(pod, service) {
        endpoint["hostname"] = json!(object::text(pod.pointer("/spec/hostname")));
    }
    endpoint
}

pub(super) fn endpoint_key(endpoint: &Value) -> EndpointKey {
    let mut addresses = object::string_list(endpoint.get("addresses"));
    addresses.sort();
    let target = |field: &str| object::text(endpoint.pointer(&format!("/targetRef/{field}"))).to_owned();
    let hostname = object::text(endpoint.get("hostname")).to_owned();
    (addresses, hostname, target("namespace"), target("name"))
}

/// `EndpointsEqualBeyondHash`: the same node, zone, conditions and target (whatever its
/// resource version).
pub(super) fn equal_beyond_hash(a: &Value, b: &Value) -> bool {
    let field = |v: &Value, path: &str| v.pointer(path).filter(|f| !f.is_null()).cloned();
    let target = |v: &Value| {
        let mut target = v.get("targetRef").cloned().unwrap_or(Value::Null);
        if let Some(map) = target.as_object_mut() {
            map.remove("resourceVersion");
            map.retain(|_, value| value != &json!(""));
        }
        target
    };
    [
        "/nodeName",
        "/zone",
        "/conditions/ready",
        "/conditions/serving",
        "/conditions/terminating",
    ]
    .iter()
    .all(|path| field(a, path) == field(b, path))
        && target(a) == target(b)
}

/// A new slice's ports and address type (`endpointMeta`).
pub(super) struct SliceMeta<'a> {
    pub(super) ports: &'a [Value],
    pub(super) address_type: &'a str,
}

/// `ownedBy`: a slice whose owner references name the Service.
pub(super) fn owned_by(slice: &Value, service: &Value) -> bool {
    object::owner_references(slice).iter().any(|o| {
        o.get("uid").and_then(Value::as_str) == Some(object::uid(service))
            && o.get("kind").and_then(Value::as_str) == Some("Service")
            && o.get("apiVersion").and_then(Value::as_str) == Some("v1")
    })
}

/// `setEndpointSliceLabels`: the Service's labels (but the reserved ones), the headless
/// marker, the service name and the managing controller; and whether the slice's own labels
/// (but the reserved ones) differ from the Service's.
pub(super) fn slice_labels(slice: &Value, service: &Value) -> (Map<String, Value>, bool) {
    let reserved = |key: &String| key == SERVICE_NAME || key == MANAGED_BY || key == HEADLESS;
    let unreserved = |labels: Option<&Map<String, Value>>| -> Map<String, Value> {
        labels
            .into_iter()
            .flatten()
            .filter(|(key, _)| !reserved(key))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let mut labels = unreserved(object::labels(service));
    let changed = unreserved(object::labels(slice)) != labels;
    if endpoint_rules::is_headless(service) {
        labels.insert(HEADLESS.to_owned(), json!(""));
    }
    labels.insert(SERVICE_NAME.to_owned(), json!(object::name(service)));
    labels.insert(MANAGED_BY.to_owned(), json!(SLICE_CONTROLLER));
    (labels, changed)
}

/// `newEndpointSlice`, named after the Service (`getEndpointSlicePrefix`) and owned by it. Its
/// empty lists are written `null`, as kube-apiserver's protobuf storage gives them back.
pub(super) fn new_slice(service: &Value, meta: &SliceMeta<'_>) -> Value {
    let name = object::name(service);
    // The dash only when the prefix stays a valid generate-name prefix (`NameIsDNSSubdomain`
    // with `prefix`, which masks the trailing dash).
    let prefix = match object::is_dns_subdomain(&format!("{name}-a")) {
        true => format!("{name}-"),
        false => name.to_owned(),
    };
    let (labels, _) = slice_labels(&json!({}), service);
    let ports = match meta.ports {
        [] => Value::Null,
        ports => Value::Array(ports.to_vec()),
    };
    json!({
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "generateName": prefix,
            "namespace": object::namespace(service),
            "labels": labels,
            "ownerReferences": [{
                "apiVersion": "v1",
                "kind": "Service",
                "name": name,
                "uid": object::uid(service),
                "controller": true,
                "blockOwnerDeletion": true,
            }],
        },
        "addressType": meta.address_type,
        "endpoints": null,
        "ports": ports,
    })
}

/// `placeholderSliceCompare`: the same namespace, labels, address type and no ports or
/// endpoints — what else a stored slice's metadata has (name, uid, owners) does not count.
pub(super) fn same_placeholder(stored: &Value, placeholder: &Value) -> bool {
    let list = |v: &Value, key: &str| v.get(key).and_then(Value::as_array).is_some_and(|l| !l.is_empty());
    object::namespace(stored) == object::namespace(placeholder)
        && object::labels(stored).cloned().unwrap_or_default()
            == object::labels(placeholder).cloned().unwrap_or_default()
        && stored.get("addressType") == placeholder.get("addressType")
        && !list(stored, "ports")
        && !list(stored, "endpoints")
}

/// `getAddressTypesForService`: one address type per IP family of the Service (without
/// families, the family of its cluster IP, or both for a headless Service).
pub(super) fn address_types(service: &Value) -> Vec<String> {
    let families = object::string_list(service.pointer("/spec/ipFamilies"));
    let mut types: Vec<String> = ["IPv4", "IPv6"]
        .into_iter()
        .filter(|t| families.iter().any(|f| f == t))
        .map(str::to_owned)
        .collect();
    if types.is_empty() {
        types = match object::text(service.pointer("/spec/clusterIP")) {
            "" | "None" => vec!["IPv4".to_owned(), "IPv6".to_owned()],
            ip if is_ipv6(ip) => vec!["IPv6".to_owned()],
            _ => vec!["IPv4".to_owned()],
        };
    }
    types
}

/// The annotations that turn on topology-aware hints (`hintsEnabled`), whose topology cache is
/// not ported: a Service with one keeps whatever hints its slices have.
const TOPOLOGY_ANNOTATIONS: [&str; 2] = [
    "service.kubernetes.io/topology-aware-hints",
    "service.kubernetes.io/topology-mode",
];

/// How the reconciler hints a Service's endpoints: `trafficdist.ReconcileHints` on 1.31
/// (`ServiceTrafficDistribution` on by default), 1.28's `RemoveHintsFromSlices`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Hints {
    /// Every ready endpoint hinted for its own zone (`PreferClose`).
    PreferClose,
    /// No endpoint hinted.
    None,
    /// Left as they are (topology-aware hints, not computed here).
    Untouched,
}

/// The hints `service` asks for on the Kubernetes `minor`.
pub(super) fn hints_for(service: &Value, minor: u32) -> Hints {
    let annotations = object::annotations(service);
    let topology = TOPOLOGY_ANNOTATIONS.iter().any(|key| {
        matches!(
            annotations.and_then(|a| a.get(*key)).and_then(Value::as_str),
            Some("Auto" | "auto")
        )
    });
    if topology {
        return Hints::Untouched;
    }
    if minor >= 31 && object::text(service.pointer("/spec/trafficDistribution")) == "PreferClose" {
        return Hints::PreferClose;
    }
    Hints::None
}

/// The hint a ready endpoint should carry under `hints` (`None`: none).
fn wanted_hint(endpoint: &Value, hints: Hints) -> Option<Value> {
    let zone = object::text(endpoint.get("zone"));
    (hints == Hints::PreferClose).then(|| json!({"forZones": [{"name": zone}]}))
}

fn is_ready(endpoint: &Value) -> bool {
    endpoint.pointer("/conditions/ready") == Some(&json!(true))
}

/// The heuristic's `needsUpdate`: an unchanged slice whose endpoints are not hinted as wanted.
pub(super) fn needs_hints(slice: &Value, hints: Hints) -> bool {
    let endpoints = slice.get("endpoints").and_then(Value::as_array);
    endpoints.into_iter().flatten().any(|endpoint| match hints {
        Hints::Untouched => false,
        Hints::None => object::present(endpoint, "hints").is_some(),
        Hints::PreferClose => is_ready(endpoint) && endpoint.get("hints") != wanted_hint(endpoint, hints).as_ref(),
    })
}

/// The heuristic's `update`: the slice's endpoints hinted as wanted (under `PreferClose`,
/// only the ready ones).
pub(super) fn set_hints(slice: &mut Value, hints: Hints) {
    let Some(endpoints) = slice.get_mut("endpoints").and_then(Value::as_array_mut) else {
        return;
    };
    for endpoint in endpoints.iter_mut() {
        match hints {
            Hints::Untouched => {}
            Hints::None => {
                if let Some(map) = endpoint.as_object_mut() {
                    map.remove("hints");
                }
            }
            Hints::PreferClose if is_ready(endpoint) => {
                let hint = wanted_hint(endpoint, hints);
                endpoint["hints"] = hint.unwrap_or(Value::Null);
            }
            Hints::PreferClose => {}
        }
    }
}
