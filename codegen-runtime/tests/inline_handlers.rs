//! Inline event handlers: called on the informer's task with the notifications a buffered
//! handler gets, in the same order (a late one: `informer.rs`); one may remove handlers, and is
//! told, not deadlocked, when it adds one. The tests that could
//! deadlock run on two threads, so that their timeouts fire if one does.

#[path = "support/handlers.rs"]
mod handlers;
#[path = "support/objects.rs"]
mod objects;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use codegen_runtime::cache::{HandlerFns, HandlerRegistration};
use fake_apiserver::FakeApiServer;
use handlers::{Recorder, informer, take};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use objects::configmap;
use serde_json::json;
use tokio::sync::mpsc;

/// Everything a handler has heard so far, without waiting.
fn heard(events: &mut mpsc::UnboundedReceiver<String>) -> Vec<String> {
    std::iter::from_fn(|| events.try_recv().ok()).collect()
}

#[tokio::test]
async fn an_inline_handler_should_hear_what_a_buffered_one_hears_in_the_same_order() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("existing"))
        .await
        .unwrap();
    let informer = informer(server.client());
    let (inline_sender, mut inline) = mpsc::unbounded_channel();
    let registration = informer.add_inline_event_handler(Recorder(inline_sender));
    let (buffered_sender, mut buffered) = mpsc::unbounded_channel();
    informer.add_event_handler(Recorder(buffered_sender));
    assert!(!registration.has_synced(), "nothing is listed before the informer runs");
    informer.run();
    assert!(informer.wait_for_sync().await);
    assert!(
        registration.has_synced(),
        "an inline handler has its initial list once the informer has"
    );

    api.create(&PostParams::default(), &configmap("a")).await.unwrap();
    let data = Patch::Merge(json!({ "data": { "k": "v" } }));
    api.patch("a", &PatchParams::default(), &data).await.unwrap();
    api.delete("a", &DeleteParams::default()).await.unwrap();
    let expected = ["add existing (initial)", "add a", "update a", "delete a"];
    assert_eq!(take(&mut inline, 4).await, expected);
    assert_eq!(take(&mut buffered, 4).await, expected);
    informer.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inline_handler_adding_a_handler_should_be_refused_not_deadlocked() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let informer = informer(server.client());
    let other = handlers::informer(server.client());
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
    let server = FakeApiServer::new();
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

#[tokio::test(start_paused = true)]
async fn an_inline_handler_should_be_resynced_on_its_own_period() {
    let server = FakeApiServer::new();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a")).await.unwrap();
    let informer = informer(server.client());
    let (sender, mut events) = mpsc::unbounded_channel();
    informer.add_inline_event_handler_with_resync(Recorder(sender), Some(Duration::from_secs(30)));
    let (quiet_sender, mut quiet) = mpsc::unbounded_channel();
    informer.add_inline_event_handler(Recorder(quiet_sender));
    informer.run();
    informer.wait_for_sync().await;
    assert_eq!(heard(&mut events), ["add a (initial)"]);
    assert_eq!(heard(&mut quiet), ["add a (initial)"]);
    tokio::time::sleep(Duration::from_secs(31)).await;
    assert_eq!(take(&mut events, 1).await, ["update a"]);
    assert!(heard(&mut quiet).is_empty(), "a handler without resync gets none");
    informer.shutdown().await;
}
