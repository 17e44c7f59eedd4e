//! The endpointslice strategy (`pkg/registry/discovery/endpointslice/strategy.go`) for writes
//! through discovery.k8s.io/v1: `dropTopologyOnV1` (v1 has no deprecated topology to keep:
//! it is dropped, a node name recovered from it only for nodes the stored slice named there),
//! `getDeprecatedTopologyNodeNames`, the generation moving with the labels as well as the
//! slice's own fields, and `warnOnDeprecatedAddressType`.

use serde_json::Value;

use crate::semantics::apps_set_strategy::semantic_equal;
use crate::semantics::names::dns1123_subdomain_errors;
use crate::storage::resource::ResourceInfo;

/// `corev1.LabelHostname`.
const HOSTNAME_LABEL: &str = "kubernetes.io/hostname";

/// Whether `info` is the EndpointSlice resource.
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group == "discovery.k8s.io" && info.kind == "EndpointSlice"
}

/// `PrepareForCreate`: the deprecated topology is dropped.
pub(crate) fn prepare_create(info: &ResourceInfo, slice: &mut Value) {
    if concerns(info) {
        drop_topology(None, slice);
    }
}

/// `PrepareForUpdate`'s topology handling.
pub(crate) fn prepare_update(info: &ResourceInfo, old: &Value, slice: &mut Value) {
    if concerns(info) {
        drop_topology(Some(old), slice);
    }
}

/// Whether an update moves the generation besides a changed slice: changed labels.
pub(crate) fn labels_move_generation(info: &ResourceInfo, old: &Value, new: &Value) -> bool {
    concerns(info) && !semantic_equal(old.pointer("/metadata/labels"), new.pointer("/metadata/labels"))
}

/// `WarningsOnCreate`: FQDN slices are deprecated.
pub(crate) fn create_warnings(slice: &Value) -> Vec<String> {
    if slice.get("addressType").and_then(Value::as_str) == Some("FQDN") {
        vec!["spec.addressType: FQDN endpoints are deprecated".to_owned()]
    } else {
        Vec::new()
    }
}

/// `dropTopologyOnV1`: unless an update leaves the endpoints as they were, each endpoint
/// loses its deprecated topology, taking its hostname label as node name when it has none,
/// the stored slice had that node in its topology and it is a valid node name.
fn drop_topology(old: Option<&Value>, slice: &mut Value) {
    if let Some(old) = old
        && semantic_equal(old.get("endpoints"), slice.get("endpoints"))
    {
        return;
    }
    let previous = old.map(topology_node_names).unwrap_or_default();
    let endpoints = slice.get_mut("endpoints").and_then(Value::as_array_mut);
    for endpoint in endpoints.into_iter().flatten().filter_map(Value::as_object_mut) {
        let hostname = endpoint
            .get("deprecatedTopology")
            .and_then(|t| t.get(HOSTNAME_LABEL))
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(hostname) = hostname
            && endpoint.get("nodeName").is_none_or(Value::is_null)
            && previous.contains(&hostname)
            && dns1123_subdomain_errors(&hostname).is_empty()
        {
            endpoint.insert("nodeName".to_owned(), Value::String(hostname));
        }
        endpoint.remove("deprecatedTopology");
    }
}

/// `getDeprecatedTopologyNodeNames`: the non-empty hostname labels of a slice's topology.
fn topology_node_names(slice: &Value) -> Vec<String> {
    let endpoints = slice.get("endpoints").and_then(Value::as_array);
    endpoints
        .into_iter()
        .flatten()
        .filter_map(|e| e.pointer("/deprecatedTopology").and_then(|t| t.get(HOSTNAME_LABEL)))
        .filter_map(Value::as_str)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn slices() -> ResourceInfo {
        ResourceInfo::builtin("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices")
    }

    #[test]
    fn a_create_should_drop_the_topology() {
        let mut slice =
            json!({"endpoints": [{"addresses": ["10.0.0.1"], "deprecatedTopology": {HOSTNAME_LABEL: "a"}}]});
        prepare_create(&slices(), &mut slice);
        assert_eq!(slice, json!({"endpoints": [{"addresses": ["10.0.0.1"]}]}));
    }

    #[test]
    fn an_update_should_recover_node_names_the_stored_topology_had() {
        let old = json!({"endpoints": [{"addresses": ["10.0.0.1"], "deprecatedTopology": {HOSTNAME_LABEL: "node-a"}}]});
        let mut slice = json!({"endpoints": [
            {"addresses": ["10.0.0.2"], "deprecatedTopology": {HOSTNAME_LABEL: "node-a"}},
            {"addresses": ["10.0.0.3"], "deprecatedTopology": {HOSTNAME_LABEL: "node-b"}},
        ]});
        prepare_update(&slices(), &old, &mut slice);
        assert_eq!(
            slice,
            json!({"endpoints": [{"addresses": ["10.0.0.2"], "nodeName": "node-a"}, {"addresses": ["10.0.0.3"]}]})
        );
        // Unchanged endpoints are left as they are.
        let mut same = old.clone();
        prepare_update(&slices(), &old, &mut same);
        assert_eq!(same, old);
    }

    #[test]
    fn labels_should_move_the_generation_and_fqdn_warn() {
        let old = json!({"metadata": {"labels": {"a": "1"}}});
        assert!(labels_move_generation(&slices(), &old, &json!({"metadata": {}})));
        assert!(!labels_move_generation(&slices(), &old, &old));
        assert_eq!(create_warnings(&json!({"addressType": "FQDN"})).len(), 1);
        assert!(create_warnings(&json!({"addressType": "IPv4"})).is_empty());
    }
}
