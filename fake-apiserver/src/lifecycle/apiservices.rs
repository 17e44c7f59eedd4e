//! The `apiregistration.k8s.io` APIServices kube-apiserver keeps for what it serves, and their
//! availability:
//! - at start, one per built-in group-version it serves, labelled
//!   `kube-aggregator.kubernetes.io/automanaged: onstart`, with the priorities of
//!   `cmd/kube-apiserver/app/aggregator.go`'s `apiVersionPriorities` (none for its own group);
//! - one per served version of every CRD, labelled `automanaged: true`, priorities 1000 and 100,
//!   removed when no CRD serves it any more (`pkg/controlplane/controller/crdregistration`);
//! - a local APIService is `Available` from its creation (the strategy's `PrepareForCreate`),
//!   one backed by a Service is checked by kube-aggregator's available controller
//!   (`controllers/status/available_controller.go`): this server runs no aggregated API server
//!   and serves no Endpoints, so such an APIService is never available.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::APISERVER_MANAGER;
use crate::lifecycle::status_conditions::set_condition;
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::{Lifecycle, ResourceInfo};

/// The label the registration controllers mark their APIServices with.
const AUTOMANAGED: &str = "kube-aggregator.kubernetes.io/automanaged";

/// `apiVersionPriorities` for the group-versions this server may serve: group, version.
const PRIORITIES: &[(&str, &str, i64, i64)] = &[
    ("", "v1", 18000, 1),
    ("apps", "v1", 17800, 15),
    ("events.k8s.io", "v1", 17750, 15),
    ("authentication.k8s.io", "v1", 17700, 15),
    ("authorization.k8s.io", "v1", 17600, 15),
    ("autoscaling", "v1", 17500, 15),
    ("autoscaling", "v2", 17500, 30),
    ("batch", "v1", 17400, 15),
    ("certificates.k8s.io", "v1", 17300, 15),
    ("networking.k8s.io", "v1", 17200, 15),
    ("policy", "v1", 17100, 15),
    ("rbac.authorization.k8s.io", "v1", 17000, 15),
    ("storage.k8s.io", "v1", 16800, 15),
    ("apiextensions.k8s.io", "v1", 16700, 15),
    ("admissionregistration.k8s.io", "v1", 16700, 15),
    ("scheduling.k8s.io", "v1", 16600, 15),
    ("coordination.k8s.io", "v1", 16500, 15),
    ("node.k8s.io", "v1", 16300, 15),
    ("discovery.k8s.io", "v1", 16200, 15),
    ("flowcontrol.apiserver.k8s.io", "v1", 16100, 21),
    ("flowcontrol.apiserver.k8s.io", "v1beta3", 16100, 18),
    ("flowcontrol.apiserver.k8s.io", "v1beta2", 16100, 15),
];

/// `APIRegistrationGroupPriority` of kube-aggregator's `handler_discovery.go`: its own group
/// comes first.
const API_REGISTRATION_PRIORITY: i64 = 20001;

/// The priority a group is listed by in discovery (the merged discovery handler's
/// `SetGroupVersionPriority`): the highest `groupPriorityMinimum` of its versions, 1000 for a
/// custom resource's group (`customresource_discovery_controller.go`), 0 when none is known.
pub(crate) fn group_priority(group: &str, custom: bool) -> i64 {
    if group == "apiregistration.k8s.io" {
        return API_REGISTRATION_PRIORITY;
    }
    let builtin = PRIORITIES
        .iter()
        .filter(|(g, ..)| *g == group)
        .map(|(_, _, p, _)| *p)
        .max();
    builtin.unwrap_or(if custom { 1000 } else { 0 })
}

/// Whether `info` is the APIServices resource.
pub(super) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group == "apiregistration.k8s.io" && info.plural == "apiservices"
}

/// The APIService named `version.group` for a group-version, as the registration controllers
/// write it.
fn api_service(group: &str, version: &str, priorities: (i64, i64), automanaged: &str) -> Value {
    let mut spec = json!({
        "version": version,
        "groupPriorityMinimum": priorities.0,
        "versionPriority": priorities.1,
    });
    if !group.is_empty() {
        spec["group"] = json!(group);
    }
    json!({
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": { "name": format!("{version}.{group}"), "labels": { AUTOMANAGED: automanaged } },
        "spec": spec,
    })
}

/// The `apiservices` resource, when served.
fn served(state: &State) -> Option<Arc<ResourceInfo>> {
    state
        .registry
        .find("apiregistration.k8s.io", "v1", "apiservices")
        .cloned()
}

/// The APIServices kube-apiserver registers at start for the built-in group-versions served.
pub(crate) fn register_builtin(state: &mut State) {
    let Some(info) = served(state) else {
        return;
    };
    let served: Vec<(String, String)> = state
        .registry
        .groups()
        .flat_map(|(group, versions)| versions.iter().map(move |v| (group.clone(), v.clone())))
        .filter(|(group, version)| {
            state
                .registry
                .resources_in(group, version)
                .iter()
                .any(|r| r.builtin && r.lifecycle != Lifecycle::CustomResource)
        })
        .collect();
    for (group, version) in served {
        let Some((_, _, group_priority, version_priority)) =
            PRIORITIES.iter().find(|(g, v, _, _)| *g == group && *v == version)
        else {
            continue;
        };
        let object = api_service(&group, &version, (*group_priority, *version_priority), "onstart");
        if let Err(status) = state.create_object(&info, None, object, Some(APISERVER_MANAGER)) {
            tracing::warn!(%status, group, version, "could not register the APIService");
        }
    }
}

/// The strategy's `PrepareForCreate`: a local APIService is available from the start.
pub(super) fn admit_create(api_service: &mut Value) {
    if api_service.pointer("/spec/service").is_none_or(Value::is_null) {
        api_service["status"] = json!({ "conditions": [local_condition()] });
    }
}

fn local_condition() -> Value {
    json!({
        "type": "Available", "status": "True", "lastTransitionTime": object::now(),
        "reason": "Local", "message": "Local APIServices are always available",
    })
}

/// The CRD registration controller: an APIService for every version a CRD of `group` serves,
/// none for the others it registered.
pub(super) fn sync_crd_group(state: &mut State, group: &str) {
    let Some(info) = served(state) else {
        return;
    };
    let crds = state.info("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    let served: Vec<String> = state
        .store
        .iter(&crds.storage_key(), None)
        .map(|(_, crd)| crd)
        .filter(|crd| crd.pointer("/spec/group").and_then(Value::as_str) == Some(group))
        .flat_map(|crd| {
            crd.pointer("/spec/versions")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .filter(|v| v.get("served").and_then(Value::as_bool) == Some(true))
        .filter_map(|v| v.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect();
    for version in &served {
        let name = format!("{version}.{group}");
        if state.object(&info, None, &name).is_none() {
            let object = api_service(group, version, (1000, 100), "true");
            if let Err(status) = state.create_object(&info, None, object, Some(APISERVER_MANAGER)) {
                tracing::warn!(%status, name, "could not register the CRD's APIService");
            }
        }
    }
    let registered: Vec<String> = state
        .store
        .iter(&info.storage_key(), None)
        .map(|(_, service)| service)
        .filter(|s| s.pointer(&format!("/metadata/labels/{}", AUTOMANAGED.replace('/', "~1"))) == Some(&json!("true")))
        .filter(|s| s.pointer("/spec/group").and_then(Value::as_str) == Some(group))
        .filter(|s| {
            !served
                .iter()
                .any(|v| Some(v.as_str()) == s.pointer("/spec/version").and_then(Value::as_str))
        })
        .map(|s| object::name(s).to_owned())
        .collect();
    for name in registered {
        state.delete_object(&info, None, &name, None);
    }
}

/// The available controller's verdict on one APIService, written through `/status` when it
/// changes.
pub(super) fn check_available(state: &mut State, name: &str) {
    let info: Arc<ResourceInfo> = state.info("apiregistration.k8s.io", "v1", "apiservices");
    let Some(current) = state.object(&info, None, name).filter(|s| !object::is_deleting(s)) else {
        return;
    };
    let condition = match current.pointer("/spec/service").filter(|s| s.is_object()) {
        None => local_condition(),
        Some(service) => remote_condition(state, service),
    };
    let mut updated = (*current).clone();
    if !set_condition(&mut updated, condition) {
        return;
    }
    if let Err(status) = state.update_object(&info, current, updated, Some(APISERVER_MANAGER), Some("status")) {
        tracing::warn!(name, %status, "could not update the APIService's availability");
    }
}

/// Why the Service behind an APIService does not serve it: it is missing, does not listen on
/// the port, or (a ClusterIP Service) has no Endpoints, which this server does not keep.
fn remote_condition(state: &State, service: &Value) -> Value {
    let text = |key: &str| service.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let (namespace, name) = (text("namespace"), text("name"));
    let port = service.get("port").and_then(Value::as_i64).unwrap_or(443);
    let services = state.info("", "v1", "services");
    let (reason, message) = match state.object(&services, Some(&namespace), &name) {
        None => (
            "ServiceNotFound",
            format!("service/{name} in {namespace:?} is not present"),
        ),
        Some(found)
            if found
                .pointer("/spec/type")
                .and_then(Value::as_str)
                .unwrap_or("ClusterIP")
                == "ClusterIP"
                && !found
                    .pointer("/spec/ports")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .any(|p| p.get("port").and_then(Value::as_i64) == Some(port)) =>
        {
            (
                "ServicePortError",
                format!("service/{name} in {namespace:?} is not listening on port {port}"),
            )
        }
        Some(_) => (
            "EndpointsNotFound",
            format!("cannot find endpoints for service/{name} in {namespace:?}"),
        ),
    };
    json!({
        "type": "Available", "status": "False", "lastTransitionTime": object::now(),
        "reason": reason, "message": message,
    })
}

/// The APIServices backed by the Service `namespace/name`, whose availability a change of it
/// decides.
pub(super) fn backed_by(state: &State, namespace: &str, name: &str) -> Vec<String> {
    let Some(info) = served(state) else {
        return Vec::new();
    };
    state
        .store
        .iter(&info.storage_key(), None)
        .map(|(_, s)| s)
        .filter(|s| {
            s.pointer("/spec/service/namespace").and_then(Value::as_str) == Some(namespace)
                && s.pointer("/spec/service/name").and_then(Value::as_str) == Some(name)
        })
        .map(|s| object::name(s).to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_group_should_have_no_group_field() {
        let core = api_service("", "v1", (18000, 1), "onstart");
        assert_eq!(core["metadata"]["name"], "v1.");
        assert!(core["spec"].get("group").is_none());
    }
}
