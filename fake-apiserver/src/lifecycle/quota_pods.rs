//! The pod quota evaluator of `pkg/quota/v1/evaluator/core/pods.go`: the resources it tracks
//! (`podResources`, huge pages and extended `requests.` names: `MatchingResources`), a pod's
//! usage (`PodUsageFunc` over `podComputeUsageHelper`: `count/pods` always, the rest only while
//! `QuotaV1Pod` counts it), its scopes (`podMatchesScopeFunc`: Terminating, NotTerminating,
//! BestEffort, NotBestEffort, PriorityClass, CrossNamespacePodAffinity) and the constraint that
//! every container set what a quota limits (`Constraints`). In-place resize is off on the minors
//! emulated, so pods are evaluated on create only.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::lifecycle::pod_admission::qos_class;
use crate::semantics::quantity::Quantity;
use crate::semantics::resource_list::{ResourceList, container_resources, pod_limits, pod_requests};
use crate::semantics::resource_names::{is_extended, is_native};
use crate::storage::object;

/// `podResources`.
const POD_RESOURCES: &[&str] = &[
    "count/pods",
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
];

/// `validationSet`: what a container must set when a quota limits it.
const VALIDATED: &[&str] = &[
    "cpu",
    "memory",
    "requests.cpu",
    "requests.memory",
    "limits.cpu",
    "limits.memory",
];

/// `MatchingResources`: which of `names` the pod evaluator tracks.
pub(super) fn matching_resources(names: &[String]) -> Vec<String> {
    let mut result: Vec<String> = names
        .iter()
        .filter(|n| POD_RESOURCES.contains(&n.as_str()))
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    for name in names {
        if name.starts_with("hugepages-") || name.starts_with("requests.hugepages-") {
            result.push(name.clone());
        }
        // `isExtendedResourceNameForQuota`.
        if !is_native(name) && name.starts_with("requests.") {
            result.push(name.clone());
        }
    }
    result
}

/// `PodUsageFunc`, at `now` (Unix seconds).
pub(super) fn usage(pod: &Value, now: i64) -> ResourceList {
    let mut result = ResourceList::default();
    result.insert("count/pods", Quantity::decimal(1));
    if !counts(pod, now) {
        return result;
    }
    let spec = pod.get("spec").unwrap_or(&Value::Null);
    result.add(&compute_usage(&pod_requests(spec, true), &pod_limits(spec, true)));
    result
}

/// `QuotaV1Pod`: a pod that ended, or whose deletion grace period is over, uses nothing.
pub(super) fn counts(pod: &Value, now: i64) -> bool {
    let phase = pod.pointer("/status/phase").and_then(Value::as_str);
    if matches!(phase, Some("Failed" | "Succeeded")) {
        return false;
    }
    let deletion = pod.pointer("/metadata/deletionTimestamp").and_then(Value::as_str);
    let grace = pod
        .pointer("/metadata/deletionGracePeriodSeconds")
        .and_then(Value::as_i64);
    if let (Some(deletion), Some(grace)) = (deletion, grace)
        && let Some(deleted_at) = object::timestamp_seconds(deletion)
    {
        return now <= deleted_at + grace;
    }
    true
}

/// `podComputeUsageHelper`: what requests and limits charge.
fn compute_usage(requests: &ResourceList, limits: &ResourceList) -> ResourceList {
    let mut result = ResourceList::default();
    result.insert("pods", Quantity::decimal(1));
    for resource in ["cpu", "memory", "ephemeral-storage"] {
        if let Some(request) = requests.get(resource) {
            result.insert(resource, request.clone());
            result.insert(format!("requests.{resource}"), request.clone());
        }
        if let Some(limit) = limits.get(resource) {
            result.insert(format!("limits.{resource}"), limit.clone());
        }
    }
    for (name, request) in requests.iter() {
        if name.starts_with("hugepages-") {
            result.insert(name, request.clone());
            result.insert(format!("requests.{name}"), request.clone());
        }
        if is_extended(name) {
            result.insert(format!("requests.{name}"), request.clone());
        }
    }
    result
}

/// `Constraints`: each container and init container must set every validated resource of
/// `required`, else "must specify <resource> for: <containers>; …".
pub(super) fn constraints(required: &[String], pod: &Value) -> Result<(), String> {
    let required: BTreeSet<&str> = required
        .iter()
        .map(String::as_str)
        .filter(|r| VALIDATED.contains(r))
        .collect();
    let mut missing: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for list in ["containers", "initContainers"] {
        for container in pod
            .pointer(&format!("/spec/{list}"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let used = compute_usage(
                &container_resources(container, "requests"),
                &container_resources(container, "limits"),
            );
            let name = container.get("name").and_then(Value::as_str).unwrap_or_default();
            for resource in required.iter().filter(|r| !used.contains(r)) {
                missing.entry(resource).or_default().insert(name.to_owned());
            }
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let messages: Vec<String> = missing
        .iter()
        .map(|(resource, containers)| {
            let names: Vec<&str> = containers.iter().map(String::as_str).collect();
            format!("{resource} for: {}", names.join(","))
        })
        .collect();
    Err(format!("must specify {}", messages.join("; ")))
}

/// `podMatchesScopeFunc`: whether the pod falls under one scope selector requirement.
pub(super) fn matches_scope(requirement: &Value, pod: &Value) -> bool {
    let spec = pod.get("spec").unwrap_or(&Value::Null);
    let scope = requirement.get("scopeName").and_then(Value::as_str).unwrap_or_default();
    let operator = requirement.get("operator").and_then(Value::as_str).unwrap_or_default();
    match scope {
        "Terminating" => is_terminating(spec),
        "NotTerminating" => !is_terminating(spec),
        "BestEffort" => qos_class(spec) == "BestEffort",
        "NotBestEffort" => qos_class(spec) != "BestEffort",
        "PriorityClass" => {
            let class = spec
                .get("priorityClassName")
                .and_then(Value::as_str)
                .unwrap_or_default();
            priority_selector_matches(requirement, operator, class)
        }
        "CrossNamespacePodAffinity" => uses_cross_namespace_affinity(spec),
        _ => false,
    }
}

/// `isTerminating`: an active deadline ends the pod.
fn is_terminating(spec: &Value) -> bool {
    spec.get("activeDeadlineSeconds")
        .and_then(Value::as_i64)
        .is_some_and(|d| d >= 0)
}

/// `podMatchesScopeFunc`'s PriorityClass case (`Exists` on the name, the others through
/// `podMatchesSelector`): the requirement as a label selector over `{PriorityClass: <class>}`
/// (no label without a class name).
fn priority_selector_matches(requirement: &Value, operator: &str, class: &str) -> bool {
    let values = object::string_list(requirement.get("values"));
    let listed = values.iter().any(|value| value == class);
    let present = !class.is_empty();
    match operator {
        "In" => present && listed,
        "NotIn" => !present || !listed,
        "Exists" => present,
        "DoesNotExist" => !present,
        // `ScopedResourceSelectorRequirementsAsSelector` refuses another operator: no match.
        _ => false,
    }
}

/// `usesCrossNamespacePodAffinity`: an affinity or anti-affinity term that names namespaces
/// or selects them.
fn uses_cross_namespace_affinity(spec: &Value) -> bool {
    let cross = |term: &Value| {
        term.get("namespaces")
            .and_then(Value::as_array)
            .is_some_and(|n| !n.is_empty())
            || term.get("namespaceSelector").is_some_and(|s| !s.is_null())
    };
    ["podAffinity", "podAntiAffinity"].iter().any(|kind| {
        let Some(affinity) = spec.pointer(&format!("/affinity/{kind}")) else {
            return false;
        };
        let terms = |key: &str| affinity.get(key).and_then(Value::as_array).into_iter().flatten();
        terms("requiredDuringSchedulingIgnoredDuringExecution").any(cross)
            || terms("preferredDuringSchedulingIgnoredDuringExecution")
                .any(|weighted| weighted.get("podAffinityTerm").is_some_and(cross))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn constraints_should_name_the_containers_missing_each_resource() {
        let pod = json!({"spec": {"containers": [
            {"name": "c", "resources": {"requests": {"cpu": "100m"}}},
            {"name": "d", "resources": {"requests": {"memory": "10Mi"}}}
        ]}});
        let required = names(&["limits.memory", "requests.cpu", "pods"]);
        assert_eq!(
            constraints(&required, &pod).unwrap_err(),
            "must specify limits.memory for: c,d; requests.cpu for: d"
        );
        assert!(constraints(&names(&["pods", "count/pods"]), &pod).is_ok());
    }

    #[test]
    fn usage_should_charge_requests_and_limits_while_the_pod_counts() {
        let pod = json!({"spec": {"containers": [
            {"name": "c", "resources": {"requests": {"cpu": "600m", "example.com/gpu": "1"}, "limits": {"memory": "600Mi"}}}
        ]}});
        assert_eq!(
            usage(&pod, 0).to_json(),
            json!({"count/pods": "1", "cpu": "600m", "limits.memory": "600Mi", "pods": "1",
                   "requests.cpu": "600m", "requests.example.com/gpu": "1"})
        );
        let mut done = pod.clone();
        done["status"] = json!({"phase": "Succeeded"});
        assert_eq!(usage(&done, 0).to_json(), json!({"count/pods": "1"}));
        let mut deleted = pod;
        deleted["metadata"] = json!({"deletionTimestamp": "1970-01-01T00:01:40Z", "deletionGracePeriodSeconds": 30});
        assert!(counts(&deleted, 130));
        assert!(!counts(&deleted, 131));
    }

    #[test]
    fn scopes_should_follow_the_pod() {
        let best_effort = json!({"spec": {"containers": [{"name": "c"}], "activeDeadlineSeconds": 60}});
        let scope = |name: &str| json!({"scopeName": name, "operator": "Exists"});
        assert!(matches_scope(&scope("BestEffort"), &best_effort));
        assert!(matches_scope(&scope("Terminating"), &best_effort));
        assert!(!matches_scope(&scope("NotTerminating"), &best_effort));
        assert!(!matches_scope(&scope("PriorityClass"), &best_effort));
        let high = json!({"spec": {"priorityClassName": "high", "containers": [],
            "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 1, "podAffinityTerm": {"namespaceSelector": {}, "topologyKey": "k"}}]}}}});
        let in_high = json!({"scopeName": "PriorityClass", "operator": "In", "values": ["high"]});
        let not_in_high = json!({"scopeName": "PriorityClass", "operator": "NotIn", "values": ["high"]});
        assert!(matches_scope(&in_high, &high));
        assert!(!matches_scope(&not_in_high, &high));
        assert!(matches_scope(&not_in_high, &best_effort));
        assert!(matches_scope(&scope("CrossNamespacePodAffinity"), &high));
        assert!(!matches_scope(&scope("CrossNamespacePodAffinity"), &best_effort));
    }

    #[test]
    fn matching_resources_should_keep_pod_names_huge_pages_and_extended_requests() {
        let hard = names(&[
            "requests.cpu",
            "configmaps",
            "hugepages-2Mi",
            "requests.example.com/gpu",
            "pods",
        ]);
        assert_eq!(
            matching_resources(&hard),
            names(&["pods", "requests.cpu", "hugepages-2Mi", "requests.example.com/gpu"])
        );
    }
}
