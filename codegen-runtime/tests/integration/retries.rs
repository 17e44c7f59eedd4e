//! How the informer's list and watch retry what a server (or a proxy in front of it) does wrong
//! again and again: a watch closed as soon as it opens, cut, or failing in its stream, a list
//! whose resourceVersion has expired by the time it is watched from, a continue token that
//! expires. None may become a loop of requests; each must end in a synced cache or a backoff
//! that grows. (Streaming lists: `streaming.rs`.)
//! The servers start empty (`bootstrap(false)`): the tests count every ConfigMap of `default`.

use crate::support::answers;
use crate::support::intercepted;
use crate::support::reflecting;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use answers::{added, answer, breakable, lines_then, too_large};
use fake_apiserver::{ApiStatus, FakeApiServer};
use intercepted::{at_a_version, intercepted, is_watch, pass_on, query};
use kube::runtime::watcher;
use reflecting::{create, lists_answered, relist_after_410, running, time_until_cached, write_and_compact};
use tokio::time::Instant;

/// kube-apiserver's answer to a watch from a resourceVersion its cache no longer holds.
const TOO_OLD: &str = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: 1 (5)\",\"reason\":\"Expired\",\"code\":410}}\n";

/// When the informer sent its watches and its lists of ConfigMaps, in `window` of real time,
/// to a server answering each watch with `watch_body` at once.
async fn requests_in(window: Duration, watch_body: &'static str) -> (Vec<Instant>, Vec<Instant>) {
    let server = FakeApiServer::builder().bootstrap(false).build();
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
    let server = FakeApiServer::builder().bootstrap(false).build();
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

#[tokio::test(start_paused = true)]
async fn a_watch_event_of_an_unknown_type_should_be_skipped() {
    let server = FakeApiServer::builder().bootstrap(false).build();
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
    let server = FakeApiServer::builder().bootstrap(false).build();
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
    // Lists at a version are not paged, as client-go's are not: the API server answers them from
    // its watch cache. The first asks for any version ("0"), from the cache.
    assert!(lists[0].contains("resourceVersion=0&"), "{lists:?}");
    assert!(
        lists[1].contains(&format!("resourceVersion={had}&resourceVersionMatch=NotOlderThan")),
        "the relist no older than {had}: {lists:?}"
    );
    assert!(
        !lists[0].contains("limit=") && !lists[1].contains("limit="),
        "{lists:?}"
    );
    assert!(!lists[2].contains("resourceVersion"), "then the latest: {lists:?}");
    assert!(lists[2].contains("limit=500"), "paged: {lists:?}");
}

/// A failure backs off on its own; the 410 that may follow it (the server came back with its
/// history compacted) is not a second watch in a row that ended at once, and relists at once.
#[tokio::test(start_paused = true)]
async fn a_410_after_a_failure_should_relist_after_that_failure_s_backoff_only() {
    let server = FakeApiServer::builder().bootstrap(false).build();
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

/// The requests of an informer whose first watch after its list is answered with `first_watch`'s
/// lines, one chunk each, then `cut` (a broken connection) or its end; each request's kind and
/// when it came, once the informer has sent at least `count` of them.
async fn after_the_first_watch(first_watch: Vec<String>, cut: bool, count: usize) -> Vec<(&'static str, Instant)> {
    let server = FakeApiServer::builder().bootstrap(false).build();
    create(&server, "a").await;
    let asked = Arc::new(Mutex::new(Vec::<(&'static str, Instant)>::new()));
    let client = {
        let asked = asked.clone();
        intercepted(&server, move |request, service| {
            let (asked, first_watch) = (asked.clone(), first_watch.clone());
            async move {
                let watch = is_watch(&request);
                let first = {
                    let mut asked = asked.lock().unwrap();
                    asked.push((if watch { "watch" } else { "list" }, Instant::now()));
                    watch && asked.iter().filter(|(kind, _)| *kind == "watch").count() == 1
                };
                match first {
                    true => lines_then(first_watch, cut),
                    false => breakable(pass_on(service, request).await),
                }
            }
        })
    };
    let informer = running(client, watcher::Config::default());
    let start = Instant::now();
    while asked.lock().unwrap().len() < count && start.elapsed() < Duration::from_secs(60) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    informer.shutdown().await;
    asked.lock().unwrap().clone()
}

/// A watch cut by the network after an event is watched again at once, from that event, as
/// client-go takes a reset or an unexpected EOF for the end of a watch: no backoff.
#[tokio::test(start_paused = true)]
async fn a_watch_cut_after_an_event_should_be_watched_again_at_once() {
    let asked = after_the_first_watch(vec![added("2", "late")], true, 3).await;
    let kinds: Vec<&str> = asked.iter().map(|(kind, _)| *kind).collect();
    assert_eq!(kinds[..3], ["list", "watch", "watch"], "{kinds:?}");
    let again = asked[2].1 - asked[1].1;
    assert!(again < Duration::from_millis(100), "watched again after {again:?}");
}

/// An error in an established watch's stream other than 410 or 429 (the etcd watcher's 500 for
/// an event it cannot read): the informer relists after the backoff, as client-go's reflector
/// does, instead of asking for the same event again from the same resourceVersion.
#[tokio::test(start_paused = true)]
async fn an_error_in_a_watch_stream_should_relist_after_the_backoff() {
    let failed = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"unable to transform key\",\"reason\":\"InternalError\",\"code\":500}}\n";
    let asked = after_the_first_watch(vec![added("2", "late"), failed.to_owned()], false, 3).await;
    let kinds: Vec<&str> = asked.iter().map(|(kind, _)| *kind).collect();
    assert_eq!(kinds[..3], ["list", "watch", "list"], "{kinds:?}");
    let waited = asked[2].1 - asked[1].1;
    assert!(waited >= Duration::from_millis(800), "relisted after {waited:?}");
}
