//! The quota evaluators: what a ResourceQuota charges for an object, as the evaluators of
//! `pkg/quota/v1/evaluator/core` (`services.go`, `persistent_volume_claims.go`, `registry.go`'s
//! legacy object-count aliases; pods in `quota_pods`) and the object-count evaluator of
//! `staging/src/k8s.io/apiserver/pkg/quota/v1/generic/evaluator.go` compute it, with
//! `CalculateUsage` (`pkg/quota/v1/resources.go`) and `CalculateUsageStats` (`generic`) for a
//! namespace's whole content. The resources `pkg/quota/v1/install/registry.go` ignores have no
//! evaluator. Resource-claim quotas (DynamicResourceAllocation) and the recovery from failed
//! volume expansion are gated off on the minors emulated.

use serde_json::Value;

use crate::lifecycle::quota_pods;
use crate::semantics::quantity::Quantity;
use crate::semantics::resource_list::ResourceList;
use crate::storage::State;
use crate::storage::resource::{ResourceInfo, StorageKey};

/// `ignoredResources`: virtual resources and events.
const IGNORED: &[(&str, &str)] = &[
    ("", "bindings"),
    ("", "componentstatuses"),
    ("authentication.k8s.io", "tokenreviews"),
    ("authentication.k8s.io", "selfsubjectreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"),
    ("", "events"),
    ("events.k8s.io", "events"),
];

/// `legacyObjectCountAliases`: the core resources counted under a bare name too.
const LEGACY_ALIASES: &[&str] = &["configmaps", "resourcequotas", "replicationcontrollers", "secrets"];

/// `serviceResources`.
const SERVICE_RESOURCES: &[&str] = &[
    "count/services",
    "services",
    "services.nodeports",
    "services.loadbalancers",
];

/// `storageClassSuffix`.
const STORAGE_CLASS_SUFFIX: &str = ".storageclass.storage.k8s.io/";

/// The evaluator of one group-resource.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Evaluator {
    Pods,
    Services,
    Claims,
    /// `objectCountEvaluator`: one of each object, under these names.
    Count(Vec<String>),
}

/// `ObjectCountQuotaResourceNameFor`.
fn count_name(group: &str, plural: &str) -> String {
    if group.is_empty() {
        format!("count/{plural}")
    } else {
        format!("count/{plural}.{group}")
    }
}

impl Evaluator {
    /// The evaluator of `group`/`plural` (`registry.Get`, or the object count the admission
    /// plugin and the quota monitor make for any other resource); none for an ignored one.
    pub(super) fn of(group: &str, plural: &str) -> Option<Self> {
        if IGNORED.contains(&(group, plural)) {
            return None;
        }
        Some(match (group, plural) {
            ("", "pods") => Self::Pods,
            ("", "services") => Self::Services,
            ("", "persistentvolumeclaims") => Self::Claims,
            _ => {
                let mut names = vec![count_name(group, plural)];
                if group.is_empty() && LEGACY_ALIASES.contains(&plural) {
                    names.push(plural.to_owned());
                }
                Self::Count(names)
            }
        })
    }

    /// `Handles`: pods and counted objects are charged on create, services and claims on
    /// update too.
    pub(super) fn handles_update(&self) -> bool {
        matches!(self, Self::Services | Self::Claims)
    }

    /// `MatchingResources`: which of `names` this evaluator tracks.
    pub(super) fn matching_resources(&self, names: &[String]) -> Vec<String> {
        let intersect = |tracked: &[&str]| {
            let mut found: Vec<String> = names
                .iter()
                .filter(|n| tracked.contains(&n.as_str()))
                .cloned()
                .collect();
            found.sort();
            found.dedup();
            found
        };
        match self {
            Self::Pods => quota_pods::matching_resources(names),
            Self::Services => intersect(SERVICE_RESOURCES),
            Self::Claims => names
                .iter()
                .filter(|name| {
                    [
                        "count/persistentvolumeclaims",
                        "persistentvolumeclaims",
                        "requests.storage",
                    ]
                    .contains(&name.as_str())
                        || ["persistentvolumeclaims", "requests.storage"]
                            .iter()
                            .any(|r| name.ends_with(&format!("{STORAGE_CLASS_SUFFIX}{r}")))
                })
                .cloned()
                .collect(),
            Self::Count(tracked) => intersect(&tracked.iter().map(String::as_str).collect::<Vec<_>>()),
        }
    }

    /// `MatchingScopes` through the evaluator's scope function: only pods fall under scopes.
    pub(super) fn matches_scope(&self, requirement: &Value, object: &Value) -> bool {
        *self == Self::Pods && quota_pods::matches_scope(requirement, object)
    }

    /// `Constraints`: only pods must set what a quota limits.
    pub(super) fn constraints(&self, required: &[String], object: &Value) -> Result<(), String> {
        match self {
            Self::Pods => quota_pods::constraints(required, object),
            _ => Ok(()),
        }
    }

    /// `Usage` of one object at `now` (Unix seconds).
    pub(super) fn usage(&self, object: &Value, now: i64) -> ResourceList {
        match self {
            Self::Pods => quota_pods::usage(object, now),
            Self::Services => service_usage(object),
            Self::Claims => claim_usage(object),
            Self::Count(names) => {
                let mut usage = ResourceList::default();
                for name in names {
                    usage.insert(name.as_str(), Quantity::decimal(1));
                }
                usage
            }
        }
    }
}

/// The service evaluator's `Usage`: one service, its node ports by type, a load balancer.
fn service_usage(service: &Value) -> ResourceList {
    let spec = service.get("spec").unwrap_or(&Value::Null);
    let ports = spec
        .get("ports")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let count = |n: usize| Quantity::decimal(i64::try_from(n).unwrap_or(i64::MAX));
    let mut usage = ResourceList::default();
    usage.insert("count/services", Quantity::decimal(1));
    usage.insert("services", Quantity::decimal(1));
    usage.insert("services.loadbalancers", Quantity::decimal(0));
    usage.insert("services.nodeports", Quantity::decimal(0));
    match spec.get("type").and_then(Value::as_str) {
        Some("NodePort") => usage.insert("services.nodeports", count(ports.len())),
        Some("LoadBalancer") => {
            // Without node ports allocated, only the ports given one count.
            let node_ports = if spec.get("allocateLoadBalancerNodePorts") == Some(&Value::Bool(false)) {
                ports
                    .iter()
                    .filter(|p| p.get("nodePort").and_then(Value::as_i64).unwrap_or(0) != 0)
                    .count()
            } else {
                ports.len()
            };
            usage.insert("services.nodeports", count(node_ports));
            usage.insert("services.loadbalancers", Quantity::decimal(1));
        }
        _ => {}
    }
    usage
}

/// `GetQuotaServiceType`: the type a quota tells apart (none for the others).
pub(super) fn quota_service_type(service: &Value) -> &str {
    service
        .pointer("/spec/type")
        .and_then(Value::as_str)
        .filter(|kind| matches!(*kind, "NodePort" | "LoadBalancer"))
        .unwrap_or_default()
}

/// The claim evaluator's `Usage`: one claim and its storage request (rounded up to a whole
/// unit), also under its storage class's names.
fn claim_usage(claim: &Value) -> ResourceList {
    let mut usage = ResourceList::default();
    usage.insert("persistentvolumeclaims", Quantity::decimal(1));
    usage.insert("count/persistentvolumeclaims", Quantity::decimal(1));
    // `GetPersistentVolumeClaimClass`: the beta annotation first, even empty.
    let class = claim
        .pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class")
        .or_else(|| claim.pointer("/spec/storageClassName"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !class.is_empty() {
        usage.insert(
            format!("{class}{STORAGE_CLASS_SUFFIX}persistentvolumeclaims"),
            Quantity::decimal(1),
        );
    }
    let requests = ResourceList::from_json(claim.pointer("/spec/resources/requests"));
    if let Some(storage) = requests.get("storage") {
        let mut rounded = storage.clone();
        rounded.round_up(0);
        usage.insert("requests.storage", rounded.clone());
        if !class.is_empty() {
            usage.insert(format!("{class}{STORAGE_CLASS_SUFFIX}requests.storage"), rounded);
        }
    }
    usage
}

/// The served resource a `count/<resource>.<group>` name counts, for the quota monitor's
/// object-count evaluators (one per resource discovered).
fn counted_resource(state: &State, name: &str) -> Option<(String, String)> {
    let counted = name.strip_prefix("count/")?;
    let (plural, group) = counted.split_once('.').unwrap_or((counted, ""));
    let key = StorageKey {
        group: group.to_owned(),
        plural: plural.to_owned(),
    };
    let info = state.registry.preferred(&key)?;
    info.namespaced.then(|| (group.to_owned(), plural.to_owned()))
}

/// The controller's evaluators for `hard`'s names: the core ones, and an object count for each
/// other served resource a `count/` name asks for.
fn evaluators(state: &State, hard: &[String]) -> Vec<(String, String, Evaluator)> {
    let mut resources: Vec<(String, String)> = ["pods", "services", "persistentvolumeclaims"]
        .iter()
        .chain(LEGACY_ALIASES)
        .map(|plural| (String::new(), (*plural).to_owned()))
        .collect();
    for (group, plural) in hard.iter().filter_map(|name| counted_resource(state, name)) {
        if !resources.contains(&(group.clone(), plural.clone())) {
            resources.push((group, plural));
        }
    }
    resources
        .into_iter()
        .filter_map(|(group, plural)| Evaluator::of(&group, &plural).map(|e| (group, plural, e)))
        .collect()
}

/// `CalculateUsage`: what the objects of `namespace` that fall under the quota's scope
/// selector requirements use of `hard`'s resources ("0" for each one evaluated and unused).
pub(super) fn calculate_usage(
    state: &State,
    namespace: &str,
    selectors: &[Value],
    hard: &ResourceList,
    now: i64,
) -> ResourceList {
    let hard_names: Vec<String> = hard.names().map(str::to_owned).collect();
    let mut used = ResourceList::default();
    for (group, plural, evaluator) in evaluators(state, &hard_names) {
        let tracked = evaluator.matching_resources(&hard_names);
        if tracked.is_empty() {
            continue;
        }
        // `CalculateUsageStats`: zero for each tracked resource, then every matching object.
        let mut stats = ResourceList::default();
        for name in &tracked {
            stats.insert(name.as_str(), Quantity::decimal(0));
        }
        let key = StorageKey { group, plural };
        for (_, object) in state.store.iter(&key, Some(namespace)) {
            if selectors.iter().all(|s| evaluator.matches_scope(s, object)) {
                stats.add(&evaluator.usage(object, now));
            }
        }
        used.add(&stats);
    }
    used.mask(hard_names.iter().map(String::as_str))
}

/// The scope selector requirements of a quota (`getScopeSelectorsFromQuota`): its scopes as
/// `Exists`, then its scope selector's expressions.
pub(super) fn scope_selectors(quota: &Value) -> Vec<Value> {
    let scopes = quota
        .pointer("/spec/scopes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    let mut selectors: Vec<Value> = scopes
        .map(|scope| serde_json::json!({"scopeName": scope, "operator": "Exists"}))
        .collect();
    let expressions = quota
        .pointer("/spec/scopeSelector/matchExpressions")
        .and_then(Value::as_array);
    selectors.extend(expressions.into_iter().flatten().cloned());
    selectors
}

/// The evaluator of a resource the plugin or the monitor sees.
pub(super) fn evaluator_for(info: &ResourceInfo) -> Option<Evaluator> {
    Evaluator::of(&info.group, &info.plural)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn services_should_charge_node_ports_by_type() {
        let service = json!({"spec": {"type": "NodePort", "ports": [{"port": 80}, {"port": 81}]}});
        assert_eq!(
            Evaluator::Services.usage(&service, 0).to_json(),
            json!({"count/services": "1", "services": "1", "services.loadbalancers": "0", "services.nodeports": "2"})
        );
        let balancer = json!({"spec": {"type": "LoadBalancer", "allocateLoadBalancerNodePorts": false,
            "ports": [{"port": 80, "nodePort": 30000}, {"port": 81}]}});
        let usage = Evaluator::Services.usage(&balancer, 0).to_json();
        assert_eq!(usage["services.nodeports"], "1");
        assert_eq!(usage["services.loadbalancers"], "1");
        assert_eq!(quota_service_type(&balancer), "LoadBalancer");
        assert_eq!(quota_service_type(&json!({"spec": {"type": "ExternalName"}})), "");
    }

    #[test]
    fn claims_should_charge_storage_by_class() {
        let claim = json!({"spec": {"storageClassName": "fast", "resources": {"requests": {"storage": "1500m"}}}});
        assert_eq!(
            Evaluator::Claims.usage(&claim, 0).to_json(),
            json!({"count/persistentvolumeclaims": "1", "persistentvolumeclaims": "1", "requests.storage": "2",
                   "fast.storageclass.storage.k8s.io/persistentvolumeclaims": "1",
                   "fast.storageclass.storage.k8s.io/requests.storage": "2"})
        );
        let hard = names(&[
            "requests.storage",
            "fast.storageclass.storage.k8s.io/requests.storage",
            "pods",
        ]);
        assert_eq!(
            Evaluator::Claims.matching_resources(&hard),
            names(&["requests.storage", "fast.storageclass.storage.k8s.io/requests.storage"])
        );
    }

    #[test]
    fn object_counts_should_have_legacy_aliases_and_ignore_events() {
        assert_eq!(
            Evaluator::of("", "configmaps"),
            Some(Evaluator::Count(names(&["count/configmaps", "configmaps"])))
        );
        assert_eq!(
            Evaluator::of("apps", "deployments"),
            Some(Evaluator::Count(names(&["count/deployments.apps"])))
        );
        assert_eq!(Evaluator::of("events.k8s.io", "events"), None);
        assert!(!Evaluator::of("", "secrets").unwrap().handles_update());
        assert!(Evaluator::Services.handles_update());
    }

    #[test]
    fn scope_selectors_should_list_scopes_then_expressions() {
        let quota = json!({"spec": {"scopes": ["BestEffort"], "scopeSelector": {"matchExpressions": [
            {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}}});
        assert_eq!(
            scope_selectors(&quota),
            vec![
                json!({"scopeName": "BestEffort", "operator": "Exists"}),
                json!({"scopeName": "PriorityClass", "operator": "In", "values": ["high"]})
            ]
        );
        assert!(!Evaluator::Services.matches_scope(&scope_selectors(&quota)[0], &json!({})));
    }
}
