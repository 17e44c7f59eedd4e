//! EndpointSlice validation and decoding as in `pkg/apis/discovery/validation/validation.go`
//! (`ValidateEndpointSliceCreate`, `ValidateEndpointSliceUpdate`, `validateEndpoints`,
//! `validatePorts`, `validateAddressType`, `validateHints`) and `pkg/apis/discovery/v1/defaults.go`
//! (`SetDefaults_EndpointPort`), with apimachinery's `IsValidIPv4Address`,
//! `IsValidIPv6Address` and `IsFullyQualifiedDomainName`.

use std::net::IpAddr;

use serde_json::{Map, Value, json};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names::{
    dns1123_label_errors, dns1123_subdomain_errors, label_value_errors, qualified_name_errors,
};
use crate::semantics::service_ip_validation::{non_special_ip_errors, parse_ip};
use crate::semantics::service_port_validation::label_errors;

/// `supportedAddressTypes.List()` and `supportedPortProtocols.List()`: sorted.
const ADDRESS_TYPES: [&str; 3] = ["FQDN", "IPv4", "IPv6"];
const PROTOCOLS: [&str; 3] = ["SCTP", "TCP", "UDP"];

/// `maxTopologyLabels`, `maxAddresses`, `maxPorts`, `maxEndpoints`, `maxZoneHints`.
const MAX_TOPOLOGY_LABELS: usize = 16;
const MAX_ADDRESSES: usize = 100;
const MAX_PORTS: usize = 20000;
const MAX_ENDPOINTS: usize = 1000;
const MAX_ZONE_HINTS: usize = 8;

/// The label kube-apiserver moved out of `deprecatedTopology` into `zone`.
const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

fn items<'v>(object: &'v Value, key: &str) -> &'v [Value] {
    object.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `SetDefaults_EndpointPort` (an unnamed TCP port) and what Go's encoding writes: each
/// endpoint's `conditions` struct, and `endpoints` and `ports` (no `omitempty`) as null when
/// empty, as they come back from storage.
pub(crate) fn set_defaults(slice: &mut Value) {
    let Some(fields) = slice.as_object_mut() else {
        return;
    };
    for key in ["endpoints", "ports"] {
        let empty = fields.get(key).is_none_or(|v| v.as_array().is_some_and(Vec::is_empty));
        if empty {
            fields.insert(key.to_owned(), Value::Null);
        }
    }
    let endpoints = fields.get_mut("endpoints").and_then(Value::as_array_mut);
    for endpoint in endpoints.into_iter().flatten().filter_map(Value::as_object_mut) {
        if endpoint.get("conditions").is_none_or(Value::is_null) {
            endpoint.insert("conditions".to_owned(), json!({}));
        }
    }
    let ports = fields.get_mut("ports").and_then(Value::as_array_mut);
    for port in ports.into_iter().flatten().filter_map(Value::as_object_mut) {
        default(port, "name", json!(""));
        default(port, "protocol", json!("TCP"));
    }
}

fn default(map: &mut Map<String, Value>, key: &str, value: Value) {
    if map.get(key).is_none_or(Value::is_null) {
        map.insert(key.to_owned(), value);
    }
}

/// `ValidateEndpointSlice` less metadata: the address type, the endpoints and the ports.
pub(crate) fn create_errors(slice: &Value) -> Vec<FieldError> {
    let address_type = text(slice, "addressType");
    let mut errors = Vec::new();
    if address_type.is_empty() {
        errors.push(FieldError::required("addressType", ""));
    } else if !ADDRESS_TYPES.contains(&address_type) {
        let supported = ADDRESS_TYPES.map(str::to_owned);
        errors.push(FieldError::not_supported(
            "addressType",
            address_type.into(),
            &supported,
        ));
    }
    errors.extend(endpoints_errors(items(slice, "endpoints"), address_type));
    errors.extend(ports_errors(items(slice, "ports")));
    errors
}

/// `ValidateEndpointSliceUpdate` less metadata: the slice as on create, and an address type
/// that does not change.
pub(crate) fn update_errors(slice: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = create_errors(slice);
    let address_type = text(slice, "addressType");
    if address_type != text(old, "addressType") {
        errors.push(FieldError::invalid(
            "addressType",
            address_type.into(),
            "field is immutable",
        ));
    }
    errors
}

/// `validateEndpoints`.
fn endpoints_errors(endpoints: &[Value], address_type: &str) -> Vec<FieldError> {
    if endpoints.len() > MAX_ENDPOINTS {
        return vec![FieldError::too_many(
            "endpoints",
            endpoints.len() as i64,
            MAX_ENDPOINTS as i64,
        )];
    }
    let mut errors = Vec::new();
    for (i, endpoint) in endpoints.iter().enumerate() {
        let at = format!("endpoints[{i}]");
        let addresses_at = format!("{at}.addresses");
        let addresses = items(endpoint, "addresses");
        if addresses.is_empty() {
            errors.push(FieldError::required(
                addresses_at.as_str(),
                "must contain at least 1 address",
            ));
        } else if addresses.len() > MAX_ADDRESSES {
            errors.push(FieldError::too_many(
                addresses_at.as_str(),
                addresses.len() as i64,
                MAX_ADDRESSES as i64,
            ));
        }
        for (j, address) in addresses.iter().enumerate() {
            let address = address.as_str().unwrap_or_default();
            errors.extend(address_errors(address, address_type, &format!("{addresses_at}[{j}]")));
        }
        if let Some(node) = endpoint.get("nodeName").filter(|n| !n.is_null()) {
            let node = node.as_str().unwrap_or_default();
            for why in dns1123_subdomain_errors(node) {
                errors.push(FieldError::invalid(format!("{at}.nodeName"), node.into(), why));
            }
        }
        let topology_at = format!("{at}.deprecatedTopology");
        let topology = endpoint.get("deprecatedTopology").and_then(Value::as_object);
        if let Some(topology) = topology {
            if topology.len() > MAX_TOPOLOGY_LABELS {
                errors.push(FieldError::too_many(
                    topology_at.as_str(),
                    topology.len() as i64,
                    MAX_TOPOLOGY_LABELS as i64,
                ));
            }
            errors.extend(label_errors(topology, &topology_at));
            if topology.contains_key(ZONE_LABEL) {
                errors.push(FieldError::internal(
                    format!("{topology_at}[{ZONE_LABEL}]"),
                    "reserved key was not removed in conversion",
                ));
            }
        }
        if let Some(hostname) = endpoint.get("hostname").filter(|h| !h.is_null()) {
            let hostname = hostname.as_str().unwrap_or_default();
            for why in dns1123_label_errors(hostname) {
                errors.push(FieldError::invalid(format!("{at}.hostname"), hostname.into(), why));
            }
        }
        if let Some(hints) = endpoint.get("hints").filter(|h| !h.is_null()) {
            errors.extend(hints_errors(hints, &format!("{at}.hints")));
        }
    }
    errors
}

/// An address of the slice's type: IPv4 or IPv6 (and routable), or a fully qualified domain
/// name; other types are not checked.
fn address_errors(address: &str, address_type: &str, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    match address_type {
        "IPv4" | "IPv6" => {
            // `To4() != nil`: an IPv4-mapped IPv6 address is an IPv4 one.
            let v4 = match parse_ip(address) {
                Some(IpAddr::V4(_)) => Some(true),
                Some(IpAddr::V6(v6)) => Some(v6.to_ipv4_mapped().is_some()),
                None => None,
            };
            let want_v4 = address_type == "IPv4";
            if v4 != Some(want_v4) {
                let why = format!("must be a valid {address_type} address");
                errors.push(FieldError::invalid(at, address.into(), why));
            }
            errors.extend(non_special_ip_errors(address, at));
        }
        "FQDN" => errors.extend(fqdn_errors(address, at)),
        _ => {}
    }
    errors
}

/// `IsFullyQualifiedDomainName`: a subdomain (a final dot aside) of two labels or more; the
/// first failure is the only one.
fn fqdn_errors(name: &str, at: &str) -> Option<FieldError> {
    if name.is_empty() {
        return Some(FieldError::required(at, ""));
    }
    let name = name.strip_suffix('.').unwrap_or(name);
    let errors = dns1123_subdomain_errors(name);
    if !errors.is_empty() {
        return Some(FieldError::invalid(at, name.into(), errors.join(",")));
    }
    if name.split('.').count() < 2 {
        return Some(FieldError::invalid(
            at,
            name.into(),
            "should be a domain with at least two segments separated by dots",
        ));
    }
    name.split('.').find_map(|label| {
        let errors = dns1123_label_errors(label);
        (!errors.is_empty()).then(|| FieldError::invalid(at, label.into(), errors.join(",")))
    })
}

/// `validateHints`: at most eight zones, each once, each a label value.
fn hints_errors(hints: &Value, at: &str) -> Vec<FieldError> {
    let zones_at = format!("{at}.forZones");
    let zones = items(hints, "forZones");
    if zones.len() > MAX_ZONE_HINTS {
        return vec![FieldError::too_many(
            zones_at,
            zones.len() as i64,
            MAX_ZONE_HINTS as i64,
        )];
    }
    let mut errors = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, zone) in zones.iter().enumerate() {
        let field = format!("{zones_at}[{i}].name");
        let name = text(zone, "name");
        if seen.contains(&name) {
            errors.push(FieldError::duplicate(field.as_str(), name.into()));
        } else {
            seen.push(name);
        }
        for why in label_value_errors(name) {
            errors.push(FieldError::invalid(field.as_str(), name.into(), why));
        }
    }
    errors
}

/// `validatePorts`: names that are DNS labels and distinct, known protocols, qualified
/// application protocols.
fn ports_errors(ports: &[Value]) -> Vec<FieldError> {
    if ports.len() > MAX_PORTS {
        return vec![FieldError::too_many("ports", ports.len() as i64, MAX_PORTS as i64)];
    }
    let mut errors = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let at = format!("ports[{i}]");
        let name = text(port, "name");
        if !name.is_empty() {
            for why in dns1123_label_errors(name) {
                errors.push(FieldError::invalid(format!("{at}.name"), name.into(), why));
            }
        }
        if names.contains(&name) {
            // Go passes the name's pointer; the error prints what it points to.
            errors.push(FieldError::duplicate(
                format!("{at}.name"),
                BadValue::Str(name.to_owned()),
            ));
        } else {
            names.push(name);
        }
        match port.get("protocol").filter(|p| !p.is_null()) {
            None => errors.push(FieldError::required(format!("{at}.protocol"), "")),
            Some(protocol) => {
                let protocol = protocol.as_str().unwrap_or_default();
                if !PROTOCOLS.contains(&protocol) {
                    let supported = PROTOCOLS.map(str::to_owned);
                    errors.push(FieldError::not_supported(
                        format!("{at}.protocol"),
                        protocol.into(),
                        &supported,
                    ));
                }
            }
        }
        if let Some(protocol) = port.get("appProtocol").filter(|p| !p.is_null()) {
            let protocol = protocol.as_str().unwrap_or_default();
            for why in qualified_name_errors(protocol) {
                errors.push(FieldError::invalid(format!("{at}.appProtocol"), protocol.into(), why));
            }
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn ports_and_endpoints_should_be_defaulted_and_encoded_as_go_does() {
        let mut slice = json!({"addressType": "IPv4", "endpoints": [{"addresses": ["10.0.0.1"]}], "ports": [{"port": 80}, {"name": "dns", "protocol": "UDP"}]});
        set_defaults(&mut slice);
        assert_eq!(slice["endpoints"][0]["conditions"], json!({}));
        assert_eq!(
            slice["ports"],
            json!([{"port": 80, "name": "", "protocol": "TCP"}, {"name": "dns", "protocol": "UDP"}])
        );
        let mut empty = json!({"addressType": "FQDN", "ports": []});
        set_defaults(&mut empty);
        assert_eq!(empty, json!({"addressType": "FQDN", "endpoints": null, "ports": null}));
    }

    #[test]
    fn addresses_should_be_of_the_slice_type() {
        let slice = json!({"addressType": "IPv4", "endpoints": [{"addresses": ["fd00::1", "bogus", "127.0.0.1", "::ffff:10.0.0.1"]}, {"addresses": []}]});
        assert_eq!(
            rendered(create_errors(&slice)),
            [
                "endpoints[0].addresses[0]: Invalid value: \"fd00::1\": must be a valid IPv4 address",
                "endpoints[0].addresses[1]: Invalid value: \"bogus\": must be a valid IPv4 address",
                "endpoints[0].addresses[1]: Invalid value: \"bogus\": must be a valid IP address",
                "endpoints[0].addresses[2]: Invalid value: \"127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)",
                "endpoints[1].addresses: Required value: must contain at least 1 address",
            ]
        );
        let fqdn = json!({"addressType": "FQDN", "endpoints": [{"addresses": ["", "nodots", "a.b.example.com."]}]});
        assert_eq!(
            rendered(create_errors(&fqdn)),
            [
                "endpoints[0].addresses[0]: Required value",
                "endpoints[0].addresses[1]: Invalid value: \"nodots\": should be a domain with at least two segments separated by dots",
            ]
        );
    }

    #[test]
    fn ports_should_be_distinct_and_known() {
        let slice = json!({"addressType": "IPv4", "ports": [{"name": "a", "protocol": "ICMP"}, {"name": "a", "protocol": "TCP"}, {"name": ""}]});
        assert_eq!(
            rendered(create_errors(&slice)),
            [
                "ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                "ports[1].name: Duplicate value: \"a\"",
                "ports[2].protocol: Required value",
            ]
        );
    }

    #[test]
    fn zones_should_be_few_and_distinct_and_the_type_immutable() {
        let zones: Vec<Value> = (0..9).map(|i| json!({"name": format!("z{i}")})).collect();
        let slice =
            json!({"addressType": "IPv4", "endpoints": [{"addresses": ["10.0.0.1"], "hints": {"forZones": zones}}]});
        assert_eq!(
            rendered(create_errors(&slice)),
            ["endpoints[0].hints.forZones: Too many: 9: must have at most 8 items"]
        );
        let old = json!({"addressType": "IPv6"});
        assert_eq!(
            rendered(update_errors(&json!({"addressType": "IPv4"}), &old)),
            ["addressType: Invalid value: \"IPv4\": field is immutable"]
        );
    }
}
