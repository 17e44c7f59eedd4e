//! `clientset!` over derived types: the aggregate `Clientset` and `SharedInformerFactory` with
//! the same accessors the CLI generates, used against the in-memory API server.

mod apis {
    pub mod samplecontroller {
        pub mod v1alpha1 {
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
                /// The Deployment the Foo owns.
                #[serde(rename = "deploymentName")]
                pub deployment_name: String,
            }
        }
    }

    pub mod example {
        pub mod v1 {
            use codegen_macros::Codegen;
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
            use serde::{Deserialize, Serialize};

            /// A cluster-scoped type of a hyphenated group.
            ///
            /// +genclient
            /// +genclient:nonNamespaced
            /// +groupName=example-group.dev
            #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
            pub struct Cluster {
                /// The API version, always written.
                #[serde(rename = "apiVersion")]
                pub api_version: ::codegen_runtime::ApiVersion<Self>,
                /// The kind, always written.
                pub kind: ::codegen_runtime::Kind<Self>,
                /// Standard object metadata.
                pub metadata: ObjectMeta,
            }

            /// A type without list and watch: a client but no informer.
            ///
            /// +genclient
            /// +genclient:onlyVerbs=create,get
            /// +groupName=example-group.dev
            #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
            pub struct Ticket {
                /// The API version, always written.
                #[serde(rename = "apiVersion")]
                pub api_version: ::codegen_runtime::ApiVersion<Self>,
                /// The kind, always written.
                pub kind: ::codegen_runtime::Kind<Self>,
                /// Standard object metadata.
                pub metadata: ObjectMeta,
            }
        }
    }
}

mod client {
    codegen_macros::clientset! {
        "samplecontroller.k8s.io" => crate::clientset::apis::samplecontroller::v1alpha1 { Foo },
        "example-group.dev" as ExampleGroup => crate::clientset::apis::example::v1 { Cluster, Ticket },
    }
}

use apis::example::v1::{Cluster, Ticket};
use apis::samplecontroller::v1alpha1::Foo;
use client::{Clientset, SharedInformerFactory};
use fake_apiserver::FakeApiServer;
use kube::api::{ListParams, ObjectMeta, PostParams};

fn meta(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        ..ObjectMeta::default()
    }
}

#[tokio::test]
async fn the_clientset_should_reach_every_named_type() {
    let server = FakeApiServer::new();
    server.register_type::<Foo>();
    server.register_type::<Cluster>();
    server.register_type::<Ticket>();
    let clientset = Clientset::new(server.client());
    let post = PostParams::default();

    let foo = Foo {
        metadata: meta("example-foo"),
        deployment_name: "example-foo".into(),
        ..Default::default()
    };
    clientset
        .samplecontroller_v1alpha1()
        .foos("default")
        .create(&foo, &post)
        .await
        .unwrap();
    let clusters = clientset.example_group_v1().clusters();
    clusters
        .create(
            &Cluster {
                metadata: meta("east"),
                ..Default::default()
            },
            &post,
        )
        .await
        .unwrap();
    let tickets = clientset.example_group_v1().tickets("default");
    tickets
        .create(
            &Ticket {
                metadata: meta("t-1"),
                ..Default::default()
            },
            &post,
        )
        .await
        .unwrap();
    assert_eq!(tickets.get("t-1").await.unwrap().metadata.name.as_deref(), Some("t-1"));
    assert_eq!(clusters.list(&ListParams::default()).await.unwrap().items.len(), 1);

    let factory = SharedInformerFactory::new(&clientset);
    let foos = factory.samplecontroller().v1alpha1().foos().lister();
    let all_clusters = factory.example_group().v1().clusters().lister();
    factory.start();
    let synced = factory.wait_for_cache_sync().await;
    assert!(synced.values().all(|ok| *ok), "{synced:?}");
    assert_eq!(
        foos.foos("default").get("example-foo").unwrap().deployment_name,
        "example-foo"
    );
    assert_eq!(all_clusters.get("east").unwrap().metadata.name.as_deref(), Some("east"));
    factory.shutdown().await;
}
