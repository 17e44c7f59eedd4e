//! list: selectors, pagination with consistent continuations, resourceVersions.

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, PostParams, VersionMatch};

use crate::common::*;

#[tokio::test]
async fn list_should_filter_by_label_and_field_selectors() {
    let server = server();
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
    let server = server();
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
    let server = server();
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
    let server = server();
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

/// kube-apiserver's `ValidateListOptions`: a 422 on `ListOptions.meta.k8s.io`, before the verb.
#[tokio::test]
async fn list_and_watch_options_should_be_refused_as_kube_apiserver_refuses_them() {
    let server = server();
    let refused = |query: &'static str| {
        let client = server.client();
        async move {
            let path = format!("/api/v1/namespaces/default/configmaps?{query}");
            let request = http::Request::get(path).body(Vec::new()).unwrap();
            // An accepted watch would stream until its timeout: fail instead of waiting.
            let answer = tokio::time::timeout(Duration::from_secs(5), client.request::<serde_json::Value>(request));
            api_error(answer.await.unwrap_or_else(|_| panic!("{query} was accepted")))
        }
    };
    let invalid = |summary: &str| format!("ListOptions.meta.k8s.io \"\" is invalid: {summary}");
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
        let status = refused(query).await;
        assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"), "{query}");
        assert_eq!(status.message, invalid(summary), "{query}");
    }
    let status = refused("resourceVersionMatch=NotOlderThan").await;
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
