//! The informer's own list and watch against the in-memory API server, in virtual time: a 410
//! relists at once while failures back off, and a streaming list is used where the server has
//! it and replaced by a list where it refuses it; and, in real time, a list's next page is
//! asked for while a page is decoded, and followed where a page names it only after its items.
//! The servers start empty (`bootstrap(false)`): the tests count every ConfigMap of `default`.

use crate::support::intercepted;
use crate::support::reflecting;

use intercepted::{intercepted, is_watch, pass_on};
use reflecting::{create, lists_answered, running, time_until_cached, write_and_compact};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use codegen_runtime::cache::{InformerOptions, SharedIndexInformer};
use fake_apiserver::{ApiStatus, FakeApiServer};
use http_body_util::{BodyExt, Full};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::runtime::watcher;
use serde_json::Value;
use tokio::time::Instant;

#[tokio::test(start_paused = true)]
async fn an_expired_resource_version_should_relist_at_once_and_a_failure_back_off() {
    let server = FakeApiServer::builder().bootstrap(false).build();
    create(&server, "first").await;
    let informer = running(server.client(), watcher::Config::default());
    assert!(informer.wait_for_sync().await);

    // The watch has been open a while when it is cut; meanwhile an object is written and the
    // history compacted past where the informer was: 410 on the re-watch, then a relist, with
    // no backoff in between (kube-runtime's watcher waits 0.8 s or more here, with no watch
    // open to see the new object).
    tokio::time::sleep(Duration::from_secs(2)).await;
    server.cut_watches();
    write_and_compact(&server, "meanwhile");
    let listed = lists_answered(&server);
    create(&server, "after-expiry").await;
    let relisted = time_until_cached(&informer, "after-expiry").await;
    assert!(
        relisted < Duration::from_millis(50),
        "a 410 relisted after {relisted:?}"
    );
    assert_eq!(lists_answered(&server), listed + 1, "the re-watch got 410 and relisted");

    // A server failure is waited out (client-go's backoff starts at 0.8 s).
    server.fail_next(1, "watch", "configmaps", ApiStatus::internal("injected"));
    server.cut_watches();
    create(&server, "after-failure").await;
    let recovered = time_until_cached(&informer, "after-failure").await;
    assert!(
        recovered >= Duration::from_millis(500),
        "a 500 was retried after {recovered:?}"
    );

    // After a success the backoff starts over: the next failure waits 0.8–1.6 s again, not
    // the 1.6 s or more of a second step.
    server.fail_next(1, "watch", "configmaps", ApiStatus::internal("injected"));
    server.cut_watches();
    create(&server, "after-second-failure").await;
    let again = time_until_cached(&informer, "after-second-failure").await;
    assert!(
        again >= Duration::from_millis(500) && again < Duration::from_millis(1600),
        "after a success, a 500 was retried after {again:?}"
    );
    informer.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_should_be_used_or_replaced_by_a_list() {
    let server = FakeApiServer::builder().bootstrap(false).watch_list(true).build();
    create(&server, "a").await;
    create(&server, "b").await;
    server.clear_actions();
    let streaming = running(server.client(), watcher::Config::default().streaming_lists());
    assert!(streaming.wait_for_sync().await);
    assert_eq!(streaming.store().list().len(), 2);
    let verbs: Vec<String> = server
        .actions()
        .iter()
        .filter(|a| a.resource == "configmaps")
        .map(|a| format!("{:?}", a.verb))
        .collect();
    assert_eq!(verbs, ["Watch"], "a streaming list is one watch");
    streaming.shutdown().await;

    // A server without the WatchList feature (v1.33's default) refuses `sendInitialEvents` with 422.
    let server = FakeApiServer::builder().bootstrap(false).build();
    create(&server, "a").await;
    create(&server, "b").await;
    let start = Instant::now();
    let fallback = running(server.client(), watcher::Config::default().streaming_lists());
    assert!(fallback.wait_for_sync().await);
    assert!(
        start.elapsed() < Duration::from_millis(50),
        "fell back after {:?}",
        start.elapsed()
    );
    assert_eq!(fallback.store().list().len(), 2);
    create(&server, "c").await;
    time_until_cached(&fallback, "c").await;
    fallback.shutdown().await;
}

/// A transform holds the decode of the first page (it runs where each object is decoded) until
/// the server has been asked for the second page, or 5 s have passed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_page_should_be_asked_for_while_a_page_is_decoded() {
    let server = FakeApiServer::builder().bootstrap(false).build();
    for name in ["a", "b", "c"] {
        create(&server, name).await;
    }
    let asked_meanwhile = Arc::new(AtomicBool::new(false));
    let transform = {
        let (asked_meanwhile, server) = (asked_meanwhile.clone(), server.clone());
        Arc::new(move |cm: &mut ConfigMap| {
            if cm.metadata.name.as_deref() == Some("a") {
                let give_up = std::time::Instant::now() + Duration::from_secs(5);
                while lists_answered(&server) < 2 && std::time::Instant::now() < give_up {
                    std::thread::sleep(Duration::from_millis(1));
                }
                asked_meanwhile.store(lists_answered(&server) >= 2, Ordering::SeqCst);
            }
        })
    };
    server.clear_actions();
    let options = InformerOptions {
        namespace: Some("default".into()),
        watcher: watcher::Config::default().page_size(1),
        transform: Some(transform),
        ..InformerOptions::default()
    };
    let informer = SharedIndexInformer::<ConfigMap>::new(server.client(), options);
    informer.run();
    assert!(informer.wait_for_sync().await);
    assert_eq!(informer.store().list().len(), 3);
    assert!(
        asked_meanwhile.load(Ordering::SeqCst),
        "the second page was asked for only after the first was decoded"
    );
    assert_eq!(
        lists_answered(&server),
        3,
        "one request per page: {:?}",
        server.actions()
    );
    informer.shutdown().await;
}

/// A list page whose `metadata` (with the continue token) comes after its `items`, as JSON with
/// its keys in another order may: the head names no next page, so the pages' task stops after
/// each page and the informer must follow the token it decoded with the items.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_continue_token_after_the_items_should_be_followed() {
    let server = FakeApiServer::builder().bootstrap(false).build();
    for name in ["a", "b", "c"] {
        create(&server, name).await;
    }
    server.clear_actions();
    let items_first = intercepted(&server, |request, service| async move {
        let list = !is_watch(&request);
        let response = pass_on(service, request).await;
        if !list {
            return response;
        }
        let (parts, body) = response.into_parts();
        let page: Value = serde_json::from_slice(&body.collect().await.unwrap().to_bytes()).unwrap();
        let reordered = format!(
            r#"{{"kind":{},"apiVersion":{},"items":{},"metadata":{}}}"#,
            page["kind"], page["apiVersion"], page["items"], page["metadata"]
        );
        http::Response::from_parts(parts, Full::new(Bytes::from(reordered)).boxed_unsync())
    });
    let options = InformerOptions {
        namespace: Some("default".into()),
        watcher: watcher::Config::default().page_size(1),
        ..InformerOptions::default()
    };
    let informer = SharedIndexInformer::<ConfigMap>::new(items_first, options);
    informer.run();
    let synced = tokio::time::timeout(Duration::from_secs(10), informer.wait_for_sync()).await;
    assert!(synced.is_ok_and(|synced| synced), "the list never ended");
    let mut cached: Vec<String> = informer
        .store()
        .list()
        .iter()
        .map(|cm| cm.metadata.name.clone().unwrap())
        .collect();
    cached.sort();
    assert_eq!(cached, ["a", "b", "c"], "every page was listed");
    let lists = server
        .actions()
        .iter()
        .filter(|a| a.matches("list", "configmaps"))
        .count();
    assert_eq!(lists, 3, "one request per page: {:?}", server.actions());
    informer.shutdown().await;
}
