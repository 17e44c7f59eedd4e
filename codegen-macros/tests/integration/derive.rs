//! `#[derive(Codegen)]` in a user crate: registration, Clone, typed client, lister and informer,
//! used against the in-memory API server.

mod v1alpha1 {
    use codegen_macros::Codegen;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    use serde::{Deserialize, Serialize};

    /// Foo is a specification for a Foo resource.
    ///
    /// +genclient
    /// +groupName=samplecontroller.k8s.io
    #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Foo {
        /// `samplecontroller.k8s.io/v1alpha1`, written on every Foo sent.
        pub api_version: codegen_runtime::ApiVersion<Self>,
        /// `Foo`, written on every Foo sent.
        pub kind: codegen_runtime::Kind<Self>,
        /// Standard object metadata.
        pub metadata: ObjectMeta,
        /// The spec.
        pub spec: FooSpec,
        /// The status.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub status: Option<FooStatus>,
    }

    /// FooSpec is the spec for a Foo resource.
    ///
    /// +k8s:deepcopy-gen=true
    #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct FooSpec {
        /// The Deployment's name.
        pub deployment_name: String,
        /// Replicas.
        pub replicas: Option<i32>,
    }

    /// FooStatus is the status for a Foo resource. Deriving `Codegen` gives it its `Clone` and
    /// its apply configuration, without a tag.
    #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct FooStatus {
        /// Available replicas.
        pub available_replicas: i32,
    }
}

use codegen_runtime::ApplyOptions;
use codegen_runtime::cache::SharedInformerFactory;
use fake_apiserver::FakeApiServer;
use kube::Resource;
use kube::api::{Api, ObjectMeta, Patch, PatchParams, PostParams};
use v1alpha1::{
    Foo, FooApplyConfiguration, FooClient, FooInformer, FooSpec, FooSpecApplyConfiguration, FooStatusApplyConfiguration,
};

#[test]
fn the_version_should_come_from_the_module() {
    assert_eq!(Foo::version(&()), "v1alpha1");
    assert_eq!(Foo::api_version(&()), "samplecontroller.k8s.io/v1alpha1");
    assert_eq!(
        (Foo::plural(&()), Foo::group(&())),
        ("foos".into(), "samplecontroller.k8s.io".into())
    );
}

#[tokio::test]
async fn derived_items_should_work_over_the_in_memory_server() {
    let server = FakeApiServer::new();
    server.register_type::<Foo>();
    let foos = FooClient::namespaced(server.client(), "default");
    let foo = Foo {
        metadata: ObjectMeta {
            name: Some("example-foo".into()),
            ..ObjectMeta::default()
        },
        spec: FooSpec {
            deployment_name: "example-foo".into(),
            replicas: Some(1),
        },
        status: None,
        ..Default::default()
    };
    assert_eq!(foo.clone(), foo, "the derived Clone copies every field");
    foos.create(&foo, &PostParams::default()).await.unwrap();

    let factory = SharedInformerFactory::new(server.client());
    let lister = FooInformer::new(factory.clone()).lister();
    factory.start();
    factory.wait_for_cache_sync().await;
    assert_eq!(
        lister.foos("default").get("example-foo").unwrap().spec.deployment_name,
        "example-foo"
    );
    factory.shutdown().await;
}

/// What the derive's client puts on the wire: every request that sends a whole object carries
/// `apiVersion` and `kind` (the command line's clients are checked in generated-example's
/// `tests/integration/wire.rs`).
#[tokio::test]
async fn every_write_of_the_derived_client_should_send_api_version_and_kind() {
    let server = FakeApiServer::new();
    server.register(fake_apiserver::ResourceInfo::of::<Foo>().with_status());
    let foos = FooClient::namespaced(server.client(), "default");
    let (post, apply) = (PostParams::default(), PatchParams::apply("wire-test").force());
    let options = ApplyOptions::new("wire-test").force();
    let mut foo = Foo {
        metadata: ObjectMeta {
            name: Some("example-foo".into()),
            ..ObjectMeta::default()
        },
        ..Default::default()
    };
    let created = foos.create(&foo, &post).await.unwrap();
    let mut updated = foos.update(&created, &post).await.unwrap();
    updated.status = Some(v1alpha1::FooStatus { available_replicas: 1 });
    foos.update_status(&updated, &post).await.unwrap();
    let config = FooApplyConfiguration::new("example-foo", "default")
        .spec(FooSpecApplyConfiguration::default().deployment_name("web"));
    foos.apply(&config, &options).await.unwrap();
    let status = FooApplyConfiguration::new("example-foo", "default")
        .status(FooStatusApplyConfiguration::default().available_replicas(2));
    foos.apply_status(&status, &options).await.unwrap();
    foo.status = Some(v1alpha1::FooStatus { available_replicas: 2 });
    foos.patch("example-foo", &apply, &Patch::Apply(&foo)).await.unwrap();
    let plain: Api<Foo> = Api::namespaced(server.client(), "default");
    plain
        .replace("example-foo", &post, &plain.get("example-foo").await.unwrap())
        .await
        .unwrap();

    let sent: Vec<_> = server
        .actions()
        .into_iter()
        .filter(|a| a.sent_object().is_some())
        .collect();
    assert_eq!(sent.len(), 7, "every write above is recorded: {sent:#?}");
    for action in &sent {
        let object = action.sent_object().unwrap();
        assert_eq!(object["apiVersion"], "samplecontroller.k8s.io/v1alpha1", "{action:?}");
        assert_eq!(object["kind"], "Foo", "{action:?}");
    }
}
