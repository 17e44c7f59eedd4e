//! kube-controller-manager's EndpointSlice mirroring controller
//! (`pkg/controller/endpointslicemirroring/`: `syncEndpoints`, `shouldMirror`,
//! `reconciler.reconcile`, `reconcileByPortMapping`, `finalize`, `recycleSlices`;
//! `utils.go`: `newEndpointSlice`, `addressToEndpoint`, `epPortsToEpsPorts`, `getAddressType`):
//! the Endpoints of a Service without a selector are mirrored into EndpointSlices, one per set of
//! ports and address type, owned by the Endpoints. The endpoints of a slice are a set in Go
//! (taken out in map order); here they are written in address order.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::events;
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::ResourceInfo;

const CONTROLLER: &str = "endpointslicemirroring-controller.k8s.io";
const MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";
const SERVICE_NAME: &str = "kubernetes.io/service-name";
/// Annotations a mirrored slice does not copy.
const NOT_MIRRORED: [&str; 2] = [
    "endpoints.kubernetes.io/last-change-trigger-time",
    "kubectl.kubernetes.io/last-applied-configuration",
];
/// `--mirroring-max-endpoints-per-subset`'s default.
const MAX_PER_SUBSET: usize = 1000;

/// The informers' reaction: a Service or Endpoints written or removed, or a mirrored slice,
/// syncs the Endpoints of that name.
pub(super) fn on_change(info: &ResourceInfo, object: &Value) -> Option<Pending> {
    if !info.builtin {
        return None;
    }
    let name = match (info.group.as_str(), info.plural.as_str()) {
        ("", "services" | "endpoints") => object::name(object),
        ("discovery.k8s.io", "endpointslices") if label(object, MANAGED_BY) == CONTROLLER => {
            label(object, SERVICE_NAME)
        }
        _ => return None,
    };
    (!name.is_empty()).then(|| Pending::SyncMirroring {
        namespace: object::namespace(object).to_owned(),
        name: name.to_owned(),
    })
}

fn label<'a>(object: &'a Value, key: &str) -> &'a str {
    object::labels(object)
        .and_then(|l| l.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// `syncEndpoints`: mirrored while the Endpoints exist and may be mirrored and their Service
/// exists without a selector; otherwise the mirrored slices are deleted.
pub(super) fn sync(state: &mut State, namespace: &str, name: &str) {
    let slices_info = state.info("discovery.k8s.io", "v1", "endpointslices");
    let existing: Vec<Arc<Value>> = state
        .objects_in("discovery.k8s.io", "endpointslices", namespace)
        .into_iter()
        .filter(|s| label(s, SERVICE_NAME) == name && label(s, MANAGED_BY) == CONTROLLER)
        .collect();
    let endpoints = state.object(&state.info("", "v1", "endpoints"), Some(namespace), name);
    let service = state.object(&state.info("", "v1", "services"), Some(namespace), name);
    let mirrored = match (&endpoints, &service) {
        (Some(endpoints), Some(service))
            if should_mirror(endpoints) && service.pointer("/spec/selector").is_none_or(Value::is_null) =>
        {
            endpoints.clone()
        }
        _ => {
            for slice in existing {
                state.delete_object(&slices_info, Some(namespace), object::name(&slice), None);
            }
            return;
        }
    };
    reconcile(state, &slices_info, &mirrored, existing);
}

/// `shouldMirror`: not labelled `endpointslice.kubernetes.io/skip-mirror: "true"` and not a
/// leader election record.
fn should_mirror(endpoints: &Value) -> bool {
    let leader =
        object::annotations(endpoints).is_some_and(|a| a.contains_key("control-plane.alpha.kubernetes.io/leader"));
    label(endpoints, "endpointslice.kubernetes.io/skip-mirror") != "true" && !leader
}

/// The desired endpoints of one port mapping and address type.
#[derive(Default)]
struct Desired {
    ports: Value,
    endpoints: BTreeMap<String, Value>,
}

/// `reconcile`: the desired slices by port mapping, compared with the existing ones.
fn reconcile(state: &mut State, info: &Arc<ResourceInfo>, endpoints: &Value, existing: Vec<Arc<Value>>) {
    let mut desired: BTreeMap<String, Desired> = BTreeMap::new();
    let mut invalid = 0;
    for subset in endpoints.get("subsets").and_then(Value::as_array).into_iter().flatten() {
        let ports = slice_ports(subset.get("ports"));
        let mut added = 0;
        let addresses = [("addresses", true), ("notReadyAddresses", false)];
        for (list, ready) in addresses {
            for address in subset.get(list).and_then(Value::as_array).into_iter().flatten() {
                if added >= MAX_PER_SUBSET {
                    break;
                }
                let ip = address.get("ip").and_then(Value::as_str).unwrap_or("");
                let Some(kind) = address_type(ip) else {
                    invalid += 1;
                    continue;
                };
                added += 1;
                let entry = desired.entry(port_key(&ports, kind)).or_default();
                entry.ports = ports.clone();
                entry.endpoints.insert(ip.to_owned(), endpoint(address, ready));
            }
        }
    }
    if invalid > 0 {
        let message = format!("Skipped {invalid} invalid IP addresses when mirroring to EndpointSlices");
        let endpoints_info = state.info("", "v1", "endpoints");
        events::warn(
            state,
            &endpoints_info,
            endpoints,
            "InvalidIPAddress",
            &message,
            "endpoint-slice-mirroring-controller",
        );
    }
    let mut by_key: BTreeMap<String, Vec<Arc<Value>>> = BTreeMap::new();
    for slice in existing {
        let kind = slice
            .get("addressType")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        by_key
            .entry(port_key(slice.get("ports").unwrap_or(&Value::Null), &kind))
            .or_default()
            .push(slice);
    }
    let (mut create, mut update, mut delete) = (Vec::new(), Vec::new(), Vec::new());
    for (key, want) in &desired {
        let mut slices = by_key.remove(key).unwrap_or_default();
        let kind = key.split_once('|').map_or("", |(kind, _)| kind);
        if slices.is_empty() {
            create.push(new_slice(endpoints, want, kind, None));
            continue;
        }
        let first = slices.remove(0);
        delete.extend(slices);
        if !matches_desired(endpoints, &first, want) {
            update.push((
                first.clone(),
                new_slice(endpoints, want, kind, Some(object::name(&first))),
            ));
        }
    }
    delete.extend(by_key.into_values().flatten());
    finalize(state, info, endpoints, create, update, delete);
}

/// `finalize` with `recycleSlices`: a slice to delete is reused for one to create of the same
/// address type; creations are skipped for Endpoints being deleted.
fn finalize(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    endpoints: &Value,
    create: Vec<Value>,
    mut update: Vec<(Arc<Value>, Value)>,
    mut delete: Vec<Arc<Value>>,
) {
    let mut created = Vec::new();
    for mut slice in create {
        let kind = slice["addressType"].clone();
        match delete.iter().position(|d| d.get("addressType") == Some(&kind)) {
            Some(index) => {
                let recycled = delete.remove(index);
                object::meta_mut(&mut slice).remove("generateName");
                object::meta_mut(&mut slice).insert("name".to_owned(), json!(object::name(&recycled)));
                update.push((recycled, slice));
            }
            None => created.push(slice),
        }
    }
    let namespace = object::namespace(endpoints).to_owned();
    if !object::is_deleting(endpoints) {
        for slice in created {
            if let Err(status) = state.create_object(info, Some(&namespace), slice, Some(CONTROLLER_MANAGER)) {
                tracing::debug!(%status, "could not create a mirrored EndpointSlice");
            }
        }
    }
    for (current, mut slice) in update {
        slice["metadata"]["resourceVersion"] = json!(object::resource_version(&current));
        if let Err(status) = state.update_object(info, current, slice, Some(CONTROLLER_MANAGER), None) {
            tracing::debug!(%status, "could not update a mirrored EndpointSlice");
        }
    }
    for slice in delete {
        state.delete_object(info, Some(&namespace), object::name(&slice), None);
    }
}

/// Whether the existing slice holds exactly the desired endpoints, labels and annotations.
fn matches_desired(endpoints: &Value, slice: &Value, want: &Desired) -> bool {
    let have: BTreeMap<String, Value> = slice
        .get("endpoints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e.pointer("/addresses/0")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                e.clone(),
            )
        })
        .collect();
    let mut labels = object::labels(slice).cloned().unwrap_or_default();
    labels.remove(MANAGED_BY);
    labels.remove(SERVICE_NAME);
    let wanted_labels = object::labels(endpoints).cloned().unwrap_or_default();
    have == want.endpoints
        && labels == wanted_labels
        && annotations(endpoints) == object::annotations(slice).cloned().unwrap_or_default()
}

/// The Endpoints' annotations a slice carries.
fn annotations(endpoints: &Value) -> Map<String, Value> {
    let mut annotations = object::annotations(endpoints).cloned().unwrap_or_default();
    for key in NOT_MIRRORED {
        annotations.remove(key);
    }
    annotations
}

/// `newEndpointSlice`: the Endpoints' labels with the service name and manager, their
/// annotations, the Endpoints as controller, a name generated from theirs or the one reused.
fn new_slice(endpoints: &Value, want: &Desired, kind: &str, name: Option<&str>) -> Value {
    let mut labels = object::labels(endpoints).cloned().unwrap_or_default();
    labels.insert(SERVICE_NAME.to_owned(), json!(object::name(endpoints)));
    labels.insert(MANAGED_BY.to_owned(), json!(CONTROLLER));
    let owner = json!({"apiVersion": "v1", "kind": "Endpoints", "name": object::name(endpoints),
        "uid": object::uid(endpoints), "controller": true, "blockOwnerDeletion": true});
    let mut metadata = json!({"namespace": object::namespace(endpoints), "labels": labels,
        "annotations": annotations(endpoints), "ownerReferences": [owner]});
    match name {
        Some(name) => metadata["name"] = json!(name),
        None => metadata["generateName"] = json!(format!("{}-", object::name(endpoints))),
    }
    let list: Vec<Value> = want.endpoints.values().take(MAX_PER_SUBSET).cloned().collect();
    json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": metadata,
        "addressType": kind, "ports": want.ports, "endpoints": list})
}

/// `addressToEndpoint`.
fn endpoint(address: &Value, ready: bool) -> Value {
    let mut endpoint = json!({"addresses": [address.get("ip")], "conditions": {"ready": ready}});
    for (from, to) in [("targetRef", "targetRef"), ("nodeName", "nodeName")] {
        if let Some(value) = address.get(from).filter(|v| !v.is_null()) {
            endpoint[to] = value.clone();
        }
    }
    if let Some(hostname) = address
        .get("hostname")
        .and_then(Value::as_str)
        .filter(|h| !h.is_empty())
    {
        endpoint["hostname"] = json!(hostname);
    }
    endpoint
}

/// `epPortsToEpsPorts`: every field set, as Go's pointers to the Endpoints' values.
fn slice_ports(ports: Option<&Value>) -> Value {
    let list = ports.and_then(Value::as_array).into_iter().flatten().map(|port| {
        let mut mirrored = json!({"name": port.get("name").cloned().unwrap_or(json!("")),
            "port": port.get("port").cloned().unwrap_or(json!(0)),
            "protocol": port.get("protocol").cloned().unwrap_or(json!(""))});
        if let Some(app) = port.get("appProtocol").filter(|a| !a.is_null()) {
            mirrored["appProtocol"] = app.clone();
        }
        mirrored
    });
    Value::Array(list.collect())
}

/// `getAddressType`: IPv4 for an address with a 4-byte form, IPv6 otherwise, none when invalid.
fn address_type(ip: &str) -> Option<&'static str> {
    match ip.parse::<IpAddr>().ok()? {
        IpAddr::V4(_) => Some("IPv4"),
        IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some() => Some("IPv4"),
        IpAddr::V6(_) => Some("IPv6"),
    }
}

/// `newAddrTypePortMapKey`: the address type and the ports, whatever their order.
fn port_key(ports: &Value, kind: &str) -> String {
    let mut each: Vec<String> = ports.as_array().into_iter().flatten().map(Value::to_string).collect();
    each.sort();
    format!("{kind}|{}", each.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_should_be_typed_as_go_parses_them() {
        assert_eq!(address_type("10.1.2.3"), Some("IPv4"));
        assert_eq!(address_type("::ffff:10.1.2.3"), Some("IPv4"));
        assert_eq!(address_type("fd00::1"), Some("IPv6"));
        assert_eq!(address_type("host.example"), None);
    }

    #[test]
    fn a_mirrored_slice_should_carry_the_endpoints_labels_and_owner() {
        let endpoints = json!({"metadata": {"name": "ext", "namespace": "ns", "uid": "u", "labels": {"team": "a"},
            "annotations": {"endpoints.kubernetes.io/last-change-trigger-time": "t", "note": "x"}}});
        let mut want = Desired {
            ports: slice_ports(Some(&json!([{"name": "http", "port": 80, "protocol": "TCP"}]))),
            ..Desired::default()
        };
        want.endpoints.insert(
            "10.0.0.1".into(),
            endpoint(&json!({"ip": "10.0.0.1", "hostname": "h"}), false),
        );
        let slice = new_slice(&endpoints, &want, "IPv4", None);
        assert_eq!(slice["metadata"]["generateName"], "ext-");
        assert_eq!(
            slice["metadata"]["labels"],
            json!({"team": "a", SERVICE_NAME: "ext", MANAGED_BY: CONTROLLER})
        );
        assert_eq!(slice["metadata"]["annotations"], json!({"note": "x"}));
        assert_eq!(
            slice["endpoints"][0],
            json!({"addresses": ["10.0.0.1"], "conditions": {"ready": false}, "hostname": "h"})
        );
        assert!(matches_desired(&endpoints, &slice, &want));
    }
}
