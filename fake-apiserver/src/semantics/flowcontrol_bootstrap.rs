//! The API Priority and Fairness objects that define an apiserver's initial behaviour
//! (`staging/src/k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap/default.go`): the mandatory
//! and suggested PriorityLevelConfigurations and FlowSchemas, each annotated
//! `apf.kubernetes.io/autoupdate-spec: "true"`, as the config producer sends them
//! (`pkg/registry/flowcontrol/rest/storage_flowcontrol.go`: `ensure`, suggested first, then
//! mandatory, priority levels before schemas). 1.28 writes them as v1beta3, 1.31 as v1: the
//! objects are the same. Validation compares the mandatory ones' specs with these
//! (`internalbootstrap`): the registered defaults change none of them.

use serde_json::{Value, json};

/// `flowcontrol.AutoUpdateAnnotationKey`.
pub(crate) const AUTO_UPDATE_ANNOTATION: &str = "apf.kubernetes.io/autoupdate-spec";

/// The version the config producer of `minor` writes with (its client's).
pub(crate) fn producer_version(minor: u32) -> &'static str {
    if minor >= 29 { "v1" } else { "v1beta3" }
}

// The users and groups of `k8s.io/apiserver/pkg/authentication/user` and `serviceaccount`.
const SYSTEM_PRIVILEGED_GROUP: &str = "system:masters";
const NODES_GROUP: &str = "system:nodes";
const ALL_UNAUTHENTICATED: &str = "system:unauthenticated";
const ALL_AUTHENTICATED: &str = "system:authenticated";
const ALL_SERVICE_ACCOUNTS: &str = "system:serviceaccounts";
const KUBE_CONTROLLER_MANAGER: &str = "system:kube-controller-manager";
const KUBE_SCHEDULER: &str = "system:kube-scheduler";

fn metadata(name: &str) -> Value {
    json!({ "name": name, "annotations": { AUTO_UPDATE_ANNOTATION: "true" } })
}

/// `newPriorityLevelConfiguration` of a `Limited` level that queues (`queuing` Some) or rejects.
fn limited(name: &str, shares: i64, lendable: i64, queuing: Option<(i64, i64)>) -> Value {
    let limit_response = match queuing {
        Some((queues, hand_size)) => json!({
            "type": "Queue",
            "queuing": { "queues": queues, "handSize": hand_size, "queueLengthLimit": 50 },
        }),
        None => json!({ "type": "Reject" }),
    };
    json!({
        "kind": "PriorityLevelConfiguration",
        "metadata": metadata(name),
        "spec": {
            "type": "Limited",
            "limited": { "nominalConcurrencyShares": shares, "limitResponse": limit_response, "lendablePercent": lendable },
        },
    })
}

/// `newFlowSchema` with one rule (`distinguisher` empty: none).
fn flow_schema(name: &str, priority_level: &str, precedence: i64, distinguisher: &str, rule: Value) -> Value {
    let mut spec = json!({
        "priorityLevelConfiguration": { "name": priority_level },
        "matchingPrecedence": precedence,
        "rules": [rule],
    });
    if !distinguisher.is_empty() {
        spec["distinguisherMethod"] = json!({ "type": distinguisher });
    }
    json!({ "kind": "FlowSchema", "metadata": metadata(name), "spec": spec })
}

fn groups(names: &[&str]) -> Vec<Value> {
    names
        .iter()
        .map(|name| json!({ "kind": "Group", "group": { "name": name } }))
        .collect()
}

fn users(names: &[&str]) -> Vec<Value> {
    names
        .iter()
        .map(|name| json!({ "kind": "User", "user": { "name": name } }))
        .collect()
}

fn kube_system_service_accounts(names: &[&str]) -> Vec<Value> {
    names
        .iter()
        .map(|name| json!({ "kind": "ServiceAccount", "serviceAccount": { "name": name, "namespace": "kube-system" } }))
        .collect()
}

/// `resourceRule`: `clusterScope` is `omitempty`, so a false one is not sent.
fn resource_rule(verbs: &[&str], api_groups: &[&str], resources: &[&str], cluster_scope: bool) -> Value {
    let mut rule = json!({ "verbs": verbs, "apiGroups": api_groups, "resources": resources, "namespaces": ["*"] });
    if cluster_scope {
        rule["clusterScope"] = json!(true);
    }
    rule
}

fn non_resource_rule(verbs: &[&str], urls: &[&str]) -> Value {
    json!({ "verbs": verbs, "nonResourceURLs": urls })
}

/// A rule of `subjects` over everything: every resource and every non-resource URL.
fn everything(subjects: Vec<Value>) -> Value {
    json!({
        "subjects": subjects,
        "resourceRules": [resource_rule(&["*"], &["*"], &["*"], true)],
        "nonResourceRules": [non_resource_rule(&["*"], &["*"])],
    })
}

fn resources_rule(subjects: Vec<Value>, resource_rules: Vec<Value>) -> Value {
    json!({ "subjects": subjects, "resourceRules": resource_rules })
}

/// `MandatoryPriorityLevelConfigurations`.
fn mandatory_priority_levels() -> Vec<Value> {
    let exempt = json!({
        "kind": "PriorityLevelConfiguration",
        "metadata": metadata("exempt"),
        "spec": { "type": "Exempt", "exempt": { "nominalConcurrencyShares": 0, "lendablePercent": 0 } },
    });
    vec![limited("catch-all", 5, 0, None), exempt]
}

/// `MandatoryFlowSchemas`.
fn mandatory_flow_schemas() -> Vec<Value> {
    vec![
        flow_schema(
            "exempt",
            "exempt",
            1,
            "",
            everything(groups(&[SYSTEM_PRIVILEGED_GROUP])),
        ),
        flow_schema(
            "catch-all",
            "catch-all",
            10000,
            "ByUser",
            everything(groups(&[ALL_UNAUTHENTICATED, ALL_AUTHENTICATED])),
        ),
    ]
}

/// `SuggestedPriorityLevelConfigurations`.
fn suggested_priority_levels() -> Vec<Value> {
    vec![
        limited("system", 30, 33, Some((64, 6))),
        limited("node-high", 40, 25, Some((64, 6))),
        limited("leader-election", 10, 0, Some((16, 4))),
        limited("workload-high", 40, 50, Some((128, 6))),
        limited("workload-low", 100, 90, Some((128, 6))),
        limited("global-default", 20, 50, Some((128, 6))),
    ]
}

/// `SuggestedFlowSchemas`.
fn suggested_flow_schemas() -> Vec<Value> {
    let leases = |verbs: &[&str]| resource_rule(verbs, &["coordination.k8s.io"], &["leases"], false);
    let get_create_update = ["get", "create", "update"];
    let mut leader_election_subjects = users(&[KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER]);
    leader_election_subjects.extend(kube_system_service_accounts(&["*"]));
    let mut endpoint_subjects = users(&[KUBE_CONTROLLER_MANAGER]);
    endpoint_subjects.extend(kube_system_service_accounts(&[
        "endpoint-controller",
        "endpointslicemirroring-controller",
    ]));
    let probes = json!({
        "subjects": groups(&[ALL_UNAUTHENTICATED, ALL_AUTHENTICATED]),
        "nonResourceRules": [non_resource_rule(&["get"], &["/healthz", "/readyz", "/livez"])],
    });
    vec![
        flow_schema(
            "system-nodes",
            "system",
            500,
            "ByUser",
            everything(groups(&[NODES_GROUP])),
        ),
        flow_schema(
            "system-node-high",
            "node-high",
            400,
            "ByUser",
            resources_rule(
                groups(&[NODES_GROUP]),
                vec![
                    resource_rule(&["*"], &[""], &["nodes", "nodes/status"], true),
                    leases(&["*"]),
                ],
            ),
        ),
        flow_schema("probes", "exempt", 2, "", probes),
        flow_schema(
            "system-leader-election",
            "leader-election",
            100,
            "ByUser",
            resources_rule(leader_election_subjects, vec![leases(&get_create_update)]),
        ),
        flow_schema(
            "workload-leader-election",
            "leader-election",
            200,
            "ByUser",
            resources_rule(
                kube_system_service_accounts(&["*"]),
                vec![
                    resource_rule(&get_create_update, &[""], &["endpoints", "configmaps"], false),
                    leases(&get_create_update),
                ],
            ),
        ),
        flow_schema(
            "endpoint-controller",
            "workload-high",
            150,
            "ByUser",
            resources_rule(
                endpoint_subjects,
                vec![resource_rule(&get_create_update, &[""], &["endpoints"], false)],
            ),
        ),
        flow_schema(
            "kube-controller-manager",
            "workload-high",
            800,
            "ByNamespace",
            everything(users(&[KUBE_CONTROLLER_MANAGER])),
        ),
        flow_schema(
            "kube-scheduler",
            "workload-high",
            800,
            "ByNamespace",
            everything(users(&[KUBE_SCHEDULER])),
        ),
        flow_schema(
            "kube-system-service-accounts",
            "workload-high",
            900,
            "ByNamespace",
            everything(kube_system_service_accounts(&["*"])),
        ),
        flow_schema(
            "service-accounts",
            "workload-low",
            9000,
            "ByUser",
            everything(groups(&[ALL_SERVICE_ACCOUNTS])),
        ),
        flow_schema(
            "global-default",
            "global-default",
            9900,
            "ByUser",
            everything(groups(&[ALL_UNAUTHENTICATED, ALL_AUTHENTICATED])),
        ),
    ]
}

/// Every bootstrap object in the order the config producer of `minor` creates them, with the
/// `apiVersion` it writes.
pub(crate) fn objects(minor: u32) -> Vec<Value> {
    let api_version = format!("flowcontrol.apiserver.k8s.io/{}", producer_version(minor));
    let mut objects = suggested_priority_levels();
    objects.extend(suggested_flow_schemas());
    objects.extend(mandatory_priority_levels());
    objects.extend(mandatory_flow_schemas());
    for object in &mut objects {
        object["apiVersion"] = json!(api_version);
    }
    objects
}

/// The mandatory FlowSchema named `name`, if there is one (`exempt`, `catch-all`).
pub(crate) fn mandatory_flow_schema(name: &str) -> Option<Value> {
    mandatory_flow_schemas()
        .into_iter()
        .find(|fs| fs["metadata"]["name"] == name)
}

/// The mandatory PriorityLevelConfiguration named `name`, if there is one.
pub(crate) fn mandatory_priority_level(name: &str) -> Option<Value> {
    mandatory_priority_levels()
        .into_iter()
        .find(|pl| pl["metadata"]["name"] == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_cluster_should_hold_eight_levels_and_thirteen_schemas_in_the_producers_version() {
        let v1 = objects(31);
        let count = |kind: &str| v1.iter().filter(|o| o["kind"] == kind).count();
        assert_eq!((count("PriorityLevelConfiguration"), count("FlowSchema")), (8, 13));
        assert!(v1.iter().all(|o| o["apiVersion"] == "flowcontrol.apiserver.k8s.io/v1"));
        assert!(
            objects(28)
                .iter()
                .all(|o| o["apiVersion"] == "flowcontrol.apiserver.k8s.io/v1beta3")
        );
        assert!(
            v1.iter()
                .all(|o| o["metadata"]["annotations"][AUTO_UPDATE_ANNOTATION] == "true")
        );
    }

    #[test]
    fn only_exempt_and_catch_all_should_be_mandatory() {
        assert!(mandatory_flow_schema("exempt").is_some_and(|fs| fs["spec"].get("distinguisherMethod").is_none()));
        assert!(mandatory_priority_level("catch-all").is_some());
        assert!(mandatory_flow_schema("global-default").is_none());
        assert!(mandatory_priority_level("workload-low").is_none());
    }
}
