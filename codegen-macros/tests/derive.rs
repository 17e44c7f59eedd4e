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
    pub struct Foo {
        /// The API version, always written.
        #[serde(rename = "apiVersion")]
        pub api_version: ::codegen_runtime::ApiVersion<Self>,
        /// The kind, always written.
        pub kind: ::codegen_runtime::Kind<Self>,
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

    /// FooStatus is the status for a Foo resource.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct FooStatus {
        /// Available replicas.
        pub available_replicas: i32,
    }
}

use codegen_runtime::cache::SharedInformerFactory;
use fake_apiserver::FakeApiServer;
use kube::Resource;
use kube::api::{ObjectMeta, PostParams};
use v1alpha1::{Foo, FooClient, FooInformer, FooSpec};

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
