//! Handlers and subscriptions on the in-memory API server: notifications in order, on their own
//! tasks or inline; late handlers replayed the cache; a slow handler delaying no other; resync
//! per handler; a panicking call skipped; subscriptions' sync state; what inline handlers may
//! not do, refused rather than deadlocked (those tests run on two threads, so that their
//! timeouts fire if one deadlocks).
//! The servers start empty (`bootstrap(false)`): the tests count every ConfigMap of `default`.

use crate::support::informers;
use crate::support::objects;

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use codegen_runtime::cache::{HandlerFns, HandlerRegistration};
use fake_apiserver::FakeApiServer;
use futures::StreamExt;
use informers::{Recorder, informer, take};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use objects::configmap;
use serde_json::json;
use tokio::sync::mpsc;

#[tokio::test]
async fn handlers_should_see_adds_updates_and_deletes_in_order() {
    let server = FakeApiServer::builder().bootstrap(false).build();
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
async fn a_late_handler_should_first_receive_the_cache() {
    let server = FakeApiServer::builder().bootstrap(false).build();
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
    let server = FakeApiServer::builder().bootstrap(false).build();
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
        let server = FakeApiServer::builder().bootstrap(false).build();
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
async fn a_panicking_handler_should_skip_one_notification_not_all() {
    let server = FakeApiServer::builder().bootstrap(false).build();
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
async fn subscriptions_should_know_when_their_initial_list_is_taken() {
    let server = FakeApiServer::builder().bootstrap(false).build();
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
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inline_handler_adding_a_handler_should_be_refused_not_deadlocked() {
    let server = FakeApiServer::builder().bootstrap(false).build();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let informer = informer(server.client());
    let other = informers::informer(server.client());
    let (sender, mut events) = mpsc::unbounded_channel();
    let (own, others) = (informer.clone(), other.clone());
    informer.add_inline_event_handler(HandlerFns::new().on_add(move |cm: Arc<ConfigMap>, _| {
        // Either call panics: this informer's lock is held while the handler runs, and
        // another's may be held by a thread waiting for this one. The notification is skipped.
        match cm.name_any().as_str() {
            "to-own" => drop(own.add_event_handler(HandlerFns::new())),
            "to-other" => drop(others.add_inline_event_handler(HandlerFns::new())),
            _ => {}
        }
        let _ = sender.send(cm.name_any());
    }));
    informer.run();
    informer.wait_for_sync().await;
    for name in ["to-own", "to-other", "after"] {
        api.create(&PostParams::default(), &configmap(name)).await.unwrap();
    }
    assert_eq!(take(&mut events, 1).await, ["after"]);
    informer.shutdown().await;
    other.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inline_handler_that_removes_itself_should_be_dropped_at_once() {
    let server = FakeApiServer::builder().bootstrap(false).build();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let informer = informer(server.client());
    let registration: Arc<OnceLock<HandlerRegistration>> = Arc::default();
    let (sender, mut events) = mpsc::unbounded_channel();
    let (own, itself) = (informer.clone(), registration.clone());
    let added = informer.add_inline_event_handler(HandlerFns::new().on_add(move |cm: Arc<ConfigMap>, _| {
        let _ = sender.send(cm.name_any());
        if cm.name_any() == "last" {
            own.remove_handler(itself.get().expect("registered before the first add"));
        }
    }));
    registration.set(added).ok().expect("set once");
    informer.run();
    informer.wait_for_sync().await;
    for name in ["first", "last"] {
        api.create(&PostParams::default(), &configmap(name)).await.unwrap();
    }
    assert_eq!(take(&mut events, 2).await, ["first", "last"]);
    // Dropped with the handler, its sender closes the channel, with no later event to wait for.
    let closed = tokio::time::timeout(Duration::from_secs(5), events.recv()).await;
    assert_eq!(closed.expect("dropped in time"), None);
    informer.shutdown().await;
}
