//! The canonical layout of an Endpoints object's subsets, as the endpoints controller writes
//! them (`pkg/api/v1/endpoints/util.go` `RepackSubsets` and `SortSubsets`, and the over-capacity
//! truncation of `pkg/controller/endpoint/endpoints_controller.go` `truncateEndpoints`): one
//! subset per set of addresses offering the same ports, addresses by IP, ports and subsets in
//! the order of the MD5 of their go-spew print.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::semantics::{go_spew, go_types};
use crate::storage::object;

/// `maxCapacity`: the addresses an Endpoints object holds at most.
pub(crate) const MAX_CAPACITY: usize = 1000;

/// One address offering one port (`None`: a headless Service without ports), ready or not: a
/// subset of one address as `addEndpointSubset` appends it.
pub(crate) struct AddressPort {
    pub(crate) address: Value,
    pub(crate) port: Option<Value>,
    pub(crate) ready: bool,
}

/// `addressKey`: an address is the same one when its IP and its target's uid are.
type AddressKey = (String, String);

fn address_key(address: &Value) -> AddressKey {
    let ip = object::text(address.get("ip")).to_owned();
    let uid = object::text(address.pointer("/targetRef/uid")).to_owned();
    (ip, uid)
}

/// `RepackSubsets` then `SortSubsets`: the subsets of an Endpoints object, as JSON.
pub(crate) fn repack(entries: &[AddressPort], minor: u32) -> Vec<Value> {
    // `mapAddressByPort`: each port (the sentinel `None` for none) with the addresses offering
    // it; an address is kept as first seen, and not ready wins over ready.
    let mut addresses: BTreeMap<AddressKey, &Value> = BTreeMap::new();
    let mut by_port: BTreeMap<String, (Option<&Value>, BTreeMap<AddressKey, bool>)> = BTreeMap::new();
    for entry in entries {
        let key = address_key(&entry.address);
        addresses.entry(key.clone()).or_insert(&entry.address);
        let port_key = entry.port.as_ref().map_or_else(String::new, Value::to_string);
        let (_, ready) = by_port
            .entry(port_key)
            .or_insert_with(|| (entry.port.as_ref(), BTreeMap::new()));
        let was_ready = ready.entry(key).or_insert(entry.ready);
        *was_ready = *was_ready && entry.ready;
    }
    // Ports grouped by the very set of addresses (with readiness) that offer them.
    let mut by_addresses: BTreeMap<Vec<(AddressKey, bool)>, Vec<&Value>> = BTreeMap::new();
    for (port, ready) in by_port.into_values() {
        let group = by_addresses.entry(ready.into_iter().collect()).or_default();
        group.extend(port);
    }
    let types = go_types::endpoint_types(minor);
    let mut subsets: Vec<Value> = by_addresses
        .into_iter()
        .map(|(members, ports)| {
            let pick = |wanted: bool| -> Vec<Value> {
                let mut list: Vec<Value> = members
                    .iter()
                    .filter(|(_, ready)| *ready == wanted)
                    .map(|(key, _)| addresses[key].clone())
                    .collect();
                list.sort_by(compare_addresses);
                list
            };
            let mut ports: Vec<(Value, [u8; 16])> = ports
                .into_iter()
                .map(|port| (port.clone(), go_spew::md5_of(types, "core.EndpointPort", port)))
                .collect();
            ports.sort_by_key(|a| a.1);
            subset(
                pick(true),
                pick(false),
                ports.into_iter().map(|(port, _)| port).collect(),
            )
        })
        .collect();
    let mut hashed: Vec<([u8; 16], Value)> = subsets
        .drain(..)
        .map(|subset| (go_spew::md5_of(types, types.root(), &subset), subset))
        .collect();
    hashed.sort_by_key(|a| a.0);
    hashed.into_iter().map(|(_, subset)| subset).collect()
}

/// An `EndpointSubset` as JSON: its empty lists left out, as the API writes them.
fn subset(ready: Vec<Value>, not_ready: Vec<Value>, ports: Vec<Value>) -> Value {
    let mut subset = Map::new();
    for (key, list) in [("addresses", ready), ("notReadyAddresses", not_ready), ("ports", ports)] {
        if !list.is_empty() {
            subset.insert(key.to_owned(), Value::Array(list));
        }
    }
    Value::Object(subset)
}

/// `LessEndpointAddress`: by the IP's bytes, then by the target's uid.
fn compare_addresses(a: &Value, b: &Value) -> Ordering {
    let ip = |v: &Value| object::text(v.get("ip")).as_bytes().to_vec();
    let uid = |v: &Value| v.get("targetRef").map(|t| object::text(t.get("uid")).to_owned());
    ip(a).cmp(&ip(b)).then_with(|| uid(a).cmp(&uid(b)))
}

/// The addresses, ready and not, of `subsets`.
pub(crate) fn address_count(subsets: &[Value]) -> usize {
    subsets
        .iter()
        .map(|s| list_len(s, "addresses") + list_len(s, "notReadyAddresses"))
        .sum()
}

fn list_len(subset: &Value, key: &str) -> usize {
    subset.get(key).and_then(Value::as_array).map_or(0, Vec::len)
}

/// `truncateEndpoints`: past `MAX_CAPACITY` addresses, each subset keeps its share (rounded up)
/// of the room, ready addresses first; whether anything was cut.
pub(crate) fn truncate(subsets: &mut [Value]) -> bool {
    let ready: usize = subsets.iter().map(|s| list_len(s, "addresses")).sum();
    let not_ready: usize = subsets.iter().map(|s| list_len(s, "notReadyAddresses")).sum();
    if ready + not_ready <= MAX_CAPACITY {
        return false;
    }
    let truncate_ready = ready > MAX_CAPACITY;
    let (room, total) = if truncate_ready {
        (MAX_CAPACITY, ready)
    } else {
        (MAX_CAPACITY - ready, not_ready)
    };
    let mut left = room;
    let key = if truncate_ready {
        "addresses"
    } else {
        "notReadyAddresses"
    };
    for subset in subsets.iter_mut() {
        let share = (list_len(subset, key) as f64 / total as f64 * room as f64).ceil() as usize;
        let keep = share.min(left);
        if let Some(list) = subset.get_mut(key).and_then(Value::as_array_mut) {
            list.truncate(keep);
        }
        left -= list_len(subset, key);
        if truncate_ready && let Some(map) = subset.as_object_mut() {
            map.remove("notReadyAddresses");
        }
    }
    true
}

/// `endpointSubsetsEqualIgnoreResourceVersion`: the same subsets, whatever the targets'
/// resource versions, an empty list being no list.
pub(crate) fn same_subsets(current: Option<&Value>, wanted: &[Value]) -> bool {
    let current: Vec<Value> = current
        .and_then(Value::as_array)
        .map(|subsets| subsets.iter().map(normalized).collect())
        .unwrap_or_default();
    let wanted: Vec<Value> = wanted.iter().map(normalized).collect();
    current == wanted
}

/// A subset as Go's semantic equality sees it: no empty lists, no empty strings of
/// non-pointer fields, no target resource version.
fn normalized(subset: &Value) -> Value {
    let mut subset = subset.clone();
    if let Some(map) = subset.as_object_mut() {
        map.retain(|_, list| list.as_array().is_some_and(|l| !l.is_empty()));
        for list in map.values_mut().filter_map(Value::as_array_mut) {
            for item in list.iter_mut().filter_map(Value::as_object_mut) {
                item.retain(|key, value| !(value.is_null() || (key != "nodeName" && value == &json!(""))));
                if let Some(target) = item.get_mut("targetRef").and_then(Value::as_object_mut) {
                    target.remove("resourceVersion");
                    target.retain(|_, value| value != &json!(""));
                }
            }
        }
    }
    subset
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(ip: &str, uid: &str) -> Value {
        json!({"ip": ip, "nodeName": "n", "targetRef": {"kind": "Pod", "namespace": "ns", "name": uid, "uid": uid}})
    }

    fn port(name: &str, number: i64) -> Value {
        json!({"name": name, "port": number, "protocol": "TCP"})
    }

    fn entry(ip: &str, uid: &str, port: Option<Value>, ready: bool) -> AddressPort {
        AddressPort {
            address: address(ip, uid),
            port,
            ready,
        }
    }

    #[test]
    fn ports_of_one_address_set_share_a_subset_in_hash_order() {
        // Recorded on kube-apiserver + kube-controller-manager v1.28.7 and v1.31.2: metrics
        // (9090) before http (8080), and a renamed stats before http.
        let entries = [
            entry("10.0.0.1", "a", Some(port("http", 8080)), true),
            entry("10.0.0.1", "a", Some(port("metrics", 9090)), true),
            entry("10.0.0.2", "b", Some(port("http", 8080)), false),
            entry("10.0.0.2", "b", Some(port("metrics", 9090)), false),
        ];
        let subsets = repack(&entries, 28);
        assert_eq!(subsets.len(), 1);
        assert_eq!(subsets[0]["ports"], json!([port("metrics", 9090), port("http", 8080)]));
        assert_eq!(subsets[0]["addresses"], json!([address("10.0.0.1", "a")]));
        assert_eq!(subsets[0]["notReadyAddresses"], json!([address("10.0.0.2", "b")]));
        let renamed = [
            entry("10.0.0.2", "b", Some(port("http", 8080)), true),
            entry("10.0.0.2", "b", Some(port("stats", 9090)), true),
        ];
        assert_eq!(
            repack(&renamed, 31)[0]["ports"],
            json!([port("stats", 9090), port("http", 8080)])
        );
    }

    #[test]
    fn not_ready_wins_and_different_port_sets_split() {
        let entries = [
            entry("10.0.0.9", "a", Some(port("http", 80)), true),
            entry("10.0.0.9", "a", Some(port("http", 80)), false),
            entry("10.0.0.3", "c", Some(port("http", 8080)), true),
        ];
        let subsets = repack(&entries, 28);
        assert_eq!(subsets.len(), 2);
        let not_ready: Vec<&Value> = subsets.iter().filter_map(|s| s.get("notReadyAddresses")).collect();
        assert_eq!(not_ready, [&json!([address("10.0.0.9", "a")])]);
        assert_eq!(address_count(&subsets), 2);
    }

    #[test]
    fn headless_without_ports_keeps_addresses_without_ports() {
        let subsets = repack(
            &[entry("10.0.0.10", "b", None, true), entry("10.0.0.2", "a", None, true)],
            28,
        );
        // Sorted by the IP's bytes: "10.0.0.10" before "10.0.0.2".
        assert_eq!(
            subsets,
            [json!({"addresses": [address("10.0.0.10", "b"), address("10.0.0.2", "a")]})]
        );
    }

    #[test]
    fn truncation_keeps_ready_addresses_first() {
        let many = |n: usize, key: &str| json!({key: (0..n).map(|i| address(&format!("10.1.{}.{}", i / 250, i % 250), &i.to_string())).collect::<Vec<_>>()});
        let mut subsets = vec![many(900, "addresses"), many(300, "notReadyAddresses")];
        assert!(truncate(&mut subsets));
        assert_eq!(address_count(&subsets), MAX_CAPACITY);
        assert_eq!(list_len(&subsets[0], "addresses"), 900);
        let mut small = vec![many(3, "addresses")];
        assert!(!truncate(&mut small));
    }

    #[test]
    fn equality_ignores_resource_versions_and_empty_lists() {
        let mut stored =
            json!({"addresses": [address("10.0.0.1", "a")], "notReadyAddresses": [], "ports": [port("http", 80)]});
        stored["addresses"][0]["targetRef"]["resourceVersion"] = json!("42");
        let wanted = json!({"addresses": [address("10.0.0.1", "a")], "ports": [port("http", 80)]});
        assert!(same_subsets(Some(&json!([stored])), std::slice::from_ref(&wanted)));
        assert!(!same_subsets(None, &[wanted]));
        assert!(same_subsets(Some(&json!([])), &[]));
    }
}
