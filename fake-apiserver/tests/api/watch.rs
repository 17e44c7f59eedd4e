//! watch: from a resourceVersion, selector transitions, bookmarks, 410 Gone, timeouts; and
//! kube-runtime's watcher staying consistent through cut watches and expired versions.

use std::collections::BTreeMap;
use std::time::Duration;

use fake_apiserver::FakeApiServer;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, GetParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::runtime::{WatchStreamExt, reflector, watcher};
use kube::{CustomResourceExt, ResourceExt};
use serde_json::json;

use crate::common::*;

fn describe(event: &WatchEvent<ConfigMap>) -> String {
    match event {
        WatchEvent::Added(o) => format!("ADDED {}", o.name_any()),
        WatchEvent::Modified(o) => format!("MODIFIED {}", o.name_any()),
        WatchEvent::Deleted(o) => format!("DELETED {}", o.name_any()),
        WatchEvent::Bookmark(b) => format!("BOOKMARK {}", b.metadata.resource_version),
        WatchEvent::Error(e) => format!("ERROR {} {}", e.code, e.reason),
    }
}

/// The events of a watch of `api` from `rv`, as `params` ask.
async fn watching(
    api: &Api<ConfigMap>,
    params: &WatchParams,
    rv: &str,
) -> futures::stream::BoxStream<'static, Result<WatchEvent<ConfigMap>, kube::Error>> {
    api.watch(params, rv).await.unwrap().boxed()
}

#[tokio::test]
async fn watch_should_stream_changes_after_a_resource_version() {
    let server = server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("before", &[]))
        .await
        .unwrap();
    let rv = server.resource_version();
    let mut stream = watching(&api, &WatchParams::default().disable_bookmarks(), &rv).await;

    api.create(&PostParams::default(), &configmap("a", &[("app", "web")]))
        .await
        .unwrap();
    api.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({ "data": { "k": "v" } })),
    )
    .await
    .unwrap();
    api.delete("a", &DeleteParams::default()).await.unwrap();
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(describe(&stream.try_next().await.unwrap().unwrap()));
    }
    assert_eq!(seen, ["ADDED a", "MODIFIED a", "DELETED a"]);
}

#[tokio::test]
async fn watch_should_report_objects_leaving_a_selector_as_deleted() {
    let server = server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let params = WatchParams::default().labels("app=web").disable_bookmarks();
    let mut stream = watching(&api, &params, "0").await;
    api.create(&PostParams::default(), &configmap("a", &[("app", "web")]))
        .await
        .unwrap();
    api.create(&PostParams::default(), &configmap("b", &[("app", "db")]))
        .await
        .unwrap();
    api.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({ "metadata": { "labels": { "app": "db" } } })),
    )
    .await
    .unwrap();
    api.patch(
        "b",
        &PatchParams::default(),
        &Patch::Merge(json!({ "metadata": { "labels": { "app": "web" } } })),
    )
    .await
    .unwrap();
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(describe(&stream.try_next().await.unwrap().unwrap()));
    }
    assert_eq!(seen, ["ADDED a", "DELETED a", "ADDED b"]);
}

#[tokio::test]
async fn leaving_a_selector_should_deliver_the_object_as_last_seen() {
    let server = server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let params = WatchParams::default().labels("app=web").disable_bookmarks();
    api.create(&PostParams::default(), &configmap("a", &[("app", "web")]))
        .await
        .unwrap();
    let mut stream = watching(&api, &params, &server.resource_version()).await;
    let moved = api
        .patch(
            "a",
            &PatchParams::default(),
            &Patch::Merge(json!({ "metadata": { "labels": { "app": "db" } } })),
        )
        .await
        .unwrap();
    match stream.try_next().await.unwrap().unwrap() {
        WatchEvent::Deleted(last_seen) => {
            assert_eq!(last_seen.labels()["app"], "web");
            assert_eq!(last_seen.resource_version(), moved.resource_version());
        }
        other => panic!("expected DELETED, got {}", describe(&other)),
    }
}

/// Bookmarks come at the interval, once the server has moved past where the watch started (a
/// change of anything, seen or not), and one more 2 s before the deadline; then the watch ends.
#[tokio::test(start_paused = true)]
async fn watch_should_send_bookmarks_past_its_start_and_end_at_its_timeout() {
    let server = FakeApiServer::builder()
        .bookmark_interval(Duration::from_secs(4))
        .build();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let elsewhere: Api<ConfigMap> = Api::namespaced(server.client(), "kube-system");
    let rv = server.resource_version();
    let started = tokio::time::Instant::now();
    let mut stream = watching(&api, &WatchParams::default().timeout(10), &rv).await;
    // Nothing has changed at the first tick (4 s): no bookmark. A change the watch does not see
    // at 5 s; the tick at 8 s carries it, and the last bookmark (8 s too) is not sent twice.
    tokio::time::sleep(Duration::from_secs(5)).await;
    elsewhere
        .create(&PostParams::default(), &configmap("other", &[]))
        .await
        .unwrap();
    let moved = server.resource_version();
    let first = stream.try_next().await.unwrap().unwrap();
    assert_eq!(describe(&first), format!("BOOKMARK {moved}"));
    assert_eq!(started.elapsed().as_secs(), 8, "at the interval's tick");
    assert!(
        stream.try_next().await.unwrap().is_none(),
        "the watch ends at its timeout"
    );
    assert_eq!(started.elapsed().as_secs(), 10);

    // With the interval longer than the watch, the last bookmark comes 2 s before the deadline.
    let rv = server.resource_version();
    let started = tokio::time::Instant::now();
    let mut stream = watching(&api, &WatchParams::default().timeout(3), &rv).await;
    elsewhere
        .create(&PostParams::default(), &configmap("another", &[]))
        .await
        .unwrap();
    let moved = server.resource_version();
    let last = stream.try_next().await.unwrap().unwrap();
    assert_eq!(describe(&last), format!("BOOKMARK {moved}"));
    assert_eq!(started.elapsed().as_secs(), 1);
    assert!(stream.try_next().await.unwrap().is_none());
    assert_eq!(started.elapsed().as_secs(), 3);
}

/// A metadata-only watch (client-go's metadata informers) gets its bookmarks as
/// `PartialObjectMetadata`, the one kind it decodes.
#[tokio::test(start_paused = true)]
async fn a_metadata_watch_should_get_partial_object_metadata_bookmarks() {
    let server = FakeApiServer::builder()
        .bookmark_interval(Duration::from_secs(1))
        .build();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let rv = server.resource_version();
    let mut stream = api
        .watch_metadata(&WatchParams::default().timeout(5), &rv)
        .await
        .unwrap()
        .boxed();
    let elsewhere: Api<ConfigMap> = Api::namespaced(server.client(), "kube-system");
    elsewhere
        .create(&PostParams::default(), &configmap("other", &[]))
        .await
        .unwrap();
    match stream.try_next().await.unwrap().unwrap() {
        WatchEvent::Bookmark(bookmark) => {
            assert_eq!(
                (bookmark.types.kind.as_str(), bookmark.types.api_version.as_str()),
                ("PartialObjectMetadata", "meta.k8s.io/v1")
            );
            assert_eq!(bookmark.metadata.resource_version, server.resource_version());
        }
        other => panic!("expected a bookmark, got {other:?}"),
    }
}

/// A resourceVersion that is not a number: a list kube-apiserver sends to etcd (one with a limit)
/// is refused by its store (400); a watch, a GET and a list its watch cache serves by the cache,
/// whose error it does not convert (500, no reason). Checked on kube-apiserver v1.28.7.
#[tokio::test]
async fn a_resource_version_that_is_not_one_should_be_refused_as_kube_apiserver_refuses_it() {
    let server = server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let why = |rv: &str, what: &str| {
        format!("resourceVersion: Invalid value: {rv:?}: strconv.ParseUint: parsing {rv:?}: {what}")
    };
    let paged = api_error(api.list(&ListParams::default().at("abc").limit(500)).await);
    assert_eq!((paged.code, paged.reason.as_str()), (400, "BadRequest"));
    assert_eq!(
        paged.message,
        format!("invalid resource version: {}", why("abc", "invalid syntax"))
    );
    let cached = api_error(api.list(&ListParams::default().at("abc")).await);
    assert_eq!(
        (cached.code, cached.reason.as_str(), cached.message),
        (500, "", why("abc", "invalid syntax"))
    );
    let got = api_error(api.get_with("kube-root-ca.crt", &GetParams::at("abc")).await);
    assert_eq!((got.code, got.message), (500, why("abc", "invalid syntax")));
    for (rv, what) in [
        ("abc", "invalid syntax"),
        ("+5", "invalid syntax"),
        ("99999999999999999999", "value out of range"),
    ] {
        let watched = api_error(api.watch(&WatchParams::default(), rv).await.map(|_| ()));
        assert_eq!((watched.code, watched.reason.as_str()), (500, ""), "{rv}");
        assert_eq!(watched.message, why(rv, what));
    }
}

/// `timeoutSeconds` is taken as given, past kube-apiserver's default of 1800 s too.
#[tokio::test(start_paused = true)]
async fn a_watch_should_stay_open_for_the_timeout_it_asked_for() {
    let server = server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let mut stream = watching(
        &api,
        &WatchParams::default().timeout(2000).disable_bookmarks(),
        &server.resource_version(),
    )
    .await;
    tokio::time::sleep(Duration::from_secs(1900)).await;
    api.create(&PostParams::default(), &configmap("late", &[]))
        .await
        .unwrap();
    let late = stream.try_next().await.unwrap().expect("the watch is still open");
    assert_eq!(describe(&late), "ADDED late");
}

/// Each event is a line with its type first, as kube-apiserver writes it (Go's field order).
#[tokio::test]
async fn watch_events_should_be_written_type_first() {
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    let server = empty_server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", &[])).await.unwrap();
    let request = http::Request::get("/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1")
        .body(http_body_util::Full::new(bytes::Bytes::new()))
        .unwrap();
    let response = server.service().oneshot(request).await.unwrap();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8(body.to_vec()).unwrap();
    assert!(text.starts_with(r#"{"type":"ADDED","object":{"#), "{text}");
    assert!(text.ends_with("}\n") && text.lines().count() == 1, "{text}");
}

/// A watch from a resourceVersion the server has not reached sends only what comes after it.
#[tokio::test]
async fn watch_from_a_future_resource_version_should_skip_the_changes_before_it() {
    let server = server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let ahead = (server.resource_version().parse::<u64>().unwrap() + 2).to_string();
    let mut stream = watching(&api, &WatchParams::default().disable_bookmarks(), &ahead).await;
    for name in ["one", "two", "three"] {
        api.create(&PostParams::default(), &configmap(name, &[])).await.unwrap();
    }
    let first = stream.try_next().await.unwrap().unwrap();
    assert_eq!(describe(&first), "ADDED three");
}

#[tokio::test]
async fn watch_should_answer_410_for_expired_versions() {
    let server = server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let old = server.resource_version();
    api.create(&PostParams::default(), &configmap("a", &[])).await.unwrap();
    server.expire_resource_versions();
    let mut stream = watching(&api, &WatchParams::default(), &old).await;
    let event = stream.try_next().await.unwrap().unwrap();
    assert_eq!(describe(&event), "ERROR 410 Expired");
    assert!(stream.try_next().await.unwrap().is_none());
}

#[tokio::test]
async fn cut_watches_should_end_open_streams() {
    let server = server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let mut stream = watching(&api, &WatchParams::default(), &server.resource_version()).await;
    server.cut_watches();
    assert!(
        tokio::time::timeout(Duration::from_secs(5), stream.try_next())
            .await
            .unwrap()
            .unwrap()
            .is_none()
    );
}

/// The store of kube-runtime's reflector must equal the server after every kind of disruption.
async fn reflector_should_converge(streaming: bool) {
    let server = FakeApiServer::builder()
        .crd(&VirtualMachine::crd())
        .watch_list(streaming)
        .build();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    create_configmaps(&api, 20, &[]).await;
    let (reader, writer) = reflector::store();
    let config = if streaming {
        watcher::Config::default().streaming_lists()
    } else {
        watcher::Config::default()
    };
    let stream = reflector(writer, watcher(api.clone(), config).default_backoff()).applied_objects();
    let task = tokio::spawn(stream.for_each(|_| async {}));
    reader.wait_until_ready().await.unwrap();

    for round in 0..5 {
        for i in 0..10 {
            api.create(&PostParams::default(), &configmap(&format!("r{round}-{i}"), &[]))
                .await
                .unwrap();
        }
        api.delete(&format!("cm-{:03}", round * 2), &DeleteParams::default())
            .await
            .unwrap();
        match round {
            1 => server.cut_watches(),
            2 => {
                // Deletes while the watch is down and the history is gone: only a relist finds them.
                server.cut_watches();
                server.expire_resource_versions();
                api.delete("cm-019", &DeleteParams::default()).await.unwrap();
            }
            3 => {
                // The relist itself fails twice before it goes through.
                server.fail_next(2, "list", "configmaps", fake_apiserver::ApiStatus::internal("injected"));
                server.fail_next(
                    2,
                    "watch",
                    "configmaps",
                    fake_apiserver::ApiStatus::internal("injected"),
                );
                server.cut_watches();
                server.expire_resource_versions();
            }
            _ => {}
        }
    }
    // This list may meet the injected failures too; like any client it tries again.
    let listed = loop {
        match api.list(&ListParams::default()).await {
            Ok(list) => break list,
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    };
    let expected: BTreeMap<String, String> = listed
        .items
        .into_iter()
        .map(|c| (c.name_any(), c.resource_version().unwrap()))
        .collect();
    let converged = async {
        loop {
            let cached: BTreeMap<String, String> = reader
                .state()
                .iter()
                .map(|c| (c.name_any(), c.resource_version().unwrap()))
                .collect();
            if cached == expected {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), converged)
        .await
        .expect("the reflector converges on the server's state");
    task.abort();
}

#[tokio::test]
async fn reflector_should_converge_through_cuts_and_expiry() {
    reflector_should_converge(false).await;
}

#[tokio::test]
async fn reflector_should_converge_with_streaming_lists() {
    reflector_should_converge(true).await;
}
