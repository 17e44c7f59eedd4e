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
use reflecting::{create, lists_answered, running, time_until_cached, write_and_compact};
use tokio::time::Instant;

/// A 200 whose body is `lines`, then ends.
fn answer(lines: &'static str) -> http::Response<ResponseBody> {
    http::Response::new(Full::new(Bytes::from_static(lines.as_bytes())).boxed_unsync())
}

/// kube-apiserver's answer to a watch from a resourceVersion its cache no longer holds.
const TOO_OLD: &str = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: 1 (5)\",\"reason\":\"Expired\",\"code\":410}}\n";

/// When the informer sent its watches and its lists of ConfigMaps, in `window` of real time,
/// to a server answering each watch with `watch_body` at once.
async fn requests_in(window: Duration, watch_body: &'static str) -> (Vec<Instant>, Vec<Instant>) {
    let server = FakeApiServer::new();
    create(&server, "a").await;
    let sent = Arc::new(Mutex::new((Vec::new(), Vec::new())));
    let client = {
        let sent = sent.clone();
        intercepted(&server, move |request, service| {
            let sent = sent.clone();
            async move {
                if is_watch(&request) {
                    sent.lock().unwrap().0.push(Instant::now());
                    answer(watch_body)
                } else {
                    sent.lock().unwrap().1.push(Instant::now());
                    pass_on(service, request).await
                }
            }
        })
    };
    let informer = running(client, watcher::Config::default());
    assert!(informer.wait_for_sync().await);
    tokio::time::sleep(window).await;
    informer.shutdown().await;
    let sent = sent.lock().unwrap();
    (sent.0.clone(), sent.1.clone())
}

/// The waits between one request and the next.
fn waits(times: &[Instant]) -> Vec<Duration> {
    times.windows(2).map(|pair| pair[1] - pair[0]).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_closed_as_it_opens_should_be_retried_once_at_once_then_with_backoff() {
    let (watched, _) = requests_in(Duration::from_millis(2500), "").await;
    // At once, at once again, then after 0.8–1.6 s and 1.6–3.2 s more.
    let waits = waits(&watched);
    assert!((2..=3).contains(&waits.len()), "{} watches in 2.5 s", watched.len());
    assert!(
        waits[0] < Duration::from_millis(500),
        "the first was retried at once: {waits:?}"
    );
    assert!(
        waits[1] >= Duration::from_millis(800),
        "the second backed off: {waits:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_whose_resource_version_expires_at_once_should_be_listed_again_with_growing_backoff() {
    let (_, listed) = requests_in(Duration::from_millis(5000), TOO_OLD).await;
    // List, watch (410), list at once, watch (410 again), then lists after 0.8–1.6 s and
    // 1.6–3.2 s more: the lists in between do not start the backoff over, as no watch
    // after them made progress.
    let waits = waits(&listed);
    assert!((3..=4).contains(&waits.len()), "{} lists in 5 s", listed.len());
    assert!(
        waits[0] < Duration::from_millis(500),
        "the first relist at once: {waits:?}"
    );
    assert!(waits[1] >= Duration::from_millis(800), "then a backoff: {waits:?}");
    assert!(waits[2] >= Duration::from_millis(1600), "that grows: {waits:?}");
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
                        write_and_compact(&server, "late");
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

/// The waits between the streaming lists of an informer whose every streaming list sends one
/// initial event and then fails (`broken`) or ends, before the bookmark that would end its
/// initial events.
async fn waits_between_streaming_lists(broken: bool) -> Vec<Duration> {
    let server = FakeApiServer::new();
    let streamed = Arc::new(Mutex::new(Vec::<Instant>::new()));
    let client = {
        let streamed = streamed.clone();
        intercepted(&server, move |request, _| {
            let streamed = streamed.clone();
            async move {
                assert!(query(&request).contains("sendInitialEvents=true"), "a streaming list");
                streamed.lock().unwrap().push(Instant::now());
                let added = "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"namespace\":\"default\",\"resourceVersion\":\"2\"}}}\n";
                let mut frames: Vec<Result<_, std::io::Error>> =
                    vec![Ok(http_body::Frame::data(Bytes::from_static(added.as_bytes())))];
                if broken {
                    frames.push(Err(std::io::Error::other("connection reset")));
                }
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
    waits(&streamed.lock().unwrap())
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_cut_halfway_each_time_should_back_off_further_each_time() {
    // client-go's backoff: 0.8 s doubling, each wait up to twice its step. Were the initial
    // events a success, every wait would be the first step's again; were a clean end before
    // the bookmark taken as a watch that ended, there would be no wait at all.
    for broken in [true, false] {
        let waits = waits_between_streaming_lists(broken).await;
        assert!(
            waits.len() >= 4 && waits[0] >= Duration::from_millis(800) && waits[3] >= Duration::from_millis(6400),
            "broken {broken}: waits {waits:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_should_ask_for_the_bookmark_that_ends_it_even_with_bookmarks_off() {
    let server = FakeApiServer::builder().watch_list(true).build();
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
    let answered = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let client = intercepted(&server, move |request, service| {
        let answered = answered.clone();
        async move {
            if is_watch(&request) {
                if answered.swap(true, std::sync::atomic::Ordering::SeqCst) {
                    // Later watches stay open and silent.
                    return std::future::pending().await;
                }
                // A type of some later API, then an event this client knows.
                answer(concat!(
                    "{\"type\":\"RENAMED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"namespace\":\"default\",\"resourceVersion\":\"900\"}}}\n",
                    "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"b\",\"namespace\":\"default\",\"resourceVersion\":\"901\"}}}\n",
                ))
            } else {
                pass_on(service, request).await
            }
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
                    let asked_a_version = at_a_version(&query);
                    lists.lock().unwrap().push(query);
                    if asked_a_version {
                        return too_large();
                    }
                }
                pass_on(service, request).await
            }
        })
    };
    // `MostRecent`, the default, reads every list from etcd; `Any` lets the server answer
    // from its cache.
    let had = relist_after_410(&server, client, watcher::Config::default().any_semantic()).await;
    let lists = lists.lock().unwrap().clone();
    assert_eq!(lists.len(), 3, "{lists:?}");
    // kube sends the first list's "0" only without a limit (kube-apiserver ignores limits there).
    assert!(!lists[0].contains("resourceVersionMatch"), "{lists:?}");
    assert!(
        lists[1].contains(&format!("resourceVersion={had}&resourceVersionMatch=NotOlderThan")),
        "the relist no older than {had}: {lists:?}"
    );
    assert!(!lists[2].contains("resourceVersion"), "then the latest: {lists:?}");
}

/// A failure backs off on its own; the 410 that may follow it (the server came back with its
/// history compacted) is not a second watch in a row that ended at once, and relists at once.
#[tokio::test(start_paused = true)]
async fn a_410_after_a_failure_should_relist_after_that_failure_s_backoff_only() {
    let server = FakeApiServer::new();
    create(&server, "a").await;
    let informer = running(server.client(), watcher::Config::default());
    assert!(informer.wait_for_sync().await);
    tokio::time::sleep(Duration::from_secs(2)).await;
    // The watch breaks and the server is away: its next watch fails; meanwhile an object is
    // written and the history compacted past where the informer was.
    server.fail_next(1, "watch", "configmaps", ApiStatus::internal("restarting"));
    server.cut_watches();
    write_and_compact(&server, "meanwhile");
    let recovered = time_until_cached(&informer, "meanwhile").await;
    assert_eq!(
        lists_answered(&server),
        2,
        "the watch after the failure got 410 and relisted"
    );
    // One backoff (0.8–1.6 s), then the 410 and the relist at once.
    assert!(
        recovered >= Duration::from_millis(800) && recovered < Duration::from_millis(1700),
        "recovered after {recovered:?}"
    );
    informer.shutdown().await;
}

/// A streaming informer's relist after a 410 streams from no older than what its store had
/// (client-go's `rewatchResourceVersion`); where the server answers it no longer has that
/// version, the next streams the latest (a consistent read, `resourceVersion=`). The first
/// streams the latest too, as client-go's, unless any version will do.
#[tokio::test(start_paused = true)]
async fn a_streaming_relist_should_ask_for_no_older_than_the_store_had_or_for_the_latest() {
    let config = watcher::Config::default().streaming_lists();
    streaming_relists(config, "", "the first the latest", too_large_in_stream).await;
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_that_takes_any_version_should_start_from_the_cache() {
    let config = watcher::Config::default().streaming_lists().any_semantic();
    streaming_relists(config, "0", "the first from the cache", too_large_in_stream).await;
}

/// The same where the refusal is the answer to the request itself (as a list's is), not an
/// event in its stream.
#[tokio::test(start_paused = true)]
async fn a_streaming_relist_refused_outright_as_too_large_should_ask_for_the_latest() {
    let config = watcher::Config::default().streaming_lists();
    streaming_relists(config, "", "the first the latest", too_large).await;
}

/// Three streaming lists: the first, the relist after a 410, refused as too large with
/// `refusal`, and the one after that.
async fn streaming_relists(
    config: watcher::Config,
    first: &str,
    why: &str,
    refusal: fn() -> http::Response<ResponseBody>,
) {
    let server = FakeApiServer::builder().watch_list(true).build();
    create(&server, "a").await;
    let streams = Arc::new(Mutex::new(Vec::<String>::new()));
    let client = {
        let streams = streams.clone();
        intercepted(&server, move |request, service| {
            let streams = streams.clone();
            async move {
                let query = query(&request).to_owned();
                if query.contains("sendInitialEvents=true") {
                    let first_at_a_version =
                        at_a_version(&query) && !streams.lock().unwrap().iter().any(|q| at_a_version(q));
                    streams.lock().unwrap().push(query.clone());
                    if first_at_a_version {
                        return refusal();
                    }
                }
                pass_on(service, request).await
            }
        })
    };
    let had: u64 = relist_after_410(&server, client, config).await.parse().unwrap();
    let streams = streams.lock().unwrap().clone();
    let versions: Vec<&str> = streams.iter().map(|q| resource_version(q)).collect();
    assert_eq!(versions.len(), 3, "{streams:?}");
    assert_eq!(versions[0], first, "{why}: {streams:?}");
    assert!(
        versions[1].parse::<u64>().is_ok_and(|v| v >= had),
        "the relist no older than {had}: {streams:?}"
    );
    assert_eq!(versions[2], "", "then the latest: {streams:?}");
}

/// The `resourceVersion` a query asks for; empty where it names none.
fn resource_version(query: &str) -> &str {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("resourceVersion="))
        .unwrap_or_default()
}

/// Whether a query asks for a resourceVersion, not "any" ("0") or "the latest" (none).
fn at_a_version(query: &str) -> bool {
    !matches!(resource_version(query), "" | "0")
}

/// How kube-apiserver's watch cache answers a streaming list from a resourceVersion it has not
/// reached in time: a 200 whose one event is the 504.
fn too_large_in_stream() -> http::Response<ResponseBody> {
    let status = ApiStatus::resource_version_too_large(10_000, 12).to_json();
    let line = format!("{{\"type\":\"ERROR\",\"object\":{status}}}\n");
    http::Response::new(Full::new(Bytes::from(line)).boxed_unsync())
}

/// kube-apiserver's answer to a request for a resourceVersion its cache has not reached in time.
fn too_large() -> http::Response<ResponseBody> {
    let status = ApiStatus::resource_version_too_large(10_000, 12);
    let mut response = http::Response::new(Full::new(Bytes::from(status.to_json().to_string())).boxed_unsync());
    *response.status_mut() = http::StatusCode::GATEWAY_TIMEOUT;
    response
}

/// Runs an informer through `client` as `config` says until it has synced and seen `b`, then
/// cuts its watch while an object `c` is written and the history compacted past where it was,
/// so that its watch from there gets 410 and it relists; returns `b`'s resourceVersion, which
/// the relist must not go back from, once `c` is cached.
async fn relist_after_410(server: &FakeApiServer, client: kube::Client, config: watcher::Config) -> String {
    let informer = running(client, config);
    assert!(informer.wait_for_sync().await);
    create(server, "b").await;
    time_until_cached(&informer, "b").await;
    let had = informer
        .store()
        .get("default/b")
        .unwrap()
        .metadata
        .resource_version
        .clone()
        .unwrap();
    server.cut_watches();
    write_and_compact(server, "c");
    time_until_cached(&informer, "c").await;
    informer.shutdown().await;
    had
}
