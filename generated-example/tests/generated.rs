//! The generated clientset, informer factory and listers, against the in-memory API server.

use std::time::Duration;

use codegen_runtime::FakeApiServer;
use generated_example::apis::cloudnative::v1alpha1::{ResourceRequest, VirtualMachine, VirtualMachineSpec};
use generated_example::apis::samplecontroller::v1alpha1::{Foo, FooSpec, FooStatus};
use generated_example::generated::{Clientset, SharedInformerFactory};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::api::{DeleteParams, ListParams, ObjectMeta, PatchParams, PostParams};

fn vm(name: &str) -> VirtualMachine {
    VirtualMachine {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        spec: VirtualMachineSpec {
            action: "active".into(),
            resource: ResourceRequest {
                cpu: Quantity("2".into()),
                memory: Quantity("1Gi".into()),
                root_disk: Quantity("40Gi".into()),
            },
        },
        status: None,
    }
}

fn server() -> FakeApiServer {
    let server = FakeApiServer::new();
    server.register_type::<VirtualMachine>();
    // Foo's CRD serves /status (sample-controller's does); VirtualMachine's does not (controller101).
    server.register(codegen_runtime::fake::ResourceInfo::of::<Foo>().with_status());
    server
}

#[tokio::test]
async fn the_typed_clients_should_work_over_the_in_memory_server() {
    let server = server();
    let clientset = Clientset::new(server.client());
    let vms = clientset.cloudnative_v1alpha1().virtual_machines("default");
    let created = vms.create(&vm("test-vm"), &PostParams::default()).await.unwrap();
    assert_eq!(created.metadata.namespace.as_deref(), Some("default"));
    let mut changed = vms.get("test-vm").await.unwrap();
    changed.spec.action = "stopped".into();
    let updated = vms.update(&changed, &PostParams::default()).await.unwrap();
    assert_eq!(updated.spec.action, "stopped");
    assert_eq!(vms.list(&ListParams::default()).await.unwrap().items.len(), 1);
    vms.delete("test-vm", &DeleteParams::default()).await.unwrap();
    assert!(vms.get("test-vm").await.is_err());

    // Foo has a status field and no noStatus: update_status and apply exist.
    let foos = clientset.samplecontroller_v1alpha1().foos("default");
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
    };
    let mut stored = foos
        .apply(&foo, &PatchParams::apply("sample-controller"))
        .await
        .unwrap();
    stored.status = Some(FooStatus { available_replicas: 1 });
    let with_status = foos.update_status(&stored, &PostParams::default()).await.unwrap();
    assert_eq!(with_status.status, Some(FooStatus { available_replicas: 1 }));
}

#[tokio::test]
async fn the_generated_factory_should_share_informers_and_listers() {
    let server = server();
    let clientset = Clientset::new(server.client());
    clientset
        .cloudnative_v1alpha1()
        .virtual_machines("default")
        .create(&vm("test-vm"), &PostParams::default())
        .await
        .unwrap();
    let factory = SharedInformerFactory::builder(&clientset)
        .resync(Duration::from_secs(30))
        .build();
    let vm_informer = factory.cloudnative().v1alpha1().virtual_machines();
    let lister = vm_informer.lister();
    factory.start();
    let synced = factory.wait_for_cache_sync().await;
    assert!(synced.values().all(|s| *s), "{synced:?}");
    let cached = lister.virtual_machines("default").get("test-vm").unwrap();
    assert_eq!(cached.spec.action, "active");
    let missing = lister.virtual_machines("default").get("nope").unwrap_err();
    assert_eq!(missing.to_string(), "virtualmachines.cloudnative.tw \"nope\" not found");
    assert_eq!(lister.list(&Default::default()).len(), 1);
    factory.shutdown().await;
}
