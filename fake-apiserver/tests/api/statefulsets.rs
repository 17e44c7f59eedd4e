//! The StatefulSet controller without nodes, and the revisions a DaemonSet keeps: ordinals,
//! claims, revisions named as kube-controller-manager names them, partitioned rolling updates,
//! ordered and parallel pod management, scaling, claim retention.

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet, StatefulSet};
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Pod};
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

fn stateful_set(name: &str, replicas: i32, policy: &str, retention: Value) -> StatefulSet {
    serde_json::from_value(json!({
        "metadata": { "name": name },
        "spec": {
            "serviceName": name,
            "replicas": replicas,
            "podManagementPolicy": policy,
            "persistentVolumeClaimRetentionPolicy": retention,
            "selector": { "matchLabels": { "app": name } },
            "template": {
                "metadata": { "labels": { "app": name }, "annotations": { "note": "one" } },
                "spec": { "containers": [{
                    "name": "main", "image": "registry.example/web:1",
                    "volumeMounts": [{ "name": "data", "mountPath": "/data" }]
                }] }
            },
            "volumeClaimTemplates": [{
                "metadata": { "name": "data" },
                "spec": { "accessModes": ["ReadWriteOnce"], "resources": { "requests": { "storage": "1Gi" } } }
            }]
        }
    }))
    .unwrap()
}

async fn names<K>(api: &Api<K>, selector: &str) -> Vec<String>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let listed = api.list(&ListParams::default().labels(selector)).await.unwrap();
    let mut names: Vec<String> = listed.items.iter().map(ResourceExt::name_any).collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_parallel_set_should_make_every_ordinal_with_its_claim_and_update_down_to_the_partition() {
    let server = FakeApiServer::builder().kube_version("v1.28.7").build();
    let sets: Api<StatefulSet> = Api::default_namespaced(server.client());
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    let claims: Api<PersistentVolumeClaim> = Api::default_namespaced(server.client());
    let revisions: Api<ControllerRevision> = Api::default_namespaced(server.client());
    sets.create(&PostParams::default(), &stateful_set("web", 3, "Parallel", json!(null)))
        .await
        .unwrap();
    server.settle();
    assert_eq!(names(&pods, "app=web").await, ["web-0", "web-1", "web-2"]);
    assert_eq!(
        names(&claims, "app=web").await,
        ["data-web-0", "data-web-1", "data-web-2"]
    );
    // The name kube-controller-manager v1.28.7 gave this template's revision.
    assert_eq!(names(&revisions, "app=web").await, ["web-5b4b64bf67"]);
    let pod = pods.get("web-2").await.unwrap();
    let labels = pod.labels();
    assert_eq!(labels["controller-revision-hash"], "web-5b4b64bf67");
    assert_eq!(labels["statefulset.kubernetes.io/pod-name"], "web-2");
    assert_eq!(labels["apps.kubernetes.io/pod-index"], "2");
    let spec = pod.spec.unwrap();
    assert_eq!(
        (spec.hostname.as_deref(), spec.subdomain.as_deref()),
        (Some("web-2"), Some("web"))
    );
    let volume = spec.volumes.unwrap().into_iter().find(|v| v.name == "data").unwrap();
    assert_eq!(volume.persistent_volume_claim.unwrap().claim_name, "data-web-2");
    let status = sets.get("web").await.unwrap().status.unwrap();
    assert_eq!(
        (status.replicas, status.current_replicas, status.available_replicas),
        (3, Some(3), Some(0))
    );
    assert_eq!(status.collision_count, Some(0));

    let update = json!({ "spec": {
        "updateStrategy": { "type": "RollingUpdate", "rollingUpdate": { "partition": 2 } },
        "template": { "metadata": { "annotations": { "note": "two" } } }
    } });
    sets.patch("web", &PatchParams::default(), &Patch::Merge(&update))
        .await
        .unwrap();
    server.settle();
    assert_eq!(names(&revisions, "app=web").await, ["web-5b4b64bf67", "web-5df976b7cc"]);
    assert_eq!(pods.get("web-2").await.unwrap().annotations()["note"], "two");
    assert_eq!(pods.get("web-1").await.unwrap().annotations()["note"], "one");
    let status = sets.get("web").await.unwrap().status.unwrap();
    assert_eq!((status.current_replicas, status.updated_replicas), (Some(2), Some(1)));

    let scale = json!({ "spec": { "replicas": 1 } });
    sets.patch_scale("web", &PatchParams::default(), &Patch::Merge(&scale))
        .await
        .unwrap();
    server.settle();
    assert_eq!(names(&pods, "app=web").await, ["web-0"]);
    // Claims are retained by default.
    assert_eq!(names(&claims, "app=web").await.len(), 3);
}

#[tokio::test]
async fn an_ordered_set_should_wait_for_each_pod_to_be_ready_and_its_claims_go_with_it() {
    let server = FakeApiServer::builder().kube_version("v1.31.2").build();
    let sets: Api<StatefulSet> = Api::default_namespaced(server.client());
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    let claims: Api<PersistentVolumeClaim> = Api::default_namespaced(server.client());
    let retention = json!({ "whenDeleted": "Delete", "whenScaled": "Retain" });
    sets.create(
        &PostParams::default(),
        &stateful_set("db", 2, "OrderedReady", retention),
    )
    .await
    .unwrap();
    server.settle();
    assert_eq!(names(&pods, "app=db").await, ["db-0"], "db-1 waits for db-0");
    let claim = claims.get("data-db-0").await.unwrap();
    let owner = &claim.owner_references()[0];
    // From 1.31 the set's reference on its claims is a controller reference.
    assert_eq!((owner.kind.as_str(), owner.controller), ("StatefulSet", Some(true)));

    let ready = json!({ "status": { "phase": "Running", "conditions": [{ "type": "Ready", "status": "True" }] } });
    pods.patch_status("db-0", &PatchParams::default(), &Patch::Merge(&ready))
        .await
        .unwrap();
    server.settle();
    assert_eq!(names(&pods, "app=db").await, ["db-0", "db-1"]);

    sets.delete("db", &DeleteParams::foreground()).await.unwrap();
    server.settle();
    assert!(names(&pods, "app=db").await.is_empty());
    assert!(
        names(&claims, "app=db").await.is_empty(),
        "claims owned by the set go with it"
    );
}

#[tokio::test]
async fn a_daemonset_should_keep_a_revision_named_by_its_template_hash() {
    // holdout-24's `agent`, as kube-controller-manager v1.28.7 and v1.31.2 named its revision.
    for (version, hash) in [("v1.28.7", "5f458f7d95"), ("v1.31.2", "5c4bb7cd7c")] {
        let server = FakeApiServer::builder().kube_version(version).build();
        let daemonsets: Api<DaemonSet> = Api::default_namespaced(server.client());
        let agent: DaemonSet = serde_json::from_value(json!({
            "metadata": { "name": "agent" },
            "spec": {
                "selector": { "matchLabels": { "app": "agent" } },
                "template": {
                    "metadata": { "labels": { "app": "agent" } },
                    "spec": { "containers": [{ "name": "agent", "image": "registry.example/agent:1" }] }
                }
            }
        }))
        .unwrap();
        daemonsets.create(&PostParams::default(), &agent).await.unwrap();
        server.settle();
        let revisions: Api<ControllerRevision> = Api::default_namespaced(server.client());
        let listed = revisions
            .list(&ListParams::default().labels("app=agent"))
            .await
            .unwrap();
        assert_eq!(listed.items.len(), 1, "{version}");
        let revision = &listed.items[0];
        assert_eq!(revision.name_any(), format!("agent-{hash}"), "{version}");
        assert_eq!(revision.labels()["controller-revision-hash"], hash);
        assert_eq!(revision.revision, Some(1));
    }
}
