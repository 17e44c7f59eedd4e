//! How the informer's list and watch retry what a server (or a proxy in front of it) does wrong
//! again and again: a watch closed as soon as it opens, a list whose resourceVersion has
//! expired by the time it is watched from, a continue token that expires, a streaming list cut
//! halfway. None may become a loop of requests; each must end in a synced cache or a backoff
//! that grows.

#[path = "support/intercepted.rs"]
mod intercepted;
#[path = "support/objects.rs"]
mod objects;
#[path = "support/reflecting.rs"]
mod reflecting;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use fake_apiserver::{ApiStatus, FakeApiServer, ResponseBody};
use http_body_util::{BodyExt, Full, StreamBody};
use intercepted::{intercepted, is_watch, pass_on, query};
use kube::runtime::watcher;
use objects::configmap;
use reflecting::{create, running, time_until_cached};
use tokio::time::Instant;

/// A 200 whose body is `lines`, then ends.
fn answer(lines: &'static str) -> http::Response<ResponseBody> {
    http::Response::new(Full::new(Bytes::from_static(lines.as_bytes())).boxed_unsync())
}

/// kube-apiserver's answer to a watch from a resourceVersion its cache no longer holds.
const TOO_OLD: &str = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: 1 (5)\",\"reason\":\"Expired\",\"code\":410}}\n";

/// How many watches and lists of ConfigMaps a server answering each watch with `watch_body`
/// is sent in `window` of real time, once the informer has synced.
async fn requests_in(window: Duration, watch_body: &'static str) -> (usize, usize) {
    let server = FakeApiServer::new();
    create(&server, "a").await;
    let client = intercepted(&server, move |request, service| async move {
        if is_watch(&request) {
            answer(watch_body)
        } else {
            pass_on(service, request).await
        }
    });
    let informer = running(client, watcher::Config::default());
    assert!(informer.wait_for_sync().await);
    tokio::time::sleep(window).await;
    informer.shutdown().await;
    let actions = server.actions();
    let count = |verb| actions.iter().filter(|a| a.matches(verb, "configmaps")).count();
    (count("watch"), count("list"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_closed_as_it_opens_should_be_retried_once_at_once_then_with_backoff() {
    // The intercepted watches never reach the server's log: count them from the lists and
    // the informer's own pace instead.
    let watched = Arc::new(Mutex::new(Vec::<Instant>::new()));
    let server = FakeApiServer::new();
    create(&server, "a").await;
    let client = {
        let watched = watched.clone();
        intercepted(&server, move |request, service| {
            let watched = watched.clone();
            async move {
                if is_watch(&request) {
                    watched.lock().unwrap().push(Instant::now());
                    answer("")
                } else {
                    pass_on(service, request).await
                }
            }
        })
    };
    let informer = running(client, watcher::Config::default());
    assert!(informer.wait_for_sync().await);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    informer.shutdown().await;
    let watched = watched.lock().unwrap().clone();
    // At once, at once again, then after 0.8–1.6 s and 1.6–3.2 s more.
    assert!((3..=4).contains(&watched.len()), "{} watches in 2.5 s", watched.len());
    assert!(
        watched[1] - watched[0] < Duration::from_millis(500),
        "the first was retried at once"
    );
    assert!(
        watched[2] - watched[1] >= Duration::from_millis(800),
        "the second backed off"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_whose_resource_version_expires_at_once_should_be_listed_again_with_backoff() {
    let (_, lists) = requests_in(Duration::from_millis(2500), TOO_OLD).await;
    // List, watch (410), list at once, watch (410 again), then lists after 0.8–1.6 s and
    // 1.6–3.2 s more.
    assert!((2..=4).contains(&lists), "{lists} lists in 2.5 s");
}

#[tokio::test(start_paused = true)]
async fn a_continue_token_that_expires_should_be_listed_again_in_one_answer() {
    let server = FakeApiServer::new();
    for name in ["a", "b", "c"] {
        create(&server, name).await;
    }
    let lists = Arc::new(Mutex::new(Vec::<String>::new()));
    let client = {
        let (lists, server) = (lists.clone(), server.clone());
        intercepted(&server.clone(), move |request, service| {
            let (lists, server) = (lists.clone(), server.clone());
            async move {
                if !is_watch(&request) {
                    let query = query(&request).to_owned();
                    if query.contains("continue=") && !lists.lock().unwrap().iter().any(|q| q.contains("continue=")) {
                        // The list took longer than the compaction interval: a write, then
                        // the history up to it compacted.
                        let mut late = configmap("late");
                        late.metadata.namespace = Some("default".into());
                        server.insert(&late).unwrap();
                        server.expire_resource_versions();
                    }
                    lists.lock().unwrap().push(query);
                }
                pass_on(service, request).await
            }
        })
    };
    let informer = running(client, watcher::Config::default().page_size(1));
    assert!(informer.wait_for_sync().await);
    assert_eq!(
        informer.store().list().len(),
        4,
        "the three, and the one written meanwhile"
    );
    let lists = lists.lock().unwrap().clone();
    assert_eq!(lists.len(), 3, "{lists:?}");
    assert!(
        lists[0].contains("limit=1") && lists[1].contains("continue="),
        "{lists:?}"
    );
    assert!(
        !lists[2].contains("limit=") && !lists[2].contains("continue="),
        "{lists:?}"
    );
    informer.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_cut_halfway_each_time_should_back_off_further_each_time() {
    let server = FakeApiServer::new();
    create(&server, "a").await;
    let streamed = Arc::new(Mutex::new(Vec::<Instant>::new()));
    let client = {
        let streamed = streamed.clone();
        intercepted(&server, move |request, _| {
            let streamed = streamed.clone();
            async move {
                assert!(query(&request).contains("sendInitialEvents=true"), "a streaming list");
                streamed.lock().unwrap().push(Instant::now());
                // One initial event, then the connection breaks before the closing bookmark.
                let added = "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"namespace\":\"default\",\"resourceVersion\":\"2\"}}}\n";
                let frames: Vec<Result<_, std::io::Error>> = vec![
                    Ok(http_body::Frame::data(Bytes::from_static(added.as_bytes()))),
                    Err(std::io::Error::other("connection reset")),
                ];
                http::Response::new(StreamBody::new(futures::stream::iter(frames)).boxed_unsync())
            }
        })
    };
    let informer = running(client, watcher::Config::default().streaming_lists());
    let start = Instant::now();
    while streamed.lock().unwrap().len() < 5 && start.elapsed() < Duration::from_secs(600) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    informer.shutdown().await;
    let streamed = streamed.lock().unwrap().clone();
    let waits: Vec<Duration> = streamed.windows(2).map(|pair| pair[1] - pair[0]).collect();
    // client-go's backoff: 0.8 s doubling, each wait up to twice its step. Were the initial
    // events a success, every wait would be the first step's again.
    assert!(
        waits.len() >= 4 && waits[3] >= Duration::from_millis(6400),
        "waits {waits:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_should_ask_for_the_bookmark_that_ends_it_even_with_bookmarks_off() {
    let server = FakeApiServer::new();
    create(&server, "a").await;
    let config = watcher::Config::default().streaming_lists().disable_bookmarks();
    let informer = running(server.client(), config);
    let synced = tokio::time::timeout(Duration::from_secs(60), informer.wait_for_sync()).await;
    assert!(synced.is_ok_and(|synced| synced), "the streaming list never ended");
    assert_eq!(informer.store().list().len(), 1);
    informer.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_watch_event_of_an_unknown_type_should_be_skipped() {
    let server = FakeApiServer::new();
    create(&server, "a").await;
    let client = intercepted(&server, move |request, service| async move {
        if is_watch(&request) {
            // A type of some later API, then an event this client knows.
            answer(concat!(
                "{\"type\":\"RENAMED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"namespace\":\"default\",\"resourceVersion\":\"900\"}}}\n",
                "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"b\",\"namespace\":\"default\",\"resourceVersion\":\"901\"}}}\n",
            ))
        } else {
            pass_on(service, request).await
        }
    });
    let informer = running(client, watcher::Config::default());
    assert!(informer.wait_for_sync().await);
    time_until_cached(&informer, "b").await;
    assert_eq!(informer.store().list().len(), 2);
    informer.shutdown().await;
}

/// With `ListSemantic::Any`, after a 410 the informer relists no older than what its store had
/// (client-go's `relistResourceVersion`), so an API server whose cache lags cannot take it back
/// in time;
/// where the server answers it no longer has that version (504 "Too large resource version"
/// from a cache that does not catch up in time, or 410), it lists the latest at once.
#[tokio::test(start_paused = true)]
async fn a_relist_should_ask_for_no_older_than_the_store_had_or_for_the_latest() {
    let server = FakeApiServer::new();
    create(&server, "a").await;
    let lists = Arc::new(Mutex::new(Vec::<String>::new()));
    let client = {
        let lists = lists.clone();
        intercepted(&server, move |request, service| {
            let lists = lists.clone();
            async move {
                if !is_watch(&request) {
                    let query = query(&request).to_owned();
                    let at_a_version = query
                        .split('&')
                        .any(|pair| pair.starts_with("resourceVersion=") && pair != "resourceVersion=0");
                    lists.lock().unwrap().push(query);
                    if at_a_version {
                        let status = ApiStatus::resource_version_too_large(10_000, 12);
                        let mut response = answer("");
                        *response.body_mut() = Full::new(Bytes::from(status.to_json().to_string())).boxed_unsync();
                        *response.status_mut() = http::StatusCode::GATEWAY_TIMEOUT;
                        return response;
                    }
                }
                pass_on(service, request).await
            }
        })
    };
    // `MostRecent`, the default, reads every list from etcd; `Any` lets the server answer
    // from its cache.
    let informer = running(client, watcher::Config::default().any_semantic());
    assert!(informer.wait_for_sync().await);
    create(&server, "b").await;
    time_until_cached(&informer, "b").await;
    let had = informer
        .store()
        .get("default/b")
        .unwrap()
        .metadata
        .resource_version
        .clone()
        .unwrap();
    // The watch is cut; meanwhile an object is written and the history compacted past where
    // the informer was, so its watch from there gets 410.
    server.cut_watches();
    let mut c = configmap("c");
    c.metadata.namespace = Some("default".into());
    server.insert(&c).unwrap();
    server.expire_resource_versions();
    time_until_cached(&informer, "c").await;
    let lists = lists.lock().unwrap().clone();
    assert_eq!(lists.len(), 3, "{lists:?}");
    // kube sends the first list's "0" only without a limit (kube-apiserver ignores limits there).
    assert!(!lists[0].contains("resourceVersionMatch"), "{lists:?}");
    assert!(
        lists[1].contains(&format!("resourceVersion={had}&resourceVersionMatch=NotOlderThan")),
        "the relist no older than {had}: {lists:?}"
    );
    assert!(!lists[2].contains("resourceVersion"), "then the latest: {lists:?}");
    informer.shutdown().await;
}
