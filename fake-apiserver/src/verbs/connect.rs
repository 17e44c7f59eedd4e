//! The connect subresources without kubelets: `exec`, `attach`, `portforward` and `proxy` of
//! pods, `proxy` of nodes and services, answered as kube-apiserver answers them up to the point
//! where it would dial a kubelet or a pod (`pkg/registry/core/pod/strategy.go`:
//! `streamLocation`, `PortForwardLocation`, `ResourceLocation`, `validateContainer`;
//! `pkg/registry/core/node/strategy.go`: `ResourceLocation`; `pkg/registry/core/service/storage/
//! storage.go`: `ResourceLocation`; `pkg/kubelet/client/kubelet_client.go`: `GetConnectionInfo`;
//! `apimachinery/pkg/util/net/port_split.go`: `SplitSchemeNamePort`). Past those checks a real
//! server connects to a kubelet or an endpoint; this one runs neither and says so with a 503.

use std::net::IpAddr;

use serde_json::Value;

use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::resource::ResourceInfo;
use crate::verbs::read;

/// Whether a request on `info` through `subresource` is a connect request answered here.
pub(crate) fn concerns(info: &ResourceInfo, subresource: Option<&str>) -> bool {
    info.builtin
        && info.group.is_empty()
        && match subresource {
            Some("exec" | "attach" | "portforward") => info.kind == "Pod",
            Some("proxy") => matches!(info.kind.as_str(), "Pod" | "Node" | "Service"),
            _ => false,
        }
}

/// The answer to a connect request: kube-apiserver's refusal where one of its checks before
/// dialing fails, else the 503 of a server with nothing to dial.
pub(crate) fn connect(
    state: &State,
    info: &ResourceInfo,
    namespace: Option<&str>,
    id: &str,
    subresource: &str,
    container: Option<&str>,
) -> ApiStatus {
    match target(state, info, namespace, id, subresource, container) {
        Err(refused) => refused,
        Ok(target) => ApiStatus::service_unavailable(format!(
            "{subresource} to {target} needs a kubelet or an endpoint to connect to, and this in-memory server runs none"
        )),
    }
}

/// Where kube-apiserver would connect, once its checks pass.
fn target(
    state: &State,
    info: &ResourceInfo,
    namespace: Option<&str>,
    id: &str,
    subresource: &str,
    container: Option<&str>,
) -> Result<String, ApiStatus> {
    Ok(match (info.kind.as_str(), subresource) {
        ("Pod", "exec" | "attach") => {
            let pod = read::get(state, info, namespace, id)?;
            validate_container(&pod, id, container)?;
            let node = assigned_node(&pod, id)?;
            node_address(state, info, node)?
        }
        ("Pod", "portforward") => {
            let pod = read::get(state, info, namespace, id)?;
            let node = assigned_node(&pod, id)?;
            node_address(state, info, node)?
        }
        ("Pod", _) => pod_proxy_address(state, info, namespace, id)?,
        ("Node", _) => {
            let (_, name, _) = split_scheme_name_port(id).ok_or_else(|| invalid_request("node", id))?;
            node_address(state, info, name)?
        }
        _ => service_proxy_address(state, info, namespace, id)?,
    })
}

/// `validateContainer`: a named container must be the pod's; none names the only one, or is
/// refused listing them all (init, regular, ephemeral).
pub(crate) fn validate_container(pod: &Value, name: &str, container: Option<&str>) -> Result<(), ApiStatus> {
    let names: Vec<&str> = ["initContainers", "containers", "ephemeralContainers"]
        .iter()
        .flat_map(|list| {
            pod.pointer(&format!("/spec/{list}"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .filter_map(|c| c.get("name").and_then(Value::as_str))
        .collect();
    let regular = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    match container.filter(|c| !c.is_empty()) {
        Some(wanted) if names.contains(&wanted) => Ok(()),
        Some(wanted) => Err(ApiStatus::bad_request(format!(
            "container {wanted} is not valid for pod {name}"
        ))),
        None if regular == 1 => Ok(()),
        None if regular == 0 => Err(ApiStatus::bad_request(format!(
            "a container name must be specified for pod {name}"
        ))),
        None => Err(ApiStatus::bad_request(format!(
            "a container name must be specified for pod {name}, choose one of: [{}]",
            names.join(" ")
        ))),
    }
}

/// The node a pod runs on, or the refusal of a pod the scheduler has not placed.
fn assigned_node<'p>(pod: &'p Value, name: &str) -> Result<&'p str, ApiStatus> {
    pod.pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .filter(|node| !node.is_empty())
        .ok_or_else(|| ApiStatus::bad_request(format!("pod {name} does not have a host assigned")))
}

/// `GetConnectionInfo`: the node's kubelet address. The node is read through the request's
/// store context, so a missing one is reported as the requested resource (`pods "n1" not
/// found` for a pod's exec, as kube-apiserver words it).
pub(crate) fn node_address(state: &State, requested: &ResourceInfo, node: &str) -> Result<String, ApiStatus> {
    let nodes = state.info("", "v1", "nodes");
    let found = state
        .object(&nodes, None, node)
        .ok_or_else(|| ApiStatus::not_found(requested, node))?;
    // The API server's default `--kubelet-preferred-address-types`.
    let preferred = ["Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"];
    let addresses = found
        .pointer("/status/addresses")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    preferred
        .iter()
        .find_map(|wanted| {
            addresses
                .iter()
                .find(|a| a.get("type").and_then(Value::as_str) == Some(wanted))
                .and_then(|a| a.get("address").and_then(Value::as_str))
        })
        .map(str::to_owned)
        .ok_or_else(|| {
            let known: Vec<String> = addresses
                .iter()
                .map(|a| {
                    let text = |k: &str| a.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
                    format!("{{{} {}}}", text("type"), text("address"))
                })
                .collect();
            // A plain Go error: a 500 without a reason.
            ApiStatus::new(
                500,
                "",
                format!("no preferred addresses found; known addresses: [{}]", known.join(" ")),
            )
        })
}

/// The pod's `ResourceLocation`: its first IP, which must be a global unicast address.
fn pod_proxy_address(
    state: &State,
    info: &ResourceInfo,
    namespace: Option<&str>,
    id: &str,
) -> Result<String, ApiStatus> {
    let (_, name, _) = split_scheme_name_port(id).ok_or_else(|| invalid_request("pod", id))?;
    let pod = read::get(state, info, namespace, name)?;
    let ip = pod
        .pointer("/status/podIPs/0/ip")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match ip.parse::<IpAddr>() {
        Ok(address) if is_global_unicast(address) => Ok(ip.to_owned()),
        _ => Err(ApiStatus::bad_request("address not allowed")),
    }
}

/// The service's `ResourceLocation`: a numbered port must be one of the service's, and its
/// Endpoints (read through the request's store context) must have subsets.
fn service_proxy_address(
    state: &State,
    info: &ResourceInfo,
    namespace: Option<&str>,
    id: &str,
) -> Result<String, ApiStatus> {
    let (_, name, port) = split_scheme_name_port(id).ok_or_else(|| invalid_request("service", id))?;
    if let Ok(number) = port.parse::<i64>() {
        let service = read::get(state, info, namespace, name)?;
        let declared = service
            .pointer("/spec/ports")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|p| p.get("port").and_then(Value::as_i64) == Some(number));
        if !declared {
            return Err(ApiStatus::service_unavailable(format!(
                "no service port {number} found for service {name:?}"
            )));
        }
    }
    let endpoints = state.info("", "v1", "endpoints");
    let found = state
        .object(&endpoints, namespace, name)
        .ok_or_else(|| ApiStatus::not_found(info, name))?;
    let subsets = found.get("subsets").and_then(Value::as_array).map_or(0, Vec::len);
    if subsets == 0 {
        return Err(ApiStatus::service_unavailable(format!(
            "no endpoints available for service {name:?}"
        )));
    }
    Ok(format!("the endpoints of service {name}"))
}

/// `SplitSchemeNamePort`: `name`, `name:port` or `scheme:name:port`, with a non-empty name
/// and a scheme of `http`, `https` or none.
fn split_scheme_name_port(id: &str) -> Option<(&str, &str, &str)> {
    let parts: Vec<&str> = id.split(':').collect();
    let (scheme, name, port) = match parts[..] {
        [name] => ("", name, ""),
        [name, port] => ("", name, port),
        [scheme, name, port] => (scheme, name, port),
        _ => return None,
    };
    (!name.is_empty() && matches!(scheme, "" | "http" | "https")).then_some((scheme, name, port))
}

/// The 400 of an id `SplitSchemeNamePort` refuses.
fn invalid_request(what: &str, id: &str) -> ApiStatus {
    ApiStatus::bad_request(format!("invalid {what} request {id:?}"))
}

/// Go's `net.IP.IsGlobalUnicast`.
fn is_global_unicast(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => {
            !(v4.is_unspecified() || v4.is_loopback() || v4.is_multicast() || v4.is_link_local() || v4.is_broadcast())
        }
        IpAddr::V6(v6) => {
            let link_local = (v6.segments()[0] & 0xffc0) == 0xfe80;
            !(v6.is_unspecified() || v6.is_loopback() || v6.is_multicast() || link_local)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_container_must_be_named_when_there_are_several() {
        let pod = json!({"spec": {"initContainers": [{"name": "i"}], "containers": [{"name": "a"}, {"name": "b"}]}});
        let refused = validate_container(&pod, "p", None).unwrap_err();
        assert_eq!(
            refused.message,
            "a container name must be specified for pod p, choose one of: [i a b]"
        );
        assert!(validate_container(&pod, "p", Some("i")).is_ok());
        assert_eq!(
            validate_container(&pod, "p", Some("c")).unwrap_err().message,
            "container c is not valid for pod p"
        );
        assert!(validate_container(&json!({"spec": {"containers": [{"name": "a"}]}}), "p", None).is_ok());
    }

    #[test]
    fn ids_split_as_split_scheme_name_port_does() {
        assert_eq!(split_scheme_name_port("s"), Some(("", "s", "")));
        assert_eq!(split_scheme_name_port("s:80"), Some(("", "s", "80")));
        assert_eq!(split_scheme_name_port("https:s:web"), Some(("https", "s", "web")));
        assert_eq!(split_scheme_name_port("ftp:s:80"), None);
        assert_eq!(split_scheme_name_port(":80"), None);
        assert_eq!(split_scheme_name_port("a:b:c:d"), None);
    }

    #[test]
    fn only_global_unicast_addresses_are_proxied() {
        let global = |s: &str| is_global_unicast(s.parse().unwrap());
        assert!(global("10.0.0.5") && global("2001:db8::1"));
        assert!(!global("127.0.0.1") && !global("0.0.0.0") && !global("169.254.1.1"));
        assert!(!global("fe80::1") && !global("224.0.0.1") && !global("255.255.255.255"));
    }
}
