//! The Service table as `pkg/printers/internalversion/printers.go` prints it (`printService`
//! and its column definitions, with `getServiceExternalIP`, `loadBalancerStatusStringer`,
//! `makePortString` and `labels.FormatLabels`). kube-apiserver generates tables wide, so the
//! load balancer's addresses are never shortened.

use serde_json::{Value, json};

use super::apps_sets::format_labels;
use super::{BuiltinColumn, column, wide};

const TYPE: &str = "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is \"None\", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. \"NodePort\" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. \"ExternalName\" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types";

const CLUSTER_IP: &str = "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are \"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" makes a \"headless service\" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies";

const EXTERNAL_IP: &str = "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.";

const PORTS: &str = "The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies";

const SELECTOR: &str = "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/";

/// The columns after Name of a Service's printer (`age` is the Age column).
pub(super) fn columns(age: BuiltinColumn) -> Vec<BuiltinColumn> {
    vec![
        column("Type", "string", TYPE, |o| json!(text(o, "/spec/type"))),
        column("Cluster-IP", "string", CLUSTER_IP, |o| {
            json!(none_if_empty(text(o, "/spec/clusterIP").to_owned()))
        }),
        column("External-IP", "string", EXTERNAL_IP, |o| json!(external_ip(o))),
        column("Port(s)", "string", PORTS, |o| json!(none_if_empty(port_string(o)))),
        age,
        wide("Selector", SELECTOR, |o| {
            json!(format_labels(o.pointer("/spec/selector")))
        }),
    ]
}

fn text<'a>(service: &'a Value, pointer: &str) -> &'a str {
    service.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}

fn strings<'a>(service: &'a Value, pointer: &str) -> Vec<&'a str> {
    service
        .pointer(pointer)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn none_if_empty(text: String) -> String {
    if text.is_empty() { "<none>".to_owned() } else { text }
}

/// `getServiceExternalIP`: the external IPs of a ClusterIP or NodePort service, the load
/// balancer's addresses (then the external IPs) or `<pending>`, the external name.
fn external_ip(service: &Value) -> String {
    let external = strings(service, "/spec/externalIPs");
    match text(service, "/spec/type") {
        "ClusterIP" | "NodePort" => none_if_empty(external.join(",")),
        "LoadBalancer" => {
            let mut addresses = load_balancer_addresses(service);
            addresses.extend(external.iter().map(|ip| (*ip).to_owned()));
            if addresses.is_empty() {
                "<pending>".to_owned()
            } else {
                addresses.join(",")
            }
        }
        "ExternalName" => text(service, "/spec/externalName").to_owned(),
        _ => "<unknown>".to_owned(),
    }
}

/// `loadBalancerStatusStringer`: each ingress point's IP, or else hostname, sorted and unique.
fn load_balancer_addresses(service: &Value) -> Vec<String> {
    let mut addresses: Vec<String> = service
        .pointer("/status/loadBalancer/ingress")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|point| {
            let ip = point.get("ip").and_then(Value::as_str).filter(|ip| !ip.is_empty());
            ip.or_else(|| point.get("hostname").and_then(Value::as_str).filter(|h| !h.is_empty()))
                .map(str::to_owned)
        })
        .collect();
    addresses.sort();
    addresses.dedup();
    addresses
}

/// `makePortString`: `port/protocol`, or `port:nodePort/protocol` with a node port.
fn port_string(service: &Value) -> String {
    let ports = service.pointer("/spec/ports").and_then(Value::as_array);
    let pieces: Vec<String> = ports
        .into_iter()
        .flatten()
        .map(|port| {
            let number = port.get("port").and_then(Value::as_i64).unwrap_or_default();
            let protocol = port.get("protocol").and_then(Value::as_str).unwrap_or_default();
            match port.get("nodePort").and_then(Value::as_i64).filter(|n| *n > 0) {
                Some(node_port) => format!("{number}:{node_port}/{protocol}"),
                None => format!("{number}/{protocol}"),
            }
        })
        .collect();
    pieces.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_shows_its_address_and_ports() {
        let lb = json!({"spec": {"type": "LoadBalancer", "externalIPs": ["1.2.3.4"], "ports": [{"port": 80, "nodePort": 30448, "protocol": "TCP"}]},
            "status": {"loadBalancer": {"ingress": [{"hostname": "b.example.com"}, {"ip": "9.9.9.9"}, {"ip": "9.9.9.9"}]}}});
        assert_eq!(external_ip(&lb), "9.9.9.9,b.example.com,1.2.3.4");
        assert_eq!(port_string(&lb), "80:30448/TCP");
        let pending = json!({"spec": {"type": "LoadBalancer"}});
        assert_eq!(external_ip(&pending), "<pending>");
        let name = json!({"spec": {"type": "ExternalName", "externalName": "example.com"}});
        assert_eq!(external_ip(&name), "example.com");
        let plain = json!({"spec": {"type": "ClusterIP", "ports": [{"port": 80, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}]}});
        assert_eq!(
            (external_ip(&plain), port_string(&plain)),
            ("<none>".to_owned(), "80/TCP,53/UDP".to_owned())
        );
    }
}
