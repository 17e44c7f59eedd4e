//! Endpoints validation as in kube-apiserver v1.28's `pkg/apis/core/validation/validation.go`.
//!
//! `ValidateEndpointsCreate` and `ValidateEndpointsUpdate` (`validateEndpointSubsets`,
//! `validateEndpointAddress`, `validateEndpointPort`), and `SetDefaults_Endpoints` of
//! `pkg/apis/core/v1/defaults.go`. The strategy (`pkg/registry/core/endpoint/strategy.go`)
//! changes nothing and warns of nothing, and an update is validated as a create is (its
//! metadata rules are every kind's).

use serde_json::{Value, json};

use crate::semantics::field_error::FieldError;
use crate::semantics::names;
use crate::semantics::service_ip_validation::{NOT_AN_IP, non_special_ip_errors, parse_ip, text};
use crate::semantics::service_port_validation::{list_port_name_errors, number};

/// `supportedPortProtocols`, sorted as `sets.String.List()` gives them.
const PROTOCOLS: [&str; 3] = ["SCTP", "TCP", "UDP"];

/// The list at `key` of `object` (none when absent, null or not a list).
fn items<'v>(object: &'v Value, key: &str) -> &'v [Value] {
    object.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// `SetDefaults_Endpoints`: a port without protocol is TCP.
pub(crate) fn set_defaults(endpoints: &mut Value) {
    let subsets = endpoints.get_mut("subsets").and_then(Value::as_array_mut);
    for subset in subsets.into_iter().flatten() {
        let ports = subset.get_mut("ports").and_then(Value::as_array_mut);
        for port in ports.into_iter().flatten().filter_map(Value::as_object_mut) {
            if port.get("protocol").and_then(Value::as_str).is_none_or(str::is_empty) {
                port.insert("protocol".to_owned(), json!("TCP"));
            }
        }
    }
}

/// `ValidateEndpoints` less the object metadata checked for every kind: each subset has an
/// address, each address and port is valid.
pub(crate) fn endpoints_errors(endpoints: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (i, subset) in items(endpoints, "subsets").iter().enumerate() {
        let at = format!("subsets[{i}]");
        let (ready, not_ready) = (items(subset, "addresses"), items(subset, "notReadyAddresses"));
        // A headless service's endpoints may have no ports, never no addresses.
        if ready.is_empty() && not_ready.is_empty() {
            errors.push(FieldError::required(
                at.as_str(),
                "must specify `addresses` or `notReadyAddresses`",
            ));
        }
        for (list, addresses) in [("addresses", ready), ("notReadyAddresses", not_ready)] {
            for (j, address) in addresses.iter().enumerate() {
                errors.extend(address_errors(address, &format!("{at}.{list}[{j}]")));
            }
        }
        let ports = items(subset, "ports");
        for (j, port) in ports.iter().enumerate() {
            errors.extend(port_errors(port, ports.len() > 1, &format!("{at}.ports[{j}]")));
        }
    }
    errors
}

/// `validateEndpointAddress`: an IP, an optional DNS label hostname, an optional node name
/// that is a DNS subdomain (even when empty), and an IP that is not special.
fn address_errors(address: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let ip = text(address, "ip");
    let ip_field = format!("{at}.ip");
    if parse_ip(ip).is_none() {
        errors.push(FieldError::invalid(ip_field.as_str(), ip.into(), NOT_AN_IP));
    }
    let hostname = text(address, "hostname");
    if !hostname.is_empty() {
        for why in names::dns1123_label_errors(hostname) {
            errors.push(FieldError::invalid(format!("{at}.hostname"), hostname.into(), why));
        }
    }
    if address.get("nodeName").is_some_and(|n| !n.is_null()) {
        let node = text(address, "nodeName");
        for why in names::dns1123_subdomain_errors(node) {
            errors.push(FieldError::invalid(format!("{at}.nodeName"), node.into(), why));
        }
    }
    errors.extend(non_special_ip_errors(ip, &ip_field));
    errors
}

/// `validateEndpointPort`: a name (required when the subset has more ports) that is a DNS
/// label, a port number, a supported protocol, an application protocol that is a qualified name.
fn port_errors(port: &Value, require_name: bool, at: &str) -> Vec<FieldError> {
    let mut errors = list_port_name_errors(text(port, "name"), require_name, at);
    errors.extend(FieldError::port_number(format!("{at}.port"), number(port, "port")));
    errors.extend(FieldError::enum_string(
        &format!("{at}.protocol"),
        text(port, "protocol"),
        &PROTOCOLS,
    ));
    if port.get("appProtocol").is_some_and(|p| !p.is_null()) {
        let protocol = text(port, "appProtocol");
        for why in names::qualified_name_errors(protocol) {
            errors.push(FieldError::invalid(format!("{at}.appProtocol"), protocol.into(), why));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(endpoints: &Value) -> Vec<String> {
        endpoints_errors(endpoints).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn ports_should_default_to_tcp() {
        let mut endpoints = json!({"subsets": [{"ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}, "odd"]}, 7]});
        set_defaults(&mut endpoints);
        assert_eq!(endpoints["subsets"][0]["ports"][0]["protocol"], "TCP");
        assert_eq!(endpoints["subsets"][0]["ports"][1]["protocol"], "UDP");
        assert_eq!(endpoints["subsets"][1], 7);
    }

    #[test]
    fn a_valid_subset_should_pass() {
        let endpoints = json!({"subsets": [{
            "addresses": [{"ip": "10.1.2.3", "hostname": "web-0", "nodeName": "node-a"}],
            "notReadyAddresses": [{"ip": "fd00::1"}],
            "ports": [{"name": "http", "port": 80, "protocol": "TCP"}, {"name": "metrics", "port": 9090, "protocol": "UDP", "appProtocol": "http"}],
        }]});
        assert!(rendered(&endpoints).is_empty());
        // A headless subset needs no ports; one port needs no name.
        assert!(rendered(&json!({"subsets": [{"addresses": [{"ip": "10.0.0.1"}]}]})).is_empty());
        assert!(
            rendered(
                &json!({"subsets": [{"addresses": [{"ip": "10.0.0.1"}], "ports": [{"port": 1, "protocol": "SCTP"}]}]})
            )
            .is_empty()
        );
    }

    #[test]
    fn addresses_should_be_routable_ips_with_dns_names() {
        let endpoints = json!({"subsets": [{
            "notReadyAddresses": [{"ip": "not-an-ip"}, {"ip": "0.0.0.0"}, {"ip": "fe80::1"}, {"ip": "10.0.0.1", "hostname": "web.0", "nodeName": ""}],
        }]});
        assert_eq!(
            rendered(&endpoints),
            [
                "subsets[0].notReadyAddresses[0].ip: Invalid value: \"not-an-ip\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                "subsets[0].notReadyAddresses[0].ip: Invalid value: \"not-an-ip\": must be a valid IP address",
                "subsets[0].notReadyAddresses[1].ip: Invalid value: \"0.0.0.0\": may not be unspecified (0.0.0.0)",
                "subsets[0].notReadyAddresses[2].ip: Invalid value: \"fe80::1\": may not be in the link-local range (169.254.0.0/16, fe80::/10)",
                "subsets[0].notReadyAddresses[3].hostname: Invalid value: \"web.0\": must not contain dots",
                "subsets[0].notReadyAddresses[3].nodeName: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            ]
        );
    }

    #[test]
    fn subsets_need_addresses_and_named_valid_ports() {
        let endpoints = json!({"subsets": [{"addresses": [], "ports": [
            {"port": 0, "protocol": "ICMP"}, {"name": "a", "port": 70000, "protocol": "TCP", "appProtocol": "a/b/c"},
            {"port": 80, "protocol": ""},
        ]}]});
        assert_eq!(
            rendered(&endpoints),
            [
                "subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`",
                "subsets[0].ports[0].name: Required value",
                "subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
                "subsets[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                "subsets[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "subsets[0].ports[1].appProtocol: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                "subsets[0].ports[2].name: Required value",
                "subsets[0].ports[2].protocol: Required value",
            ]
        );
        // Malformed values are judged as Go's zero values, never a crash.
        assert_eq!(rendered(&json!({"subsets": [{"addresses": {"ip": 1}}]})).len(), 1);
        assert!(rendered(&json!({"subsets": "x"})).is_empty());
    }
}
