//! The persistent volume controller's side of a volume: `Available` once created, `Bound` to a
//! claim that fits, `Released` (and not bound again) once that claim is deleted.

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::core::v1::{PersistentVolume, PersistentVolumeClaim};
use kube::api::{Api, PostParams};
use serde_json::json;

fn phase(volume: &PersistentVolume) -> String {
    volume.status.clone().unwrap_or_default().phase.unwrap_or_default()
}

#[tokio::test]
async fn a_volume_should_be_available_then_bound_then_released_with_its_claim() {
    let server = FakeApiServer::new();
    let volumes: Api<PersistentVolume> = Api::all(server.client());
    let claims: Api<PersistentVolumeClaim> = Api::default_namespaced(server.client());
    let volume: PersistentVolume = serde_json::from_value(json!({
        "metadata": {"name": "kept"},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "manual",
            "persistentVolumeReclaimPolicy": "Retain", "hostPath": {"path": "/tmp/kept"}},
    }))
    .unwrap();
    let created = volumes.create(&PostParams::default(), &volume).await.unwrap();
    assert_eq!(phase(&created), "Pending", "as the server stores it");
    server.settle();
    assert_eq!(phase(&volumes.get("kept").await.unwrap()), "Available");

    let claim = |name: &str| -> PersistentVolumeClaim {
        serde_json::from_value(json!({
            "metadata": {"name": name},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "manual", "resources": {"requests": {"storage": "1Gi"}}},
        }))
        .unwrap()
    };
    claims.create(&PostParams::default(), &claim("data")).await.unwrap();
    server.settle();
    assert_eq!(phase(&volumes.get("kept").await.unwrap()), "Bound");

    claims.delete("data", &Default::default()).await.unwrap();
    server.settle();
    let released = volumes.get("kept").await.unwrap();
    assert_eq!(phase(&released), "Released");
    assert_eq!(
        released.spec.unwrap().claim_ref.unwrap().name.as_deref(),
        Some("data"),
        "the reference stays"
    );

    claims.create(&PostParams::default(), &claim("again")).await.unwrap();
    server.settle();
    let waiting = claims.get("again").await.unwrap();
    assert_eq!(
        waiting.status.unwrap().phase.as_deref(),
        Some("Pending"),
        "a released volume is not bound again"
    );
}
