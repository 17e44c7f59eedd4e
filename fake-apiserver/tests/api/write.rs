//! create, get, update and the status subresource.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ObjectMeta, PostParams};
use serde_json::json;

use crate::common::*;

#[tokio::test]
async fn create_should_fill_server_fields_and_refuse_duplicates() {
    let server = server();
    let api = vms(&server);
    let created = api.create(&PostParams::default(), &vm("test-vm", 2)).await.unwrap();
    let meta = &created.metadata;
    assert_eq!(meta.namespace.as_deref(), Some("default"));
    assert!(meta.uid.as_deref().is_some_and(|u| u.len() == 36));
    assert!(meta.creation_timestamp.is_some());
    assert!(meta.resource_version.is_some());
    assert_eq!(meta.generation, Some(1));
    let fetched = api.get("test-vm").await.unwrap();
    assert_eq!((&fetched.metadata, &fetched.spec), (&created.metadata, &created.spec));

    let duplicate = api_error(api.create(&PostParams::default(), &vm("test-vm", 2)).await);
    assert_eq!((duplicate.code, duplicate.reason.as_str()), (409, "AlreadyExists"));
    assert_eq!(
        duplicate.message,
        "virtualmachines.cloudnative.tw \"test-vm\" already exists"
    );
    assert!(api_error(api.get("missing").await).is_not_found());
}

#[tokio::test]
async fn create_should_generate_names_and_validate_them() {
    let server = server();
    let api = vms(&server);
    let mut generated = vm("", 1);
    generated.metadata.name = None;
    generated.metadata.generate_name = Some("vm-".into());
    let created = api.create(&PostParams::default(), &generated).await.unwrap();
    let name = created.metadata.name.unwrap();
    assert!(name.starts_with("vm-") && name.len() == 8, "{name}");

    let invalid = api_error(api.create(&PostParams::default(), &vm("Not_Valid", 1)).await);
    assert_eq!((invalid.code, invalid.reason.as_str()), (422, "Invalid"));
    let mut nameless = vm("", 1);
    nameless.metadata.name = None;
    let nameless = api_error(api.create(&PostParams::default(), &nameless).await);
    assert!(
        nameless.message.contains("name or generateName is required"),
        "{}",
        nameless.message
    );
}

#[tokio::test]
async fn create_should_need_an_existing_namespace_unless_auto_created() {
    let server = server();
    let elsewhere: Api<ConfigMap> = Api::namespaced(server.client(), "nowhere");
    let missing = api_error(elsewhere.create(&PostParams::default(), &configmap("a", &[])).await);
    assert_eq!(
        (missing.code, missing.message.as_str()),
        (404, "namespaces \"nowhere\" not found")
    );

    let lenient = fake_apiserver::FakeApiServer::builder()
        .auto_create_namespaces(true)
        .build();
    let elsewhere: Api<ConfigMap> = Api::namespaced(lenient.client(), "nowhere");
    elsewhere
        .create(&PostParams::default(), &configmap("a", &[]))
        .await
        .unwrap();
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(lenient.client());
    assert!(namespaces.get("nowhere").await.is_ok());
}

#[tokio::test]
async fn update_should_conflict_on_a_stale_resource_version() {
    let server = server();
    let api = vms(&server);
    let first = api.create(&PostParams::default(), &vm("test-vm", 2)).await.unwrap();
    let mut newer = first.clone();
    newer.spec.resource.cpu = 4;
    let newer = api.replace("test-vm", &PostParams::default(), &newer).await.unwrap();
    assert_eq!(newer.metadata.generation, Some(2));

    let mut stale = first.clone();
    stale.spec.resource.cpu = 8;
    let conflict = api_error(api.replace("test-vm", &PostParams::default(), &stale).await);
    assert_eq!((conflict.code, conflict.reason.as_str()), (409, "Conflict"));
    assert!(
        conflict.message.contains("the object has been modified"),
        "{}",
        conflict.message
    );

    let mut other_name = newer.clone();
    other_name.metadata.name = Some("other".into());
    let mismatch = api_error(api.replace("test-vm", &PostParams::default(), &other_name).await);
    assert_eq!(mismatch.code, 400);
}

#[tokio::test]
async fn update_should_bump_generation_only_when_spec_changes() {
    let server = server();
    let api = vms(&server);
    let created = api.create(&PostParams::default(), &vm("test-vm", 2)).await.unwrap();
    let mut labelled = created.clone();
    labelled.metadata.labels = Some([("team".to_owned(), "a".to_owned())].into());
    let labelled = api.replace("test-vm", &PostParams::default(), &labelled).await.unwrap();
    assert_eq!(labelled.metadata.generation, Some(1));
    assert_ne!(labelled.metadata.resource_version, created.metadata.resource_version);

    // An update that changes nothing keeps the resourceVersion: no event, no churn.
    let again = api.replace("test-vm", &PostParams::default(), &labelled).await.unwrap();
    assert_eq!(again.metadata.resource_version, labelled.metadata.resource_version);
}

#[tokio::test]
async fn status_subresource_should_split_spec_and_status_writes() {
    let server = server();
    let api = vms(&server);
    let mut with_status = vm("test-vm", 2);
    with_status.status = Some(VirtualMachineStatus {
        phase: "Ignored".into(),
        reason: None,
        server: None,
    });
    let created = api.create(&PostParams::default(), &with_status).await.unwrap();
    assert_eq!(
        created.status, None,
        "create drops status when /status is a subresource"
    );

    let mut status_write = created.clone();
    status_write.status = Some(VirtualMachineStatus {
        phase: "Active".into(),
        reason: None,
        server: None,
    });
    status_write.spec.resource.cpu = 99;
    let after = api
        .replace_status("test-vm", &PostParams::default(), &status_write)
        .await
        .unwrap();
    assert_eq!(after.status.as_ref().unwrap().phase, "Active");
    assert_eq!(after.spec.resource.cpu, 2, "/status ignores everything but status");
    assert_eq!(after.metadata.generation, Some(1));

    let mut spec_write = after.clone();
    spec_write.spec.resource.cpu = 3;
    spec_write.status = Some(VirtualMachineStatus {
        phase: "Tampered".into(),
        reason: None,
        server: None,
    });
    let after = api
        .replace("test-vm", &PostParams::default(), &spec_write)
        .await
        .unwrap();
    assert_eq!(
        after.status.unwrap().phase,
        "Active",
        "the main resource ignores status"
    );
    assert_eq!(after.spec.resource.cpu, 3);
    assert_eq!(after.metadata.generation, Some(2));
}

#[tokio::test]
async fn create_should_apply_the_crd_schema() {
    let server = server();
    let api: Api<kube::api::DynamicObject> = Api::namespaced_with(
        server.client(),
        "default",
        &kube::api::ApiResource::erase::<VirtualMachine>(&()),
    );
    let bad: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "cloudnative.tw/v1alpha1", "kind": "VirtualMachine",
        "metadata": { "name": "bad" },
        "spec": { "resource": { "cpu": "two", "memory": "1Gi" }, "unknown": true }
    }))
    .unwrap();
    let invalid = api_error(api.create(&PostParams::default(), &bad).await);
    assert_eq!((invalid.code, invalid.reason.as_str()), (422, "Invalid"));
    assert!(
        invalid
            .message
            .contains("spec.resource.cpu in body must be of type integer"),
        "{}",
        invalid.message
    );

    let pruned: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "cloudnative.tw/v1alpha1", "kind": "VirtualMachine",
        "metadata": { "name": "pruned" },
        "spec": { "resource": { "cpu": 1, "memory": "1Gi" }, "unknown": true }
    }))
    .unwrap();
    let created = api.create(&PostParams::default(), &pruned).await.unwrap();
    assert_eq!(
        created.data["spec"],
        json!({ "resource": { "cpu": 1, "memory": "1Gi" } })
    );
}

#[tokio::test]
async fn builtins_should_keep_deployment_status_for_the_controller() {
    let server = fake_apiserver::FakeApiServer::new();
    let api: Api<Deployment> = Api::default_namespaced(server.client());
    let mut deployment = Deployment {
        metadata: ObjectMeta {
            name: Some("web".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    deployment.spec = serde_json::from_value(json!({
        "replicas": 1, "selector": { "matchLabels": { "app": "web" } },
        "template": { "metadata": { "labels": { "app": "web" } }, "spec": { "containers": [{ "name": "web", "image": "nginx" }] } }
    }))
    .unwrap();
    let created = api.create(&PostParams::default(), &deployment).await.unwrap();
    let mut status = created.clone();
    status.status =
        Some(serde_json::from_value(json!({ "availableReplicas": 1, "readyReplicas": 1, "replicas": 1 })).unwrap());
    let updated = api
        .replace_status("web", &PostParams::default(), &status)
        .await
        .unwrap();
    assert_eq!(updated.status.unwrap().available_replicas, Some(1));
}

#[tokio::test]
async fn identity_fields_should_be_immutable() {
    use kube::api::{DeleteParams, Patch, PatchParams};
    let server = server();
    let api = vms(&server);
    let mut held = vm("test-vm", 2);
    held.metadata.finalizers = Some(vec!["finalizer.cloudnative.tw".into()]);
    api.create(&PostParams::default(), &held).await.unwrap();
    let rename = Patch::Merge(json!({ "metadata": { "name": "other" } }));
    let invalid = api_error(api.patch("test-vm", &PatchParams::default(), &rename).await);
    // kube-apiserver's patch handler checks the patched name before validation (`checkName`).
    assert_eq!(invalid.code, 400);
    assert_eq!(
        invalid.message,
        "the name of the object (other) does not match the name on the URL (test-vm)"
    );

    api.delete("test-vm", &DeleteParams::default()).await.unwrap();
    let rename_and_release = Patch::Merge(json!({ "metadata": { "name": "other", "finalizers": null } }));
    assert_eq!(
        api_error(api.patch("test-vm", &PatchParams::default(), &rename_and_release).await).code,
        400
    );
    assert!(api_error(api.get("other").await).is_not_found());
}

#[tokio::test]
async fn custom_resources_should_need_a_resource_version_to_update() {
    let server = server();
    let api = vms(&server);
    api.create(&PostParams::default(), &vm("test-vm", 2)).await.unwrap();
    let invalid = api_error(api.replace("test-vm", &PostParams::default(), &vm("test-vm", 3)).await);
    assert!(
        invalid
            .message
            .contains("metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"),
        "{}",
        invalid.message
    );

    let configmaps: Api<ConfigMap> = Api::default_namespaced(server.client());
    let created = configmaps
        .create(&PostParams::default(), &configmap("cm", &[]))
        .await
        .unwrap();
    assert_eq!(created.metadata.generation, None, "ConfigMaps have no generation");
    configmaps
        .replace("cm", &PostParams::default(), &configmap("cm", &[("a", "b")]))
        .await
        .unwrap();
}

#[tokio::test]
async fn invalid_namespace_names_should_not_be_auto_created() {
    let server = fake_apiserver::FakeApiServer::builder()
        .auto_create_namespaces(true)
        .build();
    let bad: Api<ConfigMap> = Api::namespaced(server.client(), "Bad_NS");
    let missing = api_error(bad.create(&PostParams::default(), &configmap("a", &[])).await);
    assert_eq!(missing.code, 404);
}

#[tokio::test]
async fn managed_fields_sent_as_one_empty_entry_should_be_cleared_and_stay_untracked() {
    use kube::api::{Patch, PatchParams};
    let server = server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let config = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}});
    let applied = api
        .patch("settings", &PatchParams::apply("alpha"), &Patch::Apply(config))
        .await
        .unwrap();
    assert!(applied.metadata.managed_fields.is_some());

    let params = PatchParams {
        field_manager: Some("janitor".to_owned()),
        ..PatchParams::default()
    };
    let reset = json!({"metadata": {"managedFields": [{}]}});
    let cleared = api.patch("settings", &params, &Patch::Merge(reset)).await.unwrap();
    assert_eq!(cleared.metadata.managed_fields, None);

    let change = json!({"data": {"b": "2"}});
    let changed = api.patch("settings", &params, &Patch::Merge(change)).await.unwrap();
    assert_eq!(
        changed.metadata.managed_fields, None,
        "updates do not track an object with none"
    );
}
