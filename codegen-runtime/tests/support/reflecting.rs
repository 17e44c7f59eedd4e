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

use crate::objects::configmap;

/// Creates an empty ConfigMap `name` in namespace `default`, as a client would.
pub async fn create(server: &FakeApiServer, name: &str) {
    Api::<ConfigMap>::default_namespaced(server.client())
        .create(&PostParams::default(), &configmap(name))
        .await
        .unwrap();
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
