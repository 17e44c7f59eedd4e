//! API Priority and Fairness objects through every version a minor serves: the shares of
//! v1beta2 (1.28) and the zero shares v1 allows and v1beta3 keeps with its round-trip
//! annotation (1.31), the deprecated version's warning, the `Dangling` condition the
//! configuration controller keeps up to date as priority levels come and go, and the
//! FlowSchema table in matching order.

use fake_apiserver::FakeApiServer;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::common::*;

const GROUP: &str = "/apis/flowcontrol.apiserver.k8s.io";
const JSON: &str = "application/json";
const MERGE: &str = "application/merge-patch+json";
const ANNOTATION: &str = "flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares";

fn server_at(version: &str) -> FakeApiServer {
    FakeApiServer::builder().kube_version(version).build()
}

fn level(version: &str, name: &str, limited: Value) -> String {
    json!({
        "apiVersion": format!("flowcontrol.apiserver.k8s.io/{version}"),
        "kind": "PriorityLevelConfiguration",
        "metadata": {"name": name},
        "spec": {"type": "Limited", "limited": limited},
    })
    .to_string()
}

#[tokio::test]
async fn v1beta2_should_name_the_shares_assured_and_warn_of_its_deprecation() {
    let server = server_at("v1.28.7");
    let limited = json!({"assuredConcurrencyShares": 12, "limitResponse": {"type": "Reject"}});
    let created = send(
        &server,
        "POST",
        &format!("{GROUP}/v1beta2/prioritylevelconfigurations"),
        JSON,
        &level("v1beta2", "old", limited),
    )
    .await;
    assert_eq!(created.code, 201, "{}", created.body);
    assert_eq!(created.body["spec"]["limited"]["assuredConcurrencyShares"], 12);
    assert_eq!(
        created.warnings,
        [
            "299 - \"flowcontrol.apiserver.k8s.io/v1beta2 PriorityLevelConfiguration is deprecated in v1.26+, unavailable in v1.29+; use flowcontrol.apiserver.k8s.io/v1beta3 PriorityLevelConfiguration\""
        ]
    );
    let current = send(
        &server,
        "GET",
        &format!("{GROUP}/v1beta3/prioritylevelconfigurations/old"),
        JSON,
        "",
    )
    .await;
    assert_eq!(current.body["spec"]["limited"]["nominalConcurrencyShares"], 12);
    assert!(
        current.body["spec"]["limited"]
            .get("assuredConcurrencyShares")
            .is_none()
    );
    assert!(current.warnings.is_empty());
    // 1.28 wants positive shares, named as the request's version names them.
    let zero = json!({"assuredConcurrencyShares": -1, "limitResponse": {"type": "Reject"}});
    let refused = send(
        &server,
        "POST",
        &format!("{GROUP}/v1beta2/prioritylevelconfigurations"),
        JSON,
        &level("v1beta2", "neg", zero),
    )
    .await;
    assert_eq!(refused.code, 422);
    assert_eq!(
        refused.body["details"]["causes"][0]["field"],
        "spec.limited.assuredConcurrencyShares"
    );
}

#[tokio::test]
async fn zero_shares_should_survive_v1_and_a_v1beta3_round_trip_on_1_31() {
    let server = server_at("v1.31.2");
    let limited = json!({"nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}});
    let created = send(
        &server,
        "POST",
        &format!("{GROUP}/v1/prioritylevelconfigurations"),
        JSON,
        &level("v1", "jail", limited),
    )
    .await;
    assert_eq!(created.code, 201, "{}", created.body);
    assert_eq!(created.body["spec"]["limited"]["nominalConcurrencyShares"], 0);
    let through_v1beta3 = send(
        &server,
        "GET",
        &format!("{GROUP}/v1beta3/prioritylevelconfigurations/jail"),
        JSON,
        "",
    )
    .await;
    assert_eq!(through_v1beta3.body["metadata"]["annotations"][ANNOTATION], "");
    assert_eq!(through_v1beta3.body["spec"]["limited"]["nominalConcurrencyShares"], 0);
    assert_eq!(through_v1beta3.warnings.len(), 1);
    // A v1beta3 client that writes the object back keeps the zero, and the annotation is not stored.
    let labelled = json!({"metadata": {"labels": {"a": "b"}}}).to_string();
    let patched = send(
        &server,
        "PATCH",
        &format!("{GROUP}/v1beta3/prioritylevelconfigurations/jail"),
        MERGE,
        &labelled,
    )
    .await;
    assert_eq!(patched.code, 200, "{}", patched.body);
    assert_eq!(patched.body["spec"]["limited"]["nominalConcurrencyShares"], 0);
    let stored = send(
        &server,
        "GET",
        &format!("{GROUP}/v1/prioritylevelconfigurations/jail"),
        JSON,
        "",
    )
    .await;
    assert!(stored.body["metadata"].get("annotations").is_none(), "{}", stored.body);
    // Without the annotation a v1beta3 zero is its default; v1 may not carry the annotation.
    let unannotated = json!({"nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}});
    let defaulted = send(
        &server,
        "POST",
        &format!("{GROUP}/v1beta3/prioritylevelconfigurations"),
        JSON,
        &level("v1beta3", "plain", unannotated),
    )
    .await;
    assert_eq!(defaulted.body["spec"]["limited"]["nominalConcurrencyShares"], 30);
    let mut annotated: Value =
        serde_json::from_str(&level("v1", "marked", json!({"limitResponse": {"type": "Reject"}}))).unwrap();
    annotated["metadata"]["annotations"] = json!({ANNOTATION: ""});
    let refused = send(
        &server,
        "POST",
        &format!("{GROUP}/v1/prioritylevelconfigurations"),
        JSON,
        &annotated.to_string(),
    )
    .await;
    assert_eq!(
        (refused.code, refused.body["details"]["causes"][0]["field"].clone()),
        (422, json!("metadata.annotations"))
    );
}

async fn dangling(server: &FakeApiServer, schema: &str) -> String {
    let answer = send(server, "GET", &format!("{GROUP}/v1/flowschemas/{schema}"), JSON, "").await;
    let conditions = answer
        .body
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let condition = conditions.iter().find(|c| c["type"] == "Dangling");
    condition.and_then(|c| c["status"].as_str()).unwrap_or("?").to_owned()
}

#[tokio::test]
async fn the_dangling_condition_should_follow_the_priority_level() {
    let server = server_at("v1.31.2");
    let schema = json!({
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": {"name": "later"},
        "spec": {"priorityLevelConfiguration": {"name": "later"}, "rules": [{
            "subjects": [{"kind": "User", "user": {"name": "alice"}}],
            "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/version"]}]}]},
    });
    let created = send(
        &server,
        "POST",
        &format!("{GROUP}/v1/flowschemas"),
        JSON,
        &schema.to_string(),
    )
    .await;
    assert_eq!(
        (created.code, created.body["spec"]["matchingPrecedence"].clone()),
        (201, json!(1000))
    );
    eventually("the schema dangles", || async {
        dangling(&server, "later").await == "True"
    })
    .await;
    let limited = json!({"limitResponse": {"type": "Queue", "queuing": {}}});
    send(
        &server,
        "POST",
        &format!("{GROUP}/v1/prioritylevelconfigurations"),
        JSON,
        &level("v1", "later", limited),
    )
    .await;
    eventually("the level is found", || async {
        dangling(&server, "later").await == "False"
    })
    .await;
    send(
        &server,
        "DELETE",
        &format!("{GROUP}/v1/prioritylevelconfigurations/later"),
        JSON,
        "",
    )
    .await;
    eventually("the schema dangles again", || async {
        dangling(&server, "later").await == "True"
    })
    .await;
    let answer = send(&server, "GET", &format!("{GROUP}/v1/flowschemas/later"), JSON, "").await;
    let managers: Vec<&str> = answer.body["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["manager"].as_str())
        .collect();
    assert!(
        managers.contains(&"api-priority-and-fairness-config-consumer-v1"),
        "{managers:?}"
    );
}

#[tokio::test]
async fn the_flow_schema_table_should_list_schemas_in_matching_order() {
    let server = server_at("v1.28.7");
    let request = http::Request::get(format!("{GROUP}/v1beta3/flowschemas"))
        .header("accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .unwrap();
    let response = server.service().oneshot(request).await.unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let table: Value = serde_json::from_slice(&bytes).unwrap();
    let rows: Vec<(Value, Value)> = table["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| (r["cells"][0].clone(), r["cells"][2].clone()))
        .collect();
    assert_eq!(rows.len(), 13);
    assert_eq!(rows.first(), Some(&(json!("exempt"), json!(1))));
    assert_eq!(rows[1], (json!("probes"), json!(2)));
    assert_eq!(rows.last(), Some(&(json!("catch-all"), json!(10000))));
    // kube-controller-manager and kube-scheduler share precedence 800: by name.
    let at_800: Vec<&Value> = rows.iter().filter(|(_, p)| *p == 800).map(|(n, _)| n).collect();
    assert_eq!(at_800, ["kube-controller-manager", "kube-scheduler"]);
}
