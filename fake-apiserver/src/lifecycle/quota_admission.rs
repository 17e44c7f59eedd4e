//! The ResourceQuota admission plugin (`staging/src/k8s.io/apiserver/pkg/admission/plugin/
//! resourcequota`: `admission.go`'s `Validate`, `controller.go`'s `Evaluate`, `checkQuotas` and
//! `CheckRequest`), the last validating plugin of kube-apiserver. A namespaced object created,
//! or a service or claim updated (`Handles`), is charged to every quota of its namespace that
//! tracks one of its resources and whose scopes it falls under: a pod must set what such a
//! quota limits ("failed quota"), the quota must have its usage computed ("status unknown"), and
//! the usage after the request must stay within `status.hard` ("exceeded quota"), refused with
//! 403. Unless the request is a dry run, each quota charged gets its new `status.used`, written
//! by kube-apiserver. Subresources pass; no admission configuration limits resources by default
//! (`limitedResources`), so none is required to be covered.

use std::sync::Arc;

use serde_json::Value;

use crate::lifecycle::bootstrap::APISERVER_MANAGER;
use crate::lifecycle::quota_usage::{Evaluator, evaluator_for, scope_selectors};
use crate::lifecycle::writes::Writes;
use crate::semantics::resource_list::ResourceList;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// `Validate` of `object` created (`old`: `None`) or updated in its namespace; `dry_run`: the
/// quotas are checked but not charged.
pub(super) fn validate(
    state: &mut State,
    info: &ResourceInfo,
    object: &Value,
    old: Option<&Value>,
    dry_run: bool,
) -> Result<(), ApiStatus> {
    let namespace = object::namespace(object);
    if namespace.is_empty() || info.plural == "namespaces" {
        return Ok(());
    }
    let Some(evaluator) = evaluator_for(info) else {
        return Ok(());
    };
    if old.is_some() && !evaluator.handles_update() {
        return Ok(());
    }
    let quotas = namespace_quotas(state, namespace);
    let now = jiff::Timestamp::now().as_second();
    let charged = check_request(&quotas, &evaluator, object, old, now)
        .map_err(|why| ApiStatus::forbidden_object(info, object::name(object), &why))?;
    if dry_run {
        return Ok(());
    }
    let quota_info = state.info("", "v1", "resourcequotas");
    for (index, used) in charged {
        let current = quotas[index].clone();
        if used.equals(&ResourceList::from_json(current.pointer("/status/used"))) {
            continue;
        }
        let mut updated = (*current).clone();
        updated["status"]["used"] = used.to_json();
        // kube-apiserver retries a conflict against the quota read again; here nothing else
        // writes between the read and the update, so the update's error is the answer.
        state.update_object(&quota_info, current, updated, Some(APISERVER_MANAGER), Some("status"))?;
    }
    Ok(())
}

/// The namespace's quotas in the order Go's lister gives them: the iteration of its index, a Go
/// map, which for a namespace's few quotas (one bucket) walks the slots they were put in from a
/// random one on; the walk from the first slot is taken. A quota stored without being created
/// here comes last, by name.
fn namespace_quotas(state: &State, namespace: &str) -> Vec<Arc<Value>> {
    let info = state.info("", "v1", "resourcequotas");
    let stored: Vec<Arc<Value>> = state
        .store
        .iter(&info.storage_key(), Some(namespace))
        .map(|(_, quota)| quota.clone())
        .collect();
    let slots = state.quota_slots.get(namespace).map_or(&[][..], Vec::as_slice);
    let slot_of = |quota: &Value| {
        let name = object::name(quota);
        slots
            .iter()
            .position(|slot| slot.as_deref() == Some(name))
            .unwrap_or(usize::MAX)
    };
    let mut quotas = stored;
    // A stable sort keeps the unslotted ones in name order.
    quotas.sort_by_key(|quota| slot_of(quota));
    quotas
}

/// Whether `info` is the ResourceQuota resource.
pub(super) fn is_quota(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && info.plural == "resourcequotas"
}

/// The informer's index takes in a new quota.
pub(super) fn index_created(state: &mut State, info: &ResourceInfo, quota: &Value) {
    if is_quota(info) {
        let slots = state
            .quota_slots
            .entry(object::namespace(quota).to_owned())
            .or_default();
        take_slot(slots, object::name(quota));
    }
}

/// The informer's index lets a removed quota go.
pub(super) fn index_removed(state: &mut State, info: &ResourceInfo, quota: &Value) {
    let namespace = object::namespace(quota);
    if is_quota(info)
        && let Some(slots) = state.quota_slots.get_mut(namespace)
        && free_slot(slots, object::name(quota))
    {
        // Go drops an index value's set once it is empty.
        state.quota_slots.remove(namespace);
    }
}

/// `mapassign`: the first free slot, else a new one.
fn take_slot(slots: &mut Vec<Option<String>>, name: &str) {
    match slots.iter_mut().find(|slot| slot.is_none()) {
        Some(free) => *free = Some(name.to_owned()),
        None => slots.push(Some(name.to_owned())),
    }
}

/// `mapdelete`: the name's slot is free again. Says whether every slot is.
fn free_slot(slots: &mut [Option<String>], name: &str) -> bool {
    for slot in slots.iter_mut().filter(|slot| slot.as_deref() == Some(name)) {
        *slot = None;
    }
    slots.iter().all(Option::is_none)
}

/// `CheckRequest`: the new `status.used` of each quota (by index) the object is charged to, or
/// why the request is refused.
pub(super) fn check_request(
    quotas: &[Arc<Value>],
    evaluator: &Evaluator,
    object: &Value,
    old: Option<&Value>,
    now: i64,
) -> Result<Vec<(usize, ResourceList)>, String> {
    let mut interesting = Vec::new();
    for (index, quota) in quotas.iter().enumerate() {
        let name = object::name(quota);
        let hard = ResourceList::from_json(quota.pointer("/status/hard"));
        let hard_names: Vec<String> = hard.names().map(str::to_owned).collect();
        let restricted = evaluator.matching_resources(&hard_names);
        // `generic.Matches`: a tracked resource, and every scope requirement met.
        let in_scope = scope_selectors(quota)
            .iter()
            .all(|s| evaluator.matches_scope(s, object));
        if restricted.is_empty() || !in_scope {
            continue;
        }
        evaluator
            .constraints(&restricted, object)
            .map_err(|why| format!("failed quota: {name}: {why}"))?;
        let used = ResourceList::from_json(quota.pointer("/status/used"));
        if restricted.iter().any(|r| hard.contains(r) && !used.contains(r)) {
            let mut resources = restricted.clone();
            resources.sort();
            return Err(format!(
                "status unknown for quota: {name}, resources: {}",
                resources.join(",")
            ));
        }
        interesting.push(index);
    }
    let mut delta = evaluator.usage(object, now);
    let negative = delta.negative();
    if !negative.is_empty() {
        return Err(format!(
            "quota usage is negative for resource(s): {}",
            negative.join(",")
        ));
    }
    if let Some(old) = old {
        // Not a create on update: only the difference is charged, never a refund.
        delta = delta.subtract_non_negative(&evaluator.usage(old, now));
    }
    let delta = delta.remove_zeros();
    if delta.is_empty() {
        return Ok(Vec::new());
    }
    let mut charged = Vec::new();
    for index in interesting {
        let quota = &quotas[index];
        let hard = ResourceList::from_json(quota.pointer("/status/hard"));
        let used = ResourceList::from_json(quota.pointer("/status/used"));
        let requested = delta.mask(hard.names());
        let mut new_used = used.clone();
        new_used.add(&requested);
        let exceeded = new_used.mask(requested.names()).exceeding(&hard);
        if !exceeded.is_empty() {
            let exceeded = exceeded.iter().map(String::as_str);
            return Err(format!(
                "exceeded quota: {}, requested: {}, used: {}, limited: {}",
                object::name(quota),
                requested.mask(exceeded.clone()).pretty(),
                used.mask(exceeded.clone()).pretty(),
                hard.mask(exceeded).pretty()
            ));
        }
        charged.push((index, new_used));
    }
    Ok(charged)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn quota(name: &str, scopes: &[&str], hard: Value, used: Option<Value>) -> Arc<Value> {
        let mut status = json!({"hard": hard});
        if let Some(used) = used {
            status["used"] = used;
        }
        Arc::new(json!({"metadata": {"name": name}, "spec": {"scopes": scopes}, "status": status}))
    }

    fn configmaps() -> Evaluator {
        Evaluator::of("", "configmaps").unwrap()
    }

    #[test]
    fn the_lister_should_give_quotas_in_their_slots_reusing_freed_ones() {
        let mut slots = Vec::new();
        for name in ["counts", "compute", "besteffort"] {
            take_slot(&mut slots, name);
        }
        assert!(!free_slot(&mut slots, "compute"));
        take_slot(&mut slots, "again");
        let names: Vec<Option<&str>> = slots.iter().map(Option::as_deref).collect();
        assert_eq!(names, vec![Some("counts"), Some("again"), Some("besteffort")]);
        assert!(!free_slot(&mut slots, "counts"));
        assert!(!free_slot(&mut slots, "again"));
        assert!(free_slot(&mut slots, "besteffort"));
    }

    #[test]
    fn a_create_over_the_quota_should_be_refused_with_its_numbers() {
        let quotas = [quota(
            "q",
            &[],
            json!({"configmaps": "2", "secrets": "10"}),
            Some(json!({"configmaps": "2", "secrets": "0"})),
        )];
        assert_eq!(
            check_request(&quotas, &configmaps(), &json!({}), None, 0).unwrap_err(),
            "exceeded quota: q, requested: configmaps=1, used: configmaps=2, limited: configmaps=2"
        );
    }

    #[test]
    fn a_create_within_the_quota_should_charge_it() {
        let quotas = [
            quota("q", &[], json!({"configmaps": "2"}), Some(json!({"configmaps": "1"}))),
            quota("other", &[], json!({"pods": "2"}), Some(json!({"pods": "1"}))),
        ];
        let charged = check_request(&quotas, &configmaps(), &json!({}), None, 0).unwrap();
        assert_eq!(charged.len(), 1);
        assert_eq!(charged[0].0, 0);
        assert_eq!(charged[0].1.to_json(), json!({"configmaps": "2"}));
    }

    #[test]
    fn a_quota_without_usage_should_refuse_as_unknown() {
        let quotas = [quota(
            "q",
            &[],
            json!({"count/configmaps": "2", "configmaps": "2"}),
            Some(json!({"configmaps": "0"})),
        )];
        assert_eq!(
            check_request(&quotas, &configmaps(), &json!({}), None, 0).unwrap_err(),
            "status unknown for quota: q, resources: configmaps,count/configmaps"
        );
    }

    #[test]
    fn a_pod_should_meet_the_constraints_of_the_quotas_in_its_scope() {
        let pod = json!({"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}});
        let compute = quota(
            "compute",
            &["NotBestEffort"],
            json!({"limits.memory": "1Gi"}),
            Some(json!({"limits.memory": "0"})),
        );
        assert_eq!(
            check_request(&[compute], &Evaluator::Pods, &pod, None, 0).unwrap_err(),
            "failed quota: compute: must specify limits.memory for: c"
        );
        let best_effort = quota("be", &["BestEffort"], json!({"limits.memory": "1Gi"}), None);
        assert!(
            check_request(&[best_effort], &Evaluator::Pods, &pod, None, 0)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn an_update_should_be_charged_the_difference_only() {
        let quotas = [quota(
            "counts",
            &[],
            json!({"services": "1", "services.nodeports": "0"}),
            Some(json!({"services": "1", "services.nodeports": "0"})),
        )];
        let old = json!({"spec": {"type": "ClusterIP", "ports": [{"port": 80}]}});
        assert!(
            check_request(&quotas, &Evaluator::Services, &old, Some(&old), 0)
                .unwrap()
                .is_empty()
        );
        let node_port = json!({"spec": {"type": "NodePort", "ports": [{"port": 80}]}});
        assert_eq!(
            check_request(&quotas, &Evaluator::Services, &node_port, Some(&old), 0).unwrap_err(),
            "exceeded quota: counts, requested: services.nodeports=1, used: services.nodeports=0, limited: services.nodeports=0"
        );
    }
}
