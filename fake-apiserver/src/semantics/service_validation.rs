//! Validation of Services as kube-apiserver v1.28's `pkg/apis/core/validation/validation.go`
//! has it: `ValidateService` (ports, selector, type, session affinity, external name and IPs,
//! load balancer fields, traffic policies), `ValidateServiceUpdate` (what may not change) and
//! `ValidateServiceStatusUpdate` (`ValidateLoadBalancerStatus`), run on the Service as the
//! storage leaves it before validating (`service_strategy`): the allocator's own checks (IP
//! families, requested node ports) come first and alone, as its errors end the request
//! before the strategy validates.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::service_ip_validation::{
    NOT_AN_IP, cluster_ips_related_errors, is_headless, is_set, non_special_ip_errors, parse_ip, strings, text,
    upgrade_downgrade_errors,
};
use crate::semantics::service_node_ports::{AllocError, assign_node_ports, update_node_ports};
use crate::semantics::service_port_validation::{
    duplicate_port_errors, label_errors, number, port_errors, session_affinity_errors,
};
use crate::semantics::service_strategy::{init_ip_families, needs_health_check, normalize_create};
use crate::semantics::service_traffic_validation::{
    load_balancer_class_errors, source_range_errors, traffic_policy_errors,
};

/// The kubelet's port, which a LoadBalancer may not expose.
const KUBELET_PORT: i64 = 10250;
const TOPOLOGY_MODE: &str = "service.kubernetes.io/topology-mode";
const TOPOLOGY_HINTS: &str = "service.kubernetes.io/topology-aware-hints";

fn spec_of(service: &Value) -> Value {
    service
        .get("spec")
        .filter(|s| s.is_object())
        .cloned()
        .unwrap_or_else(|| json!({}))
}

/// A create: the allocator's checks, then `ValidateServiceCreate`.
pub(crate) fn service_create_errors(service: &Value, minor: u32) -> Vec<FieldError> {
    let mut spec = spec_of(service);
    normalize_create(&mut spec);
    let families = init_ip_families(&mut spec, None);
    if !families.is_empty() {
        return families;
    }
    match assign_node_ports(&mut spec, &mut BTreeSet::new()) {
        Err(AllocError::Invalid(error)) => vec![error],
        // kube-apiserver answers 500 before validating: the allocator refuses it after.
        Err(AllocError::Internal(_)) => Vec::new(),
        Ok(()) => service_errors(service, &spec, minor),
    }
}

/// An update of the main resource (already through `service_strategy::prepare_update`):
/// the allocator's checks, then `ValidateServiceUpdate`.
pub(crate) fn service_update_errors(service: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let mut spec = spec_of(service);
    let old = spec_of(old);
    let families = init_ip_families(&mut spec, Some(&old));
    if !families.is_empty() {
        return families;
    }
    match update_node_ports(&mut spec, &old, &mut BTreeSet::new()) {
        Err(AllocError::Invalid(error)) => return vec![error],
        Err(AllocError::Internal(_)) => return Vec::new(),
        Ok(()) => {}
    }
    let mut errors = upgrade_downgrade_errors(&spec, &old);
    errors.extend(load_balancer_class_errors(&spec, Some(&old)));
    if needs_health_check(&old)
        && needs_health_check(&spec)
        && spec.get("healthCheckNodePort") != old.get("healthCheckNodePort")
    {
        errors.push(FieldError::forbidden("spec.healthCheckNodePort", "field is immutable"));
    }
    errors.extend(service_errors(service, &spec, minor));
    errors
}

/// `ValidateServiceStatusUpdate`: `ValidateLoadBalancerStatus`. From 1.29 (gate
/// `AllowServiceLBStatusOnNonLB`, off) only a LoadBalancer may have ingress points; from 1.30
/// (`LoadBalancerIPMode` on) an ingress with an address needs its `ipMode` (the defaults set
/// it to `VIP`), which one without may not have; 1.31 words addresses as `IsValidIP` does
/// (recorded on 1.28 and 1.31; the minors between follow the gates' histories).
pub(crate) fn service_status_errors(service: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let ingress: &[Value] = service
        .pointer("/status/loadBalancer/ingress")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let balancer = service.pointer("/spec/type").and_then(Value::as_str) == Some("LoadBalancer");
    if minor >= 29 && !balancer && !ingress.is_empty() {
        errors.push(FieldError::forbidden(
            "status.loadBalancer.ingress",
            "may only be used when `spec.type` is 'LoadBalancer'",
        ));
        return errors;
    }
    for (i, entry) in ingress.iter().enumerate() {
        let at = format!("status.loadBalancer.ingress[{i}]");
        let ip = text(entry, "ip");
        if !ip.is_empty() && parse_ip(ip).is_none() {
            let why = if minor >= 31 {
                "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
            } else {
                "must be a valid IP address"
            };
            errors.push(FieldError::invalid(format!("{at}.ip"), ip.into(), why));
        }
        if minor >= 30 {
            errors.extend(ip_mode_errors(entry, &at, ip));
        }
        let host = text(entry, "hostname");
        if !host.is_empty() {
            for why in names::dns1123_subdomain_errors(host) {
                errors.push(FieldError::invalid(format!("{at}.hostname"), host.into(), why));
            }
            if parse_ip(host).is_some() {
                let why = "must be a DNS name, not an IP address";
                errors.push(FieldError::invalid(format!("{at}.hostname"), host.into(), why));
            }
        }
    }
    errors
}

/// The `ipMode` of an ingress point (1.31, gate `LoadBalancerIPMode` on): required with an
/// address, forbidden without, `VIP` or `Proxy`.
fn ip_mode_errors(entry: &Value, at: &str, ip: &str) -> Vec<FieldError> {
    let mode = entry.get("ipMode").filter(|m| !m.is_null());
    match mode {
        None if !ip.is_empty() => vec![FieldError::required(
            format!("{at}.ipMode"),
            "must be specified when `ip` is set",
        )],
        None => Vec::new(),
        Some(_) if ip.is_empty() => vec![FieldError::forbidden(
            format!("{at}.ipMode"),
            "may not be specified when `ip` is not set",
        )],
        Some(mode) if !matches!(mode.as_str(), Some("VIP" | "Proxy")) => vec![FieldError::not_supported(
            format!("{at}.ipMode"),
            BadValue::Json(mode.clone()),
            &["Proxy".to_owned(), "VIP".to_owned()],
        )],
        Some(_) => Vec::new(),
    }
}

/// `ValidateService` less the object metadata checked for every kind.
fn service_errors(service: &Value, spec: &Value, minor: u32) -> Vec<FieldError> {
    let empty = Map::new();
    let annotations = service
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut errors = Vec::new();
    if let (Some(mode), Some(hints)) = (annotations.get(TOPOLOGY_MODE), annotations.get(TOPOLOGY_HINTS))
        && mode != hints
    {
        let at = format!("metadata.annotations[{TOPOLOGY_MODE}]");
        let why = format!("must match annotations[{TOPOLOGY_HINTS}] when both are specified");
        errors.push(FieldError::invalid(at, BadValue::Json(mode.clone()), why));
    }
    let kind = text(spec, "type");
    let ports = spec
        .get("ports")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let headless = is_headless(spec);
    if ports.is_empty() && !headless && kind != "ExternalName" {
        errors.push(FieldError::required("spec.ports", ""));
    }
    let none_for = |what: &str| {
        FieldError::invalid(
            "spec.clusterIPs[0]",
            "None".into(),
            format!("may not be set to 'None' for {what} services"),
        )
    };
    match kind {
        "LoadBalancer" => {
            for (i, port) in ports.iter().enumerate() {
                if number(port, "port") == KUBELET_PORT {
                    let why = format!("may not expose port {KUBELET_PORT} externally since it is used by kubelet");
                    errors.push(FieldError::invalid(
                        format!("spec.ports[{i}]"),
                        BadValue::Int(KUBELET_PORT),
                        why,
                    ));
                }
            }
            if headless {
                errors.push(none_for("LoadBalancer"));
            }
        }
        "NodePort" if headless => errors.push(none_for("NodePort")),
        "ExternalName" => {
            for key in ["clusterIPs", "ipFamilies"] {
                if !strings(spec, key).is_empty() {
                    errors.push(FieldError::forbidden(
                        format!("spec.{key}"),
                        "may not be set for ExternalName services",
                    ));
                }
            }
            if is_set(spec, "ipFamilyPolicy") {
                errors.push(FieldError::forbidden(
                    "spec.ipFamilyPolicy",
                    "may not be set for ExternalName services",
                ));
            }
            // A trailing dot marks the name fully qualified.
            let name = text(spec, "externalName");
            let cname = name.strip_suffix('.').unwrap_or(name);
            if cname.is_empty() {
                errors.push(FieldError::required("spec.externalName", ""));
            }
            for why in names::dns1123_subdomain_errors(cname)
                .into_iter()
                .filter(|_| !cname.is_empty())
            {
                errors.push(FieldError::invalid("spec.externalName", cname.into(), why));
            }
        }
        _ => {}
    }
    let mut names_seen = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        errors.extend(port_errors(
            port,
            ports.len() > 1,
            &mut names_seen,
            &format!("spec.ports[{i}]"),
        ));
    }
    if let Some(selector) = spec.get("selector").and_then(Value::as_object) {
        errors.extend(label_errors(selector, "spec.selector"));
    }
    errors.extend(session_affinity_errors(spec));
    errors.extend(cluster_ips_related_errors(spec));
    for (i, ip) in strings(spec, "externalIPs").iter().enumerate() {
        let at = format!("spec.externalIPs[{i}]");
        if parse_ip(ip).is_none() {
            errors.push(FieldError::invalid(at, ip.as_str().into(), NOT_AN_IP));
        } else {
            errors.extend(non_special_ip_errors(ip, &at));
        }
    }
    let types = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
    errors.extend(FieldError::enum_string("spec.type", kind, &types));
    if kind == "ClusterIP" {
        for (i, _) in ports.iter().enumerate().filter(|(_, p)| number(p, "nodePort") != 0) {
            errors.push(FieldError::forbidden(
                format!("spec.ports[{i}].nodePort"),
                "may not be used when `type` is 'ClusterIP'",
            ));
        }
    }
    errors.extend(duplicate_port_errors(ports));
    errors.extend(source_range_errors(spec, annotations, minor));
    let balancer = kind == "LoadBalancer";
    if is_set(spec, "allocateLoadBalancerNodePorts") && !balancer {
        let why = "may only be used when `type` is 'LoadBalancer'";
        errors.push(FieldError::forbidden("spec.allocateLoadBalancerNodePorts", why));
    }
    if balancer && !is_set(spec, "allocateLoadBalancerNodePorts") {
        // Go names the field without `spec`.
        errors.push(FieldError::required("allocateLoadBalancerNodePorts", ""));
    }
    errors.extend(load_balancer_class_errors(spec, None));
    errors.extend(traffic_policy_errors(spec, minor));
    // `validateServiceTrafficDistribution` (served from 1.31; dropped where its gate is off).
    if let Some(distribution) = spec.get("trafficDistribution").and_then(Value::as_str)
        && distribution != "PreferClose"
    {
        errors.push(FieldError::not_supported(
            "spec.trafficDistribution",
            distribution.into(),
            &["PreferClose".to_owned()],
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::semantics::field_error::rendered;

    fn service(spec: Value) -> Value {
        let mut spec = spec;
        for (key, value) in [
            ("type", "ClusterIP"),
            ("sessionAffinity", "None"),
            ("internalTrafficPolicy", "Cluster"),
        ] {
            if spec.get(key).is_none() {
                spec[key] = json!(value);
            }
        }
        json!({"metadata": {"name": "s"}, "spec": spec})
    }

    #[test]
    fn a_plain_service_should_be_valid() {
        let ok = service(
            json!({"ports": [{"port": 80, "protocol": "TCP", "targetPort": 8080}], "selector": {"app": "web"}}),
        );
        assert!(service_create_errors(&ok, 28).is_empty());
    }

    #[test]
    fn unnamed_ports_of_a_multi_port_service_should_be_refused_and_duplicates_shown_as_go_prints_them() {
        let dup = service(
            json!({"ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}, {"port": 80, "protocol": "TCP", "targetPort": 80}]}),
        );
        assert_eq!(
            rendered(service_create_errors(&dup, 28)),
            [
                "spec.ports[0].name: Required value",
                "spec.ports[1].name: Required value",
                "spec.ports[1]: Duplicate value: core.ServicePort{Name:\"\", Protocol:\"TCP\", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}",
            ]
        );
    }

    #[test]
    fn fields_of_other_types_should_be_refused_on_a_cluster_ip_service() {
        let spec = json!({"externalTrafficPolicy": "Local", "healthCheckNodePort": 31920, "loadBalancerSourceRanges": ["10.0.0.0/8"],
            "loadBalancerClass": "example.com/lb", "allocateLoadBalancerNodePorts": false,
            "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}]});
        let fields: Vec<String> = service_create_errors(&service(spec), 28)
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(
            fields,
            [
                "spec.LoadBalancerSourceRanges",
                "spec.allocateLoadBalancerNodePorts",
                "spec.loadBalancerClass",
                "spec.externalTrafficPolicy",
                "spec.healthCheckNodePort"
            ]
        );
    }

    #[test]
    fn the_allocator_should_answer_before_validation() {
        let spec = json!({"type": "NodePort", "externalTrafficPolicy": "Cluster", "ports": [{"port": 80, "nodePort": 80, "protocol": "TCP", "targetPort": 80}], "selector": {"bad key!": "x"}});
        assert_eq!(
            rendered(service_create_errors(&service(spec), 28)),
            [
                "spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767"
            ]
        );
    }

    #[test]
    fn session_affinity_timeouts_should_be_bounded() {
        let spec = json!({"sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 86401}},
            "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}]});
        assert_eq!(
            rendered(service_create_errors(&service(spec), 28)),
            [
                "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400"
            ]
        );
    }

    #[test]
    fn an_update_should_keep_the_primary_cluster_ip() {
        let old = service(
            json!({"clusterIP": "10.96.0.250", "clusterIPs": ["10.96.0.250"], "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
            "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}]}),
        );
        let new = service(
            json!({"clusterIP": "10.96.0.251", "clusterIPs": ["10.96.0.251"], "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}]}),
        );
        assert_eq!(
            rendered(service_update_errors(&new, &old, 28)),
            ["spec.clusterIPs[0]: Invalid value: []string{\"10.96.0.251\"}: may not change once set"]
        );
    }

    #[test]
    fn load_balancer_ingress_should_be_addresses_and_dns_names() {
        let status = json!({"status": {"loadBalancer": {"ingress": [{"ip": "not-an-ip"}, {"hostname": "1.2.3.4"}]}}});
        assert_eq!(
            rendered(service_status_errors(&status, 28)),
            [
                "status.loadBalancer.ingress[0].ip: Invalid value: \"not-an-ip\": must be a valid IP address",
                "status.loadBalancer.ingress[1].hostname: Invalid value: \"1.2.3.4\": must be a DNS name, not an IP address",
            ]
        );
    }
}
