//! Testing aids: recorded actions, reactors, injected faults and latency.

use std::time::Duration;

use fake_apiserver::{ApiStatus, Verb};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::common::*;

#[tokio::test]
async fn actions_should_record_every_request() {
    let server = server();
    let api = vms(&server);
    server.clear_actions();
    let created = api.create(&PostParams::default(), &vm("test-vm", 2)).await.unwrap();
    api.patch_status(
        "test-vm",
        &PatchParams::default(),
        &Patch::Merge(json!({ "status": { "phase": "Active" } })),
    )
    .await
    .unwrap();
    api.list(&ListParams::default().labels("a=b")).await.unwrap();

    let actions = server.actions();
    let summary: Vec<(Verb, &str, Option<&str>)> = actions
        .iter()
        .map(|a| (a.verb, a.resource.as_str(), a.subresource.as_deref()))
        .collect();
    assert_eq!(
        summary,
        [
            (Verb::Create, "virtualmachines", None),
            (Verb::Patch, "virtualmachines", Some("status")),
            (Verb::List, "virtualmachines", None)
        ]
    );
    assert_eq!(actions[0].object::<VirtualMachine>().unwrap().spec, created.spec);
    assert_eq!(actions[1].patch_type.as_deref(), Some("application/merge-patch+json"));
    assert!(actions[1].matches("patch", "virtualmachines/status"));
    assert_eq!(actions[2].label_selector.as_deref(), Some("a=b"));
    server.clear_actions();
    assert!(server.actions().is_empty());
}

#[tokio::test]
async fn reactors_should_answer_in_the_servers_place() {
    let server = server();
    let api = vms(&server);
    let created = api.create(&PostParams::default(), &vm("test-vm", 2)).await.unwrap();
    server.prepend_reactor("update", "virtualmachines", |_| {
        Some(Err(ApiStatus::internal("injected by reactor")))
    });
    let mut changed = created.clone();
    changed.spec.resource.cpu = 3;
    let failed = api_error(api.replace("test-vm", &PostParams::default(), &changed).await);
    assert_eq!((failed.code, failed.message.as_str()), (500, "injected by reactor"));

    let canned = serde_json::to_value(vm("canned", 42)).unwrap();
    server.prepend_reactor("get", "*", move |action| {
        (action.name.as_deref() == Some("canned")).then(|| Ok(canned.clone()))
    });
    assert_eq!(api.get("canned").await.unwrap().spec.resource.cpu, 42);
    assert_eq!(
        api.get("test-vm").await.unwrap().spec.resource.cpu,
        2,
        "a reactor returning None passes on"
    );
}

#[tokio::test]
async fn fail_next_should_fail_exactly_that_many_requests() {
    let server = server();
    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    server.fail_next(2, "create", "configmaps", ApiStatus::service_unavailable("try later"));
    for _ in 0..2 {
        let failed = api_error(configmaps.create(&PostParams::default(), &configmap("a", &[])).await);
        assert_eq!((failed.code, failed.reason.as_str()), (503, "ServiceUnavailable"));
    }
    configmaps
        .create(&PostParams::default(), &configmap("a", &[]))
        .await
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn latency_should_delay_requests() {
    let server = server();
    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    server.set_latency(Duration::from_secs(3));
    let started = tokio::time::Instant::now();
    configmaps.list(&ListParams::default()).await.unwrap();
    assert!(started.elapsed() >= Duration::from_secs(3));
}
