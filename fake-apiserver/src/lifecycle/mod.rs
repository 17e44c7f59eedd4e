//! What kube-apiserver's and kube-controller-manager's controllers do around a write: garbage
//! collection, CRD establishment and cleanup, namespace termination. The resource table's
//! [`Lifecycle`] of each resource says which of them act on its objects.
//!
//! The verbs only queue the controllers' work ([`Pending`]); [`react`] runs it after the
//! request was answered, as a real cluster's controllers react after the write.
//!
//! These controllers write through the verbs (a dependent is deleted like any object), but they
//! must not depend on them, since the verbs call the hooks here: they ask for the [`Writes`] they
//! make, which the verbs implement for the server's state.

pub(crate) mod admission_policies;
mod admission_policy_status;
mod apf_controller;
mod apiservices;
mod bootstrap;
mod claim_binder;
mod controller_history;
mod controller_refs;
pub(crate) mod crd;
mod crd_names;
mod cronjob_controller;
mod cronjob_jobs;
mod cronjob_schedule_times;
mod daemonset_controller;
mod default_class_admission;
mod deployment_controller;
mod deployment_new_rs;
mod deployment_progress;
mod deployment_rollout;
mod deployment_sync;
mod deployment_util;
mod disruption_controller;
mod disruption_status;
mod endpoint_rules;
mod endpoints;
mod endpoints_controller;
mod endpointslice_endpoints;
mod endpointslice_mirroring;
mod endpointslice_reconciler;
mod events;
mod gc;
mod gc_owners;
mod horizontal_controller;
mod horizontal_metrics;
mod horizontal_scale;
mod informers;
mod job_backoff;
mod job_context;
mod job_controller;
mod job_failure_policy;
mod job_index_backoff;
mod job_indexes;
mod job_manage;
mod job_tracking;
mod limit_constraints;
mod limit_ranger;
pub(crate) mod namespace;
mod node_health;
mod node_noexecute;
mod nodes;
mod pod_admission;
mod pod_control;
mod pod_gc;
mod pod_security_admission;
mod policy_matching;
mod priority_admission;
mod quota_admission;
mod quota_controller;
mod quota_pods;
mod quota_usage;
mod reactions;
mod replicaset_controller;
mod role_aggregation;
mod runtime_class_admission;
mod service_ips;
mod statefulset_claims;
mod statefulset_controller;
mod statefulset_pods;
mod statefulset_update;
mod status_conditions;
mod storage_admission;
mod storage_protection;
mod taint_eviction;
mod token_controller;
mod ttl_after_finished;
mod volume_binding;
mod volume_sync;
mod writes;

use std::sync::Arc;

use serde_json::Value;

use crate::auth::UserInfo;
use crate::semantics::priorityclass;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::{Lifecycle, ResourceInfo};

pub(crate) use apiservices::group_priority;
pub(crate) use apiservices::register_builtin as register_builtin_api_services;
pub(crate) use bootstrap::{APISERVER_MANAGER, cluster_objects, produce_apf_configuration};
pub(crate) use disruption_controller::budgets_selecting;
pub(crate) use disruption_status::{is_pod_ready, set_disruption_allowed};
pub(crate) use gc::{FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
pub(crate) use namespace::may_remove_on_update;
pub(crate) use reactions::{react, settle};
pub(crate) use writes::Writes;

/// Resources a CRD that is being created or updated defines.
pub(crate) type Defined = Option<Vec<ResourceInfo>>;

/// The mutating admission of a new object, before the strategy validates it: a pod's
/// LimitRanger defaults (`limit_ranger`), then the rest of its plugins (`pod_admission`),
/// refused with 403; a claim's or an Ingress's default class (`default_class_admission`).
pub(crate) fn mutate_create(state: &State, info: &ResourceInfo, body: &mut Value) -> Result<(), ApiStatus> {
    if !pod_admission::concerns(info) {
        default_class_admission::mutate_create(state, info, body);
        return Ok(());
    }
    let namespace = object::namespace(body).to_owned();
    limit_ranger::mutate_create(state, &namespace, body);
    pod_admission::mutate_create(state, info, &namespace, body, state.options.minor())
}

/// What the admission of a new object waits for before [`mutate_create`]: a pod in a namespace
/// just created, for the namespace's `default` ServiceAccount.
pub(crate) fn await_admission_inputs(state: &mut State, info: &ResourceInfo, body: &Value) {
    if pod_admission::concerns(info) && pod_admission::needs_default_account(state, body) {
        let namespace = object::namespace(body).to_owned();
        let populate = state
            .pending
            .take_matching(|work| matches!(work, Pending::PopulateNamespace { name } if *name == namespace));
        if !populate.is_empty() {
            bootstrap::populate_namespace(state, &namespace);
        }
    }
}

/// Whether [`mutate_create`] may change a new object of `info`'s.
pub(crate) fn mutates_on_create(info: &ResourceInfo) -> bool {
    pod_admission::concerns(info) || default_class_admission::concerns(info)
}

/// The mutating admission of an update of the main resource (not of a subresource), before
/// the strategy validates it: a pod keeps its priority.
pub(crate) fn mutate_update(info: &ResourceInfo, new: &mut Value, old: &Value, subresource: Option<&str>) {
    if subresource.is_none() && pod_admission::concerns(info) {
        pod_admission::mutate_update(new, old);
    }
}

/// What admission knows of a write beyond the object: whether it is a dry run, who writes
/// (the admin when unknown), and the warnings the plugins add.
pub(crate) struct Admitting<'a> {
    pub(crate) dry_run: bool,
    pub(crate) user: Option<&'a UserInfo>,
    pub(crate) warnings: Vec<String>,
}

/// Admission of a new object, after the generic checks: namespaces start `Active`, a CRD is
/// validated, a custom resource needs a live definition, a pod passes the validating admission
/// (PodSecurity's among it, which may add warnings), a PriorityClass is the only global
/// default, the bound ValidatingAdmissionPolicies allow it; last, the ResourceQuota plugin
/// charges the namespace's quotas (checks them only, on a dry run).
pub(crate) fn admit_create(
    state: &mut State,
    info: &ResourceInfo,
    body: &mut Value,
    admitting: &mut Admitting<'_>,
) -> Result<Defined, ApiStatus> {
    let Admitting {
        dry_run,
        user,
        ref mut warnings,
    } = *admitting;
    let defined = admit_create_object(state, info, body, dry_run, warnings)?;
    let request = admission_policies::Request {
        operation: "CREATE",
        object: Some(body),
        old: None,
        name: object::name(body),
        namespace: object::namespace(body),
        subresource: "",
        dry_run,
        user,
    };
    admission_policies::validate(state, info, &request, warnings)?;
    quota_admission::validate(state, info, body, None, dry_run)?;
    Ok(defined)
}

/// The plugins and checks of [`admit_create`] before ResourceQuota.
fn admit_create_object(
    state: &State,
    info: &ResourceInfo,
    body: &mut Value,
    dry_run: bool,
    warnings: &mut Vec<String>,
) -> Result<Defined, ApiStatus> {
    if limit_ranger::concerns(info) {
        limit_ranger::validate(state, info, object::namespace(body), body, None)?;
    }
    pod_security_admission::validate(state, info, body, None, None, warnings)?;
    match info.lifecycle {
        // Its phase and finalizers are the strategy's (`semantics/core_strategies.rs`).
        Lifecycle::Namespace => Ok(None),
        Lifecycle::CustomResourceDefinition => {
            let defined = crd::resources(state, info, body, crd::Write::Create)?;
            crd::initial_status(body);
            Ok(Some(defined))
        }
        Lifecycle::CustomResource => crd::check_not_terminating(state, info).map(|()| None),
        Lifecycle::Plain if service_ips::concerns(info) => {
            service_ips::allocate(state, info, body, dry_run).map(|()| None)
        }
        Lifecycle::Plain if apiservices::concerns(info) => {
            apiservices::admit_create(body);
            Ok(None)
        }
        Lifecycle::Plain if pod_admission::concerns(info) => {
            pod_admission::admit_create(state, info, body).map(|()| None)
        }
        Lifecycle::Plain if priorityclass::concerns(info) => {
            priority_admission::admit_class(state, info, body, false).map(|()| None)
        }
        Lifecycle::Plain if nodes::concerns(info) => {
            nodes::admit_create(body);
            Ok(None)
        }
        Lifecycle::Plain if storage_admission::protects(info) => {
            storage_admission::admit_create(info, body);
            Ok(None)
        }
        Lifecycle::Plain => Ok(None),
    }
}

/// After a create is stored: a new CRD is established by its controllers, a new namespace
/// populated, later.
pub(crate) fn after_create(state: &mut State, info: &ResourceInfo, stored: &Value, defined: Defined) {
    match (info.lifecycle, defined) {
        (Lifecycle::CustomResourceDefinition, Some(defined)) => {
            let crd = object::name(stored).to_owned();
            state.pending.push(Pending::Establish { crd, defined });
        }
        (Lifecycle::Namespace, _) => {
            let name = object::name(stored).to_owned();
            state.pending.push(Pending::PopulateNamespace { name });
        }
        _ => {}
    }
    quota_admission::index_created(state, info, stored);
    if let Some(work) = quota_controller::on_write(info, None, stored) {
        state.pending.push(work);
    }
    informers::after_any_write(state, info, stored);
    informers::after_change(state, info, None, Some(stored));
}

/// Admission of an update (through `subresource`, if any): a changed CRD must still be valid,
/// and records a new storage version among its stored ones; PodSecurity may refuse it or add
/// `warnings`; last, an update of the main resource is charged to the namespace's quotas
/// (checked only, on a `dry_run`).
pub(crate) fn admit_update(
    state: &mut State,
    info: &ResourceInfo,
    new: &mut Value,
    old: &Value,
    subresource: Option<&str>,
    admitting: &mut Admitting<'_>,
) -> Result<Defined, ApiStatus> {
    let Admitting {
        dry_run,
        user,
        ref mut warnings,
    } = *admitting;
    let defined = admit_update_object(state, info, new, old, subresource, dry_run, warnings)?;
    let request = admission_policies::Request {
        operation: "UPDATE",
        object: Some(new),
        old: Some(old),
        name: object::name(new),
        // A Namespace's own requests are in the namespace they name.
        namespace: match info.lifecycle {
            Lifecycle::Namespace => object::name(new),
            _ => object::namespace(new),
        },
        subresource: subresource.unwrap_or_default(),
        dry_run,
        user,
    };
    admission_policies::validate(state, info, &request, warnings)?;
    if subresource.is_none() {
        quota_admission::validate(state, info, new, Some(old), dry_run)?;
    }
    Ok(defined)
}

/// The plugins and checks of [`admit_update`] before ResourceQuota.
fn admit_update_object(
    state: &State,
    info: &ResourceInfo,
    new: &mut Value,
    old: &Value,
    subresource: Option<&str>,
    dry_run: bool,
    warnings: &mut Vec<String>,
) -> Result<Defined, ApiStatus> {
    let status = subresource == Some("status");
    if !status && limit_ranger::concerns(info) {
        limit_ranger::validate(state, info, object::namespace(new), new, Some(old))?;
    }
    pod_security_admission::validate(state, info, new, Some(old), subresource, warnings)?;
    match info.lifecycle {
        Lifecycle::CustomResourceDefinition if status => crd::resources(state, info, new, crd::Write::Status).map(Some),
        Lifecycle::CustomResourceDefinition => {
            crd::add_stored_version(new);
            crd::resources(state, info, new, crd::Write::Update { old }).map(Some)
        }
        Lifecycle::Plain if !status && service_ips::concerns(info) => {
            service_ips::allocate_update(state, info, new, old, dry_run).map(|()| None)
        }
        Lifecycle::Plain if !status && storage_admission::concerns(info) => {
            storage_admission::admit_update(info, new, old).map(|()| None)
        }
        Lifecycle::Plain if !status && priorityclass::concerns(info) => {
            priority_admission::admit_class(state, info, new, true).map(|()| None)
        }
        Lifecycle::Plain | Lifecycle::Namespace | Lifecycle::CustomResource => Ok(None),
    }
}

/// After an update is stored (also the marking of a pending delete): a CRD serves exactly the
/// versions it lists now; an object being deleted is left to the controllers.
pub(crate) fn after_update(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    stored: &Arc<Value>,
    old: &Value,
    defined: Defined,
) {
    match defined {
        // New names go through the naming controller first.
        Some(defined) if crd::names_pending(stored) => {
            let crd = object::name(stored).to_owned();
            state.pending.push(Pending::Establish { crd, defined });
        }
        Some(defined) => crd::serve(state, defined),
        None => {}
    }
    if let Some(work) = quota_controller::on_write(info, Some(old), stored) {
        state.pending.push(work);
    }
    informers::after_any_write(state, info, stored);
    informers::after_change(state, info, Some(old), Some(stored));
    if object::is_deleting(stored) {
        let work = Pending::Marked {
            info: info.clone(),
            object: stored.clone(),
        };
        state.pending.push(work);
    }
}

/// What a DELETE does to an object of a resource with a lifecycle.
pub(crate) enum OnDelete {
    /// Delete this object as usual (a CRD first gets its cleanup finalizer).
    Proceed(Arc<Value>),
    /// The lifecycle answered the DELETE itself with this object (a namespace: Terminating).
    Answered(Arc<Value>),
}

/// A DELETE the resource's lifecycle changes: a namespace turns Terminating and is emptied
/// later; a CRD first gets its cleanup finalizer, then is deleted as usual.
pub(crate) fn on_delete(state: &mut State, info: &Arc<ResourceInfo>, old: Arc<Value>) -> OnDelete {
    match info.lifecycle {
        Lifecycle::Namespace => namespace::on_delete(state, info, old),
        Lifecycle::CustomResourceDefinition => OnDelete::Proceed(crd::prepare_delete(state, info, old)),
        Lifecycle::Plain | Lifecycle::CustomResource => OnDelete::Proceed(old),
    }
}

/// After an object is removed for good: a CRD stops being served at once; its dependents, its
/// owners, its namespace and its CRD are the controllers' to deal with, later.
pub(crate) fn after_remove(state: &mut State, info: &Arc<ResourceInfo>, removed: &Arc<Value>) {
    if info.lifecycle == Lifecycle::CustomResourceDefinition {
        crd::stop_serving(state, removed);
    }
    quota_admission::index_removed(state, info, removed);
    if let Some(work) = quota_controller::on_remove(info, removed) {
        state.pending.push(work);
    }
    informers::after_any_write(state, info, removed);
    informers::after_change(state, info, Some(removed), None);
    let work = Pending::Removed {
        info: info.clone(),
        object: removed.clone(),
    };
    state.pending.push(work);
}
