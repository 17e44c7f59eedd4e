//! The warnings of a valid Service write, `GetWarningsForService` (`pkg/api/service/warnings.go`),
//! which the service strategy returns on create and update (not on `/status`): a deprecated
//! annotation, addresses the sloppy parser took but `net/netip` refuses or would print otherwise,
//! and fields its type ignores.

use serde_json::Value;

use super::field_error::go_quote;
use super::go_netip::{parse_addr, parse_prefix};
use super::service_ip_validation::{strings, text};

/// `api.DeprecatedAnnotationTopologyAwareHints` and its replacement.
const TOPOLOGY_AWARE_HINTS: &str = "service.kubernetes.io/topology-aware-hints";
const TOPOLOGY_MODE: &str = "service.kubernetes.io/topology-mode";

/// `GetWarningsForService`, in its order (the old object is not read).
pub(crate) fn service_warnings(service: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    let deprecated_annotation = service
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .is_some_and(|annotations| annotations.contains_key(TOPOLOGY_AWARE_HINTS));
    if deprecated_annotation {
        warnings.push(format!(
            "annotation {TOPOLOGY_AWARE_HINTS} is deprecated, please use {TOPOLOGY_MODE} instead"
        ));
    }
    let Some(spec) = service.get("spec") else {
        return warnings;
    };
    // `helper.IsServiceIPSet`: neither headless nor unallocated.
    if !matches!(text(spec, "clusterIP"), "" | "None") {
        for (i, address) in strings(spec, "clusterIPs").iter().enumerate() {
            warnings.extend(ip_warning(&format!("spec.clusterIPs[{i}]"), address));
        }
    }
    let external_ips = strings(spec, "externalIPs");
    for (i, address) in external_ips.iter().enumerate() {
        warnings.extend(ip_warning(&format!("spec.externalIPs[{i}]"), address));
    }
    let load_balancer_ip = text(spec, "loadBalancerIP");
    if !load_balancer_ip.is_empty() {
        warnings.extend(ip_warning("spec.loadBalancerIP", load_balancer_ip));
    }
    for (i, cidr) in strings(spec, "loadBalancerSourceRanges").iter().enumerate() {
        warnings.extend(cidr_warning(&format!("spec.loadBalancerSourceRanges[{i}]"), cidr));
    }
    let external_name_type = text(spec, "type") == "ExternalName";
    if external_name_type && !external_ips.is_empty() {
        warnings.push(r#"spec.externalIPs is ignored when spec.type is "ExternalName""#.to_owned());
    }
    if !external_name_type && !text(spec, "externalName").is_empty() {
        warnings.push(r#"spec.externalName is ignored when spec.type is not "ExternalName""#.to_owned());
    }
    warnings
}

/// `getWarningsForIP`: an address `netip` refuses (leading zeros, CVE-2021-29923), or an IPv6
/// one not written as it prints.
fn ip_warning(field: &str, address: &str) -> Option<String> {
    match parse_addr(address) {
        Err(error) => Some(format!(
            "{field}: IP address was accepted, but will be invalid in a future Kubernetes release: {error}"
        )),
        Ok(ip) if !ip.is_v4() && ip.to_string() != address => Some(format!(
            "{field}: IPv6 address {} is not in RFC 5952 canonical format ({}), which may cause controller apply-loops",
            go_quote(address),
            go_quote(&ip.to_string())
        )),
        Ok(_) => None,
    }
}

/// `getWarningsForCIDR`: the same for a prefix.
fn cidr_warning(field: &str, cidr: &str) -> Option<String> {
    match parse_prefix(cidr) {
        Err(error) => Some(format!(
            "{field}: IP prefix was accepted, but will be invalid in a future Kubernetes release: {error}"
        )),
        Ok(prefix) if !prefix.addr.is_v4() && prefix.to_string() != cidr => Some(format!(
            "{field}: IPv6 prefix {} is not in RFC 5952 canonical format ({}), which may cause controller apply-loops",
            go_quote(cidr),
            go_quote(&prefix.to_string())
        )),
        Ok(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn addresses_should_warn_in_field_order() {
        let service = json!({"spec": {
            "clusterIP": "10.96.0.010", "clusterIPs": ["10.96.0.010"],
            "externalIPs": ["2001:DB8::1", "192.0.2.1"],
            "loadBalancerIP": "198.051.100.7",
            "loadBalancerSourceRanges": ["10.0.0.0/8", "010.0.0.0/8", "2001:db8:0:0::/48"],
        }});
        assert_eq!(
            service_warnings(&service),
            [
                r#"spec.clusterIPs[0]: IP address was accepted, but will be invalid in a future Kubernetes release: ParseAddr("10.96.0.010"): IPv4 field has octet with leading zero"#,
                r#"spec.externalIPs[0]: IPv6 address "2001:DB8::1" is not in RFC 5952 canonical format ("2001:db8::1"), which may cause controller apply-loops"#,
                r#"spec.loadBalancerIP: IP address was accepted, but will be invalid in a future Kubernetes release: ParseAddr("198.051.100.7"): IPv4 field has octet with leading zero"#,
                r#"spec.loadBalancerSourceRanges[1]: IP prefix was accepted, but will be invalid in a future Kubernetes release: netip.ParsePrefix("010.0.0.0/8"): ParseAddr("010.0.0.0"): IPv4 field has octet with leading zero"#,
                r#"spec.loadBalancerSourceRanges[2]: IPv6 prefix "2001:db8:0:0::/48" is not in RFC 5952 canonical format ("2001:db8::/48"), which may cause controller apply-loops"#,
            ]
        );
    }

    #[test]
    fn headless_cluster_ips_and_canonical_addresses_should_not_warn() {
        let service = json!({"spec": {"clusterIP": "None", "clusterIPs": ["None"], "externalIPs": ["2001:db8::1"]}});
        assert!(service_warnings(&service).is_empty());
    }

    #[test]
    fn fields_the_type_ignores_and_the_old_annotation_should_warn() {
        let service = json!({
            "metadata": {"annotations": {TOPOLOGY_AWARE_HINTS: "auto"}},
            "spec": {"type": "ExternalName", "externalName": "example.com", "externalIPs": ["192.0.2.1"]},
        });
        assert_eq!(
            service_warnings(&service),
            [
                "annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead",
                r#"spec.externalIPs is ignored when spec.type is "ExternalName""#,
            ]
        );
        let stray = json!({"spec": {"type": "ClusterIP", "externalName": "example.com"}});
        assert_eq!(
            service_warnings(&stray),
            [r#"spec.externalName is ignored when spec.type is not "ExternalName""#]
        );
    }
}
