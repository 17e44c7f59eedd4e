//! NetworkPolicy validation as in `pkg/apis/networking/validation/validation.go`
//! (`ValidateNetworkPolicy`, `ValidateNetworkPolicyUpdate`, `ValidateNetworkPolicySpec`,
//! `ValidateNetworkPolicyPort`, `ValidateNetworkPolicyPeer`, `ValidateIPBlock`,
//! `ValidationOptionsForNetworking`), with the 1.31 CIDR checks where they differ.

use std::net::IpAddr;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::label_selector_validation::label_selector_errors;
use crate::semantics::names::port_name_errors;
use crate::semantics::node_validation::parse_cidr;

/// The protocols a policy port may name, in the order Go lists them.
const PROTOCOLS: [&str; 3] = ["TCP", "UDP", "SCTP"];

/// The policy types, in the order Go lists them.
const POLICY_TYPES: [&str; 2] = ["Ingress", "Egress"];

/// The list at `key` of `object` (none when absent, null or not a list).
fn items<'v>(object: &'v Value, key: &str) -> &'v [Value] {
    object.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// Whether `key` of `object` is set (a Go pointer that is not nil).
fn is_set(object: &Value, key: &str) -> bool {
    object.get(key).is_some_and(|v| !v.is_null())
}

/// The strategy's `Validate`: the spec's errors (metadata is checked for every kind).
pub(crate) fn create_errors(policy: &Value, minor: u32) -> Vec<FieldError> {
    spec_errors(policy.get("spec").unwrap_or(&Value::Null), false, minor)
}

/// The strategy's `ValidateUpdate`: `ValidateNetworkPolicy` then `ValidateNetworkPolicyUpdate`,
/// both of which validate the spec, so each spec error is reported twice (the message lists it
/// once). Selector values are not checked when the stored pod selector already fails.
pub(crate) fn update_errors(policy: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let old_selector = old.pointer("/spec/podSelector").unwrap_or(&Value::Null);
    let lenient = !label_selector_errors(old_selector, "", false).is_empty();
    let spec = policy.get("spec").unwrap_or(&Value::Null);
    let mut errors = spec_errors(spec, lenient, minor);
    errors.extend(spec_errors(spec, lenient, minor));
    errors
}

/// `ValidateNetworkPolicySpec`.
fn spec_errors(spec: &Value, lenient: bool, minor: u32) -> Vec<FieldError> {
    let mut errors = label_selector_errors(
        spec.get("podSelector").unwrap_or(&Value::Null),
        "spec.podSelector",
        lenient,
    );
    for (direction, peers) in [("ingress", "from"), ("egress", "to")] {
        for (i, rule) in items(spec, direction).iter().enumerate() {
            let at = format!("spec.{direction}[{i}]");
            for (j, port) in items(rule, "ports").iter().enumerate() {
                errors.extend(port_errors(port, &format!("{at}.ports[{j}]")));
            }
            for (j, peer) in items(rule, peers).iter().enumerate() {
                errors.extend(peer_errors(peer, lenient, &format!("{at}.{peers}[{j}]"), minor));
            }
        }
    }
    let types = items(spec, "policyTypes");
    if types.len() > POLICY_TYPES.len() {
        let quoted: Vec<String> = types
            .iter()
            .map(|t| format!("{:?}", t.as_str().unwrap_or_default()))
            .collect();
        let printed = format!("[]networking.PolicyType{{{}}}", quoted.join(", "));
        errors.push(FieldError::invalid(
            "spec.policyTypes",
            BadValue::Raw(printed),
            "may not specify more than two policyTypes",
        ));
        return errors;
    }
    for (i, policy_type) in types.iter().enumerate() {
        let policy_type = policy_type.as_str().unwrap_or_default();
        if !POLICY_TYPES.contains(&policy_type) {
            let supported = POLICY_TYPES.map(str::to_owned);
            errors.push(FieldError::not_supported(
                format!("spec.policyTypes[{i}]"),
                policy_type.into(),
                &supported,
            ));
        }
    }
    errors
}

/// `ValidateNetworkPolicyPort`: a known protocol, a port number or name, an end port only
/// after a numeric port and not below it.
fn port_errors(port: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(protocol) = port.get("protocol").filter(|p| !p.is_null()) {
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
    let end_port = port.get("endPort").and_then(Value::as_i64);
    match port.get("port").filter(|p| !p.is_null()) {
        Some(Value::String(name)) => {
            if let Some(end) = end_port {
                errors.push(FieldError::invalid(
                    format!("{at}.endPort"),
                    BadValue::Int(end),
                    "may not be specified when `port` is non-numeric",
                ));
            }
            for why in port_name_errors(name) {
                errors.push(FieldError::invalid(format!("{at}.port"), name.as_str().into(), why));
            }
        }
        Some(number) => {
            let number = number.as_i64().unwrap_or_default();
            errors.extend(FieldError::port_number(format!("{at}.port"), number));
            if let Some(end) = end_port {
                if end < number {
                    // Go reports the start port as the bad value.
                    errors.push(FieldError::invalid(
                        format!("{at}.endPort"),
                        BadValue::Int(number),
                        "must be greater than or equal to `port`",
                    ));
                }
                errors.extend(FieldError::port_number(format!("{at}.endPort"), end));
            }
        }
        None => {
            if let Some(end) = end_port {
                errors.push(FieldError::invalid(
                    format!("{at}.endPort"),
                    BadValue::Int(end),
                    "may not be specified when `port` is not specified",
                ));
            }
        }
    }
    errors
}

/// `ValidateNetworkPolicyPeer`: exactly one kind of peer when one is an IP block.
fn peer_errors(peer: &Value, lenient: bool, at: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut peers = 0;
    for selector in ["podSelector", "namespaceSelector"] {
        if is_set(peer, selector) {
            peers += 1;
            errors.extend(label_selector_errors(
                &peer[selector],
                &format!("{at}.{selector}"),
                lenient,
            ));
        }
    }
    let ip_block = is_set(peer, "ipBlock");
    if ip_block {
        peers += 1;
        errors.extend(ip_block_errors(&peer["ipBlock"], &format!("{at}.ipBlock"), minor));
    }
    if peers == 0 {
        errors.push(FieldError::required(at, "must specify a peer"));
    } else if peers > 1 && ip_block {
        errors.push(FieldError::forbidden(
            at,
            "may not specify both ipBlock and another peer",
        ));
    }
    errors
}

/// A parsed CIDR: its network address (masked, in its family's bytes) and prefix length.
struct Network {
    bytes: Vec<u8>,
    bits: u8,
}

impl Network {
    /// Go's `net.ParseCIDR` (sloppy): the network the text names.
    fn parse(text: &str) -> Option<Self> {
        let (ip, bits) = parse_cidr(text).ok()?;
        let bytes = match ip {
            IpAddr::V4(v4) => v4.octets().to_vec(),
            IpAddr::V6(v6) => v6.octets().to_vec(),
        };
        Some(Self {
            bytes: mask(&bytes, bits),
            bits,
        })
    }

    /// `IPNet.Contains` of another network's address: same family, same masked bits.
    fn contains(&self, other: &Self) -> bool {
        other.bytes.len() == self.bytes.len() && mask(&other.bytes, self.bits) == self.bytes
    }
}

/// `bytes` with all but the first `bits` bits cleared.
fn mask(bytes: &[u8], bits: u8) -> Vec<u8> {
    bytes
        .iter()
        .enumerate()
        .map(|(i, byte)| {
            let kept = usize::from(bits).saturating_sub(i * 8).min(8);
            if kept == 0 { 0 } else { byte & (0xffu8 << (8 - kept)) }
        })
        .collect()
}

/// `ValidateIPBlock`: a CIDR, and exceptions that are strict subsets of it. Before 1.31 the
/// first unparsable CIDR ends the checks ("not a valid CIDR"); from 1.31 each is reported as
/// `IsValidCIDR` words it and the other exceptions are still checked.
fn ip_block_errors(block: &Value, at: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let cidr = block.get("cidr").and_then(Value::as_str).unwrap_or_default();
    if cidr.is_empty() {
        errors.push(FieldError::required(format!("{at}.cidr"), ""));
        return errors;
    }
    let not_a_cidr = |field: String, text: &str| {
        let why = if minor >= 31 {
            "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
        } else {
            "not a valid CIDR"
        };
        FieldError::invalid(field, text.into(), why)
    };
    let Some(network) = Network::parse(cidr) else {
        errors.push(not_a_cidr(format!("{at}.cidr"), cidr));
        return errors;
    };
    for (i, except) in items(block, "except").iter().enumerate() {
        let field = format!("{at}.except[{i}]");
        let text = except.as_str().unwrap_or_default();
        let Some(excepted) = Network::parse(text) else {
            errors.push(not_a_cidr(field, text));
            if minor >= 31 {
                continue;
            }
            return errors;
        };
        if !network.contains(&excepted) || network.bits >= excepted.bits {
            errors.push(FieldError::invalid(
                field,
                text.into(),
                "must be a strict subset of `cidr`",
            ));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn ports_should_name_known_protocols_and_ordered_ranges() {
        let policy = json!({"spec": {"podSelector": {}, "ingress": [{"ports": [
            {"port": 0, "protocol": "ICMP"}, {"port": 2000, "endPort": 1000}, {"port": "http", "endPort": 90},
            {"port": "Not_A_Name"}, {"endPort": 90}, {"port": 80, "endPort": 90, "protocol": "SCTP"},
        ]}]}});
        assert_eq!(
            rendered(&create_errors(&policy, 28)),
            [
                "spec.ingress[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"TCP\", \"UDP\", \"SCTP\"",
                "spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
                "spec.ingress[0].ports[1].endPort: Invalid value: 2000: must be greater than or equal to `port`",
                "spec.ingress[0].ports[2].endPort: Invalid value: 90: may not be specified when `port` is non-numeric",
                "spec.ingress[0].ports[3].port: Invalid value: \"Not_A_Name\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                "spec.ingress[0].ports[4].endPort: Invalid value: 90: may not be specified when `port` is not specified",
            ]
        );
    }

    #[test]
    fn peers_should_be_one_kind_with_subset_exceptions() {
        let policy = json!({"spec": {"podSelector": {}, "egress": [{"to": [
            {}, {"ipBlock": {"cidr": "10.0.0.0/8"}, "podSelector": {}}, {"ipBlock": {"cidr": "10.0.0.1"}},
            {"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.0.0.0/16", "10.1.0.0/24", "10.0.1.0/24"]}},
            {"ipBlock": {"cidr": "10.0.0.0/16", "except": ["bogus", "10.2.0.0/24"]}},
        ]}]}});
        let expected_28 = [
            "spec.egress[0].to[0]: Required value: must specify a peer",
            "spec.egress[0].to[1]: Forbidden: may not specify both ipBlock and another peer",
            "spec.egress[0].to[2].ipBlock.cidr: Invalid value: \"10.0.0.1\": not a valid CIDR",
            "spec.egress[0].to[3].ipBlock.except[0]: Invalid value: \"10.0.0.0/16\": must be a strict subset of `cidr`",
            "spec.egress[0].to[3].ipBlock.except[1]: Invalid value: \"10.1.0.0/24\": must be a strict subset of `cidr`",
            "spec.egress[0].to[4].ipBlock.except[0]: Invalid value: \"bogus\": not a valid CIDR",
        ];
        assert_eq!(rendered(&create_errors(&policy, 28)), expected_28);
        let errors_31 = rendered(&create_errors(&policy, 31));
        assert_eq!(errors_31.len(), 7, "{errors_31:?}");
        assert!(errors_31[6].ends_with("\"10.2.0.0/24\": must be a strict subset of `cidr`"));
    }

    #[test]
    fn policy_types_should_be_at_most_ingress_and_egress() {
        let three = json!({"spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress", "Sideways"]}});
        assert_eq!(
            rendered(&create_errors(&three, 28)),
            [
                "spec.policyTypes: Invalid value: []networking.PolicyType{\"Ingress\", \"Egress\", \"Sideways\"}: may not specify more than two policyTypes"
            ]
        );
        let odd = json!({"spec": {"podSelector": {}, "policyTypes": ["Sideways"]}});
        assert_eq!(
            rendered(&create_errors(&odd, 28)),
            ["spec.policyTypes[0]: Unsupported value: \"Sideways\": supported values: \"Ingress\", \"Egress\""]
        );
    }

    #[test]
    fn an_update_should_report_spec_errors_twice() {
        let old = json!({"spec": {"podSelector": {}}});
        let new = json!({"spec": {"podSelector": {}, "ingress": [{"from": [{}]}]}});
        assert_eq!(update_errors(&new, &old, 28).len(), 2);
        assert!(update_errors(&old, &old, 28).is_empty());
    }

    #[test]
    fn masks_should_clear_host_bits() {
        assert_eq!(mask(&[10, 1, 255, 3], 12), [10, 0, 0, 0]);
        assert_eq!(mask(&[10, 1, 255, 3], 32), [10, 1, 255, 3]);
    }
}
