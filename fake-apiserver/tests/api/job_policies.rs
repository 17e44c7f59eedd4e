//! The Job controller's policies with a test playing the kubelet: indexed completions, the active
//! deadline, pod failure policy rules, suspension and the TTL after a Job finished.

use std::time::Duration;

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use kube::ResourceExt;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

const VERSIONS: [&str; 2] = ["v1.28.7", "v1.31.2"];

fn job(name: &str, spec: Value) -> Job {
    let mut spec = spec;
    spec["template"] = json!({ "spec": { "restartPolicy": "Never", "containers": [{ "name": "w", "image": "registry.example/w:1" }] } });
    serde_json::from_value(json!({ "metadata": { "name": name }, "spec": spec })).unwrap()
}

async fn pods_of(pods: &Api<Pod>, job: &str) -> Vec<Pod> {
    let mut listed = pods
        .list(&ListParams::default().labels(&format!("job-name={job}")))
        .await
        .unwrap()
        .items;
    listed.sort_by_key(|pod| pod.name_any());
    listed
}

async fn set_phase(pods: &Api<Pod>, name: &str, status: Value) {
    pods.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(&json!({ "status": status })),
    )
    .await
    .unwrap();
}

/// The Job's conditions as `type/status/reason`.
fn conditions(job: &Job) -> Vec<String> {
    let conditions = job.status.clone().unwrap_or_default().conditions.unwrap_or_default();
    conditions
        .into_iter()
        .map(|c| format!("{}/{}/{}", c.type_, c.status, c.reason.unwrap_or_default()))
        .collect()
}

#[tokio::test]
async fn an_indexed_job_should_make_one_pod_per_index_and_record_completed_indexes() {
    for version in VERSIONS {
        let server = FakeApiServer::builder().kube_version(version).build();
        let (jobs, pods): (Api<Job>, Api<Pod>) = (
            Api::default_namespaced(server.client()),
            Api::default_namespaced(server.client()),
        );
        let spec = json!({ "completionMode": "Indexed", "completions": 3, "parallelism": 2 });
        jobs.create(&PostParams::default(), &job("idx", spec)).await.unwrap();
        server.settle();
        let made = pods_of(&pods, "idx").await;
        let indexes: Vec<String> = made
            .iter()
            .map(|p| p.labels()["batch.kubernetes.io/job-completion-index"].clone())
            .collect();
        assert_eq!(indexes, ["0", "1"], "{version}");
        let first = &made[0];
        assert_eq!(first.metadata.generate_name.as_deref(), Some("idx-0-"));
        assert_eq!(first.annotations()["batch.kubernetes.io/job-completion-index"], "0");
        let spec = first.spec.clone().unwrap();
        assert_eq!(spec.hostname.as_deref(), Some("idx-0"));
        let env = spec.containers[0].env.clone().unwrap();
        assert_eq!(env[0].name, "JOB_COMPLETION_INDEX");

        set_phase(&pods, &made[1].name_any(), json!({ "phase": "Succeeded" })).await;
        server.settle();
        let status = jobs.get("idx").await.unwrap().status.unwrap();
        assert_eq!(status.completed_indexes.as_deref(), Some("1"), "{version}");
        assert_eq!((status.succeeded, status.active), (Some(1), Some(2)), "{version}");
        let now: Vec<String> = pods_of(&pods, "idx")
            .await
            .iter()
            .map(|p| p.labels()["batch.kubernetes.io/job-completion-index"].clone())
            .collect();
        assert!(now.contains(&"2".to_owned()), "index 2 is started: {now:?}");
    }
}

#[tokio::test]
async fn a_job_past_its_active_deadline_should_fail_and_delete_its_pods() {
    for (version, want) in [
        ("v1.28.7", vec!["Failed/True/DeadlineExceeded"]),
        (
            "v1.31.2",
            vec!["FailureTarget/True/DeadlineExceeded", "Failed/True/DeadlineExceeded"],
        ),
    ] {
        let server = FakeApiServer::builder().kube_version(version).build();
        let (jobs, pods): (Api<Job>, Api<Pod>) = (
            Api::default_namespaced(server.client()),
            Api::default_namespaced(server.client()),
        );
        jobs.create(
            &PostParams::default(),
            &job("late", json!({ "activeDeadlineSeconds": 1 })),
        )
        .await
        .unwrap();
        server.settle();
        assert_eq!(pods_of(&pods, "late").await.len(), 1);
        assert!(
            conditions(&jobs.get("late").await.unwrap()).is_empty(),
            "not before its deadline"
        );
        // The deadline counts whole seconds from the start time.
        tokio::time::sleep(Duration::from_millis(2100)).await;
        server.settle();
        let failed = jobs.get("late").await.unwrap();
        assert_eq!(conditions(&failed), want, "{version}");
        assert_eq!(
            failed.status.unwrap().failed,
            Some(1),
            "the deleted pod counts as failed"
        );
        assert!(pods_of(&pods, "late").await.is_empty(), "{version}");
    }
}

#[tokio::test]
async fn pod_failure_policy_rules_should_fail_the_job_or_ignore_the_failure() {
    for version in VERSIONS {
        let server = FakeApiServer::builder().kube_version(version).build();
        let (jobs, pods): (Api<Job>, Api<Pod>) = (
            Api::default_namespaced(server.client()),
            Api::default_namespaced(server.client()),
        );
        let policy = json!({ "podFailurePolicy": { "rules": [
            { "action": "FailJob", "onExitCodes": { "containerName": "w", "operator": "In", "values": [42] } },
            { "action": "Ignore", "onPodConditions": [{ "type": "DisruptionTarget" }] },
        ] } });
        jobs.create(&PostParams::default(), &job("pfp", policy.clone()))
            .await
            .unwrap();
        jobs.create(&PostParams::default(), &job("ignored", policy))
            .await
            .unwrap();
        server.settle();
        let disrupted = pods_of(&pods, "ignored").await.remove(0).name_any();
        let condition = json!({ "phase": "Failed", "conditions": [{ "type": "DisruptionTarget", "status": "True" }] });
        set_phase(&pods, &disrupted, condition).await;
        let second = pods_of(&pods, "pfp").await.remove(0).name_any();
        let exit_42 = json!({ "phase": "Failed", "containerStatuses": [{ "name": "w", "image": "registry.example/w:1",
            "imageID": "", "ready": false, "restartCount": 0, "state": { "terminated": { "exitCode": 42 } } }] });
        set_phase(&pods, &second, exit_42).await;
        server.settle();
        let ignored = jobs.get("ignored").await.unwrap();
        assert_eq!(
            ignored.status.clone().unwrap().failed,
            None,
            "an ignored failure is not counted, {version}"
        );
        assert!(conditions(&ignored).is_empty(), "{version}");
        let failed = jobs.get("pfp").await.unwrap();
        assert_eq!(
            conditions(&failed),
            ["FailureTarget/True/PodFailurePolicy", "Failed/True/PodFailurePolicy"],
            "{version}"
        );
        let message = failed.status.unwrap().conditions.unwrap()[1].message.clone().unwrap();
        assert_eq!(
            message,
            format!("Container w for pod default/{second} failed with exit code 42 matching FailJob rule at index 0")
        );
    }
}

#[tokio::test]
async fn a_suspended_job_should_make_no_pods_until_it_is_resumed() {
    for version in VERSIONS {
        let server = FakeApiServer::builder().kube_version(version).build();
        let (jobs, pods): (Api<Job>, Api<Pod>) = (
            Api::default_namespaced(server.client()),
            Api::default_namespaced(server.client()),
        );
        jobs.create(&PostParams::default(), &job("held", json!({ "suspend": true })))
            .await
            .unwrap();
        server.settle();
        assert!(pods_of(&pods, "held").await.is_empty());
        assert_eq!(
            conditions(&jobs.get("held").await.unwrap()),
            ["Suspended/True/JobSuspended"]
        );
        let resume = json!({ "spec": { "suspend": false } });
        jobs.patch("held", &PatchParams::default(), &Patch::Merge(&resume))
            .await
            .unwrap();
        server.settle();
        assert_eq!(pods_of(&pods, "held").await.len(), 1, "{version}");
        let resumed = jobs.get("held").await.unwrap();
        assert_eq!(conditions(&resumed), ["Suspended/False/JobResumed"], "{version}");
        assert!(resumed.status.unwrap().start_time.is_some());
    }
}

#[tokio::test]
async fn a_finished_job_with_a_ttl_should_be_deleted_with_its_pods() {
    let server = FakeApiServer::new();
    let (jobs, pods): (Api<Job>, Api<Pod>) = (
        Api::default_namespaced(server.client()),
        Api::default_namespaced(server.client()),
    );
    jobs.create(
        &PostParams::default(),
        &job("brief", json!({ "ttlSecondsAfterFinished": 0 })),
    )
    .await
    .unwrap();
    jobs.create(&PostParams::default(), &job("kept", json!({})))
        .await
        .unwrap();
    server.settle();
    for name in ["brief", "kept"] {
        let pod = pods_of(&pods, name).await.remove(0).name_any();
        set_phase(&pods, &pod, json!({ "phase": "Succeeded" })).await;
    }
    server.settle();
    assert!(jobs.get_opt("brief").await.unwrap().is_none(), "its TTL ran out");
    assert!(pods_of(&pods, "brief").await.is_empty(), "deleted in the foreground");
    assert!(jobs.get_opt("kept").await.unwrap().is_some(), "no TTL, kept");
}

#[tokio::test]
async fn a_failed_pod_should_be_replaced_only_after_the_backoff() {
    let server = FakeApiServer::new();
    let (jobs, pods): (Api<Job>, Api<Pod>) = (
        Api::default_namespaced(server.client()),
        Api::default_namespaced(server.client()),
    );
    jobs.create(&PostParams::default(), &job("retry", json!({ "backoffLimit": 3 })))
        .await
        .unwrap();
    server.settle();
    let first = pods_of(&pods, "retry").await.remove(0).name_any();
    set_phase(&pods, &first, json!({ "phase": "Failed" })).await;
    server.settle();
    assert_eq!(
        pods_of(&pods, "retry").await.len(),
        1,
        "no replacement within 10 s of the failure"
    );
    let status = jobs.get("retry").await.unwrap().status.unwrap();
    assert_eq!(
        (status.failed, status.active),
        (Some(1), None),
        "Go reports no pod active while it waits"
    );
}

#[tokio::test]
async fn an_index_past_its_own_backoff_limit_should_fail_for_good_from_1_29() {
    for (version, want) in [
        ("v1.28.7", None),
        (
            "v1.31.2",
            Some(vec!["FailureTarget/True/FailedIndexes", "Failed/True/FailedIndexes"]),
        ),
    ] {
        let server = FakeApiServer::builder().kube_version(version).build();
        let (jobs, pods): (Api<Job>, Api<Pod>) = (
            Api::default_namespaced(server.client()),
            Api::default_namespaced(server.client()),
        );
        let spec =
            json!({ "completionMode": "Indexed", "completions": 2, "parallelism": 2, "backoffLimitPerIndex": 0 });
        jobs.create(&PostParams::default(), &job("perindex", spec))
            .await
            .unwrap();
        server.settle();
        let made = pods_of(&pods, "perindex").await;
        let counts: Vec<Option<String>> = made
            .iter()
            .map(|p| {
                p.annotations()
                    .get("batch.kubernetes.io/job-index-failure-count")
                    .cloned()
            })
            .collect();
        let wanted_count = (version == "v1.31.2").then(|| "0".to_owned());
        assert_eq!(counts, [wanted_count.clone(), wanted_count], "{version}");
        set_phase(&pods, &made[0].name_any(), json!({ "phase": "Failed" })).await;
        set_phase(&pods, &made[1].name_any(), json!({ "phase": "Succeeded" })).await;
        server.settle();
        let finished = jobs.get("perindex").await.unwrap();
        let status = finished.status.clone().unwrap();
        match want {
            Some(want) => {
                assert_eq!(status.failed_indexes.as_deref(), Some("0"));
                assert_eq!(conditions(&finished), want);
            }
            None => {
                assert_eq!(status.failed_indexes, None, "the field is dropped before 1.29");
                assert!(conditions(&finished).is_empty(), "index 0 is retried after the backoff");
            }
        }
    }
}
