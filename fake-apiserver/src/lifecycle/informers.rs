//! What kube-apiserver's and kube-controller-manager's informers queue after any write or
//! removal: each controller's handler (`AddFunc`, `UpdateFunc`, `DeleteFunc` of its informers)
//! decides which of its objects to sync.

use serde_json::Value;

use crate::lifecycle::{
    admission_policy_status, apf_controller, apiservices, bootstrap, claim_binder, cronjob_controller,
    daemonset_controller, deployment_controller, disruption_controller, endpoints, endpointslice_mirroring,
    horizontal_controller, job_controller, node_health, nodes, pod_gc, replicaset_controller, role_aggregation,
    statefulset_controller, storage_protection, taint_eviction, token_controller, ttl_after_finished, volume_sync,
};
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::{Lifecycle, ResourceInfo};

/// What kube-controller-manager's watchers react to, whatever the write: a changed ClusterRole
/// re-aggregates, and a namespace's `default` ServiceAccount or `kube-root-ca.crt` ConfigMap
/// that was changed or removed is put back.
pub(super) fn after_any_write(state: &mut State, info: &ResourceInfo, object: &Value) {
    if !object::owner_references(object).is_empty() && object.pointer("/metadata/uid").is_some() {
        state.pending.push(Pending::AttemptToDelete {
            info: state.info(&info.group, &info.version, &info.plural),
            namespace: info.namespaced.then(|| object::namespace(object).to_owned()),
            name: object::name(object).to_owned(),
            uid: object::uid(object).to_owned(),
        });
    }
    if role_aggregation::concerns(info) {
        state.pending.push(Pending::AggregateClusterRoles);
    }
    if apf_controller::concerns(info) {
        state.pending.push(Pending::DigestFlowControl);
    }
    if let Some(work) = disruption_controller::on_change(state, info, object) {
        state.pending.push(work);
    }
    if let Some(work) = daemonset_controller::on_change(info, object) {
        state.pending.push(work);
    }
    if let Some(work) = claim_binder::on_change(info, object) {
        state.pending.push(work);
    }
    if let Some(work) = job_controller::on_change(info, object) {
        state.pending.push(work);
    }
    if let Some(work) = admission_policy_status::on_change(info, object) {
        state.pending.push(work);
    }
    if let Some(work) = ttl_after_finished::on_change(info, object) {
        state.pending.push(work);
    }
    if let Some(work) = horizontal_controller::on_change(info, object) {
        state.pending.push(work);
    }
    for work in workload_reactions(state, info, object) {
        state.pending.push(work);
    }
    if info.lifecycle == Lifecycle::CustomResourceDefinition
        && let Some(group) = object.pointer("/spec/group").and_then(Value::as_str)
    {
        let group = group.to_owned();
        state.pending.push(Pending::RegisterCrdApiServices { group });
    }
    if apiservices::concerns(info) && object.pointer("/spec/service").is_some_and(Value::is_object) {
        let name = object::name(object).to_owned();
        state.pending.push(Pending::CheckApiService { name });
    }
    if info.builtin && info.group.is_empty() && info.plural == "services" {
        for name in apiservices::backed_by(state, object::namespace(object), object::name(object)) {
            state.pending.push(Pending::CheckApiService { name });
        }
    }
    if nodes::concerns(info) && object.pointer("/metadata/uid").is_some() {
        let name = object::name(object).to_owned();
        state.pending.push(Pending::NodeTtl { name: name.clone() });
        state.pending.push(Pending::NodeTaints { name });
    }
    if node_health::concerns(info, object) {
        node_health::schedule_pass(state);
    }
    if bootstrap::concerns(info, object) {
        let name = object::namespace(object).to_owned();
        state.pending.push(Pending::PopulateNamespace { name });
    }
    if endpoints::concerns(info, object) {
        // The endpoints controller watches only the removal of an Endpoints object.
        let (namespace, name) = endpoints::service_of(info, object);
        let stored_endpoints = info.plural == "endpoints" && state.object(info, Some(&namespace), &name).is_some();
        if !stored_endpoints {
            state.pending.push(Pending::SyncService { namespace, name });
        }
    }
}

/// The handlers that compare an object's old and new forms, on a create (`old` absent), an
/// update or a removal (`new` absent): the NoExecute taint manager's (which act at once), the
/// pod garbage collector's and the endpoints controllers' pod handlers.
pub(super) fn after_change(state: &mut State, info: &ResourceInfo, old: Option<&Value>, new: Option<&Value>) {
    taint_eviction::on_change(state, info, old, new);
    pod_gc::on_change(state, info, old, new);
    endpoints::on_pod_change(state, info, old, new);
}

/// What the workload, storage protection, volume, tokens, EndpointSlice mirroring and CronJob
/// controllers' informers queue for a write or removal.
pub(super) fn workload_reactions(state: &State, info: &ResourceInfo, object: &Value) -> Vec<Pending> {
    let mut work = replicaset_controller::on_change(state, info, object);
    work.extend(deployment_controller::on_change(state, info, object));
    work.extend(statefulset_controller::on_change(state, info, object));
    work.extend(storage_protection::on_change(info, object));
    work.extend(volume_sync::on_change(info, object));
    work.extend(token_controller::on_change(state, info, object));
    work.extend(endpointslice_mirroring::on_change(info, object));
    work.extend(cronjob_controller::on_change(info, object));
    work
}
