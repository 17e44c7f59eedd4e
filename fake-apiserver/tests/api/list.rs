//! list: selectors, pagination with consistent continuations, resourceVersions.

use std::time::Duration;

use fake_apiserver::FakeApiServer;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::api::{Api, ListParams, PostParams, VersionMatch, WatchEvent};

use crate::common::*;

#[tokio::test]
async fn list_should_filter_by_label_and_field_selectors() {
    let server = empty_server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(
        &PostParams::default(),
        &configmap("web", &[("app", "web"), ("tier", "front")]),
    )
    .await
    .unwrap();
    api.create(
        &PostParams::default(),
        &configmap("db", &[("app", "db"), ("tier", "back")]),
    )
    .await
    .unwrap();
    api.create(&PostParams::default(), &configmap("cache", &[("app", "cache")]))
        .await
        .unwrap();
    let names = |list: kube::core::ObjectList<ConfigMap>| -> Vec<String> {
        list.items.into_iter().map(|c| c.metadata.name.unwrap()).collect()
    };

    assert_eq!(
        names(api.list(&ListParams::default().labels("app=web")).await.unwrap()),
        ["web"]
    );
    assert_eq!(
        names(
            api.list(&ListParams::default().labels("tier in (front,back)"))
                .await
                .unwrap()
        ),
        ["db", "web"]
    );
    assert_eq!(
        names(api.list(&ListParams::default().labels("!tier")).await.unwrap()),
        ["cache"]
    );
    assert_eq!(
        names(
            api.list(&ListParams::default().labels("tier,app notin (db)"))
                .await
                .unwrap()
        ),
        ["web"]
    );
    assert_eq!(
        names(
            api.list(&ListParams::default().fields("metadata.name!=web"))
                .await
                .unwrap()
        ),
        ["cache", "db"]
    );
    let unsupported = api_error(api.list(&ListParams::default().fields("data.x=1")).await);
    assert_eq!(
        (unsupported.code, unsupported.message.as_str()),
        (
            400,
            r#""data.x" is not a known field selector: only "metadata.name", "metadata.namespace""#
        )
    );
}

#[tokio::test]
async fn list_should_paginate_a_consistent_snapshot() {
    let server = empty_server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    create_configmaps(&api, 25, &[("app", "x")]).await;

    let first = api.list(&ListParams::default().limit(10)).await.unwrap();
    assert_eq!(first.items.len(), 10);
    assert_eq!(first.metadata.remaining_item_count, Some(15));
    let snapshot_rv = first.metadata.resource_version.clone();
    // Changes after the first page must not leak into later pages.
    api.delete("cm-020", &Default::default()).await.unwrap();
    api.create(&PostParams::default(), &configmap("cm-999", &[]))
        .await
        .unwrap();

    let mut names: Vec<String> = first.items.iter().map(|c| c.metadata.name.clone().unwrap()).collect();
    let mut token = first.metadata.continue_;
    while let Some(next) = token {
        let page = api
            .list(&ListParams::default().limit(10).continue_token(&next))
            .await
            .unwrap();
        assert_eq!(page.metadata.resource_version, snapshot_rv);
        names.extend(page.items.iter().map(|c| c.metadata.name.clone().unwrap()));
        token = page.metadata.continue_;
    }
    let expected: Vec<String> = (0..25).map(|i| format!("cm-{i:03}")).collect();
    assert_eq!(names, expected);

    server.expire_resource_versions();
    let first = api.list(&ListParams::default().limit(10)).await.unwrap();
    api.create(&PostParams::default(), &configmap("late", &[]))
        .await
        .unwrap();
    server.expire_resource_versions();
    let gone = api_error(
        api.list(
            &ListParams::default()
                .limit(10)
                .continue_token(&first.metadata.continue_.unwrap()),
        )
        .await,
    );
    assert_eq!((gone.code, gone.reason.as_str()), (410, "Expired"));
}

#[tokio::test]
async fn list_should_serve_an_exact_resource_version() {
    let server = empty_server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    create_configmaps(&api, 3, &[]).await;
    let rv = server.resource_version();
    api.delete("cm-000", &Default::default()).await.unwrap();
    let then = api
        .list(&ListParams::default().at(&rv).matching(VersionMatch::Exact))
        .await
        .unwrap();
    assert_eq!(then.items.len(), 3);
    assert_eq!(api.list(&ListParams::default()).await.unwrap().items.len(), 2);
}

#[tokio::test]
async fn metadata_only_clients_should_get_partial_object_metadata_where_it_fits() {
    let server = empty_server();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    create_configmaps(&api, 2, &[("app", "web")]).await;
    let list = api.list_metadata(&ListParams::default()).await.unwrap();
    assert_eq!(list.items.len(), 2);
    assert_eq!(list.items[0].types.as_ref().unwrap().kind, "PartialObjectMetadata");
    let one = api.get_metadata("cm-000").await.unwrap();
    assert_eq!(one.metadata.labels.unwrap()["app"], "web");

    // A single PartialObjectMetadata for a list is not acceptable, as kube-apiserver says.
    let wrong = http::Request::get("/api/v1/namespaces/default/configmaps")
        .header(
            http::header::ACCEPT,
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
        )
        .body(Vec::new())
        .unwrap();
    let refused = api_error(server.client().request::<serde_json::Value>(wrong).await);
    assert_eq!((refused.code, refused.reason.as_str()), (406, "NotAcceptable"));
}

/// The refusal of `query` on the default namespace's ConfigMaps, which must come within 5 s (an
/// accepted watch would stream until its timeout).
async fn refused(server: &FakeApiServer, query: &str) -> kube::core::Status {
    let path = format!("/api/v1/namespaces/default/configmaps?{query}");
    let request = http::Request::get(path).body(Vec::new()).unwrap();
    let client = server.client();
    let answer = tokio::time::timeout(Duration::from_secs(5), client.request::<serde_json::Value>(request));
    api_error(answer.await.unwrap_or_else(|_| panic!("{query} was accepted")))
}

/// kube-apiserver's message for an invalid `ListOptions` with these causes.
fn invalid(summary: &str) -> String {
    format!("ListOptions.meta.k8s.io \"\" is invalid: {summary}")
}

/// kube-apiserver's `ValidateListOptions`: a 422 on `ListOptions.meta.k8s.io`, before the verb
/// (here with the WatchList feature on, as in 1.32 and from 1.34).
#[tokio::test]
async fn list_and_watch_options_should_be_refused_as_kube_apiserver_refuses_them() {
    let server = FakeApiServer::builder().watch_list(true).build();
    let cases = [
        (
            "resourceVersionMatch=NotOlderThan",
            "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
        ),
        (
            "resourceVersion=0&resourceVersionMatch=Exact",
            r#"resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0""#,
        ),
        (
            "resourceVersion=1&resourceVersionMatch=Newest",
            r#"resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", """#,
        ),
        (
            "sendInitialEvents=false",
            "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list",
        ),
        (
            "resourceVersionMatch=Exact&continue=abc",
            "[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, \
             resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]",
        ),
        (
            "watch=true&sendInitialEvents=true&allowWatchBookmarks=true",
            "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ),
        (
            "watch=true&resourceVersion=1&resourceVersionMatch=NotOlderThan",
            "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        ),
        (
            "watch=true&sendInitialEvents=true&resourceVersionMatch=Exact",
            "[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, \
             resourceVersionMatch: Unsupported value: \"Exact\": supported values: \"NotOlderThan\"]",
        ),
    ];
    for (query, summary) in cases {
        let status = refused(&server, query).await;
        assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"), "{query}");
        assert_eq!(status.message, invalid(summary), "{query}");
    }
    let status = refused(&server, "resourceVersionMatch=NotOlderThan").await;
    let details = status.details.expect("details");
    assert_eq!(
        (details.group.as_str(), details.kind.as_str()),
        ("meta.k8s.io", "ListOptions")
    );
    let cause = &details.causes[0];
    assert_eq!(
        (cause.field.as_str(), cause.reason.as_str()),
        ("resourceVersionMatch", "FieldValueForbidden")
    );

    // What clients send is accepted: a list from the cache, a streaming list.
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let any = ListParams::default().match_any().matching(VersionMatch::NotOlderThan);
    assert!(api.list(&any).await.is_ok());
    let streaming = kube::api::WatchParams::streaming_lists();
    assert!(api.watch(&streaming, "").await.is_ok());
}

/// Without the WatchList feature (the default of the v1.31 the server reports, and of 1.28 to
/// 1.31), a watch may not carry `sendInitialEvents` at all; other watches are served.
#[tokio::test]
async fn streaming_lists_should_be_refused_without_the_watch_list_feature() {
    let server = server();
    let gate = "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled";
    let streaming = "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true";
    let cases = [
        (streaming.to_owned(), gate.to_owned()),
        (
            "watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan".to_owned(),
            gate.to_owned(),
        ),
        (
            "watch=true&sendInitialEvents=true&resourceVersionMatch=Exact".to_owned(),
            format!(
                "[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, \
                 {gate}, resourceVersionMatch: Unsupported value: \"Exact\": supported values: \"NotOlderThan\"]"
            ),
        ),
    ];
    for (query, summary) in cases {
        let status = refused(&server, &query).await;
        assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"), "{query}");
        assert_eq!(status.message, invalid(&summary), "{query}");
    }
    let cause = &refused(&server, streaming).await.details.expect("details").causes[0];
    assert_eq!(
        (cause.field.as_str(), cause.reason.as_str()),
        ("sendInitialEvents", "FieldValueForbidden")
    );
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    assert!(api.watch(&kube::api::WatchParams::default(), "0").await.is_ok());
}

/// With the WatchList feature on, a watch from no resourceVersion or "0" that does not say
/// otherwise is a streaming list (kube-apiserver's `SetListOptionsDefaults`): the current
/// objects, then the bookmark that ends them; `sendInitialEvents=false` skips them.
#[tokio::test]
async fn legacy_watches_should_become_streaming_lists_with_the_watch_list_feature() {
    let server = FakeApiServer::builder().watch_list(true).bootstrap(false).build();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    api.create(&PostParams::default(), &configmap("a", &[])).await.unwrap();
    let rv = server.resource_version();
    let mut legacy = api
        .watch(&kube::api::WatchParams::default(), "0")
        .await
        .unwrap()
        .boxed();
    let added = legacy.try_next().await.unwrap().unwrap();
    assert!(matches!(&added, WatchEvent::Added(cm) if cm.name_any() == "a"));
    match legacy.try_next().await.unwrap().unwrap() {
        WatchEvent::Bookmark(end) => {
            assert_eq!(end.metadata.resource_version, rv);
            let ends = end.metadata.annotations.get("k8s.io/initial-events-end");
            assert_eq!(ends.map(String::as_str), Some("true"));
        }
        other => panic!("expected the initial events' end, got {other:?}"),
    }

    let path = "/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=false\
                &resourceVersionMatch=NotOlderThan&timeoutSeconds=1";
    let request = http::Request::get(path).body(Vec::new()).unwrap();
    let mut changes = server
        .client()
        .request_events::<ConfigMap>(request)
        .await
        .unwrap()
        .boxed();
    api.create(&PostParams::default(), &configmap("b", &[])).await.unwrap();
    let first = changes.try_next().await.unwrap().unwrap();
    assert!(
        matches!(&first, WatchEvent::Added(cm) if cm.name_any() == "b"),
        "{first:?}"
    );
}

/// Lists, their pages and a watch's initial events come in etcd's key order, `<namespace>/<name>`
/// as one string, as kube-apiserver's do: `team-a/x` before `team/y` (`-` sorts before `/`).
#[tokio::test]
async fn objects_should_come_in_etcds_key_order() {
    let server = FakeApiServer::builder().auto_create_namespaces(true).build();
    for (namespace, name) in [("team", "y"), ("team-a", "x"), ("team", "a")] {
        let api: Api<ConfigMap> = Api::namespaced(server.client(), namespace);
        api.create(&PostParams::default(), &configmap(name, &[])).await.unwrap();
    }
    let ours = |cms: &[ConfigMap]| -> Vec<String> {
        cms.iter()
            .filter(|cm| ["a", "x", "y"].contains(&cm.name_any().as_str()))
            .map(|cm| format!("{}/{}", cm.namespace().unwrap(), cm.name_any()))
            .collect()
    };
    let expected = ["team-a/x", "team/a", "team/y"];
    let all: Api<ConfigMap> = Api::all(server.client());
    let listed = all.list(&ListParams::default()).await.unwrap();
    assert_eq!(ours(&listed.items), expected);

    let mut paged = Vec::new();
    let mut params = ListParams::default().limit(1);
    loop {
        let page = all.list(&params).await.unwrap();
        paged.extend(page.items);
        match page.metadata.continue_ {
            Some(token) if !token.is_empty() => params = params.continue_token(&token),
            _ => break,
        }
    }
    assert_eq!(ours(&paged), expected);

    let mut watch = all
        .watch(&kube::api::WatchParams::default(), "0")
        .await
        .unwrap()
        .boxed();
    // Each namespace's `kube-root-ca.crt` may be published between the list and the watch:
    // read initial events until ours are all in.
    let mut initial = Vec::new();
    while ours(&initial).len() < expected.len() {
        match watch.try_next().await.unwrap().unwrap() {
            WatchEvent::Added(cm) => initial.push(cm),
            other => panic!("expected the initial objects, got {other:?}"),
        }
    }
    assert_eq!(ours(&initial), expected);
}

/// A streaming list not older than a resourceVersion the server has not reached is answered in
/// the stream, as kube-apiserver's watch cache answers it: one ERROR event, 504
/// `ResourceVersionTooLarge`, then the end.
#[tokio::test]
async fn a_streaming_list_from_a_version_not_reached_should_end_with_a_too_large_error() {
    let server = FakeApiServer::builder().watch_list(true).build();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let ahead = server.resource_version().parse::<u64>().unwrap() + 5;
    let streaming = kube::api::WatchParams::streaming_lists();
    let mut stream = api.watch(&streaming, &ahead.to_string()).await.unwrap().boxed();
    match stream.try_next().await.unwrap().unwrap() {
        WatchEvent::Error(status) => {
            assert_eq!((status.code, status.reason.as_str()), (504, "Timeout"));
            let current = server.resource_version();
            let message = format!("Timeout: Too large resource version: {ahead}, current: {current}");
            assert_eq!(status.message, message);
        }
        other => panic!("expected the too-large error, got {other:?}"),
    }
    assert!(stream.try_next().await.unwrap().is_none());
}
