//! Shared informers on the in-memory API server: ordered notifications, tombstones after a
//! forced 410, late handlers, independent handlers, resync, transform, bad objects.

#[path = "support/informers.rs"]
mod informers;
#[path = "support/objects.rs"]
mod objects;

use informers::{informer, take};
use objects::configmap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use codegen_runtime::cache::{Deleted, EventHandler, HandlerFns, InformerOptions, Notification, SharedIndexInformer};
use fake_apiserver::{ApiStatus, FakeApiServer};
use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::json;
use tokio::sync::mpsc;

/// Records what a handler sees as short strings: `add a (initial)`, `update a`, `delete b (tombstone default/b)`.
struct Recorder(mpsc::UnboundedSender<String>);

impl EventHandler<ConfigMap> for Recorder {
    fn on_add(&mut self, object: Arc<ConfigMap>, in_initial_list: bool) {
        let initial = if in_initial_list { " (initial)" } else { "" };
        let _ = self.0.send(format!("add {}{initial}", object.name_any()));
    }

    fn on_update(&mut self, _old: Arc<ConfigMap>, new: Arc<ConfigMap>) {
        let _ = self.0.send(format!("update {}", new.name_any()));
    }

    fn on_delete(&mut self, deleted: Deleted<ConfigMap>) {
        let how = match &deleted {
            Deleted::Tombstone(tombstone) => format!(" (tombstone {})", tombstone.key),
            Deleted::Object(_) => String::new(),
        };
        let _ = self.0.send(format!("delete {}{how}", deleted.object().name_any()));
    }
}

#[tokio::test]
async fn handlers_should_see_adds_updates_and_deletes_in_order() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("existing"))
        .await
        .unwrap();
    let informer = informer(server.client());
    let (sender, mut events) = mpsc::unbounded_channel();
    let registration = informer.add_event_handler(Recorder(sender));
    // An inline handler hears the same, in the same order.
    let (inline_sender, mut inline) = mpsc::unbounded_channel();
    let inline_registration = informer.add_inline_event_handler(Recorder(inline_sender));
    assert!(
        !inline_registration.has_synced(),
        "nothing is listed before the informer runs"
    );
    informer.run();
    assert!(informer.wait_for_sync().await);
    assert!(
        inline_registration.has_synced(),
        "inline, its initial list is in once the informer's is"
    );
    assert_eq!(take(&mut events, 1).await, ["add existing (initial)"]);

    api.create(&PostParams::default(), &configmap("a")).await.unwrap();
    api.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({ "data": { "k": "v" } })),
    )
    .await
    .unwrap();
    api.delete("a", &DeleteParams::default()).await.unwrap();
    assert_eq!(take(&mut events, 3).await, ["add a", "update a", "delete a"]);
    assert!(registration.has_synced());
    assert_eq!(
        take(&mut inline, 4).await,
        ["add existing (initial)", "add a", "update a", "delete a"]
    );
    assert_eq!(
        informer
            .lister()
            .namespaced("default")
            .get("existing")
            .unwrap()
            .name_any(),
        "existing"
    );
    informer.shutdown().await;
}

#[tokio::test]
async fn a_forced_relist_should_report_missed_deletes_as_tombstones() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for name in ["a", "b", "c"] {
        api.create(&PostParams::default(), &configmap(name)).await.unwrap();
    }
    let informer = informer(server.client());
    let (sender, mut events) = mpsc::unbounded_channel();
    informer.add_event_handler(Recorder(sender));
    informer.run();
    informer.wait_for_sync().await;
    assert_eq!(take(&mut events, 3).await.len(), 3);

    // Disconnect, keep the informer out for one retry, and change things meanwhile.
    server.fail_next(1, "watch", "configmaps", ApiStatus::internal("injected"));
    server.cut_watches();
    api.delete("b", &DeleteParams::default()).await.unwrap();
    api.create(&PostParams::default(), &configmap("d")).await.unwrap();
    server.expire_resource_versions();

    let seen = take(&mut events, 2).await;
    assert_eq!(
        seen,
        ["delete b (tombstone default/b)", "add d"],
        "tombstones first, then what is new; a and c did not change"
    );
    let mut cached: Vec<String> = informer.store().list_keys();
    cached.sort();
    assert_eq!(cached, ["default/a", "default/c", "default/d"]);
    informer.shutdown().await;
}

#[tokio::test]
async fn a_late_handler_should_first_receive_the_cache() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    for name in ["a", "b"] {
        api.create(&PostParams::default(), &configmap(name)).await.unwrap();
    }
    let informer = informer(server.client());
    informer.run();
    informer.wait_for_sync().await;
    let (sender, mut events) = mpsc::unbounded_channel();
    let registration = informer.add_event_handler(Recorder(sender));
    let mut seen = take(&mut events, 2).await;
    seen.sort();
    assert_eq!(seen, ["add a (initial)", "add b (initial)"]);
    tokio::time::timeout(Duration::from_secs(5), async {
        while !registration.has_synced() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the late handler syncs");

    // Inline, it has the cache and is synced when its registration returns.
    let (sender, mut events) = mpsc::unbounded_channel();
    let registration = informer.add_inline_event_handler(Recorder(sender));
    let mut seen: Vec<String> = std::iter::from_fn(|| events.try_recv().ok()).collect();
    seen.sort();
    assert_eq!(seen, ["add a (initial)", "add b (initial)"]);
    assert!(registration.has_synced());
    informer.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_handler_should_not_delay_another() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let informer = informer(server.client());
    let slow_seen = Arc::new(Mutex::new(0));
    let counter = slow_seen.clone();
    informer.add_event_handler(HandlerFns::new().on_add(move |_, _| {
        std::thread::sleep(Duration::from_millis(300));
        *counter.lock().unwrap() += 1;
    }));
    let (sender, mut events) = mpsc::unbounded_channel();
    informer.add_event_handler(Recorder(sender));
    informer.run();
    informer.wait_for_sync().await;
    let started = std::time::Instant::now();
    for i in 0..10 {
        api.create(&PostParams::default(), &configmap(&format!("cm-{i}")))
            .await
            .unwrap();
    }
    take(&mut events, 10).await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the fast handler waited {:?}",
        started.elapsed()
    );
    assert!(*slow_seen.lock().unwrap() < 10, "the slow handler is still behind");
    informer.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn resync_should_redeliver_the_cache_per_handler() {
    // The same for handlers on their own tasks and inline ones.
    for inline in [false, true] {
        let server = FakeApiServer::new();
        let api: Api<ConfigMap> = Api::default_namespaced(server.client());
        api.create(&PostParams::default(), &configmap("a")).await.unwrap();
        let informer = informer(server.client());
        let add = |recorder, resync| match inline {
            false => informer.add_event_handler_with_resync(recorder, resync),
            true => informer.add_inline_event_handler_with_resync(recorder, resync),
        };
        let (sender, mut events) = mpsc::unbounded_channel();
        add(Recorder(sender), Some(Duration::from_secs(30)));
        let (quiet_sender, mut quiet) = mpsc::unbounded_channel();
        add(Recorder(quiet_sender), None);
        informer.run();
        informer.wait_for_sync().await;
        assert_eq!(take(&mut events, 1).await, ["add a (initial)"]);
        assert_eq!(take(&mut quiet, 1).await, ["add a (initial)"]);
        tokio::time::sleep(Duration::from_secs(31)).await;
        assert_eq!(take(&mut events, 1).await, ["update a"], "inline: {inline}");
        assert!(quiet.try_recv().is_err(), "a handler without resync gets none");
        informer.shutdown().await;
    }
}

#[tokio::test]
async fn subscribers_transforms_and_removal_should_work() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let options = InformerOptions {
        namespace: Some("default".into()),
        transform: Some(Arc::new(|cm: &mut ConfigMap| cm.metadata.managed_fields = None)),
        ..InformerOptions::default()
    };
    let informer = SharedIndexInformer::new(server.client(), options);
    let mut subscription = informer.subscribe();
    let (sender, mut events) = mpsc::unbounded_channel();
    let registration = informer.add_event_handler(Recorder(sender));
    informer.run();
    informer.wait_for_sync().await;
    informer.remove_handler(&registration);

    let mut with_data = configmap("a");
    with_data.data = Some([("k".to_owned(), "v".to_owned())].into());
    let created = api.create(&PostParams::default(), &with_data).await.unwrap();
    assert!(created.metadata.managed_fields.is_some());
    match tokio::time::timeout(Duration::from_secs(10), subscription.next())
        .await
        .unwrap()
        .unwrap()
    {
        Notification::Add {
            object,
            in_initial_list,
        } => {
            assert_eq!((object.name_any(), in_initial_list), ("a".to_owned(), false));
            assert!(
                object.metadata.managed_fields.is_none(),
                "the transform ran before the store"
            );
        }
        other => panic!("expected an add, got {other:?}"),
    }
    assert!(subscription.has_synced());
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(events.try_recv().is_err(), "a removed handler hears nothing more");
    informer.shutdown().await;
    assert!(
        subscription.next().await.is_none(),
        "subscriptions end with the informer"
    );
}

#[tokio::test]
async fn an_object_that_does_not_decode_should_be_skipped() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("good")).await.unwrap();
    // A ConfigMap whose data is not a map of strings cannot decode into k8s-openapi's type.
    server.insert(&json!({ "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": "bad", "namespace": "default" }, "data": { "n": 1 } })).unwrap();
    let informer = informer(server.client());
    informer.run();
    assert!(
        tokio::time::timeout(Duration::from_secs(10), informer.wait_for_sync())
            .await
            .unwrap()
    );
    assert_eq!(informer.store().list_keys(), ["default/good"]);
    api.create(&PostParams::default(), &configmap("after")).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), async {
        while informer.store().get("default/after").is_none() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the informer goes on after the bad object");
    informer.shutdown().await;
}

#[tokio::test]
async fn the_factory_should_open_one_watch_per_type_for_all_consumers() {
    use codegen_runtime::cache::SharedInformerFactory;
    use fake_apiserver::Verb;
    use k8s_openapi::api::apps::v1::Deployment;

    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::namespaced(server.client(), "kube-system");
    api.create(&PostParams::default(), &configmap("elsewhere"))
        .await
        .unwrap();
    Api::<ConfigMap>::default_namespaced(server.client())
        .create(&PostParams::default(), &configmap("here"))
        .await
        .unwrap();
    server.clear_actions();
    let factory = SharedInformerFactory::builder(server.client())
        .namespace("default")
        .transform(|cm: &mut ConfigMap| cm.metadata.annotations = Some([("seen".to_owned(), "yes".to_owned())].into()))
        .build();
    let (sender, mut events) = mpsc::unbounded_channel();
    for _ in 0..3 {
        factory
            .informer::<ConfigMap>()
            .add_event_handler(Recorder(sender.clone()));
    }
    factory.start();
    factory.start();
    let synced = factory.wait_for_cache_sync().await;
    assert_eq!(synced.values().collect::<Vec<_>>(), [&true]);
    assert_eq!(
        take(&mut events, 3).await,
        ["add here (initial)"; 3],
        "three consumers, one namespace"
    );
    let cached = factory
        .informer::<ConfigMap>()
        .lister()
        .namespaced("default")
        .get("here")
        .unwrap();
    assert_eq!(cached.annotations()["seen"], "yes");

    // Requested after start: runs on the next start.
    let deployments = factory.informer::<Deployment>();
    assert!(!deployments.has_synced());
    factory.start();
    assert_eq!(factory.wait_for_cache_sync().await.len(), 2);
    assert!(factory.has_synced());

    let watches = |resource: &str| {
        server
            .actions()
            .iter()
            .filter(|a| a.verb == Verb::Watch && a.resource == resource)
            .count()
    };
    let lists = |resource: &str| {
        server
            .actions()
            .iter()
            .filter(|a| a.verb == Verb::List && a.resource == resource)
            .count()
    };
    // Each watch opens just after its list: wait for both, then make sure no second one comes.
    tokio::time::timeout(Duration::from_secs(10), async {
        while watches("configmaps") == 0 || watches("deployments") == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("both watches open");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!((lists("configmaps"), watches("configmaps")), (1, 1));
    assert_eq!((lists("deployments"), watches("deployments")), (1, 1));

    factory.shutdown().await;
    assert!(factory.informer::<ConfigMap>().is_stopped());
    factory.start();
    assert!(
        factory.informer::<ConfigMap>().is_stopped(),
        "start after shutdown does nothing"
    );
}

#[tokio::test]
async fn a_relist_should_not_report_undecodable_objects_as_deleted() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("g")).await.unwrap();
    let informer = informer(server.client());
    let (sender, mut events) = mpsc::unbounded_channel();
    informer.add_event_handler(Recorder(sender));
    informer.run();
    informer.wait_for_sync().await;
    assert_eq!(take(&mut events, 1).await, ["add g (initial)"]);
    // The object turns into something this type cannot decode; the cache keeps what it had.
    let untyped: Api<kube::api::DynamicObject> =
        Api::default_namespaced_with(server.client(), &kube::api::ApiResource::erase::<ConfigMap>(&()));
    let patch = Patch::Merge(json!({ "data": { "n": 1 } }));
    untyped.patch("g", &PatchParams::default(), &patch).await.unwrap();
    server.fail_next(1, "watch", "configmaps", ApiStatus::internal("injected"));
    server.cut_watches();
    server.expire_resource_versions();
    api.create(&PostParams::default(), &configmap("d")).await.unwrap();
    assert_eq!(
        take(&mut events, 1).await,
        ["add d"],
        "no tombstone for g: it still exists"
    );
    assert!(informer.store().get("default/g").is_some());
    informer.shutdown().await;
}

#[tokio::test]
async fn a_panicking_handler_should_skip_one_notification_not_all() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let informer = informer(server.client());
    let (sender, mut events) = mpsc::unbounded_channel();
    let registration = informer.add_event_handler(HandlerFns::new().on_add(move |cm: Arc<ConfigMap>, _| {
        assert_ne!(cm.name_any(), "boom", "a handler bug");
        let _ = sender.send(cm.name_any());
    }));
    informer.run();
    informer.wait_for_sync().await;
    api.create(&PostParams::default(), &configmap("boom")).await.unwrap();
    api.create(&PostParams::default(), &configmap("fine")).await.unwrap();
    assert_eq!(take(&mut events, 1).await, ["fine"]);
    assert!(registration.has_synced());
    informer.shutdown().await;
}

#[tokio::test]
async fn an_informer_whose_engine_panics_should_stop_rather_than_drift() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("boom")).await.unwrap();
    let informer = informer(server.client());
    informer
        .store()
        .add_indexer("explodes", |cm: &ConfigMap| {
            assert_ne!(cm.name_any(), "boom", "an index function bug");
            Vec::new()
        })
        .unwrap();
    informer.run();
    // The list's relist panics on "boom", on the informer's second task. Without it, lists
    // would be lost while watch events went on: the informer stops instead, at the latest when
    // the next event comes.
    let stopped = tokio::time::timeout(Duration::from_secs(20), async {
        for i in 0.. {
            if informer.is_stopped() {
                break;
            }
            api.create(&PostParams::default(), &configmap(&format!("after-{i}")))
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(stopped.is_ok(), "the informer went on without its engine");
    assert!(!informer.wait_for_sync().await, "it never synced");
    informer.shutdown().await;
}

#[tokio::test]
async fn subscriptions_should_know_when_their_initial_list_is_taken() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let informer = informer(server.client());
    informer.run();
    informer.wait_for_sync().await;
    assert!(
        informer.subscribe().has_synced(),
        "an empty initial list is taken at once"
    );
    for name in ["a", "b"] {
        api.create(&PostParams::default(), &configmap(name)).await.unwrap();
    }
    tokio::time::timeout(Duration::from_secs(10), async {
        while informer.store().len() < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap();
    let mut subscription = informer.subscribe();
    let mut initial = 0;
    while !subscription.has_synced() {
        subscription.next().await.unwrap();
        initial += 1;
    }
    assert_eq!(initial, 2);
    informer.shutdown().await;
    assert!(
        informer.subscribe().next().await.is_none(),
        "a stopped informer takes no subscribers"
    );
}
