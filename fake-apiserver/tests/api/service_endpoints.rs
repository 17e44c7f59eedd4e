//! What a test playing the kubelet sees of a Service's Endpoints and EndpointSlices: pods that
//! get IPs and readiness are published by named port, not-ready ones apart, terminal ones and
//! those on a missing node left out of the slices, a hundred endpoints per slice.

use std::time::Duration;

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::core::v1::{Endpoints, Event, Node, Pod, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

async fn node(server: &FakeApiServer, name: &str) {
    let nodes: Api<Node> = Api::all(server.client());
    let node = json!({"metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": "zone-a"}}});
    nodes
        .create(&PostParams::default(), &serde_json::from_value(node).unwrap())
        .await
        .unwrap();
}

async fn service(server: &FakeApiServer, spec: Value) {
    let services: Api<Service> = Api::default_namespaced(server.client());
    let service = json!({"metadata": {"name": "web"}, "spec": spec});
    services
        .create(&PostParams::default(), &serde_json::from_value(service).unwrap())
        .await
        .unwrap();
}

/// The Service `web` selecting `app: web`, port 80 to 8080.
async fn web_on_8080(server: &FakeApiServer) {
    service(
        server,
        json!({"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}),
    )
    .await;
}

/// A pod of the Service on `node`, offering `http` on 8080, then given `ip` and `ready` as a
/// kubelet would.
async fn running_pod(pods: &Api<Pod>, name: &str, node: &str, ip: &str, ready: bool) {
    let pod = json!({
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"nodeName": node, "containers": [{"name": "app", "image": "web:1",
            "ports": [{"name": "http", "containerPort": 8080}]}]},
    });
    pods.create(&PostParams::default(), &serde_json::from_value(pod).unwrap())
        .await
        .unwrap();
    let status = if ready { "True" } else { "False" };
    let running = json!({"status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
        "conditions": [{"type": "Ready", "status": status}]}});
    pods.patch_status(name, &PatchParams::default(), &Patch::Merge(running))
        .await
        .unwrap();
}

fn ips(addresses: Option<&Vec<k8s_openapi::api::core::v1::EndpointAddress>>) -> Vec<String> {
    addresses.into_iter().flatten().map(|a| a.ip.clone()).collect()
}

#[tokio::test]
async fn ready_and_not_ready_pods_should_be_published_by_named_port() {
    let server = FakeApiServer::new();
    node(&server, "worker").await;
    let ports = json!([{"name": "http", "port": 80, "targetPort": "http"}, {"name": "metrics", "port": 9090}]);
    service(&server, json!({"selector": {"app": "web"}, "ports": ports})).await;
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    running_pod(&pods, "web-a", "worker", "10.244.0.10", true).await;
    running_pod(&pods, "web-b", "worker", "10.244.0.11", false).await;
    server.settle();

    let endpoints: Api<Endpoints> = Api::default_namespaced(server.client());
    let subsets = endpoints.get("web").await.unwrap().subsets.unwrap();
    assert_eq!(subsets.len(), 1, "both pods offer both ports");
    assert_eq!(ips(subsets[0].addresses.as_ref()), ["10.244.0.10"]);
    assert_eq!(ips(subsets[0].not_ready_addresses.as_ref()), ["10.244.0.11"]);
    let ports: Vec<(Option<String>, i32)> = subsets[0]
        .ports
        .iter()
        .flatten()
        .map(|p| (p.name.clone(), p.port))
        .collect();
    // In the order of their hashes, as kube-controller-manager sorts them.
    assert_eq!(ports, [(Some("metrics".into()), 9090), (Some("http".into()), 8080)]);

    let slices: Api<EndpointSlice> = Api::default_namespaced(server.client());
    let listed = slices
        .list(&ListParams::default().labels("kubernetes.io/service-name=web"))
        .await
        .unwrap();
    assert_eq!(listed.items.len(), 1);
    let slice = &listed.items[0];
    let conditions: Vec<(String, Option<bool>, Option<String>)> = slice
        .endpoints
        .iter()
        .flatten()
        .map(|e| {
            (
                e.addresses[0].clone(),
                e.conditions.as_ref().unwrap().ready,
                e.zone.clone(),
            )
        })
        .collect();
    let zone = Some("zone-a".to_owned());
    assert_eq!(
        conditions,
        [
            ("10.244.0.10".into(), Some(true), zone.clone()),
            ("10.244.0.11".into(), Some(false), zone)
        ]
    );

    // A terminating pod leaves the Endpoints object but stays in the slice as terminating.
    pods.delete("web-a", &DeleteParams::default()).await.unwrap();
    server.settle();
    let subsets = endpoints.get("web").await.unwrap().subsets.unwrap();
    assert!(subsets[0].addresses.is_none());
    let slice = slices.list(&ListParams::default()).await.unwrap().items.remove(0);
    let terminating = slice
        .endpoints
        .iter()
        .flatten()
        .find(|e| e.addresses[0] == "10.244.0.10")
        .unwrap();
    assert_eq!(terminating.conditions.as_ref().unwrap().terminating, Some(true));
}

#[tokio::test]
async fn a_hundred_endpoints_should_fill_a_slice_and_the_rest_start_another() {
    let server = FakeApiServer::new();
    node(&server, "worker").await;
    web_on_8080(&server).await;
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    for i in 0..130 {
        running_pod(
            &pods,
            &format!("web-{i}"),
            "worker",
            &format!("10.244.{}.{}", i / 200, i % 200 + 1),
            true,
        )
        .await;
    }
    server.settle();
    let slices: Api<EndpointSlice> = Api::default_namespaced(server.client());
    let mut sizes: Vec<usize> = slices
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .iter()
        .map(|s| s.endpoints.as_ref().map_or(0, Vec::len))
        .collect();
    sizes.sort_unstable();
    assert_eq!(sizes.iter().sum::<usize>(), 130);
    assert!(
        sizes.iter().all(|&n| n <= 100),
        "no slice holds more than 100: {sizes:?}"
    );
    let endpoints: Api<Endpoints> = Api::default_namespaced(server.client());
    let subsets = endpoints.get("web").await.unwrap().subsets.unwrap();
    assert_eq!(subsets[0].addresses.as_ref().unwrap().len(), 130);
}

#[tokio::test]
async fn a_pod_on_a_missing_node_should_be_reported_and_left_out_of_the_slices() {
    let server = FakeApiServer::new();
    node(&server, "worker").await;
    web_on_8080(&server).await;
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    running_pod(&pods, "web-a", "worker", "10.244.0.10", true).await;
    running_pod(&pods, "web-b", "ghost", "10.244.0.11", true).await;
    running_pod(&pods, "web-c", "worker", "10.244.0.12", true).await;
    let failed = json!({"status": {"phase": "Failed"}});
    pods.patch_status("web-c", &PatchParams::default(), &Patch::Merge(failed))
        .await
        .unwrap();
    server.settle();

    let slices: Api<EndpointSlice> = Api::default_namespaced(server.client());
    let slice = slices.list(&ListParams::default()).await.unwrap().items.remove(0);
    let addresses: Vec<&str> = slice
        .endpoints
        .iter()
        .flatten()
        .map(|e| e.addresses[0].as_str())
        .collect();
    assert_eq!(addresses, ["10.244.0.10"], "no failed pod, no pod of a missing node");
    let endpoints: Api<Endpoints> = Api::default_namespaced(server.client());
    let subsets = endpoints.get("web").await.unwrap().subsets.unwrap();
    assert_eq!(ips(subsets[0].addresses.as_ref()), ["10.244.0.10", "10.244.0.11"]);
    let events: Api<Event> = Api::default_namespaced(server.client());
    let reported = events
        .list(&ListParams::default().fields("reason=FailedToUpdateEndpointSlices"))
        .await
        .unwrap();
    let message = reported.items[0].message.clone().unwrap();
    assert_eq!(
        message,
        "Error updating Endpoint Slices for Service default/web: skipping Pod web-b for Service default/web: Node ghost Not Found"
    );
}

#[tokio::test]
async fn a_deleted_service_should_take_its_endpoints_along() {
    let server = FakeApiServer::new();
    node(&server, "worker").await;
    service(&server, json!({"selector": {"app": "web"}, "ports": [{"port": 80}]})).await;
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    running_pod(&pods, "web-a", "worker", "10.244.0.10", true).await;
    server.settle();
    let services: Api<Service> = Api::default_namespaced(server.client());
    services.delete("web", &DeleteParams::default()).await.unwrap();
    server.settle();
    let endpoints: Api<Endpoints> = Api::default_namespaced(server.client());
    assert!(endpoints.get_opt("web").await.unwrap().is_none());
    let slices: Api<EndpointSlice> = Api::default_namespaced(server.client());
    assert!(slices.list(&ListParams::default()).await.unwrap().items.is_empty());
}

#[tokio::test]
async fn a_pod_should_join_the_slice_once_its_node_exists() {
    // A sync that skipped a pod is retried after 1 s, 2 s, … (10 controller delays a second).
    let server = FakeApiServer::builder()
        .controller_delay(Duration::from_millis(1))
        .build();
    web_on_8080(&server).await;
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    running_pod(&pods, "web-a", "late", "10.244.0.10", true).await;
    server.settle();
    let slices: Api<EndpointSlice> = Api::default_namespaced(server.client());
    let endpoint_count = || async {
        let listed = slices.list(&ListParams::default()).await.unwrap().items;
        listed
            .iter()
            .map(|s| s.endpoints.as_ref().map_or(0, Vec::len))
            .sum::<usize>()
    };
    assert_eq!(endpoint_count().await, 0, "its node does not exist yet");
    node(&server, "late").await;
    let mut count = 0;
    for _ in 0..100 {
        count = endpoint_count().await;
        if count == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(count, 1, "the retry found the node");
}

#[tokio::test]
async fn prefer_close_should_hint_each_ready_endpoint_for_its_zone() {
    // The server reports v1.31.2, where ServiceTrafficDistribution is on.
    let server = FakeApiServer::new();
    node(&server, "worker").await;
    let spec = json!({"selector": {"app": "web"}, "trafficDistribution": "PreferClose", "ports": [{"port": 80, "targetPort": 8080}]});
    service(&server, spec).await;
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    running_pod(&pods, "web-a", "worker", "10.244.0.10", true).await;
    running_pod(&pods, "web-b", "worker", "10.244.0.11", false).await;
    server.settle();
    let slices: Api<EndpointSlice> = Api::default_namespaced(server.client());
    let slice = slices.list(&ListParams::default()).await.unwrap().items.remove(0);
    let hints: Vec<(String, Option<String>)> = slice
        .endpoints
        .iter()
        .flatten()
        .map(|e| {
            let zone = e
                .hints
                .as_ref()
                .and_then(|h| h.for_zones.as_ref())
                .map(|z| z[0].name.clone());
            (e.addresses[0].clone(), zone)
        })
        .collect();
    assert_eq!(
        hints,
        [
            ("10.244.0.10".into(), Some("zone-a".into())),
            ("10.244.0.11".into(), None)
        ],
        "only the ready endpoint is hinted"
    );
}
