//! What happens to pods when a test plays the kubelet and the cluster operator around nodes:
//! the NoExecute taint manager's evictions (at once, after `tolerationSeconds`, cancelled), the
//! pod garbage collector's runs (orphans, out-of-service nodes, unscheduled pods), and graceful
//! deletion of a pod already terminating.

use std::time::Duration;

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::core::v1::{Event, Node, Pod};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

/// A node that posted Ready, with `taints`.
async fn ready_node(server: &FakeApiServer, name: &str, taints: Value) -> Api<Node> {
    let nodes: Api<Node> = Api::all(server.client());
    let node = serde_json::from_value(json!({"metadata": {"name": name}, "spec": {"taints": taints}})).unwrap();
    nodes.create(&PostParams::default(), &node).await.unwrap();
    let ready = json!({"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}});
    nodes
        .patch_status(name, &PatchParams::default(), &Patch::Merge(ready))
        .await
        .unwrap();
    nodes
}

/// A pod bound to `node` with `tolerations`.
async fn bound_pod(pods: &Api<Pod>, name: &str, node: &str, tolerations: Value) {
    let pod = serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {"nodeName": node, "tolerations": tolerations, "containers": [{"name": "app", "image": "app:1"}]},
    }))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
}

fn disruption_reason(pod: &Pod) -> Option<String> {
    let conditions = pod.status.as_ref()?.conditions.as_ref()?;
    let target = conditions.iter().find(|c| c.type_ == "DisruptionTarget")?;
    target.reason.clone()
}

async fn eviction_messages(server: &FakeApiServer) -> Vec<String> {
    let events: Api<Event> = Api::default_namespaced(server.client());
    let listed = events
        .list(&ListParams::default().fields("reason=TaintManagerEviction"))
        .await
        .unwrap();
    let mut messages: Vec<String> = listed.items.into_iter().filter_map(|e| e.message).collect();
    messages.sort();
    messages
}

#[tokio::test]
async fn a_no_execute_taint_should_evict_the_pods_that_do_not_tolerate_it() {
    let server = FakeApiServer::new();
    let nodes = ready_node(&server, "worker", json!([])).await;
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    let maintenance = |seconds: Option<i64>| {
        let mut toleration = json!({"key": "maintenance", "operator": "Exists", "effect": "NoExecute"});
        if let Some(seconds) = seconds {
            toleration["tolerationSeconds"] = json!(seconds);
        }
        json!([toleration])
    };
    bound_pod(&pods, "plain", "worker", json!([])).await;
    bound_pod(&pods, "patient", "worker", maintenance(None)).await;
    bound_pod(&pods, "brief", "worker", maintenance(Some(1))).await;
    bound_pod(&pods, "slow", "worker", maintenance(Some(600))).await;
    server.settle();

    let taint = json!({"spec": {"taints": [{"key": "maintenance", "value": "yes", "effect": "NoExecute"}]}});
    nodes
        .patch("worker", &PatchParams::default(), &Patch::Merge(taint))
        .await
        .unwrap();
    let plain = pods.get("plain").await.unwrap();
    assert_eq!(disruption_reason(&plain).as_deref(), Some("DeletionByTaintManager"));
    assert_eq!(
        plain.metadata.deletion_grace_period_seconds,
        Some(30),
        "deleted gracefully"
    );
    assert!(pods.get("brief").await.unwrap().metadata.deletion_timestamp.is_none());

    tokio::time::sleep(Duration::from_millis(1100)).await;
    server.settle();
    assert!(
        pods.get("brief").await.unwrap().metadata.deletion_timestamp.is_some(),
        "after its second"
    );
    assert!(pods.get("patient").await.unwrap().metadata.deletion_timestamp.is_none());

    nodes
        .patch(
            "worker",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"taints": null}})),
        )
        .await
        .unwrap();
    assert!(pods.get("slow").await.unwrap().metadata.deletion_timestamp.is_none());
    let ns = "default";
    assert_eq!(
        eviction_messages(&server).await,
        [
            format!("Cancelling deletion of Pod {ns}/slow"),
            format!("Marking for deletion Pod {ns}/brief"),
            format!("Marking for deletion Pod {ns}/plain"),
        ]
    );
}

#[tokio::test]
async fn a_terminating_pod_should_only_go_sooner_when_asked_for_a_shorter_grace_period() {
    let server = FakeApiServer::new();
    ready_node(&server, "worker", json!([])).await;
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    bound_pod(&pods, "web", "worker", json!([])).await;
    pods.delete("web", &DeleteParams::default()).await.unwrap();
    let terminating = pods.get("web").await.unwrap();
    assert_eq!(terminating.metadata.deletion_grace_period_seconds, Some(30));

    pods.delete("web", &DeleteParams::default()).await.unwrap();
    let again = pods.get("web").await.unwrap();
    assert_eq!(
        again.metadata.resource_version, terminating.metadata.resource_version,
        "unchanged"
    );

    pods.delete("web", &DeleteParams::default().grace_period(0))
        .await
        .unwrap();
    assert!(pods.get_opt("web").await.unwrap().is_none(), "gone at once");
}

#[tokio::test]
async fn the_pod_collector_should_fail_and_remove_orphans_unscheduled_and_out_of_service_pods() {
    // The collector's 20 s period and 40 s quarantine are 200 and 400 controller delays.
    let server = FakeApiServer::builder()
        .controller_delay(Duration::from_millis(1))
        .build();
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    let held = |name: &str, node: Option<&str>| -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": name, "finalizers": ["example.com/hold"]},
            "spec": {"nodeName": node, "containers": [{"name": "app", "image": "app:1"}]},
        }))
        .unwrap()
    };
    pods.create(&PostParams::default(), &held("ghost", Some("gone")))
        .await
        .unwrap();
    pods.create(&PostParams::default(), &held("unscheduled", None))
        .await
        .unwrap();
    pods.delete("unscheduled", &DeleteParams::default()).await.unwrap();
    let nodes = ready_node(&server, "down", json!([])).await;
    bound_pod(&pods, "stuck", "down", json!([])).await;
    pods.delete("stuck", &DeleteParams::default()).await.unwrap();
    let out_of_service =
        json!({"spec": {"taints": [{"key": "node.kubernetes.io/out-of-service", "effect": "NoSchedule"}]}});
    nodes
        .patch("down", &PatchParams::default(), &Patch::Merge(out_of_service))
        .await
        .unwrap();
    let not_ready =
        json!({"status": {"conditions": [{"type": "Ready", "status": "False", "reason": "KubeletNotReady"}]}});
    nodes
        .patch_status("down", &PatchParams::default(), &Patch::Merge(not_ready))
        .await
        .unwrap();

    tokio::time::sleep(Duration::from_millis(250)).await;
    server.settle();
    let unscheduled = pods.get("unscheduled").await.unwrap();
    assert_eq!(unscheduled.status.unwrap().phase.as_deref(), Some("Failed"));
    assert!(
        pods.get_opt("stuck").await.unwrap().is_none(),
        "forced off the out-of-service node"
    );
    let ghost = pods.get("ghost").await.unwrap();
    assert!(ghost.metadata.deletion_timestamp.is_none(), "still in quarantine");

    tokio::time::sleep(Duration::from_millis(700)).await;
    server.settle();
    let ghost = pods.get("ghost").await.unwrap();
    assert_eq!(disruption_reason(&ghost).as_deref(), Some("DeletionByPodGC"));
    assert_eq!(ghost.status.unwrap().phase.as_deref(), Some("Failed"));
    assert_eq!(ghost.metadata.deletion_grace_period_seconds, Some(0));
}
