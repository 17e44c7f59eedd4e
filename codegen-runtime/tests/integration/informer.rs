//! Shared informers on the in-memory API server, what the cache holds: tombstones after a forced
//! 410, a transform before the store, objects that do not decode, one watch per type in a
//! factory, an engine that panics, updates whose field sets are taken from the cache, managed
//! fields stripped (handlers and subscriptions: `handlers.rs`).
//! The servers start empty (`bootstrap(false)`): the tests count every ConfigMap of `default`.

use crate::support::informers;
use crate::support::objects;

use informers::{Recorder, informer, take};
use objects::configmap;
use std::sync::Arc;
use std::time::Duration;

use codegen_runtime::cache::{InformerOptions, Notification, SharedIndexInformer};
use fake_apiserver::{ApiStatus, FakeApiServer};
use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::json;
use tokio::sync::mpsc;

#[tokio::test]
async fn a_forced_relist_should_report_missed_deletes_as_tombstones() {
    let server = FakeApiServer::builder().bootstrap(false).build();
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
async fn subscribers_transforms_and_removal_should_work() {
    let server = FakeApiServer::builder().bootstrap(false).build();
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
    let server = FakeApiServer::builder().bootstrap(false).build();
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

    let server = FakeApiServer::builder().bootstrap(false).build();
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
    let server = FakeApiServer::builder().bootstrap(false).build();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("g")).await.unwrap();
    let informer = informer(server.client());
    let (sender, mut events) = mpsc::unbounded_channel();
    informer.add_event_handler(Recorder(sender));
    informer.run();
    informer.wait_for_sync().await;
    assert_eq!(take(&mut events, 1).await, ["add g (initial)"]);
    // The object turns into something this type cannot decode (a cluster refuses such a write,
    // so it is stored as it is, as a newer server version or a changed schema would serve it);
    // the cache keeps what it had.
    server
        .replace(&json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "g"}, "data": {"n": 1}}))
        .unwrap();
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
async fn an_informer_whose_engine_panics_should_stop_rather_than_drift() {
    let server = FakeApiServer::builder().bootstrap(false).build();
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
async fn an_informer_without_handlers_should_hold_every_update_whole_with_its_managed_fields() {
    let server = FakeApiServer::builder().bootstrap(false).build();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    // With data: kube-apiserver tracks no later writer of an object created without a field.
    let mut created = configmap("a");
    created.data = Some([("k".to_owned(), "a".to_owned())].into());
    api.create(&PostParams::default(), &created).await.unwrap();
    let informer = informer(server.client());
    informer.run();
    informer.wait_for_sync().await;
    // One writer's updates leave its field set as it was (taken from the cached object);
    // another writer's adds an entry (decoded); and the first again, after both.
    for (manager, value) in [("one", "1"), ("one", "2"), ("two", "3"), ("one", "4"), ("one", "5")] {
        let params = PatchParams {
            field_manager: Some(manager.into()),
            ..PatchParams::default()
        };
        let patch = Patch::Merge(json!({"data": {manager: value}}));
        let expected = api.patch("a", &params, &patch).await.unwrap();
        assert!(!expected.managed_fields().is_empty(), "the server tracks the writers");
        let cached = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                // Not held while waiting: a reader holding the cached object keeps its trees.
                let cached = informer.store().get("default/a");
                if let Some(cached) = cached.filter(|c| c.resource_version() == expected.resource_version()) {
                    return cached;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the update reaches the cache");
        assert_eq!(*cached, expected, "after {manager}'s update to {value}");
    }
    informer.shutdown().await;
}

#[tokio::test]
async fn an_informer_stripping_managed_fields_should_hold_the_servers_objects_without_them() {
    use kube::runtime::watcher;

    let server = FakeApiServer::builder().bootstrap(false).watch_list(true).build();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    // With data, so that the server records a writer of it.
    let with_data = |name: &str| {
        let mut cm = configmap(name);
        cm.data = Some([("k".to_owned(), name.to_owned())].into());
        cm
    };
    for name in ["a", "b"] {
        api.create(&PostParams::default(), &with_data(name)).await.unwrap();
    }
    // The server's object as a stripping informer should hold it.
    let stripped = |mut cm: ConfigMap| {
        assert!(!cm.managed_fields().is_empty(), "the server tracks the writers");
        cm.metadata.managed_fields = None;
        cm
    };
    let configs = [watcher::Config::default(), watcher::Config::default().streaming_lists()];
    for (round, config) in configs.into_iter().enumerate() {
        let options = InformerOptions {
            watcher: config,
            strip_managed_fields: true,
            ..InformerOptions::default()
        };
        let informer = SharedIndexInformer::<ConfigMap>::new(server.client(), options);
        let mut subscription = informer.subscribe();
        informer.run();
        assert!(informer.wait_for_sync().await);
        for name in ["a", "b"] {
            let cached = informer.store().get(&format!("default/{name}")).unwrap();
            assert_eq!(*cached, stripped(api.get(name).await.unwrap()), "{name} as listed");
        }

        // An update and an add, as watched, and as the handlers hear them.
        let patch = Patch::Merge(json!({"data": {"k": round.to_string()}}));
        let updated = api.patch("a", &PatchParams::default(), &patch).await.unwrap();
        let added = api.create(&PostParams::default(), &with_data("c")).await.unwrap();
        let (mut heard, mut events) = (Vec::new(), 0);
        while events < 2 {
            let next = tokio::time::timeout(Duration::from_secs(20), subscription.next());
            match next.await.expect("the watch delivers").unwrap() {
                Notification::Update { old, new } => heard.extend([(*old).clone(), (*new).clone()]),
                Notification::Add { object, .. } if object.name_any() == "c" => heard.push((*object).clone()),
                _ => continue,
            }
            events += 1;
        }
        assert!(heard.iter().all(|cm| cm.metadata.managed_fields.is_none()), "{heard:?}");
        assert_eq!(*informer.store().get("default/a").unwrap(), stripped(updated));
        assert_eq!(*informer.store().get("default/c").unwrap(), stripped(added));
        api.delete("c", &DeleteParams::default()).await.unwrap();
        informer.shutdown().await;
    }
}
