//! When and how kube-controller-manager's endpoints and endpointslice controllers sync a Service
//! (`pkg/controller/endpoint/endpoints_controller.go` and
//! `pkg/controller/endpointslice/endpointslice_controller.go`, `syncService` and the pod
//! handlers; `staging/src/k8s.io/endpointslice/util/controller_utils.go` and
//! `trigger_time_tracker.go`): which writes queue a Service's sync — the Service, its Endpoints
//! removed, a managed slice, and a pod whose labels, readiness, IPs, hostname or deletion
//! changed (`GetServicesToUpdateOnPodChange`) — and the sync: the pods the Service selects and
//! the trigger time, handed to the Endpoints writer (`endpoints_controller`) and the slice
//! reconciler (`endpointslice_reconciler`); the rules both apply are `endpoint_rules`'.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Map, Value, json};

use crate::lifecycle::disruption_status::is_pod_ready;
use crate::lifecycle::endpoint_rules::{MANAGED_BY, SERVICE_NAME, SLICE_CONTROLLER, pod_ips};
use crate::lifecycle::writes::Writes;
use crate::lifecycle::{endpoints_controller, endpointslice_reconciler};
use crate::storage::object;
use crate::storage::pending::{Pending, Timer};
use crate::storage::resource::ResourceInfo;
use crate::storage::{ServiceTriggerTimes, State};

/// The endpointslice controller's `maxRetries`.
const MAX_SLICE_RETRIES: u32 = 15;

/// Whether a write to `info` makes the controllers sync a Service: the Service itself, an
/// Endpoints object removed, a slice the endpointslice controller manages.
pub(super) fn concerns(info: &ResourceInfo, object: &Value) -> bool {
    info.builtin
        && match (info.group.as_str(), info.plural.as_str()) {
            ("", "services" | "endpoints") => true,
            ("discovery.k8s.io", "endpointslices") => {
                object::labels(object).and_then(|l| l.get(MANAGED_BY)) == Some(&json!(SLICE_CONTROLLER))
            }
            _ => false,
        }
}

/// The Service a write concerns: its own name, or the one a slice is labelled with.
pub(super) fn service_of(info: &ResourceInfo, object: &Value) -> (String, String) {
    let namespace = object::namespace(object).to_owned();
    let name = match info.plural.as_str() {
        "endpointslices" => object::labels(object)
            .and_then(|l| l.get(SERVICE_NAME))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        _ => object::name(object).to_owned(),
    };
    (namespace, name)
}

/// Both controllers' `addPod`, `updatePod` and `deletePod`: the Services a pod's creation,
/// change or removal concerns are synced.
pub(super) fn on_pod_change(state: &mut State, info: &ResourceInfo, old: Option<&Value>, new: Option<&Value>) {
    if !(info.builtin && info.group.is_empty() && info.plural == "pods") {
        return;
    }
    let services = match (old, new) {
        (None, Some(pod)) | (Some(pod), None) => memberships(state, pod),
        (Some(old), Some(new)) => services_to_update(state, old, new),
        (None, None) => Vec::new(),
    };
    for name in services {
        let namespace = object::namespace(new.or(old).unwrap_or(&Value::Null)).to_owned();
        state.pending.push(Pending::SyncService { namespace, name });
    }
}

/// `GetServicesToUpdateOnPodChange`: a pod whose endpoints changed concerns the Services of
/// its old and new labels; one whose labels (or hostname) alone changed, those it joined or left.
fn services_to_update(state: &State, old: &Value, new: &Value) -> Vec<String> {
    if object::resource_version(old) == object::resource_version(new) {
        return Vec::new();
    }
    let labels_changed = object::labels(old) != object::labels(new)
        || old.pointer("/spec/hostname") != new.pointer("/spec/hostname")
        || old.pointer("/spec/subdomain") != new.pointer("/spec/subdomain");
    // Go compares the deletion timestamps' pointers: two decoded pods never share one.
    let changed = object::is_deleting(old)
        || object::is_deleting(new)
        || is_pod_ready(old) != is_pod_ready(new)
        || pod_ips(old) != pod_ips(new);
    let now = memberships(state, new);
    if !labels_changed {
        return if changed { now } else { Vec::new() };
    }
    let before = memberships(state, old);
    let mut services: Vec<String> = if changed {
        now.iter().chain(&before).cloned().collect()
    } else {
        // The symmetric difference: the Services the pod joined or left.
        let joined = now.iter().filter(|s| !before.contains(s));
        joined
            .chain(before.iter().filter(|s| !now.contains(s)))
            .cloned()
            .collect()
    };
    services.sort();
    services.dedup();
    services
}

/// `GetPodServiceMemberships`: the Services of the pod's namespace whose selector it matches.
fn memberships(state: &State, pod: &Value) -> Vec<String> {
    let labels = object::labels(pod).cloned().unwrap_or_default();
    state
        .objects_in("", "services", object::namespace(pod))
        .iter()
        .filter(|service| selector(service).is_some_and(|selector| selects(selector, &labels)))
        .map(|service| object::name(service).to_owned())
        .collect()
}

/// A Service's selector as the controllers' informers decode it: an empty one is none (the
/// protobuf they read has no empty map).
pub(super) fn selector(service: &Value) -> Option<&Map<String, Value>> {
    service
        .pointer("/spec/selector")
        .and_then(Value::as_object)
        .filter(|selector| !selector.is_empty())
}

/// `labels.Set(selector).AsSelectorPreValidated()`: every pair of the selector is a label.
fn selects(selector: &Map<String, Value>, labels: &Map<String, Value>) -> bool {
    selector.iter().all(|(key, value)| labels.get(key) == Some(value))
}

/// Both controllers' `syncService`.
pub(super) fn sync_service(state: &mut State, namespace: &str, name: &str) {
    let services = state.info("", "v1", "services");
    let key = format!("{namespace}/{name}");
    let Some(service) = state.object(&services, Some(namespace), name) else {
        // `DeleteService`: the trackers forget it; the Endpoints object goes (its slices are
        // the garbage collector's, through their owner reference).
        state.service_triggers.remove(&key);
        state.slice_sync_failures.remove(&key);
        let endpoints = state.info("", "v1", "endpoints");
        state.delete_object(&endpoints, Some(namespace), name, None);
        return;
    };
    let Some(selector) = selector(&service) else {
        return;
    };
    if service.pointer("/spec/type").and_then(Value::as_str) == Some("ExternalName") {
        return;
    }
    let pods: Vec<Arc<Value>> = state
        .objects_in("", "pods", namespace)
        .into_iter()
        .filter(|pod| selects(selector, object::labels(pod).unwrap_or(&Map::new())))
        .collect();
    let trigger = trigger_time(state, &key, &service, &pods);
    endpoints_controller::sync(state, &service, &pods, trigger.as_deref());
    let failed = endpointslice_reconciler::reconcile(state, &service, &pods, trigger.as_deref());
    retry_or_forget(state, namespace, name, failed);
}

/// The endpointslice controller's `handleErr`: a failed sync is retried after its queue's
/// backoff (1 s doubling, 1000 s at most, 15 retries; 10 controller delays a second), a good
/// one resets it.
fn retry_or_forget(state: &mut State, namespace: &str, name: &str, failed: bool) {
    let key = format!("{namespace}/{name}");
    if !failed {
        state.slice_sync_failures.remove(&key);
        return;
    }
    let failures = state.slice_sync_failures.entry(key).or_insert(0);
    if *failures >= MAX_SLICE_RETRIES {
        return;
    }
    let backoff = (1u64 << (*failures).min(10)).min(1000);
    *failures += 1;
    let delay = state.options.controller_delay * 10;
    let due = SystemTime::now() + delay * u32::try_from(backoff).unwrap_or(1000);
    state.pending.push(Pending::Deadline {
        timer: Timer::ServiceResync,
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        due,
    });
}

/// `ComputeEndpointLastChangeTriggerTime`: the Service's creation on its first sync; after
/// that the earliest trigger time that moved since the last sync (the Service's creation, a
/// pod's Ready transition), if any.
fn trigger_time(state: &mut State, key: &str, service: &Value, pods: &[Arc<Value>]) -> Option<String> {
    let known = state.service_triggers.get(key).cloned();
    let created = object::meta_str(service, "creationTimestamp");
    let mut now = ServiceTriggerTimes {
        service: object::timestamp_seconds(created).unwrap_or(0),
        ..ServiceTriggerTimes::default()
    };
    let last = known.clone().unwrap_or_default();
    let mut earliest: Option<(i64, &str)> = None;
    let mut consider = |time: i64, text| {
        if earliest.is_none_or(|(min, _)| time < min) {
            earliest = Some((time, text));
        }
    };
    for pod in pods {
        let ready = pod
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .and_then(|conditions| conditions.iter().find(|c| c.get("type") == Some(&json!("Ready"))));
        let text = object::text(ready.and_then(|c| c.get("lastTransitionTime")));
        let Some(time) = object::timestamp_seconds(text) else {
            continue;
        };
        now.pods.insert(object::name(pod).to_owned(), time);
        if last.pods.get(object::name(pod)).is_none_or(|&before| time > before) {
            consider(time, text);
        }
    }
    if now.service > last.service {
        consider(now.service, created);
    }
    let earliest = earliest.map(|(_, text)| text.to_owned());
    state.service_triggers.insert(key.to_owned(), now);
    match known {
        None => Some(created.to_owned()),
        Some(_) => earliest,
    }
}
