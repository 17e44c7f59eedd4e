//! Inline event handlers, what is theirs alone: one may remove handlers, and is told, not
//! deadlocked, when it adds one (that they hear what other handlers hear, late or resynced:
//! `informer.rs`). The tests run on two threads, so that their timeouts fire if one deadlocks.

#[path = "support/informers.rs"]
mod informers;
#[path = "support/objects.rs"]
mod objects;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use codegen_runtime::cache::{HandlerFns, HandlerRegistration};
use fake_apiserver::FakeApiServer;
use informers::{informer, take};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::api::{Api, PostParams};
use objects::configmap;
use tokio::sync::mpsc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inline_handler_adding_a_handler_should_be_refused_not_deadlocked() {
    let server = FakeApiServer::new();
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
