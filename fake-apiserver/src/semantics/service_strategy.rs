//! What kube-apiserver v1.28 does to a Service before it validates it, after defaulting:
//! the storage's `BeginCreate`/`BeginUpdate` (`pkg/registry/core/service/storage/storage.go`:
//! `normalizeClusterIPs`, `patchAllocatedValues`; `alloc.go`: `initIPFamilyFields`) and the
//! strategy's `PrepareForUpdate` (`pkg/registry/core/service/strategy.go`:
//! `dropTypeDependentFields`). The cluster runs single-stack IPv4, as a default cluster does.
//! `lifecycle::service_ips` runs `init_ip_families` again on the Service it stores.

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::service_ip_validation::{cluster_ips_related_errors, is_ipv6, is_set, strings, text};
use crate::storage::resource::ResourceInfo;

/// The Service storage's read decorator (`defaultOnReadService` of
/// `pkg/registry/core/service/storage/storage.go`), for what it changes on Services this server
/// stored: an ExternalName Service's `internalTrafficPolicy`, which defaulting gave it when it
/// had another type, is dropped on every read (stored objects keep it, as etcd does). Other
/// kinds pass unchanged.
pub(crate) fn default_on_read<'a>(info: &ResourceInfo, shown: Cow<'a, Value>) -> Cow<'a, Value> {
    // Every read of every built-in kind passes here: the kind is checked before the object.
    if !(info.builtin && info.group.is_empty() && info.kind == "Service") {
        return shown;
    }
    let external_name = shown.pointer("/spec/type").and_then(Value::as_str) == Some("ExternalName");
    if !external_name || shown.pointer("/spec/internalTrafficPolicy").is_none() {
        return shown;
    }
    let mut service = shown.into_owned();
    remove(&mut service["spec"], "internalTrafficPolicy");
    Cow::Owned(service)
}

/// `needsClusterIP`: every type but ExternalName has a cluster IP (`None` counts).
pub(crate) fn needs_cluster_ip(spec: &Value) -> bool {
    text(spec, "type") != "ExternalName"
}

/// `needsNodePort`.
pub(crate) fn needs_node_port(spec: &Value) -> bool {
    matches!(text(spec, "type"), "NodePort" | "LoadBalancer")
}

/// Whether the Service takes an `externalTrafficPolicy`: a NodePort or LoadBalancer, and from
/// 1.31 (`apiservice.ExternallyAccessible`; 1.28's `needsExternalTrafficPolicy` stops at the
/// two types; the minors between were not recorded) a ClusterIP Service with external IPs.
pub(crate) fn externally_accessible(spec: &Value, minor: u32) -> bool {
    let with_external_ips = minor >= 31
        && text(spec, "type") == "ClusterIP"
        && spec
            .get("externalIPs")
            .and_then(Value::as_array)
            .is_some_and(|ips| !ips.is_empty());
    needs_node_port(spec) || with_external_ips
}

/// `apiservice.NeedsHealthCheck`: a LoadBalancer that keeps traffic on its nodes.
pub(crate) fn needs_health_check(spec: &Value) -> bool {
    text(spec, "type") == "LoadBalancer" && text(spec, "externalTrafficPolicy") == "Local"
}

pub(crate) fn node_port(port: &Value) -> u64 {
    port.get("nodePort").and_then(Value::as_u64).unwrap_or(0)
}

pub(crate) fn node_ports(spec: &Value) -> BTreeSet<u64> {
    ports(spec).iter().map(node_port).filter(|p| *p != 0).collect()
}

pub(crate) fn ports(spec: &Value) -> &[Value] {
    spec.get("ports").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn remove(spec: &mut Value, key: &str) {
    if let Some(map) = spec.as_object_mut() {
        map.remove(key);
    }
}

/// `normalizeClusterIPs` on create: a client that sets only `clusterIP` gets `clusterIPs`.
pub(crate) fn normalize_create(spec: &mut Value) {
    let ip = text(spec, "clusterIP").to_owned();
    if !ip.is_empty() && strings(spec, "clusterIPs").is_empty() {
        spec["clusterIPs"] = json!([ip]);
    }
}

/// What `BeginUpdate` and `PrepareForUpdate` do to a Service update before validation:
/// allocated values the client left out are kept, `clusterIP` and `clusterIPs` reconciled,
/// the fields the new type no longer uses dropped when the client left them unchanged, and a
/// load balancer's status cleared when the Service is no longer one.
pub(crate) fn prepare_update(new: &mut Value, old: &Value, minor: u32) {
    let empty = json!({});
    let old_spec = old.get("spec").unwrap_or(&empty);
    if !new.get("spec").is_some_and(Value::is_object) {
        return;
    }
    patch_allocated_values(&mut new["spec"], old_spec);
    normalize_update(&mut new["spec"], old_spec);
    drop_type_dependent_fields(&mut new["spec"], old_spec, minor);
    if text(&new["spec"], "type") != "LoadBalancer" && new.get("status").is_some_and(Value::is_object) {
        new["status"]["loadBalancer"] = json!({});
    }
}

/// `patchAllocatedValues`: a PUT of the manifest first created keeps what was allocated.
fn patch_allocated_values(new: &mut Value, old: &Value) {
    if needs_cluster_ip(old) && needs_cluster_ip(new) {
        if text(new, "clusterIP").is_empty() && is_set(old, "clusterIP") {
            new["clusterIP"] = old["clusterIP"].clone();
        }
        if strings(new, "clusterIPs").is_empty() && !strings(old, "clusterIPs").is_empty() {
            new["clusterIPs"] = old["clusterIPs"].clone();
        }
    }
    if needs_node_port(old) && needs_node_port(new) {
        let used: BTreeSet<u64> = node_ports(old).intersection(&node_ports(new)).copied().collect();
        // Old node ports by port name; a later port of the same name wins, as in Go's map.
        let by_name = |name: &str| {
            ports(old)
                .iter()
                .rev()
                .find(|p| text(p, "name") == name)
                .map_or(0, node_port)
        };
        let patched: Vec<u64> = ports(new).iter().map(|p| by_name(text(p, "name"))).collect();
        if let Some(list) = new.get_mut("ports").and_then(Value::as_array_mut) {
            for (port, old_value) in list.iter_mut().zip(patched) {
                if node_port(port) == 0 && !used.contains(&old_value) && port.is_object() {
                    port["nodePort"] = json!(old_value);
                }
            }
        }
    }
    if needs_health_check(old)
        && needs_health_check(new)
        && new.get("healthCheckNodePort").and_then(Value::as_u64).unwrap_or(0) == 0
    {
        new["healthCheckNodePort"] = old.get("healthCheckNodePort").cloned().unwrap_or(json!(0));
    }
}

/// `normalizeClusterIPs` on update.
fn normalize_update(new: &mut Value, old: &Value) {
    let (old_ip, new_ip) = (text(old, "clusterIP").to_owned(), text(new, "clusterIP").to_owned());
    let old_ips = strings(old, "clusterIPs");
    if !old_ips.is_empty() && strings(new, "clusterIPs").is_empty() && old_ip == new_ip {
        new["clusterIPs"] = json!(old_ips);
    }
    if old_ip != new_ip {
        let same = old_ips == strings(new, "clusterIPs");
        if !old_ip.is_empty() && new_ip.is_empty() {
            if same {
                remove(new, "clusterIPs");
            }
        } else if same {
            new["clusterIPs"] = json!([new_ip]);
        }
    }
}

/// `dropTypeDependentFields`.
fn drop_type_dependent_fields(new: &mut Value, old: &Value, minor: u32) {
    let same = |new: &Value, key: &str| new.get(key).filter(|v| !v.is_null()) == old.get(key).filter(|v| !v.is_null());
    if needs_cluster_ip(old) && !needs_cluster_ip(new) {
        if text(old, "clusterIP") == text(new, "clusterIP") && strings(old, "clusterIPs") == strings(new, "clusterIPs")
        {
            remove(new, "clusterIP");
            remove(new, "clusterIPs");
        }
        for key in ["ipFamilies", "ipFamilyPolicy"] {
            if same(new, key) {
                remove(new, key);
            }
        }
    }
    if needs_node_port(old) && !needs_node_port(new) && node_ports(old) == node_ports(new) {
        for port in new.get_mut("ports").and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(map) = port.as_object_mut() {
                map.remove("nodePort");
            }
        }
    }
    let health = |spec: &Value| spec.get("healthCheckNodePort").and_then(Value::as_u64).unwrap_or(0);
    if needs_health_check(old) && !needs_health_check(new) && health(old) == health(new) {
        remove(new, "healthCheckNodePort");
    }
    let was_balancer = text(old, "type") == "LoadBalancer";
    let is_balancer = text(new, "type") == "LoadBalancer";
    if was_balancer && !is_balancer {
        if is_set(new, "allocateLoadBalancerNodePorts") && same(new, "allocateLoadBalancerNodePorts") {
            remove(new, "allocateLoadBalancerNodePorts");
        }
        if same(new, "loadBalancerClass") {
            remove(new, "loadBalancerClass");
        }
    }
    if externally_accessible(old, minor) && !externally_accessible(new, minor) && same(new, "externalTrafficPolicy") {
        remove(new, "externalTrafficPolicy");
    }
}

/// `initIPFamilyFields` on a single-stack IPv4 cluster: defaults `ipFamilyPolicy` (from the
/// old Service on update) and `ipFamilies`, and refuses what the cluster cannot serve. Its
/// errors come before validation, alone.
pub(crate) fn init_ip_families(spec: &mut Value, old: Option<&Value>) -> Vec<FieldError> {
    if text(spec, "type") == "ExternalName" || matching_prefer_dual_stack(spec, old) {
        return Vec::new();
    }
    let headless_selectorless = text(spec, "clusterIP") == "None"
        && spec
            .get("selector")
            .and_then(Value::as_object)
            .is_none_or(|s| s.is_empty());
    if !is_set(spec, "ipFamilyPolicy") {
        spec["ipFamilyPolicy"] = match old.and_then(|o| o.get("ipFamilyPolicy")).filter(|p| !p.is_null()) {
            Some(policy) => policy.clone(),
            None if headless_selectorless => json!("RequireDualStack"),
            None => json!("SingleStack"),
        };
    }
    let errors = cluster_ips_related_errors(spec);
    if !errors.is_empty() {
        return errors;
    }
    let policy = text(spec, "ipFamilyPolicy").to_owned();
    let shown_policy = || BadValue::Str(policy.clone());
    let mut errors = Vec::new();
    if let Some(old) = old {
        if policy == "SingleStack" {
            for key in ["clusterIPs", "ipFamilies"] {
                let list = strings(spec, key);
                if strings(old, key) == list && list.len() > 1 {
                    spec[key] = json!([list[0]]);
                }
            }
        } else {
            let reduced = |key: &str| {
                let now = strings(spec, key).len();
                now != 0 && now < strings(old, key).len()
            };
            if reduced("clusterIPs") {
                let why = "must be 'SingleStack' to release the secondary cluster IP";
                errors.push(FieldError::invalid("spec.ipFamilyPolicy", shown_policy(), why));
            }
            if reduced("ipFamilies") {
                let why = "must be 'SingleStack' to release the secondary IP family";
                errors.push(FieldError::invalid("spec.ipFamilyPolicy", shown_policy(), why));
            }
        }
    }
    if policy == "SingleStack" {
        for (key, what) in [
            ("clusterIPs", "multiple cluster IPs"),
            ("ipFamilies", "multiple IP families"),
        ] {
            if strings(spec, key).len() == 2 {
                let why = format!("must be 'RequireDualStack' or 'PreferDualStack' when {what} are specified");
                errors.push(FieldError::invalid("spec.ipFamilyPolicy", shown_policy(), why));
            }
        }
    }
    // Families follow the addresses given; only IPv4 is configured.
    let ips = strings(spec, "clusterIPs");
    let mut families = strings(spec, "ipFamilies");
    for (i, ip) in ips.iter().enumerate().take_while(|(_, ip)| *ip != "None") {
        if i >= families.len() {
            if is_ipv6(ip) {
                let why = "IPv6 is not configured on this cluster";
                let at = format!("spec.clusterIPs[{i}]");
                errors.push(FieldError::invalid(at, BadValue::Strings(ips.clone()), why));
            } else {
                families.push("IPv4".to_owned());
            }
        }
    }
    if !errors.is_empty() {
        return errors;
    }
    if headless_selectorless {
        if families.is_empty() {
            families.push("IPv4".to_owned());
        }
        if families.len() < 2 && policy != "SingleStack" {
            let other = if families[0] == "IPv4" { "IPv6" } else { "IPv4" };
            families.push(other.to_owned());
        }
        spec["ipFamilies"] = json!(families);
        return errors;
    }
    if policy == "RequireDualStack" {
        let why = "this cluster is not configured for dual-stack services";
        errors.push(FieldError::invalid("spec.ipFamilyPolicy", shown_policy(), why));
    }
    for (i, family) in families.iter().enumerate().filter(|(_, f)| *f != "IPv4") {
        let at = format!("spec.ipFamilies[{i}]");
        errors.push(FieldError::invalid(
            at,
            family.as_str().into(),
            "not configured on this cluster",
        ));
    }
    if errors.is_empty() {
        if families.is_empty() {
            families.push("IPv4".to_owned());
        }
        spec["ipFamilies"] = json!(families);
    }
    errors
}

/// `isMatchingPreferDualStackClusterIPFields`: a PreferDualStack Service updated without
/// touching its addresses is left as it is.
fn matching_prefer_dual_stack(spec: &Value, old: Option<&Value>) -> bool {
    let Some(old) = old else { return false };
    is_set(spec, "ipFamilyPolicy")
        && text(old, "type") == text(spec, "type")
        && matches!(text(spec, "type"), "ClusterIP" | "NodePort" | "LoadBalancer")
        && text(spec, "ipFamilyPolicy") == "PreferDualStack"
        && (!is_set(old, "ipFamilyPolicy") || text(old, "ipFamilyPolicy") == "PreferDualStack")
        && text(old, "clusterIP") == text(spec, "clusterIP")
        && strings(old, "clusterIPs") == strings(spec, "clusterIPs")
        && strings(old, "ipFamilies") == strings(spec, "ipFamilies")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_put_without_allocated_values_should_keep_them() {
        let old = json!({"spec": {"type": "NodePort", "clusterIP": "10.96.0.250", "clusterIPs": ["10.96.0.250"],
            "ports": [{"name": "http", "port": 80, "nodePort": 31917}]}});
        let mut new = json!({"spec": {"type": "NodePort", "ports": [{"name": "http", "port": 80}]}});
        prepare_update(&mut new, &old, 28);
        assert_eq!(new["spec"]["clusterIPs"], json!(["10.96.0.250"]));
        assert_eq!(new["spec"]["ports"][0]["nodePort"], json!(31917));
    }

    #[test]
    fn a_changed_cluster_ip_should_become_the_cluster_ips() {
        let old = json!({"spec": {"clusterIP": "10.96.0.250", "clusterIPs": ["10.96.0.250"]}});
        let mut new = json!({"spec": {"clusterIP": "10.96.0.251"}});
        prepare_update(&mut new, &old, 28);
        assert_eq!(new["spec"]["clusterIPs"], json!(["10.96.0.251"]));
    }

    #[test]
    fn ip_families_should_be_refused_when_the_cluster_lacks_them() {
        let mut spec = json!({"type": "ClusterIP", "ipFamilyPolicy": "RequireDualStack"});
        let errors: Vec<String> = init_ip_families(&mut spec, None)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            errors,
            [
                "spec.ipFamilyPolicy: Invalid value: \"RequireDualStack\": this cluster is not configured for dual-stack services"
            ]
        );
        let mut spec = json!({"type": "ClusterIP", "clusterIP": "None"});
        normalize_create(&mut spec);
        assert!(init_ip_families(&mut spec, None).is_empty());
        assert_eq!(spec["ipFamilyPolicy"], json!("RequireDualStack"));
        assert_eq!(spec["ipFamilies"], json!(["IPv4", "IPv6"]));
    }
}
