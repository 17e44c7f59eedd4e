//! The controllers' side of the pending work: each reaction the writes queued, run by the
//! controller it belongs to when it is due.

use crate::lifecycle::replicaset_controller::{REPLICA_SETS, REPLICATION_CONTROLLERS};
use crate::lifecycle::{
    admission_policy_status, apf_controller, apiservices, bootstrap, claim_binder, crd, cronjob_controller,
    daemonset_controller, deployment_controller, disruption_controller, endpoints, endpointslice_mirroring, gc,
    gc_owners, horizontal_controller, informers, job_controller, namespace, node_health, node_noexecute, nodes, pod_gc,
    quota_controller, replicaset_controller, role_aggregation, statefulset_controller, storage_protection,
    taint_eviction, token_controller, ttl_after_finished, volume_sync,
};
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::{Pending, Timer, Workload};
use crate::storage::resource::Lifecycle;

/// Runs the controllers on the work due at `now` (everything with `None`), which may queue
/// more. Returns whether anything ran.
pub(crate) fn react(state: &mut State, now: Option<tokio::time::Instant>) -> bool {
    let work = state.pending.take_due(now);
    let ran = !work.is_empty();
    for item in work {
        match item {
            Pending::Establish { crd, defined } => crd::establish(state, &crd, defined),
            Pending::Marked { info, object } => {
                if info.lifecycle == Lifecycle::CustomResourceDefinition {
                    crd::clean_up_if_marked(state, &object);
                }
                gc::after_marked(state, &info, &object);
            }
            Pending::Removed { info, object } => {
                if info.lifecycle == Lifecycle::CustomResource {
                    crd::release_if_empty(state, &info.storage_key());
                }
                gc::after_removed(state, &object);
                for work in informers::workload_reactions(state, &info, &object) {
                    state.pending.push(work);
                }
                if info.namespaced {
                    namespace::finish_if_empty(state, object::namespace(&object));
                }
            }
            Pending::EmptyNamespace { name } => namespace::delete_contents(state, &name),
            Pending::PopulateNamespace { name } => bootstrap::populate_namespace(state, &name),
            Pending::AggregateClusterRoles => role_aggregation::aggregate(state),
            Pending::DigestFlowControl => apf_controller::sync(state),
            Pending::RegisterCrdApiServices { group } => apiservices::sync_crd_group(state, &group),
            Pending::CheckApiService { name } => apiservices::check_available(state, &name),
            Pending::CheckPolicyTypes { name } => admission_policy_status::sync(state, &name),
            Pending::SyncService { namespace, name } => endpoints::sync_service(state, &namespace, &name),
            Pending::SyncMirroring { namespace, name } => endpointslice_mirroring::sync(state, &namespace, &name),
            Pending::SyncQuota { namespace, name } => quota_controller::sync(state, &namespace, &name),
            Pending::SyncDisruptionBudget { namespace, name } => disruption_controller::sync(state, &namespace, &name),
            Pending::SyncDaemonSet { namespace, name } => daemonset_controller::sync(state, &namespace, &name),
            Pending::SyncClaim { namespace, name } => claim_binder::sync(state, &namespace, &name),
            Pending::SyncVolume { name } => volume_sync::sync(state, &name),
            Pending::SyncTokenSecret {
                namespace,
                name,
                account,
            } => token_controller::sync_secret(state, &namespace, &name, &account),
            Pending::DeleteAccountTokens { namespace, name, uid } => {
                token_controller::delete_account_tokens(state, &namespace, &name, &uid);
            }
            Pending::SyncJob { namespace, name, retry } => job_controller::sync(state, &namespace, &name, retry),
            Pending::ReleaseStorage { namespace, name } => {
                storage_protection::release(state, namespace.as_deref(), &name);
            }
            Pending::Deadline {
                timer,
                namespace,
                name,
                due,
            } => match timer {
                Timer::DeploymentProgress => deployment_controller::check_progress(state, &namespace, &name, due),
                Timer::JobSync => job_controller::sync(state, &namespace, &name, 0),
                Timer::JobTtl => ttl_after_finished::process(state, &namespace, &name),
                Timer::CronJob => cronjob_controller::sync(state, &namespace, &name),
                Timer::Autoscaler => horizontal_controller::sync(state, &namespace, &name),
                Timer::TaintEviction => taint_eviction::fire(state, &namespace, &name, due),
                Timer::PodGc => pod_gc::gc(state),
                Timer::NodeMonitor => node_health::pass(state, due),
                Timer::ServiceResync => endpoints::sync_service(state, &namespace, &name),
                Timer::NodeTainting => node_noexecute::tainting_timer(state, due),
            },
            Pending::SyncWorkload {
                controller,
                namespace,
                name,
                retry,
            } => match controller {
                Workload::ReplicaSet => replicaset_controller::sync(state, REPLICA_SETS, &namespace, &name, retry),
                Workload::ReplicationController => {
                    replicaset_controller::sync(state, REPLICATION_CONTROLLERS, &namespace, &name, retry);
                }
                Workload::Deployment => deployment_controller::sync(state, &namespace, &name, retry),
                Workload::StatefulSet => statefulset_controller::sync(state, &namespace, &name, retry),
            },
            Pending::ReplenishQuotas {
                namespace,
                group,
                plural,
            } => quota_controller::replenish(state, &namespace, &group, &plural),
            Pending::NodeTtl { name } => nodes::annotate_ttl(state, &name),
            Pending::NodeTaints { name } => nodes::taint(state, &name),
            Pending::AttemptToDelete {
                info,
                namespace,
                name,
                uid,
            } => {
                gc_owners::attempt_to_delete(state, &info, namespace.as_deref(), &name, &uid);
            }
        }
    }
    ran
}

/// Runs the controllers until nothing is left for them but the deadlines they set themselves,
/// as a settled cluster would be.
pub(crate) fn settle(state: &mut State) {
    while react(state, None) {}
}
