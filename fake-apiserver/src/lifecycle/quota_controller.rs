//! kube-controller-manager's resource quota controller (`pkg/controller/resourcequota/
//! resource_quota_controller.go`: the quota informer's handlers, `syncResourceQuota`,
//! `replenishQuota`) and its replenishment monitors (`resource_quota_monitor.go`, with the
//! update filter of `pkg/quota/v1/install/update_filter.go`). A quota created, or whose
//! `spec.hard` changed, gets `status.hard` from its spec and `status.used` from what its
//! namespace holds; the removal of an object a quota tracks, a pod that stops counting or a
//! service whose quota type changed recompute the namespace's quotas that track its resource.
//! The status is an update of `/status` by kube-controller-manager. The periodic full resync
//! (every five minutes) is not emulated.

use serde_json::Value;

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::quota_admission::is_quota;
use crate::lifecycle::quota_pods;
use crate::lifecycle::quota_usage::{calculate_usage, evaluator_for, quota_service_type, scope_selectors};
use crate::lifecycle::writes::Writes;
use crate::semantics::resource_list::ResourceList;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::Pending;
use crate::storage::resource::ResourceInfo;

/// The controller's reaction to a write of `object` (`old`: the object it replaced, `None` for
/// a create): the quota informer's add and update handlers, the monitors' update filter.
pub(super) fn on_write(info: &ResourceInfo, old: Option<&Value>, object: &Value) -> Option<Pending> {
    let namespace = object::namespace(object).to_owned();
    if is_quota(info) {
        let spec_hard = |q: &Value| ResourceList::from_json(q.pointer("/spec/hard"));
        let changed = old.is_none_or(|old| !spec_hard(old).equals(&spec_hard(object)));
        let name = object::name(object).to_owned();
        return changed.then_some(Pending::SyncQuota { namespace, name });
    }
    let old = old?;
    let replenish = match (info.builtin && info.group.is_empty(), info.plural.as_str()) {
        (true, "pods") => {
            let now = jiff::Timestamp::now().as_second();
            quota_pods::counts(old, now) && !quota_pods::counts(object, now)
        }
        (true, "services") => quota_service_type(old) != quota_service_type(object),
        // Claims replenish on a changed allocation only with RecoverVolumeExpansionFailure, off.
        _ => false,
    };
    replenish.then(|| replenishment(info, namespace))
}

/// The monitors' reaction to the removal of `object`.
pub(super) fn on_remove(info: &ResourceInfo, object: &Value) -> Option<Pending> {
    if !info.namespaced || evaluator_for(info).is_none() {
        return None;
    }
    Some(replenishment(info, object::namespace(object).to_owned()))
}

fn replenishment(info: &ResourceInfo, namespace: String) -> Pending {
    Pending::ReplenishQuotas {
        namespace,
        group: info.group.clone(),
        plural: info.plural.clone(),
    }
}

/// `replenishQuota`: recomputes the namespace's quotas whose `status.hard` tracks the resource.
pub(super) fn replenish(state: &mut State, namespace: &str, group: &str, plural: &str) {
    let Some(evaluator) = crate::lifecycle::quota_usage::Evaluator::of(group, plural) else {
        return;
    };
    let info = state.info("", "v1", "resourcequotas");
    let tracking: Vec<String> = state
        .store
        .iter(&info.storage_key(), Some(namespace))
        .filter(|(_, quota)| {
            let hard = ResourceList::from_json(quota.pointer("/status/hard"));
            let names: Vec<String> = hard.names().map(str::to_owned).collect();
            !evaluator.matching_resources(&names).is_empty()
        })
        .map(|(_, quota)| object::name(quota).to_owned())
        .collect();
    for name in tracking {
        sync(state, namespace, &name);
    }
}

/// `syncResourceQuota`: `status.hard` becomes `spec.hard`, `status.used` the namespace's usage
/// of each hard resource (the last observation kept where it cannot be computed); written only
/// when either changed.
pub(super) fn sync(state: &mut State, namespace: &str, name: &str) {
    let info = state.info("", "v1", "resourcequotas");
    let Some(quota) = state.object(&info, Some(namespace), name) else {
        return;
    };
    let hard = ResourceList::from_json(quota.pointer("/spec/hard"));
    let status_hard = quota.pointer("/status/hard").filter(|h| h.is_object());
    let status_used = quota.pointer("/status/used").filter(|u| u.is_object());
    let previous = ResourceList::from_json(status_used);
    let mut dirty =
        status_hard.is_none() || status_used.is_none() || !hard.equals(&ResourceList::from_json(status_hard));
    let now = jiff::Timestamp::now().as_second();
    let mut used = previous.clone();
    for (resource, quantity) in calculate_usage(state, namespace, &scope_selectors(&quota), &hard, now).iter() {
        used.insert(resource, quantity.clone());
    }
    let used = used.mask(hard.names());
    dirty = dirty || !used.equals(&previous);
    if !dirty {
        return;
    }
    let mut updated = (*quota).clone();
    updated["status"] = serde_json::json!({"hard": hard.to_json(), "used": used.to_json()});
    if let Err(status) = state.update_object(&info, quota, updated, Some(CONTROLLER_MANAGER), Some("status")) {
        tracing::warn!(namespace, name, %status, "could not update the quota's status");
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn core(kind: &str, plural: &str) -> ResourceInfo {
        ResourceInfo::builtin("", "v1", kind, plural)
    }

    #[test]
    fn a_quota_should_sync_when_created_or_its_hard_limits_change() {
        let quotas = core("ResourceQuota", "resourcequotas");
        let quota = json!({"metadata": {"name": "q", "namespace": "ns"}, "spec": {"hard": {"pods": "2"}}});
        assert!(matches!(
            on_write(&quotas, None, &quota),
            Some(Pending::SyncQuota { .. })
        ));
        let mut status_only = quota.clone();
        status_only["status"] = json!({"used": {"pods": "1"}});
        assert!(on_write(&quotas, Some(&quota), &status_only).is_none());
        let mut raised = quota.clone();
        raised["spec"]["hard"]["pods"] = json!("3");
        assert!(on_write(&quotas, Some(&quota), &raised).is_some());
    }

    #[test]
    fn pods_and_services_should_replenish_only_on_the_changes_quota_sees() {
        let pods = core("Pod", "pods");
        let running = json!({"metadata": {"namespace": "ns"}, "status": {"phase": "Running"}});
        let done = json!({"metadata": {"namespace": "ns"}, "status": {"phase": "Failed"}});
        assert!(on_write(&pods, Some(&running), &done).is_some());
        assert!(on_write(&pods, Some(&done), &done).is_none());
        let services = core("Service", "services");
        let plain = json!({"metadata": {"namespace": "ns"}, "spec": {"type": "ClusterIP"}});
        let node_port = json!({"metadata": {"namespace": "ns"}, "spec": {"type": "NodePort"}});
        assert!(on_write(&services, Some(&plain), &node_port).is_some());
        assert!(on_write(&services, Some(&plain), &plain).is_none());
        assert!(on_remove(&services, &plain).is_some());
        let events = core("Event", "events");
        assert!(on_remove(&events, &plain).is_none());
    }
}
