//! The replication manager and the EndpointSlice mirroring controller: a ReplicationController's
//! pods, scaling and status; the EndpointSlices of a Service without a selector, mirrored from
//! the Endpoints a user writes.

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::core::v1::{Endpoints, Pod, ReplicationController, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use kube::ResourceExt;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;

#[tokio::test]
async fn a_replication_controller_should_keep_its_pods() {
    let server = FakeApiServer::new();
    let controllers: Api<ReplicationController> = Api::default_namespaced(server.client());
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    let rc: ReplicationController = serde_json::from_value(json!({
        "metadata": {"name": "legacy"},
        "spec": {"replicas": 2, "selector": {"app": "legacy"},
            "template": {"metadata": {"labels": {"app": "legacy"}}, "spec": {"containers": [{"name": "m", "image": "registry.example/m:1"}]}}},
    }))
    .unwrap();
    controllers.create(&PostParams::default(), &rc).await.unwrap();
    server.settle();
    let made = pods
        .list(&ListParams::default().labels("app=legacy"))
        .await
        .unwrap()
        .items;
    assert_eq!(made.len(), 2);
    let owner = &made[0].owner_references()[0];
    assert_eq!(
        (owner.api_version.as_str(), owner.kind.as_str(), owner.controller),
        ("v1", "ReplicationController", Some(true))
    );
    assert_eq!(made[0].metadata.generate_name.as_deref(), Some("legacy-"));
    let status = controllers.get("legacy").await.unwrap().status.unwrap();
    assert_eq!(
        (
            status.replicas,
            status.fully_labeled_replicas,
            status.observed_generation
        ),
        (2, Some(2), Some(1))
    );

    let scale = json!({"spec": {"replicas": 1}});
    controllers
        .patch_scale("legacy", &PatchParams::default(), &Patch::Merge(&scale))
        .await
        .unwrap();
    server.settle();
    assert_eq!(
        pods.list(&ListParams::default().labels("app=legacy"))
            .await
            .unwrap()
            .items
            .len(),
        1
    );
}

#[tokio::test]
async fn endpoints_of_a_service_without_selector_should_be_mirrored() {
    let server = FakeApiServer::new();
    let services: Api<Service> = Api::default_namespaced(server.client());
    let endpoints: Api<Endpoints> = Api::default_namespaced(server.client());
    let slices: Api<EndpointSlice> = Api::default_namespaced(server.client());
    let service: Service = serde_json::from_value(
        json!({"metadata": {"name": "outside"}, "spec": {"ports": [{"name": "http", "port": 80}]}}),
    )
    .unwrap();
    services.create(&PostParams::default(), &service).await.unwrap();
    let written: Endpoints = serde_json::from_value(json!({
        "metadata": {"name": "outside", "labels": {"team": "a"}},
        "subsets": [{"addresses": [{"ip": "10.1.2.3"}], "notReadyAddresses": [{"ip": "fd00::1"}], "ports": [{"name": "http", "port": 8080}]}],
    }))
    .unwrap();
    endpoints.create(&PostParams::default(), &written).await.unwrap();
    server.settle();
    let selector = ListParams::default().labels("kubernetes.io/service-name=outside");
    let mut mirrored = slices.list(&selector).await.unwrap().items;
    mirrored.sort_by(|a, b| a.address_type.cmp(&b.address_type));
    let kinds: Vec<&str> = mirrored.iter().map(|s| s.address_type.as_str()).collect();
    assert_eq!(kinds, ["IPv4", "IPv6"], "one slice per address type");
    let v4 = &mirrored[0];
    assert_eq!(
        v4.labels()["endpointslice.kubernetes.io/managed-by"],
        "endpointslicemirroring-controller.k8s.io"
    );
    assert_eq!(v4.labels()["team"], "a");
    assert_eq!(v4.owner_references()[0].kind, "Endpoints");
    assert_eq!(v4.endpoints.clone().unwrap()[0].addresses, ["10.1.2.3"]);
    let v6 = mirrored[1].endpoints.clone().unwrap();
    assert_eq!(v6[0].conditions.clone().unwrap().ready, Some(false));

    let selected = json!({"spec": {"selector": {"app": "outside"}}});
    services
        .patch("outside", &PatchParams::default(), &Patch::Merge(&selected))
        .await
        .unwrap();
    server.settle();
    let left = slices
        .list(&selector.labels("endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io"))
        .await
        .unwrap();
    assert!(left.items.is_empty(), "a Service with a selector is not mirrored");
}
