//! Measures the in-memory API server through the real `kube::Client`: creates per second, and
//! watch events per second delivered to a watcher, for N ConfigMaps (default 10 000).
//!
//! `cargo run --release -p fake-apiserver --example throughput -- 10000`

use std::time::Instant;

use fake_apiserver::FakeApiServer;
use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, ObjectMeta, PostParams, WatchEvent, WatchParams};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(10_000);
    let server = FakeApiServer::builder().record_actions(false).build();
    let api: Api<ConfigMap> = Api::default_namespaced(server.client());
    let start_rv = server.resource_version();
    let watcher = api
        .watch(&WatchParams::default().disable_bookmarks(), &start_rv)
        .await?;
    let consumer = tokio::spawn(async move {
        let mut watcher = watcher.boxed();
        let started = Instant::now();
        let mut seen = 0;
        while seen < count {
            match watcher.next().await {
                Some(Ok(WatchEvent::Added(_))) => seen += 1,
                Some(Ok(_)) => {}
                other => panic!("watch ended early: {other:?}"),
            }
        }
        started.elapsed()
    });

    let data: std::collections::BTreeMap<String, String> =
        (0..8).map(|i| (format!("key-{i}"), "x".repeat(100))).collect();
    let configmap = |i: usize| ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("cm-{i:06}")),
            ..ObjectMeta::default()
        },
        data: Some(data.clone()),
        ..ConfigMap::default()
    };
    let started = Instant::now();
    for i in 0..count {
        api.create(&PostParams::default(), &configmap(i)).await?;
    }
    let create_time = started.elapsed();
    let watch_time = consumer.await?;

    let started = Instant::now();
    let listed = api.list(&ListParams::default()).await?.items.len();
    let list_time = started.elapsed();

    let replay = api
        .watch(&WatchParams::default().disable_bookmarks(), &start_rv)
        .await?;
    let started = Instant::now();
    let replayed = replay.take(count).count().await;
    let replay_time = started.elapsed();

    // As many creates again, 16 in flight at a time, as a controller's workers would send them.
    let started = Instant::now();
    let parallel: Vec<_> = futures::stream::iter(count..2 * count)
        .map(|i| {
            let (api, cm) = (api.clone(), configmap(i));
            async move { api.create(&PostParams::default(), &cm).await }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let parallel_time = started.elapsed();
    if let Some(Err(error)) = parallel.into_iter().find(Result::is_err) {
        return Err(error.into());
    }

    let rate = |n: usize, d: std::time::Duration| n as f64 / d.as_secs_f64();
    println!("objects: {count} ConfigMaps of ~1 KB through kube::Client (in-process service)");
    println!(
        "create:        {:>10.0} objects/s ({create_time:.2?})",
        rate(count, create_time)
    );
    println!(
        "create (16 in flight): {:>3.0} objects/s ({parallel_time:.2?})",
        rate(count, parallel_time)
    );
    println!(
        "watch (live):  {:>10.0} events/s delivered while creating ({watch_time:.2?})",
        rate(count, watch_time)
    );
    println!(
        "watch (replay):{:>10.0} events/s from history ({replay_time:.2?})",
        rate(replayed, replay_time)
    );
    println!(
        "list:          {:>10.0} objects/s ({listed} in {list_time:.2?})",
        rate(listed, list_time)
    );
    Ok(())
}
