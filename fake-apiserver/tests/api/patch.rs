//! patch: JSON merge, JSON patch, strategic merge, server-side apply; /status and /scale.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::common::*;

fn deployment(name: &str, replicas: i32) -> Deployment {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": { "name": name },
        "spec": {
            "replicas": replicas, "selector": { "matchLabels": { "app": name } },
            "template": { "metadata": { "labels": { "app": name } },
                          "spec": { "containers": [{ "name": "app", "image": "nginx:1" }, { "name": "sidecar", "image": "envoy:1" }] } }
        }
    }))
    .unwrap()
}

#[tokio::test]
async fn merge_and_json_patches_should_edit_objects() {
    let server = server();
    let api = vms(&server);
    api.create(&PostParams::default(), &vm("test-vm", 2)).await.unwrap();
    let merged = api
        .patch(
            "test-vm",
            &PatchParams::default(),
            &Patch::Merge(json!({ "metadata": { "labels": { "a": "b" } }, "spec": { "resource": { "cpu": 3 } } })),
        )
        .await
        .unwrap();
    assert_eq!(merged.spec.resource.cpu, 3);
    assert_eq!(merged.metadata.generation, Some(2));

    // kube-runtime's finalizer helper guards its JSON patch with a `test` operation.
    let add_finalizer: json_patch::Patch = serde_json::from_value(json!([
        { "op": "test", "path": "/metadata/finalizers", "value": null },
        { "op": "add", "path": "/metadata/finalizers", "value": ["cloudnative.tw/finalizer"] }
    ]))
    .unwrap();
    let patched = api
        .patch(
            "test-vm",
            &PatchParams::default(),
            &Patch::<()>::Json(add_finalizer.clone()),
        )
        .await
        .unwrap();
    assert_eq!(
        patched.metadata.finalizers,
        Some(vec!["cloudnative.tw/finalizer".to_owned()])
    );
    let failed_test = api_error(
        api.patch("test-vm", &PatchParams::default(), &Patch::<()>::Json(add_finalizer))
            .await,
    );
    assert_eq!(failed_test.code, 422);

    let stale = json!({ "metadata": { "resourceVersion": "1" }, "spec": { "resource": { "cpu": 9 } } });
    let conflict = api_error(
        api.patch("test-vm", &PatchParams::default(), &Patch::Merge(stale))
            .await,
    );
    assert_eq!(conflict.code, 409);
}

#[tokio::test]
async fn strategic_merge_should_merge_containers_by_name_for_builtins_only() {
    let server = server();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    deployments
        .create(&PostParams::default(), &deployment("web", 1))
        .await
        .unwrap();
    let patch =
        json!({ "spec": { "template": { "spec": { "containers": [{ "name": "app", "image": "nginx:2" }] } } } });
    let patched = deployments
        .patch("web", &PatchParams::default(), &Patch::Strategic(patch))
        .await
        .unwrap();
    let containers = patched.spec.template.spec.unwrap().containers;
    let images: Vec<_> = containers
        .iter()
        .map(|c| (c.name.as_str(), c.image.as_deref().unwrap()))
        .collect();
    assert_eq!(images, [("app", "nginx:2"), ("sidecar", "envoy:1")]);

    let api = vms(&server);
    api.create(&PostParams::default(), &vm("test-vm", 2)).await.unwrap();
    let refused = api_error(
        api.patch("test-vm", &PatchParams::default(), &Patch::Strategic(json!({})))
            .await,
    );
    assert_eq!((refused.code, refused.reason.as_str()), (415, "UnsupportedMediaType"));
}

#[tokio::test]
async fn server_side_apply_should_track_managers_and_conflict() {
    let server = server();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    let mut desired = deployment("web", 2);
    desired.metadata.labels = Some([("tier".to_owned(), "front".to_owned())].into());
    let created = deployments
        .patch("web", &PatchParams::apply("foo-controller"), &Patch::Apply(&desired))
        .await
        .unwrap();
    assert_eq!(created.spec.replicas, Some(2));
    let managers = created.metadata.managed_fields.unwrap();
    assert_eq!(
        (managers[0].manager.as_deref(), managers[0].operation.as_deref()),
        (Some("foo-controller"), Some("Apply"))
    );

    // Someone else applying another replica count conflicts on exactly that field...
    let scaler = deployment("web", 5);
    let conflict = api_error(
        deployments
            .patch("web", &PatchParams::apply("autoscaler"), &Patch::Apply(&scaler))
            .await,
    );
    assert_eq!((conflict.code, conflict.reason.as_str()), (409, "Conflict"));
    assert!(
        conflict.message.contains("conflict with \"foo-controller\""),
        "{}",
        conflict.message
    );
    assert!(conflict.message.contains(".spec.replicas"), "{}", conflict.message);
    // ...unless forced, which takes ownership.
    let forced = deployments
        .patch("web", &PatchParams::apply("autoscaler").force(), &Patch::Apply(&scaler))
        .await
        .unwrap();
    assert_eq!(forced.spec.replicas, Some(5));

    // A manager that stops applying a field removes it when nobody else owns it.
    let mut without_label = deployment("web", 2);
    without_label.spec.replicas = None;
    let after = deployments
        .patch(
            "web",
            &PatchParams::apply("foo-controller"),
            &Patch::Apply(&without_label),
        )
        .await
        .unwrap();
    assert_eq!(after.metadata.labels, None);
    assert_eq!(after.spec.replicas, Some(5), "replicas now belong to the autoscaler");
}

#[tokio::test]
async fn updates_should_take_fields_from_appliers() {
    let server = server();
    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let applied: ConfigMap = serde_json::from_value(
        json!({ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": "cfg" }, "data": { "mode": "a" } }),
    )
    .unwrap();
    configmaps
        .patch("cfg", &PatchParams::apply("applier"), &Patch::Apply(&applied))
        .await
        .unwrap();
    configmaps
        .patch(
            "cfg",
            &PatchParams {
                field_manager: Some("editor".into()),
                ..Default::default()
            },
            &Patch::Merge(json!({ "data": { "mode": "b" } })),
        )
        .await
        .unwrap();
    let conflict = api_error(
        configmaps
            .patch("cfg", &PatchParams::apply("applier"), &Patch::Apply(&applied))
            .await,
    );
    assert!(
        conflict.message.contains("conflict with \"editor\""),
        "{}",
        conflict.message
    );
}

#[tokio::test]
async fn status_patch_should_touch_only_status() {
    let server = server();
    let api = vms(&server);
    api.create(&PostParams::default(), &vm("test-vm", 2)).await.unwrap();
    let patch = json!({ "status": { "phase": "Creating" }, "spec": { "resource": { "cpu": 64 } } });
    let patched = api
        .patch_status("test-vm", &PatchParams::default(), &Patch::Merge(patch))
        .await
        .unwrap();
    assert_eq!(patched.status.unwrap().phase, "Creating");
    assert_eq!(patched.spec.resource.cpu, 2);

    let applied = json!({ "apiVersion": "cloudnative.tw/v1alpha1", "kind": "VirtualMachine", "metadata": { "name": "test-vm" }, "status": { "phase": "Active" } });
    // The merge patch above made its manager the owner of status.phase.
    let conflict = api_error(
        api.patch_status("test-vm", &PatchParams::apply("vm-controller"), &Patch::Apply(&applied))
            .await,
    );
    assert_eq!(conflict.code, 409);
    let forced = PatchParams::apply("vm-controller").force();
    let applied = api
        .patch_status("test-vm", &forced, &Patch::Apply(applied))
        .await
        .unwrap();
    assert_eq!(applied.status.unwrap().phase, "Active");
}

#[tokio::test]
async fn scale_subresource_should_read_and_write_replicas() {
    let server = server();
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    deployments
        .create(&PostParams::default(), &deployment("web", 2))
        .await
        .unwrap();
    let scale = deployments.get_scale("web").await.unwrap();
    assert_eq!(scale.spec.unwrap().replicas, Some(2));
    assert_eq!(scale.status.unwrap().selector.as_deref(), Some("app=web"));

    let patched = deployments
        .patch_scale(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({ "spec": { "replicas": 4 } })),
        )
        .await
        .unwrap();
    assert_eq!(patched.spec.unwrap().replicas, Some(4));
    assert_eq!(deployments.get("web").await.unwrap().spec.replicas, Some(4));
}

#[tokio::test]
async fn server_side_apply_should_merge_set_and_keyed_lists_per_element() {
    let server = server();
    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let with_finalizer = |finalizer: Option<&str>| -> ConfigMap {
        serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": { "name": "shared", "finalizers": finalizer.into_iter().collect::<Vec<_>>() }
        }))
        .unwrap()
    };
    configmaps
        .patch(
            "shared",
            &PatchParams::apply("a"),
            &Patch::Apply(with_finalizer(Some("a.io/x"))),
        )
        .await
        .unwrap();
    let both = configmaps
        .patch(
            "shared",
            &PatchParams::apply("b"),
            &Patch::Apply(with_finalizer(Some("b.io/y"))),
        )
        .await
        .unwrap();
    assert_eq!(
        both.metadata.finalizers,
        Some(vec!["a.io/x".to_owned(), "b.io/y".to_owned()]),
        "finalizers are a set"
    );
    let after = configmaps
        .patch("shared", &PatchParams::apply("a"), &Patch::Apply(with_finalizer(None)))
        .await
        .unwrap();
    assert_eq!(
        after.metadata.finalizers,
        Some(vec!["b.io/y".to_owned()]),
        "a removes only its own"
    );

    // Containers are keyed by name: a second manager adding a sidecar conflicts with nobody.
    let deployments: Api<Deployment> = Api::default_namespaced(server.client());
    let mut app = deployment("web", 1);
    app.spec.template.spec.as_mut().unwrap().containers.truncate(1);
    deployments
        .patch("web", &PatchParams::apply("app-team"), &Patch::Apply(&app))
        .await
        .unwrap();
    let sidecar = json!({ "apiVersion": "apps/v1", "kind": "Deployment", "metadata": { "name": "web" },
        "spec": { "template": { "spec": { "containers": [{ "name": "proxy", "image": "envoy:2" }] } } } });
    let merged = deployments
        .patch("web", &PatchParams::apply("mesh"), &Patch::Apply(&sidecar))
        .await
        .unwrap();
    let names: Vec<String> = merged
        .spec
        .template
        .spec
        .unwrap()
        .containers
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["app", "proxy"]);
    let takeover = json!({ "apiVersion": "apps/v1", "kind": "Deployment", "metadata": { "name": "web" },
        "spec": { "template": { "spec": { "containers": [{ "name": "app", "image": "nginx:9" }] } } } });
    let conflict = api_error(
        deployments
            .patch("web", &PatchParams::apply("mesh"), &Patch::Apply(&takeover))
            .await,
    );
    assert!(
        conflict
            .message
            .contains(".spec.template.spec.containers[name=\"app\"].image"),
        "{}",
        conflict.message
    );
}
