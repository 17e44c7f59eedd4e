//! The Job controller with a test playing the kubelet: a running Job's pods with the tracking
//! finalizer, counted when they end, the Job completed or failed with each minor's conditions.

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::ResourceExt;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

fn job(name: &str, spec: Value) -> Job {
    let mut spec = spec;
    spec["template"] = json!({ "spec": { "restartPolicy": "Never", "containers": [{ "name": "w", "image": "registry.example/w:1" }] } });
    serde_json::from_value(json!({ "metadata": { "name": name }, "spec": spec })).unwrap()
}

async fn listed<K>(api: &Api<K>, selector: &str) -> Vec<K>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.list(&ListParams::default().labels(selector)).await.unwrap().items
}

/// The types and reasons of the Job's conditions, in order.
fn conditions(job: &Job) -> Vec<(String, Option<String>)> {
    let status = job.status.clone().unwrap_or_default();
    status
        .conditions
        .unwrap_or_default()
        .into_iter()
        .map(|c| (c.type_, c.reason))
        .collect()
}

#[tokio::test]
async fn a_running_job_should_get_its_pods_with_the_tracking_finalizer_and_count_them() {
    for version in ["v1.28.7", "v1.31.2"] {
        let server = FakeApiServer::builder().kube_version(version).build();
        let jobs: Api<Job> = Api::default_namespaced(server.client());
        jobs.create(
            &PostParams::default(),
            &job("work", json!({ "parallelism": 2, "completions": 3 })),
        )
        .await
        .unwrap();
        server.settle();
        let pods: Api<Pod> = Api::default_namespaced(server.client());
        let made = listed(&pods, "batch.kubernetes.io/job-name=work").await;
        assert_eq!(made.len(), 2, "the parallelism, {version}");
        for pod in &made {
            assert_eq!(
                pod.metadata.finalizers.as_deref(),
                Some(&["batch.kubernetes.io/job-tracking".to_owned()][..])
            );
            assert_eq!(pod.metadata.generate_name.as_deref(), Some("work-"));
        }
        let status = jobs.get("work").await.unwrap().status.unwrap();
        assert_eq!((status.active, status.ready), (Some(2), Some(0)), "{version}");
        assert!(status.start_time.is_some());
        assert_eq!(
            status.terminating.is_some(),
            version == "v1.31.2",
            "terminating is counted from 1.29"
        );
        let events: Api<Event> = Api::default_namespaced(server.client());
        let created = events
            .list(&ListParams::default().fields("involvedObject.kind=Job,reason=SuccessfulCreate"))
            .await
            .unwrap();
        assert_eq!(created.items.len(), 2, "{version}");
    }
}

#[tokio::test]
async fn a_job_whose_pod_succeeds_should_complete_and_release_the_pod() {
    for (version, want) in [
        ("v1.28.7", vec![("Complete".to_owned(), None)]),
        (
            "v1.31.2",
            vec![
                ("SuccessCriteriaMet".to_owned(), Some("CompletionsReached".to_owned())),
                ("Complete".to_owned(), Some("CompletionsReached".to_owned())),
            ],
        ),
    ] {
        let server = FakeApiServer::builder().kube_version(version).build();
        let jobs: Api<Job> = Api::default_namespaced(server.client());
        jobs.create(&PostParams::default(), &job("ok", json!({})))
            .await
            .unwrap();
        server.settle();
        let pods: Api<Pod> = Api::default_namespaced(server.client());
        let pod = listed(&pods, "job-name=ok").await.remove(0).name_any();
        let succeeded = json!({ "status": { "phase": "Succeeded" } });
        pods.patch_status(&pod, &PatchParams::default(), &Patch::Merge(&succeeded))
            .await
            .unwrap();
        server.settle();
        let done = jobs.get("ok").await.unwrap();
        let status = done.status.clone().unwrap();
        assert_eq!((status.succeeded, status.active), (Some(1), None), "{version}");
        assert!(status.completion_time.is_some(), "{version}");
        assert_eq!(conditions(&done), want, "{version}");
        assert!(
            pods.get(&pod).await.unwrap().finalizers().is_empty(),
            "the finalizer is removed"
        );
        let events: Api<Event> = Api::default_namespaced(server.client());
        let completed = events
            .list(&ListParams::default().fields("involvedObject.name=ok,reason=Completed"))
            .await
            .unwrap();
        assert_eq!(completed.items.len(), 1, "{version}");
    }
}

#[tokio::test]
async fn a_job_past_its_backoff_limit_should_fail() {
    for (version, want) in [
        ("v1.28.7", vec!["Failed"]),
        ("v1.31.2", vec!["FailureTarget", "Failed"]),
    ] {
        let server = FakeApiServer::builder().kube_version(version).build();
        let jobs: Api<Job> = Api::default_namespaced(server.client());
        jobs.create(&PostParams::default(), &job("bad", json!({ "backoffLimit": 0 })))
            .await
            .unwrap();
        server.settle();
        let pods: Api<Pod> = Api::default_namespaced(server.client());
        let pod = listed(&pods, "job-name=bad").await.remove(0).name_any();
        let failed = json!({ "status": { "phase": "Failed" } });
        pods.patch_status(&pod, &PatchParams::default(), &Patch::Merge(&failed))
            .await
            .unwrap();
        server.settle();
        let done = jobs.get("bad").await.unwrap();
        assert_eq!(done.status.clone().unwrap().failed, Some(1), "{version}");
        let got: Vec<String> = conditions(&done)
            .into_iter()
            .map(|(kind, reason)| {
                assert_eq!(reason.as_deref(), Some("BackoffLimitExceeded"));
                kind
            })
            .collect();
        assert_eq!(got, want, "{version}");
        assert_eq!(
            listed(&pods, "job-name=bad").await.len(),
            1,
            "no pod replaces the failed one"
        );
    }
}
