//! The addresses kube-apiserver's Service storage gives a Service
//! (`pkg/registry/core/service/storage/alloc.go`, single-stack IPv4 as a default cluster
//! runs): a cluster IP from `10.96.0.0/24` (the `--service-cluster-ip-range` the corpus was
//! recorded with) unless it is headless or an ExternalName, node ports from 30000–32767 for
//! NodePort and LoadBalancer Services and a health check port for a LoadBalancer keeping its
//! traffic local (the walks in `semantics::service_strategy`), and the IP family fields.
//! kube-apiserver picks free addresses at random; this server takes the lowest free one. A dry
//! run's allocator does not look for a free address: it answers the range's network address
//! (`allocateNext(dryRun)` in `ipallocator/bitmap.go`), and takes an address asked for if it
//! is in range, free or not. (Its node ports are not ported: a dry run takes free ones.)

use std::collections::BTreeSet;
use std::net::Ipv4Addr;

use serde_json::{Value, json};

use crate::semantics::field_error::FieldError;
use crate::semantics::service_node_ports::{self, AllocError};
use crate::semantics::service_strategy;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::resource::ResourceInfo;

/// The service CIDR's network and size (`--service-cluster-ip-range=10.96.0.0/24`).
const NETWORK: u32 = u32::from_be_bytes([10, 96, 0, 0]);
const PREFIX: u32 = 24;
const SIZE: u32 = 1 << (32 - PREFIX);

/// Whether `info` is the Services resource, whose writes allocate addresses.
pub(super) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && info.plural == "services"
}

/// Fills in the cluster IP, the node ports and the IP family fields of a new Service, or
/// refuses an address that is taken or outside the range.
pub(super) fn allocate(
    state: &State,
    info: &ResourceInfo,
    service: &mut Value,
    dry_run: bool,
) -> Result<(), ApiStatus> {
    let name = crate::storage::object::name(service).to_owned();
    let (used_ips, mut used_ports) = in_use(state, info);
    let Some(spec) = service.get_mut("spec").filter(|s| s.is_object()) else {
        return Ok(());
    };
    service_strategy::normalize_create(spec);
    if !service_strategy::needs_cluster_ip(spec) {
        return Ok(());
    }
    refuse_invalid(info, &name, service_strategy::init_ip_families(spec, None))?;
    allocate_cluster_ip(info, &name, spec, &used_ips, dry_run)?;
    service_node_ports::assign_node_ports(spec, &mut used_ports).map_err(|e| refusal(info, &name, e))
}

/// What an update allocates and keeps: a cluster IP for a Service that stops being an
/// ExternalName, the IP family fields, node ports for the ports that gain one.
pub(super) fn allocate_update(
    state: &State,
    info: &ResourceInfo,
    service: &mut Value,
    old: &Value,
    dry_run: bool,
) -> Result<(), ApiStatus> {
    let name = crate::storage::object::name(service).to_owned();
    let (used_ips, mut used_ports) = in_use(state, info);
    let old_spec = old.get("spec").cloned().unwrap_or_else(|| json!({}));
    let Some(spec) = service.get_mut("spec").filter(|s| s.is_object()) else {
        return Ok(());
    };
    if service_strategy::needs_cluster_ip(spec) {
        refuse_invalid(info, &name, service_strategy::init_ip_families(spec, Some(&old_spec)))?;
        if !service_strategy::needs_cluster_ip(&old_spec) {
            allocate_cluster_ip(info, &name, spec, &used_ips, dry_run)?;
        }
    }
    service_node_ports::update_node_ports(spec, &old_spec, &mut used_ports).map_err(|e| refusal(info, &name, e))
}

fn refuse_invalid(info: &ResourceInfo, name: &str, errors: Vec<FieldError>) -> Result<(), ApiStatus> {
    match errors.is_empty() {
        true => Ok(()),
        false => Err(ApiStatus::invalid_fields(info, name, &errors)),
    }
}

/// The allocator's refusal: Invalid, or `errors.NewInternalError` (500, the error as its one
/// cause).
fn refusal(info: &ResourceInfo, name: &str, error: AllocError) -> ApiStatus {
    match error {
        AllocError::Invalid(error) => ApiStatus::invalid_fields(info, name, &[error]),
        AllocError::Internal(why) => {
            let mut status = ApiStatus::internal(format!("Internal error occurred: {why}"));
            status.details = Some(json!({ "causes": [{ "message": why }] }));
            status
        }
    }
}

/// The primary cluster IP: the one asked for, if it is free and in range, or the lowest free
/// (on a dry run, the network address).
fn allocate_cluster_ip(
    info: &ResourceInfo,
    name: &str,
    spec: &mut Value,
    used_ips: &BTreeSet<String>,
    dry_run: bool,
) -> Result<(), ApiStatus> {
    let requested = spec
        .get("clusterIP")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let ip = match requested.as_str() {
        "None" => "None".to_owned(),
        "" if dry_run => Ipv4Addr::from(NETWORK).to_string(),
        "" => free_ip(used_ips).ok_or_else(|| ApiStatus::internal("failed to allocate a serviceIP: range is full"))?,
        given => {
            let parsed: Option<Ipv4Addr> = given.parse().ok();
            let in_range = parsed.is_some_and(|ip| u32::from(ip).wrapping_sub(NETWORK) < SIZE);
            let why = if !in_range {
                Some(format!(
                    "failed to allocate IP {given}: the provided IP ({given}) is not in the valid range. The range of valid IPs is {}/{PREFIX}",
                    Ipv4Addr::from(NETWORK)
                ))
            } else if used_ips.contains(given) && !dry_run {
                // A dry run's allocator checks the range only (`allocate(ip, dryRun)`).
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
                    name,
                    &[("spec.clusterIPs".to_owned(), format!("Invalid value: {value}: {why}"))],
                ));
            }
            given.to_owned()
        }
    };
    spec["clusterIP"] = json!(ip);
    spec["clusterIPs"] = json!([ip]);
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
