//! networking.k8s.io tables as `pkg/printers/internalversion/printers.go` prints them:
//! `printNetworkPolicy`, `printIngress` (`formatHosts`, `formatPorts`,
//! `ingressLoadBalancerStatusStringer`) and `printIngressClass`, with their column definitions.

use serde_json::{Value, json};

use super::BuiltinColumn;
use super::column;
use super::format_label_selector;

/// The columns after Name of a networking.k8s.io kind's printer (`age` is the Age column).
pub(super) fn columns(kind: &str, age: BuiltinColumn) -> Option<Vec<BuiltinColumn>> {
    Some(match kind {
        "NetworkPolicy" => vec![
            column(
                "Pod-Selector",
                "string",
                "Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods.  In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.",
                |o| json!(format_label_selector(o.pointer("/spec/podSelector"))),
            ),
            age,
        ],
        "Ingress" => vec![
            column(
                "Class",
                "string",
                "The name of the IngressClass resource that should be used for additional configuration",
                |o| {
                    json!(
                        o.pointer("/spec/ingressClassName")
                            .and_then(Value::as_str)
                            .unwrap_or("<none>")
                    )
                },
            ),
            column(
                "Hosts",
                "string",
                "Hosts that incoming requests are matched against before the ingress rule",
                |o| json!(format_hosts(o)),
            ),
            column(
                "Address",
                "string",
                "Address is a list containing ingress points for the load-balancer",
                |o| json!(load_balancer_addresses(o)),
            ),
            column("Ports", "string", "Ports of TLS configurations that open", |o| {
                json!(if items(o, "/spec/tls").is_empty() {
                    "80"
                } else {
                    "80, 443"
                })
            }),
            age,
        ],
        "IngressClass" => vec![
            column(
                "Controller",
                "string",
                "Controller that is responsible for handling this class",
                |o| {
                    json!(
                        o.pointer("/spec/controller")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                    )
                },
            ),
            column(
                "Parameters",
                "string",
                "A reference to a resource with additional parameters",
                |o| json!(parameters(o)),
            ),
            age,
        ],
        _ => return None,
    })
}

fn items<'v>(object: &'v Value, pointer: &str) -> &'v [Value] {
    object
        .pointer(pointer)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `formatHosts`: the first three rules' hosts, and how many rules there are beyond them.
fn format_hosts(ingress: &Value) -> String {
    const SHOWN: usize = 3;
    let rules = items(ingress, "/spec/rules");
    let mut hosts: Vec<&str> = Vec::new();
    let mut more = false;
    for rule in rules {
        // Go marks "more" once three hosts are listed, when one more rule follows.
        if hosts.len() == SHOWN {
            more = true;
        }
        let host = text(rule, "host");
        if !more && !host.is_empty() {
            hosts.push(host);
        }
    }
    if hosts.is_empty() {
        return "*".to_owned();
    }
    let listed = hosts.join(",");
    if more {
        format!("{listed} + {} more...", rules.len() - SHOWN)
    } else {
        listed
    }
}

/// `ingressLoadBalancerStatusStringer`, wide as kube-apiserver prints tables: each point's IP,
/// or its hostname when it has none, sorted and without repeats.
fn load_balancer_addresses(ingress: &Value) -> String {
    let mut addresses: Vec<&str> = items(ingress, "/status/loadBalancer/ingress")
        .iter()
        .map(|point| match text(point, "ip") {
            "" => text(point, "hostname"),
            ip => ip,
        })
        .filter(|address| !address.is_empty())
        .collect();
    addresses.sort_unstable();
    addresses.dedup();
    addresses.join(",")
}

/// `printIngressClass`'s parameters: `Kind[.apiGroup]/name`, `<none>` without parameters.
fn parameters(class: &Value) -> String {
    let Some(parameters) = class.pointer("/spec/parameters").filter(|p| p.is_object()) else {
        return "<none>".to_owned();
    };
    let mut shown = text(parameters, "kind").to_owned();
    if let Some(group) = parameters.get("apiGroup").and_then(Value::as_str) {
        shown = format!("{shown}.{group}");
    }
    format!("{shown}/{}", text(parameters, "name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(kind: &str, object: &Value) -> Vec<Value> {
        let age = column("Age", "string", "", |_| json!("0s"));
        columns(kind, age).unwrap().iter().map(|c| (c.cell)(object)).collect()
    }

    #[test]
    fn network_policies_should_show_their_pod_selector() {
        let policy = json!({"spec": {"podSelector": {"matchLabels": {"b": "2", "a": "1"}}}});
        assert_eq!(cells("NetworkPolicy", &policy), [json!("a=1,b=2"), json!("0s")]);
        assert_eq!(
            cells("NetworkPolicy", &json!({"spec": {"podSelector": {}}}))[0],
            "<none>"
        );
    }

    #[test]
    fn ingresses_should_show_class_hosts_addresses_and_ports() {
        let ingress = json!({
            "spec": {"rules": [{"host": "a"}, {}, {"host": "b"}, {"host": "c"}, {"host": "d"}], "tls": [{}]},
            "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.2"}, {"hostname": "lb"}, {"ip": "10.0.0.2", "hostname": "x"}]}},
        });
        assert_eq!(
            cells("Ingress", &ingress),
            [
                json!("<none>"),
                json!("a,b,c + 2 more..."),
                json!("10.0.0.2,lb"),
                json!("80, 443"),
                json!("0s")
            ]
        );
        let bare = json!({"spec": {"ingressClassName": "nginx"}});
        assert_eq!(
            cells("Ingress", &bare)[..4],
            [json!("nginx"), json!("*"), json!(""), json!("80")]
        );
    }

    #[test]
    fn ingress_classes_should_show_their_parameters() {
        let class =
            json!({"spec": {"controller": "a.io/c", "parameters": {"apiGroup": "k.io", "kind": "P", "name": "n"}}});
        assert_eq!(
            cells("IngressClass", &class),
            [json!("a.io/c"), json!("P.k.io/n"), json!("0s")]
        );
        let core = json!({"spec": {"parameters": {"kind": "ConfigMap", "name": "n"}}});
        assert_eq!(cells("IngressClass", &core)[1], "ConfigMap/n");
        assert_eq!(cells("IngressClass", &json!({"spec": {}}))[1], "<none>");
    }
}
