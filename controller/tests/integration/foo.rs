//! sample-controller's `controller_test.go`, ported: each case seeds the in-memory API server,
//! syncs the informers, runs one reconcile of the Foo and compares the writes it made (and the
//! events) with what sample-controller expects.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use codegen_runtime::controller::{Next, Reconcile};
use codegen_runtime::{Events, FakeRecorder};
use common::{Running, server, until, wait_for, writes};
use controller::foo::FooController;
use controller::foo::deployment::new_deployment;
use generated_example::apis::samplecontroller::v1alpha1::{Foo, FooSpec, FooStatus};
use generated_example::generated::{Clientset, SharedInformerFactory};
use k8s_openapi::api::apps::v1::{Deployment, DeploymentStatus};
use kube::Api;
use kube::api::{ObjectMeta, Patch, PatchParams, PostParams};
use serde_json::json;

fn new_foo(name: &str, replicas: i32) -> Foo {
    Foo {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some("default".to_owned()),
            ..ObjectMeta::default()
        },
        spec: FooSpec {
            deployment_name: format!("{name}-deployment"),
            replicas: Some(replicas),
        },
        status: None,
        ..Default::default()
    }
}

/// The fixture: a server holding `foo` (created, so it has a uid) and the Deployments `make`
/// builds from the stored Foo, informers synced, actions cleared.
struct Fixture {
    server: fake_apiserver::FakeApiServer,
    controller: FooController,
    recorder: Arc<FakeRecorder>,
    foo: Foo,
    _factory: SharedInformerFactory,
}

async fn fixture(foo: Foo, make: impl FnOnce(&Foo) -> Vec<Deployment>) -> Fixture {
    let server = server();
    let client = server.client();
    let foos_api = Api::<Foo>::namespaced(client.clone(), "default");
    let mut created = foos_api.create(&PostParams::default(), &foo).await.unwrap();
    // Status is a subresource: create ignores it, as the API server does.
    if foo.status.is_some() {
        created.status = foo.status.clone();
        created = foos_api
            .replace_status(
                created.metadata.name.as_deref().unwrap(),
                &PostParams::default(),
                &created,
            )
            .await
            .unwrap();
    }
    let foo = created;
    // A Deployment's status is its controller's to write: the server's Deployment controller
    // counts the pods kubelets report ready, so a Deployment meant to have pods available gets
    // its pods started.
    let mut start = false;
    for deployment in make(&foo) {
        start |= deployment
            .status
            .as_ref()
            .and_then(|s| s.available_replicas)
            .unwrap_or(0)
            > 0;
        Api::<Deployment>::namespaced(client.clone(), "default")
            .create(&PostParams::default(), &deployment)
            .await
            .unwrap();
    }
    server.settle();
    if start {
        common::start_pods(&Api::namespaced(client.clone(), "default"))
            .await
            .unwrap();
        server.settle();
    }
    let factory = SharedInformerFactory::new(&Clientset::new(client.clone()));
    let foos = factory.samplecontroller().v1alpha1().foos();
    let deployments = factory.inner().informer::<Deployment>();
    let recorder = Arc::new(FakeRecorder::new());
    let controller = FooController::new(client, &foos, &deployments, Events::new(recorder.clone()));
    factory.start();
    factory.inner().wait_for_cache_sync().await;
    // The informers have the newest objects before the reconcile reads them.
    let expected = server.resource_version();
    wait_for("informers to catch up", Duration::from_secs(5), || {
        let newest = deployments
            .store()
            .list()
            .iter()
            .filter_map(|d| d.metadata.resource_version.clone())
            .chain(
                foos.informer()
                    .store()
                    .list()
                    .iter()
                    .filter_map(|f| f.metadata.resource_version.clone()),
            )
            .filter_map(|rv| rv.parse::<u64>().ok())
            .max();
        (newest >= expected.parse::<u64>().ok()).then_some(())
    })
    .await;
    server.clear_actions();
    Fixture {
        server,
        controller,
        recorder,
        foo,
        _factory: factory,
    }
}

/// A Deployment whose pods are to be available (the fixture starts them).
fn with_status(mut deployment: Deployment, available: i32) -> Deployment {
    deployment.status = Some(DeploymentStatus {
        replicas: Some(available),
        ready_replicas: Some(available),
        available_replicas: Some(available),
        ..DeploymentStatus::default()
    });
    deployment
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foo_without_deployment_should_create_it_and_update_the_status() {
    let f = fixture(new_foo("test", 1), |_| Vec::new()).await;
    f.controller.reconcile("default/test").await.unwrap();
    assert_eq!(
        writes(&f.server.actions()),
        ["create deployments", "update foos/status"]
    );
    let actions = f.server.actions();
    let create = actions.iter().find(|a| a.matches("create", "deployments")).unwrap();
    let created: Deployment = create.object().unwrap();
    assert_eq!(created, new_deployment(&f.foo), "sample-controller's newDeployment");
    let status: Foo = actions
        .iter()
        .find(|a| a.matches("update", "foos/status"))
        .unwrap()
        .object()
        .unwrap();
    assert_eq!(status.status, Some(FooStatus { available_replicas: 0 }));
    assert_eq!(f.recorder.events(), ["Normal Synced Foo synced successfully"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foo_in_sync_should_only_get_its_status() {
    let f = fixture(new_foo("test", 1), |foo| vec![with_status(new_deployment(foo), 1)]).await;
    f.controller.reconcile("default/test").await.unwrap();
    assert_eq!(writes(&f.server.actions()), ["update foos/status"]);
    // Informer requests may follow the write: find it rather than take the last action.
    let actions = f.server.actions();
    let update = actions.iter().find(|a| a.matches("update", "foos/status")).unwrap();
    let status: Foo = update.object().unwrap();
    assert_eq!(status.status, Some(FooStatus { available_replicas: 1 }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foo_whose_status_is_current_should_cause_no_writes_and_no_event() {
    let mut foo = new_foo("test", 1);
    foo.status = Some(FooStatus { available_replicas: 1 });
    let f = fixture(foo, |foo| vec![with_status(new_deployment(foo), 1)]).await;
    f.controller.reconcile("default/test").await.unwrap();
    assert_eq!(
        writes(&f.server.actions()),
        Vec::<String>::new(),
        "a resync writes nothing"
    );
    assert!(f.recorder.events().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_that_differ_should_update_the_deployment() {
    let f = fixture(new_foo("test", 1), |foo| {
        let mut deployment = new_deployment(foo);
        deployment.spec.replicas = Some(2);
        vec![deployment]
    })
    .await;
    f.controller.reconcile("default/test").await.unwrap();
    assert_eq!(
        writes(&f.server.actions()),
        ["update deployments", "update foos/status"]
    );
    let actions = f.server.actions();
    let update = actions.iter().find(|a| a.matches("update", "deployments")).unwrap();
    let updated: Deployment = update.object().unwrap();
    assert_eq!(updated.spec.replicas, Some(1));
    assert_eq!(f.recorder.events(), ["Normal Synced Foo synced successfully"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deployment_not_controlled_by_us_should_be_an_error_and_a_warning() {
    let f = fixture(new_foo("test", 1), |foo| {
        let mut deployment = new_deployment(foo);
        deployment.metadata.owner_references = None;
        vec![deployment]
    })
    .await;
    let error = f.controller.reconcile("default/test").await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "Resource \"test-deployment\" already exists and is not managed by Foo"
    );
    assert_eq!(writes(&f.server.actions()), Vec::<String>::new());
    assert_eq!(
        f.recorder.events(),
        ["Warning ErrResourceExists Resource \"test-deployment\" already exists and is not managed by Foo"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_deployment_name_should_be_reported_not_retried() {
    let mut foo = new_foo("test", 1);
    foo.spec.deployment_name = String::new();
    let f = fixture(foo, |_| Vec::new()).await;
    let next = f.controller.reconcile("default/test").await.unwrap();
    assert_eq!(next, Next::Done);
    assert_eq!(writes(&f.server.actions()), Vec::<String>::new());
    assert_eq!(
        f.recorder.events(),
        ["Warning InvalidSpec spec.deploymentName must be specified"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foo_that_is_gone_should_be_forgotten() {
    let f = fixture(new_foo("test", 1), |_| Vec::new()).await;
    let next = f.controller.reconcile("default/missing").await.unwrap();
    assert_eq!(next, Next::Done);
    assert!(writes(&f.server.actions()).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owned_deployment_that_changes_should_requeue_its_foo() {
    let running = Running::start(Duration::from_secs(60));
    let (foos, deployments) = (running.api::<Foo>(), running.api::<Deployment>());
    foos.create(&PostParams::default(), &new_foo("web", 2)).await.unwrap();
    until(&deployments, "web-deployment", "created", |d| {
        d.spec.replicas == Some(2)
    })
    .await;
    // Someone scales the Deployment: the change requeues the Foo, which puts its replicas back.
    let scale = json!({"spec": {"replicas": 5}});
    deployments
        .patch("web-deployment", &PatchParams::default(), &Patch::Merge(&scale))
        .await
        .unwrap();
    until(&deployments, "web-deployment", "replicas back to 2", |d| {
        d.spec.replicas == Some(2)
    })
    .await;
    // The Deployment's pods start: the server's Deployment controller counts them available and
    // the Foo's status follows.
    let pods = running.api::<k8s_openapi::api::core::v1::Pod>();
    for _ in 0..100 {
        common::start_pods(&pods).await.unwrap();
        let foo = foos.get("web").await.unwrap();
        if foo.status.as_ref().is_some_and(|s| s.available_replicas == 2) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    until(&foos, "web", "availableReplicas 2", |f| {
        f.status.as_ref().is_some_and(|s| s.available_replicas == 2)
    })
    .await;
    // The Foo is scaled: the Deployment follows.
    let scale = json!({"spec": {"replicas": 3}});
    foos.patch("web", &PatchParams::default(), &Patch::Merge(&scale))
        .await
        .unwrap();
    until(&deployments, "web-deployment", "replicas 3", |d| {
        d.spec.replicas == Some(3)
    })
    .await;
    running.stop().await;
}
