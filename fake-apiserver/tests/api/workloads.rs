//! The workload controllers without nodes: a Deployment's ReplicaSets and their pods, rollouts,
//! and a ReplicaSet claiming pods — as kube-controller-manager runs them on a cluster whose
//! pods never start.

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

fn deployment(name: &str, replicas: i32, image: &str, strategy: Value) -> Deployment {
    serde_json::from_value(json!({
        "metadata": { "name": name },
        "spec": {
            "replicas": replicas,
            "strategy": strategy,
            "selector": { "matchLabels": { "app": name } },
            "template": {
                "metadata": { "labels": { "app": name } },
                "spec": { "containers": [{ "name": "main", "image": image }] }
            }
        }
    }))
    .unwrap()
}

async fn listed<K>(api: &Api<K>, selector: &str) -> Vec<K>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.list(&ListParams::default().labels(selector)).await.unwrap().items
}

#[tokio::test]
async fn a_deployment_should_make_a_replicaset_named_after_its_template_hash_and_its_pods() {
    // The template kube-controller-manager v1.28.7 hashed to `5d9494f8f9` and v1.31.2 to
    // `89cbdc749` (holdout-23's `web`).
    for (version, hash) in [("v1.28.7", "5d9494f8f9"), ("v1.31.2", "89cbdc749")] {
        let server = FakeApiServer::builder().kube_version(version).build();
        let deployments: Api<Deployment> = Api::default_namespaced(server.client());
        let web: Deployment = serde_json::from_value(json!({
            "metadata": { "name": "web", "labels": { "app": "web" } },
            "spec": {
                "replicas": 2,
                "selector": { "matchLabels": { "app": "web" } },
                "template": {
                    "metadata": { "labels": { "app": "web", "tier": "front" }, "annotations": { "note": "one" } },
                    "spec": { "containers": [{
                        "name": "main", "image": "registry.example/web:1",
                        "ports": [{ "containerPort": 8080, "name": "http" }],
                        "resources": { "requests": { "cpu": "100m", "memory": "64Mi" } }
                    }] }
                }
            }
        }))
        .unwrap();
        deployments.create(&PostParams::default(), &web).await.unwrap();
        server.settle();
        let sets: Api<ReplicaSet> = Api::default_namespaced(server.client());
        let made = listed(&sets, "app=web").await;
        assert_eq!(made.len(), 1, "{version}");
        let rs = &made[0];
        assert_eq!(
            rs.metadata.name.as_deref(),
            Some(format!("web-{hash}").as_str()),
            "{version}"
        );
        let annotations = rs.metadata.annotations.clone().unwrap_or_default();
        assert_eq!(annotations["deployment.kubernetes.io/revision"], "1");
        assert_eq!(annotations["deployment.kubernetes.io/desired-replicas"], "2");
        assert_eq!(annotations["deployment.kubernetes.io/max-replicas"], "3");
        let pods: Api<Pod> = Api::default_namespaced(server.client());
        let running = listed(&pods, "app=web").await;
        assert_eq!(running.len(), 2, "{version}");
        for pod in &running {
            assert_eq!(
                pod.metadata.generate_name.as_deref(),
                Some(format!("web-{hash}-").as_str())
            );
            assert_eq!(pod.metadata.labels.as_ref().unwrap()["pod-template-hash"], hash);
        }
        let status = deployments.get("web").await.unwrap().status.unwrap();
        assert_eq!(
            (status.replicas, status.updated_replicas, status.unavailable_replicas),
            (Some(2), Some(2), Some(2))
        );
        let reasons: Vec<_> = status
            .conditions
            .unwrap_or_default()
            .into_iter()
            .map(|c| format!("{:?} {:?} {:?}", c.type_, c.status, c.reason))
            .collect();
        let wanted = |kind: &str, status: &str, reason: &str| {
            reasons
                .iter()
                .any(|r| r.contains(kind) && r.contains(&format!("{status:?}")) && r.contains(reason))
        };
        assert!(
            wanted("Available", "False", "MinimumReplicasUnavailable"),
            "{reasons:?}"
        );
        assert!(wanted("Progressing", "True", "ReplicaSetUpdated"), "{reasons:?}");
        let events: Api<Event> = Api::default_namespaced(server.client());
        let messages: Vec<String> = events
            .list(&ListParams::default().fields("involvedObject.kind=Deployment"))
            .await
            .unwrap()
            .items
            .into_iter()
            .filter_map(|e| e.message)
            .collect();
        assert_eq!(messages, [format!("Scaled up replica set web-{hash} to 2")]);
    }
}

#[tokio::test]
async fn a_rolling_update_whose_pods_never_start_should_stop_at_the_surge() {
    let server = FakeApiServer::new();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    deployments
        .create(
            &PostParams::default(),
            &deployment("app", 3, "img:1", json!({"type": "RollingUpdate"})),
        )
        .await
        .unwrap();
    server.settle();
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "img:2"}]}}}});
    deployments
        .patch("app", &PatchParams::default(), &Patch::Strategic(patch))
        .await
        .unwrap();
    server.settle();
    let sets: Api<ReplicaSet> = Api::default_namespaced(server.client());
    let mut sizes: Vec<(String, i32)> = listed(&sets, "app=app")
        .await
        .into_iter()
        .map(|rs| {
            let revision = rs.metadata.annotations.unwrap()["deployment.kubernetes.io/revision"].clone();
            (revision, rs.spec.replicas.unwrap())
        })
        .collect();
    sizes.sort();
    // 25 % of 3 surges by one and lets none be unavailable: the old pods stay.
    assert_eq!(sizes, [("1".to_owned(), 3), ("2".to_owned(), 1)]);
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    assert_eq!(listed(&pods, "app=app").await.len(), 4);
    let status = deployments.get("app").await.unwrap().status.unwrap();
    assert_eq!((status.replicas, status.updated_replicas), (Some(4), Some(1)));
}

#[tokio::test]
async fn a_recreate_rollout_should_remove_the_old_pods_before_making_new_ones() {
    let server = FakeApiServer::new();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    deployments
        .create(
            &PostParams::default(),
            &deployment("rec", 2, "img:1", json!({"type": "Recreate"})),
        )
        .await
        .unwrap();
    server.settle();
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "img:2"}]}}}});
    deployments
        .patch("rec", &PatchParams::default(), &Patch::Strategic(patch))
        .await
        .unwrap();
    server.settle();
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    let images: Vec<String> = listed(&pods, "app=rec")
        .await
        .into_iter()
        .map(|pod| pod.spec.unwrap().containers[0].image.clone().unwrap())
        .collect();
    assert_eq!(images, ["img:2", "img:2"]);
}

#[tokio::test]
async fn a_replicaset_should_adopt_matching_orphans_and_release_pods_it_no_longer_selects() {
    let server = FakeApiServer::new();
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    let orphan: Pod = serde_json::from_value(json!({
        "metadata": { "name": "orphan", "labels": { "tier": "back" } },
        "spec": { "containers": [{ "name": "c", "image": "img" }] }
    }))
    .unwrap();
    pods.create(&PostParams::default(), &orphan).await.unwrap();
    let sets: Api<ReplicaSet> = Api::default_namespaced(server.client());
    let rs: ReplicaSet = serde_json::from_value(json!({
        "metadata": { "name": "back" },
        "spec": {
            "replicas": 2,
            "selector": { "matchLabels": { "tier": "back" } },
            "template": { "metadata": { "labels": { "tier": "back" } },
                          "spec": { "containers": [{ "name": "c", "image": "img" }] } }
        }
    }))
    .unwrap();
    sets.create(&PostParams::default(), &rs).await.unwrap();
    server.settle();
    let owner = |pod: &Pod| {
        pod.metadata
            .owner_references
            .as_ref()
            .and_then(|refs| refs.first())
            .map(|r| r.name.clone())
    };
    assert_eq!(owner(&pods.get("orphan").await.unwrap()).as_deref(), Some("back"));
    assert_eq!(listed(&pods, "tier=back").await.len(), 2);
    let relabel = json!({"metadata": {"labels": {"tier": "released"}}});
    pods.patch("orphan", &PatchParams::default(), &Patch::Merge(relabel))
        .await
        .unwrap();
    server.settle();
    assert_eq!(owner(&pods.get("orphan").await.unwrap()), None);
    assert_eq!(listed(&pods, "tier=back").await.len(), 2);
    let scale = json!({"spec": {"replicas": 1}});
    sets.patch_scale("back", &PatchParams::default(), &Patch::Merge(scale))
        .await
        .unwrap();
    server.settle();
    assert_eq!(listed(&pods, "tier=back").await.len(), 1);
    let status = sets.get("back").await.unwrap().status.unwrap();
    assert_eq!(
        (
            status.replicas,
            status.fully_labeled_replicas,
            status.observed_generation
        ),
        (1, Some(1), Some(2))
    );
}

#[tokio::test]
async fn deleting_a_deployment_should_collect_its_replicasets_and_pods() {
    let server = FakeApiServer::new();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    deployments
        .create(
            &PostParams::default(),
            &deployment("gone", 2, "img:1", json!({"type": "RollingUpdate"})),
        )
        .await
        .unwrap();
    server.settle();
    deployments.delete("gone", &DeleteParams::default()).await.unwrap();
    server.settle();
    let sets: Api<ReplicaSet> = Api::default_namespaced(server.client());
    let pods: Api<Pod> = Api::default_namespaced(server.client());
    assert!(listed(&sets, "app=gone").await.is_empty());
    assert!(listed(&pods, "app=gone").await.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_rollout_that_makes_no_progress_should_exceed_its_deadline() {
    let server = FakeApiServer::builder().kube_version("v1.28.7").build();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    let mut slow = serde_json::to_value(deployment(
        "slow",
        1,
        "registry.example/slow:1",
        json!({ "type": "RollingUpdate" }),
    ))
    .unwrap();
    slow["spec"]["progressDeadlineSeconds"] = json!(2);
    deployments
        .create(&PostParams::default(), &serde_json::from_value(slow).unwrap())
        .await
        .unwrap();
    let progressing = |d: Deployment| {
        let d = serde_json::to_value(d).unwrap();
        let conditions = d["status"]["conditions"].as_array().cloned().unwrap_or_default();
        let c = conditions.into_iter().find(|c| c["type"] == "Progressing").unwrap();
        (
            c["status"].as_str().unwrap().to_owned(),
            c["reason"].as_str().unwrap().to_owned(),
        )
    };
    // Settling does not wait for a deadline: the rollout is still progressing.
    server.settle();
    let now = progressing(deployments.get("slow").await.unwrap());
    assert_eq!(now, ("True".to_owned(), "ReplicaSetUpdated".to_owned()));
    // The sync queued for the deadline (a second after it) finds no progress.
    tokio::time::sleep(std::time::Duration::from_secs(5)).await;
    let later = progressing(deployments.get("slow").await.unwrap());
    assert_eq!(later, ("False".to_owned(), "ProgressDeadlineExceeded".to_owned()));
}
