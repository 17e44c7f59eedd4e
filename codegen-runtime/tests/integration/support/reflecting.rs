//! What the list-and-watch tests share: ConfigMaps created through the API, an informer over
//! namespace `default` running with a watcher configuration, and the wait for an object to
//! reach its store. Needs `support/objects.rs` as the crate's `objects`.

use std::time::Duration;

use codegen_runtime::cache::{InformerOptions, SharedIndexInformer};
use fake_apiserver::FakeApiServer;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube::runtime::watcher;
use tokio::time::Instant;

use super::objects::configmap;

/// Creates an empty ConfigMap `name` in namespace `default`, as a client would.
pub async fn create(server: &FakeApiServer, name: &str) {
    Api::<ConfigMap>::default_namespaced(server.client())
        .create(&PostParams::default(), &configmap(name))
        .await
        .unwrap();
}

/// Writes ConfigMap `name` straight into the server's store (no client, so in a paused runtime
/// nothing else runs meanwhile), then compacts the history up to it: a watch or a continue
/// token from any version before gets 410, as after etcd's compaction.
pub fn write_and_compact(server: &FakeApiServer, name: &str) {
    let mut written = configmap(name);
    written.metadata.namespace = Some("default".into());
    server.insert(&written).unwrap();
    server.expire_resource_versions();
}

/// How many lists of ConfigMaps the server has answered (the pages of one list each count).
pub fn lists_answered(server: &FakeApiServer) -> usize {
    server
        .actions()
        .iter()
        .filter(|a| a.matches("list", "configmaps"))
        .count()
}

/// An informer over the ConfigMaps of namespace `default`, listing and watching through
/// `client` as `config` says, started.
pub fn running(client: kube::Client, config: watcher::Config) -> SharedIndexInformer<ConfigMap> {
    let options = InformerOptions {
        namespace: Some("default".into()),
        watcher: config,
        ..InformerOptions::default()
    };
    let informer = SharedIndexInformer::new(client, options);
    informer.run();
    informer
}

/// The time (virtual in a paused runtime) until the informer's store holds `name`; fails after
/// 600 s.
pub async fn time_until_cached(informer: &SharedIndexInformer<ConfigMap>, name: &str) -> Duration {
    let start = Instant::now();
    while informer.store().get(&format!("default/{name}")).is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "{name} never reached the store"
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    start.elapsed()
}

/// Runs an informer through `client` as `config` says until it has synced and seen `b`, then
/// cuts its watch while an object `c` is written and the history compacted past where it was,
/// so that its watch from there gets 410 and it relists; returns `b`'s resourceVersion, which
/// the relist must not go back from, once `c` is cached.
pub async fn relist_after_410(server: &FakeApiServer, client: kube::Client, config: watcher::Config) -> String {
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
