//! The generated clientset, informer factory and listers, against the in-memory API server.

use std::time::Duration;

use codegen_runtime::ApplyOptions;
use fake_apiserver::FakeApiServer;
use generated_example::apis::cloudnative::v1alpha1::{ResourceRequest, VirtualMachine, VirtualMachineSpec};
use generated_example::apis::samplecontroller::v1alpha1::{Foo, FooSpec, FooStatus};
use generated_example::generated::samplecontroller::v1alpha1::{FooApplyConfiguration, FooSpecApplyConfiguration};
use generated_example::generated::{Clientset, SharedInformerFactory};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::api::{DeleteParams, ListParams, ObjectMeta, PostParams};

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
                root_disk: Some(Quantity("40Gi".into())),
            },
        },
        status: None,
        ..Default::default()
    }
}

fn server() -> FakeApiServer {
    let server = FakeApiServer::new();
    server.register_type::<VirtualMachine>();
    // Foo's CRD serves /status (sample-controller's does); VirtualMachine's does not (controller101).
    server.register(fake_apiserver::ResourceInfo::of::<Foo>().with_status());
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
        ..Default::default()
    };
    let config = FooApplyConfiguration::new("example-foo", "default").spec(
        FooSpecApplyConfiguration::default()
            .deployment_name(foo.spec.deployment_name.clone())
            .replicas(1),
    );
    let mut stored = foos
        .apply(&config, &ApplyOptions::new("sample-controller"))
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

#[tokio::test]
async fn edge_cases_should_work_end_to_end() {
    use fake_apiserver::ResourceInfo;
    use generated_example::apis::examplegroup::v1::{ClusterTestType, DNSRecord, ReplicaSpec};
    use generated_example::apis::examplegroup::v2::TestType;

    let server = FakeApiServer::new();
    server.register(ResourceInfo::of::<ClusterTestType>().with_status().with_scale(None));
    server.register_type::<DNSRecord>();
    server.register_type::<TestType>();
    let clientset = Clientset::new(server.client());

    // Cluster-scoped, with the typed scale methods of +genclient:method.
    let clusters = clientset.example_group_v1().cluster_test_types();
    let object = ClusterTestType {
        metadata: ObjectMeta {
            name: Some("wide".into()),
            ..ObjectMeta::default()
        },
        spec: ReplicaSpec { replicas: 2 },
        status: None,
        ..Default::default()
    };
    let created = clusters.create(&object, &PostParams::default()).await.unwrap();
    assert_eq!(created.metadata.namespace, None);
    let mut scale = clusters.get_scale("wide").await.unwrap();
    assert_eq!(scale.spec.as_ref().and_then(|s| s.replicas), Some(2));
    scale.spec.as_mut().unwrap().replicas = Some(5);
    let scaled = clusters
        .update_scale("wide", &scale, &PostParams::default())
        .await
        .unwrap();
    assert_eq!(scaled.spec.and_then(|s| s.replicas), Some(5));
    assert_eq!(clusters.get("wide").await.unwrap().spec.replicas, 5);

    // A mixed-case kind and a second version of the group.
    let records = clientset.example_group_v1().dns_records("default");
    let record = DNSRecord {
        metadata: ObjectMeta {
            name: Some("www".into()),
            ..ObjectMeta::default()
        },
        ..Default::default()
    };
    records.create(&record, &PostParams::default()).await.unwrap();
    let v2 = clientset.example_group_v2().test_types("default");
    let test = TestType {
        metadata: ObjectMeta {
            name: Some("t".into()),
            ..ObjectMeta::default()
        },
        spec: Default::default(),
        ..Default::default()
    };
    v2.create(&test, &PostParams::default()).await.unwrap();
    let factory = SharedInformerFactory::new(&clientset);
    // As in client-go, asking for a lister (or informer) is what registers it; then start.
    let v1_records = factory.example_group().v1().dns_records().lister();
    let v2_tests = factory.example_group().v2().test_types().lister();
    factory.start();
    assert_eq!(factory.wait_for_cache_sync().await.len(), 2);
    assert!(v1_records.dns_records("default").get("www").is_ok());
    assert!(v2_tests.test_types("default").get("t").is_ok());
    factory.shutdown().await;
}
