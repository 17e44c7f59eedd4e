//! The addresses kube-apiserver's Service storage gives a new Service
//! (`pkg/registry/core/service/storage/alloc.go`, single-stack IPv4 as a default cluster
//! runs): a cluster IP from `10.96.0.0/12` unless it is headless or an ExternalName, node
//! ports from 30000–32767 for NodePort and LoadBalancer Services, and the IP family fields.
//! kube-apiserver picks free addresses at random; this server takes the lowest free one.

use std::collections::BTreeSet;
use std::net::Ipv4Addr;

use serde_json::{Value, json};

use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::resource::ResourceInfo;

/// The service CIDR's network and size (`--service-cluster-ip-range=10.96.0.0/12`).
const NETWORK: u32 = u32::from_be_bytes([10, 96, 0, 0]);
const SIZE: u32 = 1 << 20;
const NODE_PORTS: std::ops::RangeInclusive<u64> = 30000..=32767;

/// Whether `info` is the Services resource, whose creates allocate addresses.
pub(super) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && info.plural == "services"
}

/// Fills in the cluster IP, the node ports and the IP family fields of a new Service, or
/// refuses an address that is taken or outside the range.
pub(super) fn allocate(state: &State, info: &ResourceInfo, service: &mut Value) -> Result<(), ApiStatus> {
    let name = crate::storage::object::name(service).to_owned();
    let (used_ips, used_ports) = in_use(state, info);
    let Some(spec) = service.get_mut("spec").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    let kind = spec
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("ClusterIP")
        .to_owned();
    if kind == "ExternalName" {
        return Ok(());
    }
    let requested = spec
        .get("clusterIP")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let ip = match requested.as_str() {
        "None" => "None".to_owned(),
        "" => free_ip(&used_ips).ok_or_else(|| ApiStatus::internal("failed to allocate a serviceIP: range is full"))?,
        given => {
            let parsed: Option<Ipv4Addr> = given.parse().ok();
            let in_range = parsed.is_some_and(|ip| u32::from(ip).wrapping_sub(NETWORK) < SIZE);
            let why = if !in_range {
                Some(format!(
                    "failed to allocate IP {given}: the provided IP ({given}) is not in the valid range. The range of valid IPs is 10.96.0.0/12"
                ))
            } else if used_ips.contains(given) {
                Some(format!(
                    "failed to allocate IP {given}: provided IP is already allocated"
                ))
            } else {
                None
            };
            if let Some(why) = why {
                let value = format!("[]string{{{:?}}}", given);
                return Err(ApiStatus::invalid(
                    info,
                    &name,
                    &[("spec.clusterIPs".to_owned(), format!("Invalid value: {value}: {why}"))],
                ));
            }
            given.to_owned()
        }
    };
    spec.insert("clusterIP".into(), json!(ip));
    spec.entry("clusterIPs").or_insert_with(|| json!([ip]));
    spec.entry("ipFamilies").or_insert_with(|| json!(["IPv4"]));
    spec.entry("ipFamilyPolicy").or_insert_with(|| json!("SingleStack"));
    if matches!(kind.as_str(), "NodePort" | "LoadBalancer") {
        let mut taken = used_ports;
        for port in spec
            .get_mut("ports")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if port.get("nodePort").and_then(Value::as_u64).is_some_and(|p| p != 0) {
                continue;
            }
            if let Some(free) = NODE_PORTS.clone().find(|p| !taken.contains(p)) {
                taken.insert(free);
                port["nodePort"] = json!(free);
            }
        }
    }
    Ok(())
}

/// The cluster IPs and node ports the stored Services hold.
fn in_use(state: &State, info: &ResourceInfo) -> (BTreeSet<String>, BTreeSet<u64>) {
    let (mut ips, mut ports) = (BTreeSet::new(), BTreeSet::new());
    for (_, service) in state.store.iter(&info.storage_key(), None) {
        let spec = &service["spec"];
        for ip in spec.get("clusterIPs").and_then(Value::as_array).into_iter().flatten() {
            ips.extend(ip.as_str().map(str::to_owned));
        }
        for port in spec.get("ports").and_then(Value::as_array).into_iter().flatten() {
            ports.extend(port.get("nodePort").and_then(Value::as_u64));
        }
    }
    (ips, ports)
}

/// The lowest free address of the range, past the network address and `10.96.0.1` (the
/// `kubernetes` Service's, reserved whether or not it exists).
fn free_ip(used: &BTreeSet<String>) -> Option<String> {
    (2..SIZE - 1)
        .map(|offset| Ipv4Addr::from(NETWORK + offset).to_string())
        .find(|ip| !used.contains(ip))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_ip_should_skip_the_reserved_and_used_addresses() {
        let used: BTreeSet<String> = ["10.96.0.2".to_owned()].into();
        assert_eq!(free_ip(&used).as_deref(), Some("10.96.0.3"));
    }
}
