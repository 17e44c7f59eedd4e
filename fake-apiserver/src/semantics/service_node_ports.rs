//! The node port walks of kube-apiserver v1.28's Service allocator
//! (`pkg/registry/core/service/storage/alloc.go`: `initNodePorts`, `updateNodePorts`,
//! `allocHealthCheckNodePort`, `updateHealthCheckNodePort`) over a set of ports in use: pure,
//! so that validation can run them first on an empty set (the allocator's refusals come
//! before validation) and `lifecycle::service_ips` on the ports the stored Services hold.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::service_ip_validation::text;
use crate::semantics::service_strategy::{needs_health_check, needs_node_port, node_port, node_ports, ports};

/// `--service-node-port-range`'s default.
pub(crate) const NODE_PORTS: std::ops::RangeInclusive<u64> = 30000..=32767;

/// Why the allocator refused a Service: an Invalid field (422) or an internal error (500).
#[derive(Debug, PartialEq)]
pub(crate) enum AllocError {
    Invalid(FieldError),
    Internal(String),
}

/// The port allocator's `Allocate`: a requested node port must be in range and free.
fn reserve(port: u64, taken: &mut BTreeSet<u64>) -> Result<(), String> {
    if !NODE_PORTS.contains(&port) {
        let (low, high) = (NODE_PORTS.start(), NODE_PORTS.end());
        return Err(format!(
            "provided port is not in the valid range. The range of valid ports is {low}-{high}"
        ));
    }
    if !taken.insert(port) {
        return Err("provided port is already allocated".to_owned());
    }
    Ok(())
}

/// `AllocateNext`: this server takes the lowest free port where kube-apiserver picks one at
/// random.
fn next_free(taken: &mut BTreeSet<u64>) -> Result<u64, AllocError> {
    let free = NODE_PORTS.clone().find(|p| !taken.contains(p));
    let free = free.ok_or_else(|| AllocError::Internal("failed to allocate a nodePort: range is full".to_owned()))?;
    taken.insert(free);
    Ok(free)
}

/// `shouldAllocateNodePorts`.
fn allocates_node_ports(spec: &Value) -> bool {
    match text(spec, "type") {
        "NodePort" => true,
        "LoadBalancer" => spec.get("allocateLoadBalancerNodePorts") != Some(&Value::Bool(false)),
        _ => false,
    }
}

fn invalid_node_port(i: usize, port: u64, why: String) -> AllocError {
    AllocError::Invalid(FieldError::invalid(
        format!("spec.ports[{i}].nodePort"),
        BadValue::Int(port as i64),
        why,
    ))
}

/// The node ports of a Service being created (`initNodePorts` and the health check port):
/// the ports of one port number share a node port; `taken` are those in use.
pub(crate) fn assign_node_ports(spec: &mut Value, taken: &mut BTreeSet<u64>) -> Result<(), AllocError> {
    if needs_node_port(spec) {
        let allocate = allocates_node_ports(spec);
        let numbers: Vec<(u64, u64)> = ports(spec)
            .iter()
            .map(|p| (p.get("port").and_then(Value::as_u64).unwrap_or(0), node_port(p)))
            .collect();
        let mut by_port: Vec<(u64, u64)> = Vec::new();
        for (i, &(number, requested)) in numbers.iter().enumerate() {
            if requested == 0 && !allocate {
                continue;
            }
            let assigned = match by_port.iter().find(|(n, _)| *n == number) {
                None => {
                    let wanted = numbers[i..]
                        .iter()
                        .find(|(n, np)| *n == number && *np != 0)
                        .map(|p| p.1);
                    let port = match wanted {
                        Some(wanted) => {
                            reserve(wanted, taken).map_err(|why| invalid_node_port(i, wanted, why))?;
                            wanted
                        }
                        None => next_free(taken)?,
                    };
                    by_port.push((number, port));
                    port
                }
                Some(&(_, shared)) if requested == 0 => shared,
                Some(&(_, shared)) if requested != shared => {
                    reserve(requested, taken).map_err(|why| invalid_node_port(i, requested, why))?;
                    requested
                }
                Some(&(_, shared)) => shared,
            };
            spec["ports"][i]["nodePort"] = json!(assigned);
        }
    }
    health_check_port(spec, taken, None)
}

/// The node ports of an update (`updateNodePorts` and `updateHealthCheckNodePort`): ports the
/// old Service held stay its own; new requests are reserved, missing ones allocated.
pub(crate) fn update_node_ports(spec: &mut Value, old: &Value, taken: &mut BTreeSet<u64>) -> Result<(), AllocError> {
    let held = node_ports(old);
    taken.retain(|p| !held.contains(p));
    if needs_node_port(spec) {
        let allocate = allocates_node_ports(spec);
        let requested: Vec<u64> = ports(spec).iter().map(node_port).collect();
        let mut reserved = BTreeSet::new();
        for (i, port) in requested.into_iter().enumerate() {
            if port == 0 && !allocate {
                continue;
            }
            if port == 0 {
                spec["ports"][i]["nodePort"] = json!(next_free(taken)?);
            } else if !held.contains(&port) && reserved.insert(port) {
                reserve(port, taken).map_err(|why| invalid_node_port(i, port, why))?;
            }
        }
    }
    let kept = old
        .get("healthCheckNodePort")
        .and_then(Value::as_u64)
        .filter(|_| needs_health_check(old));
    health_check_port(spec, taken, kept)
}

/// `allocHealthCheckNodePort`: a LoadBalancer keeping traffic local gets a health check port;
/// one the client asks for must be free (refused with 500, as kube-apiserver does).
fn health_check_port(spec: &mut Value, taken: &mut BTreeSet<u64>, kept: Option<u64>) -> Result<(), AllocError> {
    if !needs_health_check(spec) {
        return Ok(());
    }
    let requested = spec.get("healthCheckNodePort").and_then(Value::as_i64).unwrap_or(0);
    if requested == 0 {
        let port = next_free(taken).map_err(|_| {
            AllocError::Internal("failed to allocate a HealthCheck NodePort 0: range is full".to_owned())
        })?;
        spec["healthCheckNodePort"] = json!(port);
    } else if kept != Some(requested as u64) {
        let port = u64::try_from(requested).unwrap_or(0);
        reserve(port, taken).map_err(|why| {
            AllocError::Internal(format!(
                "failed to allocate requested HealthCheck NodePort {requested}: {why}"
            ))
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ports_should_be_reserved_once_and_in_range() {
        let mut taken = BTreeSet::new();
        let mut spec =
            json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 31918}, {"port": 81, "nodePort": 31918}]});
        let error = assign_node_ports(&mut spec, &mut taken).unwrap_err();
        let AllocError::Invalid(error) = error else {
            panic!("{error:?}")
        };
        assert_eq!(
            error.to_string(),
            "spec.ports[1].nodePort: Invalid value: 31918: provided port is already allocated"
        );
        let mut spec = json!({"type": "LoadBalancer", "externalTrafficPolicy": "Local", "healthCheckNodePort": 70000, "ports": [{"port": 80}]});
        let error = assign_node_ports(&mut spec, &mut BTreeSet::new()).unwrap_err();
        assert!(
            matches!(error, AllocError::Internal(why) if why.starts_with("failed to allocate requested HealthCheck NodePort 70000"))
        );
        let mut spec =
            json!({"type": "NodePort", "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}]});
        assign_node_ports(&mut spec, &mut BTreeSet::new()).unwrap();
        assert_eq!(spec["ports"][1]["nodePort"], json!(30000));
    }
}
