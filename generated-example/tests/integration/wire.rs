//! What the command line's generated clients put on the wire: every request that sends a whole
//! object (create, update, update_status, apply, apply_status, `Patch::Apply`, the scale
//! extensions, and a plain `kube::Api::replace` of an object read back) carries `apiVersion` and
//! `kind`, read from the in-memory server's recorded actions — the bytes a cluster decodes, and
//! refuses for a custom resource without them.

use codegen_runtime::ApplyOptions;
use fake_apiserver::{FakeApiServer, ResourceInfo};
use generated_example::apis::cloudnative::v1alpha1::{ResourceRequest, VirtualMachine, VirtualMachineSpec};
use generated_example::apis::examplegroup::v1::{ClusterTestType, ReplicaSpec};
use generated_example::apis::samplecontroller::v1alpha1::{Foo, FooSpec, FooStatus};
use generated_example::generated::cloudnative::v1alpha1::{
    ResourceRequestApplyConfiguration, VirtualMachineApplyConfiguration, VirtualMachineSpecApplyConfiguration,
};
use generated_example::generated::samplecontroller::v1alpha1::{
    FooApplyConfiguration, FooSpecApplyConfiguration, FooStatusApplyConfiguration,
};
use generated_example::generated::{Clientset, custom_resource_definitions};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::api::{Api, ObjectMeta, Patch, PatchParams, PostParams};

fn meta(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        ..ObjectMeta::default()
    }
}

/// The in-memory server with the example's own CRDs, and a cluster-scoped kind with `/scale`.
fn server() -> FakeApiServer {
    let mut builder = FakeApiServer::builder();
    for crd in custom_resource_definitions().expect("the example's CRDs build") {
        builder = builder.crd(&crd);
    }
    let server = builder.build();
    server.register(ResourceInfo::of::<ClusterTestType>().with_status().with_scale(None));
    server
}

#[tokio::test]
async fn every_write_of_the_generated_clients_should_send_api_version_and_kind() {
    let server = server();
    let clientset = Clientset::new(server.client());
    let apply = PatchParams::apply("wire-test");
    let options = ApplyOptions::new("wire-test");
    let post = PostParams::default();

    let vms = clientset.cloudnative_v1alpha1().virtual_machines("default");
    let vm = VirtualMachine {
        metadata: meta("test-vm"),
        spec: VirtualMachineSpec {
            action: "active".into(),
            resource: ResourceRequest {
                cpu: Quantity("1".into()),
                memory: Quantity("4G".into()),
                root_disk: None,
            },
        },
        ..Default::default()
    };
    let created = vms.create(&vm, &post).await.unwrap();
    vms.update(&created, &post).await.unwrap();
    let resource = ResourceRequestApplyConfiguration::default()
        .cpu(Quantity("1".into()))
        .memory(Quantity("4G".into()));
    let vm_config = VirtualMachineApplyConfiguration::new("test-vm", "default")
        .spec(VirtualMachineSpecApplyConfiguration::default().resource(resource));
    vms.apply(&vm_config, &options).await.unwrap();
    vms.patch("test-vm", &apply, &Patch::Apply(&vm)).await.unwrap();
    // What kube-rs users do: read an object back and write it through a plain `kube::Api`.
    let plain: Api<VirtualMachine> = Api::namespaced(server.client(), "default");
    let read = plain.get("test-vm").await.unwrap();
    plain.replace("test-vm", &post, &read).await.unwrap();

    let foos = clientset.samplecontroller_v1alpha1().foos("default");
    let mut foo = Foo {
        metadata: meta("example-foo"),
        spec: FooSpec {
            deployment_name: "example-foo".into(),
            replicas: Some(1),
        },
        ..Default::default()
    };
    let created = foos.create(&foo, &post).await.unwrap();
    let mut with_status = foos.update(&created, &post).await.unwrap();
    with_status.status = Some(FooStatus { available_replicas: 1 });
    foos.update_status(&with_status, &post).await.unwrap();
    let foo_config = FooApplyConfiguration::new("example-foo", "default")
        .spec(FooSpecApplyConfiguration::default().deployment_name("example-foo"));
    foos.apply(&foo_config, &options).await.unwrap();
    let status_config = FooApplyConfiguration::new("example-foo", "default")
        .status(FooStatusApplyConfiguration::default().available_replicas(1));
    foos.apply_status(&status_config, &options).await.unwrap();
    foo.status = Some(FooStatus { available_replicas: 1 });
    foos.patch_status("example-foo", &apply, &Patch::Apply(&foo))
        .await
        .unwrap();

    let clusters = clientset.example_group_v1().cluster_test_types();
    let wide = ClusterTestType {
        metadata: meta("wide"),
        spec: ReplicaSpec { replicas: 2 },
        ..Default::default()
    };
    clusters.create(&wide, &post).await.unwrap();
    let scale = clusters.get_scale("wide").await.unwrap();
    clusters.update_scale("wide", &scale, &post).await.unwrap();
    let replicas = k8s_openapi::api::autoscaling::v1::Scale {
        metadata: meta("wide"),
        spec: Some(k8s_openapi::api::autoscaling::v1::ScaleSpec { replicas: Some(3) }),
        status: None,
    };
    // The apply extension sends the Scale as an apply configuration (forced: update_scale's
    // manager owns the replicas).
    let applied = clusters
        .apply_scale("wide", &replicas, &options.clone().force())
        .await
        .unwrap();
    assert_eq!(applied.spec.and_then(|s| s.replicas), Some(3));

    let sent: Vec<_> = server
        .actions()
        .into_iter()
        .filter(|a| a.sent_object().is_some())
        .collect();
    assert_eq!(sent.len(), 14, "every write above is recorded: {sent:#?}");
    for action in &sent {
        let object = action.sent_object().unwrap();
        let expected = match (action.resource.as_str(), action.subresource.as_deref()) {
            ("virtualmachines", None) => ("cloudnative.tw/v1alpha1", "VirtualMachine"),
            ("foos", _) => ("samplecontroller.k8s.io/v1alpha1", "Foo"),
            ("clustertesttypes", None) => ("example-group.hyphens.dev/v1", "ClusterTestType"),
            ("clustertesttypes", Some("scale")) => ("autoscaling/v1", "Scale"),
            other => panic!("unexpected write {other:?}"),
        };
        let found = (object["apiVersion"].as_str(), object["kind"].as_str());
        assert_eq!(
            found,
            (Some(expected.0), Some(expected.1)),
            "{} {}/{:?}: {object}",
            action.verb.as_str(),
            action.resource,
            action.subresource
        );
    }
}
