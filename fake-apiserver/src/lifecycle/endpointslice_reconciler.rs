//! kube-controller-manager's endpointslice reconciler for one Service
//! (`staging/src/k8s.io/endpointslice/reconciler.go` `Reconcile`, `reconcileByAddressType`,
//! `reconcileByPortMapping`, `finalize`; `utils.go` `getSliceToFill`; the objects it builds are
//! `endpointslice_endpoints`'): per
//! address type of the Service, the selected pods with an IP (terminating ones too) grouped by
//! the ports they offer, each group's endpoints kept in the slices that hold them, the rest
//! filling changed slices, then nearly full ones, then new ones of at most 100; a Service with
//! none keeps one placeholder slice. Go pops new endpoints from a map (any order); here they
//! come in the order of their addresses. Topology hints are not computed.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::endpoint_rules::{self, MANAGED_BY, MANAGER, SERVICE_NAME, SLICE_CONTROLLER};
use crate::lifecycle::endpointslice_endpoints::{
    EndpointKey, SliceMeta, address_types, endpoint_key, endpoint_ports, equal_beyond_hash, hints_for, needs_hints,
    new_slice, owned_by, pod_to_endpoint, port_map_key, same_placeholder, set_hints, slice_labels,
};
use crate::lifecycle::events;
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// `--max-endpoints-per-slice`'s default.
const MAX_ENDPOINTS: usize = 100;

/// The slices one address type's reconciliation writes, and the pods it had to skip.
#[derive(Default)]
struct Changes {
    create: Vec<Value>,
    update: Vec<Value>,
    delete: Vec<Arc<Value>>,
    skipped: Vec<SliceSyncError>,
}

/// `Reconcile`: the Service's managed slices brought to its pods, address type by address type;
/// slices of a type the Service no longer has are deleted. Returns whether it failed (a pod
/// skipped, a write refused), which `syncService` reports in an event and retries.
pub(super) fn reconcile(state: &mut State, service: &Value, pods: &[Arc<Value>], trigger: Option<&str>) -> bool {
    let info = state.info("discovery.k8s.io", "v1", "endpointslices");
    let namespace = object::namespace(service);
    // The controller's lister, by label, without the slices being deleted.
    let existing: Vec<Arc<Value>> = state
        .objects_in("discovery.k8s.io", "endpointslices", namespace)
        .into_iter()
        .filter(|slice| {
            let labels = object::labels(slice);
            labels.and_then(|l| l.get(SERVICE_NAME)) == Some(&json!(object::name(service)))
                && labels.and_then(|l| l.get(MANAGED_BY)) == Some(&json!(SLICE_CONTROLLER))
                && !object::is_deleting(slice)
        })
        .collect();
    let address_types = address_types(service);
    let mut errors = Vec::new();
    for address_type in &address_types {
        let of_type: Vec<Arc<Value>> = existing
            .iter()
            .filter(|slice| object::text(slice.get("addressType")) == address_type)
            .cloned()
            .collect();
        let mut changes = reconcile_address_type(state, service, pods, &of_type, address_type);
        errors.append(&mut changes.skipped);
        if let Err(error) = finalize(state, &info, service, changes, trigger) {
            errors.push(error);
        }
    }
    for slice in existing {
        if !address_types
            .iter()
            .any(|t| t == object::text(slice.get("addressType")))
        {
            state.delete_object(&info, Some(namespace), object::name(&slice), None);
        }
    }
    if !errors.is_empty() {
        // `syncService` reports the reconciler's aggregated error on the Service.
        let services = state.info("", "v1", "services");
        let message = format!(
            "Error updating Endpoint Slices for Service {namespace}/{}: {}",
            object::name(service),
            aggregate(&errors)
        );
        events::warn(
            state,
            &services,
            service,
            "FailedToUpdateEndpointSlices",
            &message,
            "endpoint-slice-controller",
        );
    }
    !errors.is_empty()
}

/// `utilerrors.NewAggregate(errs).Error()`: one message as it is, several distinct ones in
/// brackets, each once.
fn aggregate(errors: &[SliceSyncError]) -> String {
    let mut messages: Vec<String> = Vec::new();
    for message in errors.iter().map(ToString::to_string) {
        if !messages.contains(&message) {
            messages.push(message);
        }
    }
    match messages.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// `reconcileByAddressType`.
fn reconcile_address_type(
    state: &State,
    service: &Value,
    pods: &[Arc<Value>],
    existing: &[Arc<Value>],
    address_type: &str,
) -> Changes {
    let mut changes = Changes::default();
    let mut existing_by_ports: BTreeMap<String, Vec<Arc<Value>>> = BTreeMap::new();
    for slice in existing {
        if owned_by(slice, service) {
            let ports = slice
                .get("ports")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            // What the informer decoded: no ports is a nil list.
            let key = port_map_key(state, &ports, ports.is_empty());
            existing_by_ports.entry(key).or_default().push(slice.clone());
        } else {
            changes.delete.push(slice.clone());
        }
    }
    let mut desired: BTreeMap<String, (Vec<Value>, BTreeMap<EndpointKey, Value>)> = BTreeMap::new();
    let nodes = state.info("", "v1", "nodes");
    for pod in pods {
        if !endpoint_rules::should_pod_be_in_endpoints(pod, true) {
            continue;
        }
        let ports = endpoint_ports(state, service, pod);
        let key = port_map_key(state, &ports, false);
        let (_, set) = desired.entry(key).or_insert_with(|| (ports, BTreeMap::new()));
        let node = state.object(&nodes, None, object::text(pod.pointer("/spec/nodeName")));
        if node.is_none() && !endpoint_rules::publishes_not_ready(service) {
            // Reported with the sync's error (Go retries the Service later).
            changes.skipped.push(SliceSyncError::NodeNotFound {
                pod: object::name(pod).to_owned(),
                service: format!("{}/{}", object::namespace(service), object::name(service)),
                node: object::text(pod.pointer("/spec/nodeName")).to_owned(),
            });
            continue;
        }
        let endpoint = pod_to_endpoint(pod, node.as_deref(), service, address_type);
        if endpoint
            .get("addresses")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            set.insert(endpoint_key(&endpoint), endpoint);
        }
    }
    let desired_keys: BTreeSet<String> = desired.keys().cloned().collect();
    for (key, (ports, mut set)) in desired {
        let slices = existing_by_ports.get(&key).map(Vec::as_slice).unwrap_or_default();
        let meta = SliceMeta {
            ports: &ports,
            address_type,
        };
        reconcile_port_mapping(service, slices, &mut set, &meta, &mut changes);
    }
    for (key, slices) in existing_by_ports {
        if !desired_keys.contains(&key) {
            changes.delete.extend(slices);
        }
    }
    if existing.len() == changes.delete.len() && changes.create.is_empty() {
        let meta = SliceMeta {
            ports: &[],
            address_type,
        };
        let placeholder = new_slice(service, &meta);
        if changes.delete.len() == 1 && same_placeholder(&changes.delete[0], &placeholder) {
            changes.delete.clear();
        } else {
            changes.create.push(placeholder);
        }
    }
    // `ReconcileHints` (or `RemoveHintsFromSlices`): unchanged slices hinted otherwise are
    // updated too, and every slice written is hinted as the Service asks.
    let hints = hints_for(service, state.options.minor());
    let written: BTreeSet<String> = changes
        .update
        .iter()
        .map(|slice| object::name(slice).to_owned())
        .chain(changes.delete.iter().map(|slice| object::name(slice).to_owned()))
        .collect();
    for slice in existing {
        if !written.contains(object::name(slice)) && needs_hints(slice, hints) {
            changes.update.push((**slice).clone());
        }
    }
    for slice in changes.create.iter_mut().chain(changes.update.iter_mut()) {
        set_hints(slice, hints);
    }
    changes
}

/// `reconcileByPortMapping`: the slices of one port set kept, updated or deleted, and the
/// endpoints no slice holds yet put in changed, nearly full or new slices.
fn reconcile_port_mapping(
    service: &Value,
    existing: &[Arc<Value>],
    desired: &mut BTreeMap<EndpointKey, Value>,
    meta: &SliceMeta<'_>,
    changes: &mut Changes,
) {
    let mut by_name: BTreeMap<String, Value> = BTreeMap::new();
    let (mut unchanged, mut to_update, mut to_delete) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for slice in existing {
        let name = object::name(slice).to_owned();
        let current = slice
            .get("endpoints")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut kept = Vec::new();
        let mut endpoint_updated = false;
        for endpoint in &current {
            if let Some(wanted) = desired.remove(&endpoint_key(endpoint)) {
                endpoint_updated |= !equal_beyond_hash(&wanted, endpoint);
                kept.push(wanted);
            }
        }
        let (labels, labels_changed) = slice_labels(slice, service);
        // Only a slice to update takes the new labels; one filled later keeps its own.
        let mut copy = (**slice).clone();
        let relabel = |copy: &mut Value| {
            object::meta_mut(copy).insert("labels".to_owned(), Value::Object(labels.clone()));
        };
        if endpoint_updated || current.len() != kept.len() {
            if kept.is_empty() {
                to_delete.insert(name.clone());
            } else {
                copy["endpoints"] = Value::Array(kept);
                relabel(&mut copy);
                to_update.insert(name.clone());
            }
        } else if labels_changed {
            relabel(&mut copy);
            to_update.insert(name.clone());
        } else {
            unchanged.insert(name.clone());
        }
        by_name.insert(name, copy);
    }
    // Changed slices fill up first, the fullest first.
    if !desired.is_empty() {
        let mut filling: Vec<&String> = to_update.iter().collect();
        filling.sort_by_key(|name| std::cmp::Reverse(endpoint_count(&by_name[*name])));
        for name in filling {
            fill(by_name.get_mut(name).expect("every slice to update is known"), desired);
        }
    }
    while !desired.is_empty() {
        let mut slice = match desired.len() < MAX_ENDPOINTS {
            true => slice_to_fill(&unchanged, &by_name, desired.len()).cloned(),
            false => None,
        }
        .unwrap_or_else(|| new_slice(service, meta));
        fill(&mut slice, desired);
        match object::name(&slice).to_owned() {
            name if name.is_empty() => changes.create.push(slice),
            name => {
                unchanged.remove(&name);
                to_update.insert(name.clone());
                by_name.insert(name, slice);
            }
        }
    }
    changes
        .update
        .extend(to_update.iter().map(|name| by_name[name].clone()));
    let deleted = existing.iter().filter(|slice| to_delete.contains(object::name(slice)));
    changes.delete.extend(deleted.cloned());
}

fn endpoint_count(slice: &Value) -> usize {
    slice.get("endpoints").and_then(Value::as_array).map_or(0, Vec::len)
}

/// Moves endpoints from `desired` into `slice` until it holds `MAX_ENDPOINTS`.
fn fill(slice: &mut Value, desired: &mut BTreeMap<EndpointKey, Value>) {
    while endpoint_count(slice) < MAX_ENDPOINTS
        && let Some((_, endpoint)) = desired.pop_first()
    {
        match slice.get_mut("endpoints").and_then(Value::as_array_mut) {
            Some(list) => list.push(endpoint),
            None => slice["endpoints"] = json!([endpoint]),
        }
    }
}

/// `getSliceToFill`: the unchanged slice the endpoints fill most exactly, if any fits them.
fn slice_to_fill<'a>(
    unchanged: &BTreeSet<String>,
    by_name: &'a BTreeMap<String, Value>,
    count: usize,
) -> Option<&'a Value> {
    let mut closest: Option<(usize, &Value)> = None;
    for slice in unchanged.iter().map(|name| &by_name[name]) {
        let Some(diff) = MAX_ENDPOINTS.checked_sub(count + endpoint_count(slice)) else {
            continue;
        };
        if closest.is_none_or(|(best, _)| diff < best) {
            closest = Some((diff, slice));
            if diff == 0 {
                break;
            }
        }
    }
    closest.map(|(_, slice)| slice)
}

/// `finalize`: a slice to delete and one to create of the same address type become an update
/// of the first; then creates (not for a Service being deleted), updates and deletes.
fn finalize(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    service: &Value,
    mut changes: Changes,
    trigger: Option<&str>,
) -> Result<(), SliceSyncError> {
    let mut i = 0;
    while i < changes.delete.len() && !changes.create.is_empty() {
        let reused = &changes.delete[i];
        let last = changes.create.last().expect("a slice to create");
        if reused.get("addressType") == last.get("addressType") && owned_by(reused, service) {
            let mut slice = changes.create.pop().expect("a slice to create");
            object::meta_mut(&mut slice).insert("name".to_owned(), json!(object::name(reused)));
            changes.update.push(slice);
            changes.delete.remove(i);
        } else {
            i += 1;
        }
    }
    write(state, info, service, changes, trigger)
}

/// What stops the reconciler short of the Service's slices, as it reports it.
#[derive(Debug, thiserror::Error)]
enum SliceSyncError {
    #[error("skipping Pod {pod} for Service {service}: Node {node} Not Found")]
    NodeNotFound { pod: String, service: String, node: String },
    #[error("failed to create EndpointSlice for Service {service}: {message}")]
    Create { service: String, message: String },
    #[error("failed to update {name} EndpointSlice for Service {service}: {message}")]
    Update {
        name: String,
        service: String,
        message: String,
    },
}

/// The creates, updates and deletes of `finalize`, stopping at the first refused one (a create
/// in a terminating namespace ends them quietly).
fn write(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    service: &Value,
    changes: Changes,
    trigger: Option<&str>,
) -> Result<(), SliceSyncError> {
    let namespace = object::namespace(service);
    let service_key = format!("{namespace}/{}", object::name(service));
    if !object::is_deleting(service) {
        for mut slice in changes.create {
            endpoint_rules::set_trigger_time(&mut slice, trigger);
            match state.create_object(info, Some(namespace), slice, Some(MANAGER)) {
                Ok(_) => {}
                Err(status) if status.has_cause("NamespaceTerminating") => return Ok(()),
                Err(status) => {
                    return Err(SliceSyncError::Create {
                        service: service_key,
                        message: status.message,
                    });
                }
            }
        }
    }
    for mut slice in changes.update {
        endpoint_rules::set_trigger_time(&mut slice, trigger);
        let name = object::name(&slice).to_owned();
        // The slice was just listed; the update names it (and carries no resource version
        // when it reuses a deleted one's name).
        let Some(current) = state.object(info, Some(namespace), &name) else {
            continue;
        };
        if let Err(status) = state.update_object(info, current, slice, Some(MANAGER), None) {
            return Err(SliceSyncError::Update {
                name,
                service: service_key,
                message: status.message,
            });
        }
    }
    for slice in changes.delete {
        state.delete_object(info, Some(namespace), object::name(&slice), None);
    }
    Ok(())
}
