//! What a test playing kubelets sees of the node lifecycle controller's health monitor: a node
//! that stops posting while another keeps on turns Unknown, its pods not ready, and gets the
//! unreachable NoExecute taint that evicts the pods not tolerating it; a node that comes back
//! is cleared; with every node silent the cluster is fully disrupted and nothing is tainted.
//! The controller delay is 1 ms: the 40 s grace period is 400 ms, the 5 s monitor period 50 ms.

use std::time::Duration;

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::core::v1::{Event, Node, Pod};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;

fn fast_server() -> FakeApiServer {
    FakeApiServer::builder()
        .controller_delay(Duration::from_millis(1))
        .build()
}

async fn post_ready(nodes: &Api<Node>, name: &str, status: &str, beat: u32) {
    let stamp = format!("2026-01-01T00:00:{:02}Z", beat % 60);
    let ready = json!({"status": {"conditions": [{"type": "Ready", "status": status, "reason": "KubeletReady",
        "lastHeartbeatTime": stamp, "lastTransitionTime": "2026-01-01T00:00:00Z"}]}});
    nodes
        .patch_status(name, &PatchParams::default(), &Patch::Strategic(ready))
        .await
        .unwrap();
}

async fn node(nodes: &Api<Node>, name: &str) {
    let node = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    nodes.create(&PostParams::default(), &node).await.unwrap();
    post_ready(nodes, name, "True", 0).await;
}

async fn ready_pod(pods: &Api<Pod>, name: &str, node: &str, unreachable_seconds: Option<i64>) {
    let mut spec = json!({"nodeName": node, "containers": [{"name": "app", "image": "app:1"}]});
    if let Some(seconds) = unreachable_seconds {
        spec["tolerations"] = json!([{"key": "node.kubernetes.io/unreachable", "operator": "Exists",
            "effect": "NoExecute", "tolerationSeconds": seconds}]);
    }
    let pod = serde_json::from_value(json!({"metadata": {"name": name}, "spec": spec})).unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    let running = json!({"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}});
    pods.patch_status(name, &PatchParams::default(), &Patch::Merge(running))
        .await
        .unwrap();
}

fn ready_status(node: &Node) -> String {
    let conditions = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.clone())
        .unwrap_or_default();
    conditions
        .into_iter()
        .find(|c| c.type_ == "Ready")
        .map(|c| c.status)
        .unwrap_or_default()
}

fn no_execute_keys(node: &Node) -> Vec<String> {
    let taints = node.spec.as_ref().and_then(|s| s.taints.clone()).unwrap_or_default();
    taints
        .into_iter()
        .filter(|t| t.effect == "NoExecute")
        .map(|t| t.key)
        .collect()
}

/// Keeps `alive` posting (every tenth of the grace period) until `watched` satisfies `done`,
/// for at most 200 beats; returns `watched` as it then is.
async fn keep_posting_until(nodes: &Api<Node>, alive: &str, watched: &str, done: impl Fn(&Node) -> bool) -> Node {
    for beat in 1..200 {
        post_ready(nodes, alive, "True", beat).await;
        let node = nodes.get(watched).await.unwrap();
        if done(&node) {
            return node;
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    nodes.get(watched).await.unwrap()
}

#[tokio::test]
async fn a_silent_node_among_live_ones_should_be_tainted_and_its_pods_evicted() {
    let server = fast_server();
    let nodes: Api<Node> = Api::all(server.client());
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    node(&nodes, "alive").await;
    node(&nodes, "silent").await;
    ready_pod(&pods, "fast", "silent", Some(0)).await;
    ready_pod(&pods, "slow", "silent", None).await;
    let silent = keep_posting_until(&nodes, "alive", "silent", |n| !no_execute_keys(n).is_empty()).await;
    assert_eq!(ready_status(&silent), "Unknown");
    assert_eq!(ready_status(&nodes.get("alive").await.unwrap()), "True");
    assert_eq!(no_execute_keys(&silent), ["node.kubernetes.io/unreachable"]);
    let slow = pods.get("slow").await.unwrap();
    let conditions = slow.status.unwrap().conditions.unwrap();
    assert_eq!(conditions.iter().find(|c| c.type_ == "Ready").unwrap().status, "False");
    assert!(
        slow.metadata.deletion_timestamp.is_none(),
        "tolerates the taint for 300 s"
    );
    // The taint manager evicts at once what tolerates the taint for no time.
    server.settle();
    let fast = pods.get("fast").await.unwrap();
    assert!(
        fast.metadata.deletion_timestamp.is_some(),
        "tolerates the taint for no time"
    );

    let events: Api<Event> = Api::namespaced(server.client(), "default");
    let reasons: Vec<String> = events
        .list(&ListParams::default().fields("involvedObject.name=silent"))
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|e| e.reason)
        .collect();
    assert!(reasons.contains(&"RegisteredNode".to_owned()), "{reasons:?}");
    assert!(reasons.contains(&"NodeNotReady".to_owned()), "{reasons:?}");

    // The kubelet comes back: its NoExecute taint goes at the next pass.
    post_ready(&nodes, "silent", "True", 59).await;
    let back = keep_posting_until(&nodes, "alive", "silent", |n| no_execute_keys(n).is_empty()).await;
    assert!(no_execute_keys(&back).is_empty());
}

#[tokio::test]
async fn a_node_reporting_not_ready_should_be_tainted_not_ready() {
    let server = fast_server();
    let nodes: Api<Node> = Api::all(server.client());
    node(&nodes, "alive").await;
    node(&nodes, "sick").await;
    post_ready(&nodes, "sick", "False", 1).await;
    let sick = keep_posting_until(&nodes, "alive", "sick", |n| !no_execute_keys(n).is_empty()).await;
    assert_eq!(no_execute_keys(&sick), ["node.kubernetes.io/not-ready"]);
    assert!(no_execute_keys(&nodes.get("alive").await.unwrap()).is_empty());
}

#[tokio::test]
async fn with_every_node_silent_nothing_should_be_tainted_no_execute() {
    let server = fast_server();
    let nodes: Api<Node> = Api::all(server.client());
    node(&nodes, "only").await;
    let mut only = nodes.get("only").await.unwrap();
    for _ in 0..100 {
        if ready_status(&only) == "Unknown" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        only = nodes.get("only").await.unwrap();
    }
    // Several passes more.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let only = nodes.get("only").await.unwrap();
    assert_eq!(ready_status(&only), "Unknown");
    assert!(
        no_execute_keys(&only).is_empty(),
        "a fully disrupted cluster evicts nothing"
    );
}
