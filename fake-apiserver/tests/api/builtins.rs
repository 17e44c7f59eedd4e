//! The built-in kinds the controllers rely on, and the answers to requests the API refuses.

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Event};
use k8s_openapi::api::events::v1::Event as EventsV1Event;
use kube::api::{Api, ListParams, ObjectMeta, PostParams};
use serde_json::json;

use crate::common::*;

#[tokio::test]
async fn events_and_leases_should_be_served() {
    let server = FakeApiServer::new();
    let core_events: Api<Event> = Api::default_namespaced(server.client());
    let event: Event = serde_json::from_value(json!({
        "metadata": { "name": "test-vm.1" },
        "involvedObject": { "kind": "VirtualMachine", "name": "test-vm", "namespace": "default" },
        "reason": "Created", "message": "server created", "type": "Normal"
    }))
    .unwrap();
    core_events.create(&PostParams::default(), &event).await.unwrap();
    let selected = core_events
        .list(&ListParams::default().fields("involvedObject.name=test-vm,type=Normal"))
        .await
        .unwrap();
    assert_eq!(selected.items.len(), 1);

    let events: Api<EventsV1Event> = Api::default_namespaced(server.client());
    let event: EventsV1Event = serde_json::from_value(json!({
        "metadata": { "name": "test-vm.2" }, "eventTime": "2026-01-01T00:00:00.000000Z",
        "reportingController": "vm-controller", "reportingInstance": "vm-controller-0",
        "action": "Create", "reason": "Created", "type": "Normal",
        "regarding": { "kind": "VirtualMachine", "name": "test-vm", "namespace": "default" }
    }))
    .unwrap();
    events.create(&PostParams::default(), &event).await.unwrap();
    // One store seen through two APIs, as kube-apiserver keeps them: each API lists both events,
    // in its own field names (what `kubectl describe` relies on to show a Recorder's events).
    let through_events_v1 = events
        .list(&ListParams::default().fields("regarding.name=test-vm"))
        .await
        .unwrap();
    assert_eq!(through_events_v1.items.len(), 2);
    assert!(
        through_events_v1
            .items
            .iter()
            .any(|e| e.note.as_deref() == Some("server created"))
    );
    let through_core = core_events
        .list(&ListParams::default().fields("involvedObject.name=test-vm"))
        .await
        .unwrap();
    assert_eq!(through_core.items.len(), 2);
    let recorded = through_core
        .items
        .iter()
        .find(|e| e.metadata.name.as_deref() == Some("test-vm.2"))
        .unwrap();
    assert_eq!(recorded.reporting_component.as_deref(), Some("vm-controller"));
    assert_eq!(recorded.action.as_deref(), Some("Create"));

    let leases: Api<Lease> = Api::namespaced(server.client(), "kube-system");
    let lease = Lease {
        metadata: ObjectMeta {
            name: Some("controller".into()),
            ..Default::default()
        },
        spec: None,
    };
    let created = leases.create(&PostParams::default(), &lease).await.unwrap();
    assert_eq!(created.metadata.namespace.as_deref(), Some("kube-system"));
}

#[tokio::test]
async fn verbs_a_resource_does_not_serve_should_be_refused() {
    let server = FakeApiServer::new();
    let put_on_collection = http::Request::put("/api/v1/namespaces/default/configmaps")
        .body(b"{}".to_vec())
        .unwrap();
    let refused = api_error(server.client().request::<serde_json::Value>(put_on_collection).await);
    assert_eq!((refused.code, refused.reason.as_str()), (405, "MethodNotAllowed"));

    let unknown = http::Request::get("/apis/nowhere.example/v1/things")
        .body(Vec::new())
        .unwrap();
    // kube-apiserver's mux answers an unknown group with a plain-text page, not a Status.
    let missing = api_error(server.client().request::<serde_json::Value>(unknown).await);
    assert_eq!((missing.code, missing.message.as_str()), (404, "404 page not found"));

    let no_status = http::Request::get("/api/v1/namespaces/default/configmaps/a/status")
        .body(Vec::new())
        .unwrap();
    assert_eq!(
        api_error(server.client().request::<serde_json::Value>(no_status).await).code,
        404
    );
}

#[tokio::test]
async fn dry_run_should_check_everything_and_keep_nothing() {
    let server = FakeApiServer::new();
    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let dry = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    let answered = configmaps.create(&dry, &configmap("dry", &[])).await.unwrap();
    assert!(answered.metadata.uid.is_some());
    assert!(api_error(configmaps.get("dry").await).is_not_found());
    let invalid = api_error(configmaps.create(&dry, &configmap("Not Valid", &[])).await);
    assert_eq!(invalid.code, 422);
}

#[tokio::test]
async fn a_claim_no_volume_satisfies_should_be_handed_to_its_provisioner_or_told_why_it_waits() {
    use k8s_openapi::api::core::v1::PersistentVolumeClaim;
    use k8s_openapi::api::storage::v1::StorageClass;
    let server = FakeApiServer::new();
    let classes: Api<StorageClass> = Api::all(server.client());
    let class: StorageClass = serde_json::from_value(json!({
        "metadata": { "name": "fast" }, "provisioner": "example.com/csi"
    }))
    .unwrap();
    classes.create(&PostParams::default(), &class).await.unwrap();
    let claims: Api<PersistentVolumeClaim> = Api::default_namespaced(server.client());
    for (name, class) in [("external", "fast"), ("nowhere", "missing")] {
        let claim: PersistentVolumeClaim = serde_json::from_value(json!({
            "metadata": { "name": name },
            "spec": { "storageClassName": class, "accessModes": ["ReadWriteOnce"],
                      "resources": { "requests": { "storage": "1Gi" } } }
        }))
        .unwrap();
        claims.create(&PostParams::default(), &claim).await.unwrap();
    }
    server.settle();
    let external = claims.get("external").await.unwrap();
    let annotations = external.metadata.annotations.unwrap_or_default();
    assert_eq!(
        annotations["volume.kubernetes.io/storage-provisioner"],
        "example.com/csi"
    );
    assert_eq!(
        annotations["volume.beta.kubernetes.io/storage-provisioner"],
        "example.com/csi"
    );
    let events: Api<Event> = Api::default_namespaced(server.client());
    let reasons: Vec<(String, String)> = events
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|e| (e.involved_object.name.unwrap_or_default(), e.reason.unwrap_or_default()))
        .collect();
    assert!(
        reasons.contains(&("external".to_owned(), "ExternalProvisioning".to_owned())),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&("nowhere".to_owned(), "ProvisioningFailed".to_owned())),
        "{reasons:?}"
    );
}
