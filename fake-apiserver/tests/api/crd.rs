//! CustomResourceDefinition objects: creating one serves its kind, deleting one removes it.

use fake_apiserver::FakeApiServer;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResourceExt;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use kube::discovery::Discovery;

use crate::common::*;

#[tokio::test]
async fn creating_a_crd_should_serve_its_kind() {
    let server = FakeApiServer::new();
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    assert_eq!(api_error(vms(&server).list(&ListParams::default()).await).code, 404);

    let created = crds
        .create(&PostParams::default(), &VirtualMachine::crd())
        .await
        .unwrap();
    assert_eq!(created.metadata.name.as_deref(), Some("virtualmachines.cloudnative.tw"));
    // Established by the CRD's controllers, after the create was answered.
    established(server.client(), "virtualmachines.cloudnative.tw").await;

    vms(&server)
        .create(&PostParams::default(), &vm("test-vm", 1))
        .await
        .unwrap();
    let discovery = Discovery::new(server.client()).run().await.unwrap();
    let group = discovery
        .get("cloudnative.tw")
        .expect("the CRD's group is discoverable");
    let (resource, caps) = group.recommended_kind("VirtualMachine").unwrap();
    assert_eq!(resource.plural, "virtualmachines");
    assert_eq!(caps.scope, kube::discovery::Scope::Namespaced);
    assert!(discovery.get("apps").is_some());
}

#[tokio::test]
async fn aggregated_discovery_should_describe_what_per_group_discovery_does() {
    let server = server();
    // kube asks for `apidiscovery.k8s.io/v2`, which the server's default minor (1.31) serves.
    let aggregated = Discovery::new(server.client()).run_aggregated().await.unwrap();
    let legacy = Discovery::new(server.client()).run().await.unwrap();
    let names = |d: &Discovery| {
        let mut names: Vec<String> = d.groups().map(|g| g.name().to_owned()).collect();
        names.sort();
        names
    };
    assert_eq!(names(&aggregated), names(&legacy));
    for name in ["cloudnative.tw", "apps", ""] {
        let (ours, theirs) = (aggregated.get(name).unwrap(), legacy.get(name).unwrap());
        let kinds = |g: &kube::discovery::ApiGroup| {
            let mut kinds: Vec<_> = g
                .recommended_resources()
                .into_iter()
                .map(|(r, c)| (r.plural, c.scope, c.subresources.len()))
                .collect();
            kinds.sort_by(|a, b| a.0.cmp(&b.0));
            kinds
        };
        assert_eq!(kinds(ours), kinds(theirs), "group {name:?}");
    }
}

#[tokio::test]
async fn deleting_a_crd_should_remove_its_objects() {
    let server = server();
    vms(&server)
        .create(&PostParams::default(), &vm("test-vm", 1))
        .await
        .unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    crds.delete("virtualmachines.cloudnative.tw", &DeleteParams::default())
        .await
        .unwrap();
    eventually("the CRD and its objects are gone", || async {
        vms(&server)
            .list(&ListParams::default())
            .await
            .is_err_and(|e| matches!(e, kube::Error::Api(s) if s.code == 404))
    })
    .await;
    crds.create(&PostParams::default(), &VirtualMachine::crd())
        .await
        .unwrap();
    server.settle();
    assert!(
        vms(&server)
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
}

#[tokio::test]
async fn an_invalid_crd_should_be_refused() {
    let server = FakeApiServer::new();
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let mut crd = VirtualMachine::crd();
    crd.spec.scope = "Sideways".into();
    let invalid = api_error(crds.create(&PostParams::default(), &crd).await);
    assert_eq!((invalid.code, invalid.reason.as_str()), (422, "Invalid"));
    assert!(invalid.message.contains("spec.scope"), "{}", invalid.message);
}

#[tokio::test]
async fn types_should_register_without_a_crd() {
    let server = FakeApiServer::new();
    server.register_type::<VirtualMachine>();
    vms(&server)
        .create(&PostParams::default(), &vm("test-vm", 1))
        .await
        .unwrap();
    assert_eq!(vms(&server).list(&ListParams::default()).await.unwrap().items.len(), 1);
}

#[tokio::test]
async fn crds_should_be_named_and_grouped_like_kube_apiserver_requires() {
    let server = FakeApiServer::new();
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    let mut misnamed = VirtualMachine::crd();
    misnamed.metadata.name = Some("vms.cloudnative.tw".into());
    let invalid = api_error(crds.create(&PostParams::default(), &misnamed).await);
    assert!(
        invalid.message.contains("must be spec.names.plural+\".\"+spec.group"),
        "{}",
        invalid.message
    );

    let mut dotless = VirtualMachine::crd();
    dotless.spec.group = "cloudnative".into();
    dotless.metadata.name = Some("virtualmachines.cloudnative".into());
    let invalid = api_error(crds.create(&PostParams::default(), &dotless).await);
    assert!(invalid.message.contains("spec.group"), "{}", invalid.message);

    // A CRD may not take over a built-in resource.
    let mut builtin = VirtualMachine::crd();
    builtin.spec.group = "apiextensions.k8s.io".into();
    builtin.spec.names.plural = "customresourcedefinitions".into();
    builtin.metadata.name = Some("customresourcedefinitions.apiextensions.k8s.io".into());
    builtin.metadata.annotations = Some([("api-approved.kubernetes.io".to_owned(), "yes".to_owned())].into());
    assert_eq!(api_error(crds.create(&PostParams::default(), &builtin).await).code, 422);
    assert!(crds.list(&ListParams::default()).await.unwrap().items.is_empty());
}

#[tokio::test]
async fn deleting_a_crd_should_wait_for_its_objects_finalizers() {
    let server = server();
    let api = vms(&server);
    let mut held = vm("held", 1);
    held.metadata.finalizers = Some(vec!["finalizer.cloudnative.tw".into()]);
    api.create(&PostParams::default(), &held).await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(server.client());
    crds.delete("virtualmachines.cloudnative.tw", &DeleteParams::default())
        .await
        .unwrap();

    let terminating = crds.get("virtualmachines.cloudnative.tw").await.unwrap();
    assert!(terminating.metadata.deletion_timestamp.is_some());
    eventually("the cleanup deletes the objects", || async {
        api.get("held").await.unwrap().metadata.deletion_timestamp.is_some()
    })
    .await;
    let refused = api_error(api.create(&PostParams::default(), &vm("late", 1)).await);
    assert_eq!((refused.code, refused.reason.as_str()), (405, "MethodNotAllowed"));

    let release = kube::api::Patch::Merge(serde_json::json!({ "metadata": { "finalizers": null } }));
    api.patch("held", &kube::api::PatchParams::default(), &release)
        .await
        .unwrap();
    eventually("the CRD goes with its last object", || async {
        crds.get("virtualmachines.cloudnative.tw").await.is_err()
    })
    .await;
    assert_eq!(api_error(api.list(&ListParams::default()).await).code, 404);
}
