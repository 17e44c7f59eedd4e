//! How the informer's streaming lists (`sendInitialEvents`) fail and ask again, as client-go's
//! reflector does against kube-apiserver: replaced by a list at once when they fail, asking for
//! the latest state where the version they asked for is gone, and always ending at the
//! bookmark kube-apiserver sends after their initial events.
//! The servers start empty (`bootstrap(false)`): the tests count every ConfigMap of `default`.

use crate::support::answers;
use crate::support::intercepted;
use crate::support::reflecting;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use answers::{added, answer, breakable, lines_then, too_large, too_large_in_stream};
use fake_apiserver::{FakeApiServer, ResponseBody};
use intercepted::{at_a_version, intercepted, is_watch, pass_on, query, resource_version};
use kube::runtime::watcher;
use reflecting::{create, relist_after_410, running};
use tokio::time::Instant;

/// An informer whose streaming lists each send one initial event and then fail (`broken`) or
/// end, before the bookmark that would end their initial events: what it asked for, and how
/// long it took to sync.
async fn streaming_list_cut_halfway(broken: bool) -> (Vec<String>, Duration) {
    let server = FakeApiServer::builder().bootstrap(false).watch_list(true).build();
    for name in ["a", "b"] {
        create(&server, name).await;
    }
    let asked = Arc::new(Mutex::new(Vec::<String>::new()));
    let client = {
        let asked = asked.clone();
        intercepted(&server, move |request, service| {
            let asked = asked.clone();
            async move {
                let streaming = query(&request).contains("sendInitialEvents=true");
                let what = match (is_watch(&request), streaming) {
                    (true, true) => "streaming list",
                    (true, false) => "watch",
                    (false, _) => "list",
                };
                asked.lock().unwrap().push(what.to_owned());
                match streaming {
                    true => lines_then(vec![added("2", "a")], broken),
                    false => breakable(pass_on(service, request).await),
                }
            }
        })
    };
    let start = Instant::now();
    let informer = running(client, watcher::Config::default().streaming_lists());
    let synced = tokio::time::timeout(Duration::from_secs(60), informer.wait_for_sync()).await;
    assert!(synced.is_ok_and(|synced| synced), "broken {broken}: never synced");
    let synced = start.elapsed();
    assert_eq!(informer.store().list().len(), 2, "the server's objects, by a list");
    informer.shutdown().await;
    let asked = asked.lock().unwrap().clone();
    (asked, synced)
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_cut_halfway_should_be_replaced_by_a_list_at_once() {
    // client-go's reflector lists on any failure of its watch list but a 429 or a version
    // gone: a server (or a proxy) that cuts every streaming list must not keep it from syncing.
    for broken in [true, false] {
        let (asked, synced) = streaming_list_cut_halfway(broken).await;
        assert_eq!(asked[..2], ["streaming list", "list"], "broken {broken}: {asked:?}");
        assert!(
            synced < Duration::from_millis(100),
            "broken {broken}: synced after {synced:?}"
        );
    }
}

/// kube-apiserver's watch cache answers a streaming list it cannot serve (its etcd lacks
/// progress notifications) with an in-stream 500: the informer lists instead, at once.
#[tokio::test(start_paused = true)]
async fn a_streaming_list_answered_with_an_error_in_its_stream_should_be_replaced_by_a_list() {
    const CANNOT: &str = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"a watch stream was requested by the client but the required storage feature RequestWatchProgress is disabled\",\"reason\":\"InternalError\",\"code\":500}}\n";
    let server = FakeApiServer::builder().bootstrap(false).watch_list(true).build();
    create(&server, "a").await;
    let client = intercepted(&server, |request, service| async move {
        if query(&request).contains("sendInitialEvents=true") {
            return answer(CANNOT);
        }
        pass_on(service, request).await
    });
    let start = Instant::now();
    let informer = running(client, watcher::Config::default().streaming_lists());
    let synced = tokio::time::timeout(Duration::from_secs(60), informer.wait_for_sync()).await;
    assert!(synced.is_ok_and(|synced| synced), "never synced");
    assert!(
        start.elapsed() < Duration::from_millis(100),
        "synced after {:?}",
        start.elapsed()
    );
    assert_eq!(informer.store().list().len(), 1);
    informer.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_should_ask_for_the_bookmark_that_ends_it_even_with_bookmarks_off() {
    let server = FakeApiServer::builder().bootstrap(false).watch_list(true).build();
    create(&server, "a").await;
    let config = watcher::Config::default().streaming_lists().disable_bookmarks();
    let informer = running(server.client(), config);
    let synced = tokio::time::timeout(Duration::from_secs(60), informer.wait_for_sync()).await;
    assert!(synced.is_ok_and(|synced| synced), "the streaming list never ended");
    assert_eq!(informer.store().list().len(), 1);
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
    let server = FakeApiServer::builder().bootstrap(false).watch_list(true).build();
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
