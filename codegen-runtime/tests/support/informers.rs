//! What the informer tests share: the informer they watch with, and the wait for what a
//! handler heard.

use std::time::Duration;

use codegen_runtime::cache::{InformerOptions, SharedIndexInformer};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::Client;
use tokio::sync::mpsc;

/// An informer over the ConfigMaps of namespace `default`, not started.
pub fn informer(client: Client) -> SharedIndexInformer<ConfigMap> {
    let options = InformerOptions {
        namespace: Some("default".into()),
        ..InformerOptions::default()
    };
    SharedIndexInformer::new(client, options)
}

/// The next `count` things a handler heard, waiting at most 20 s for each.
pub async fn take(receiver: &mut mpsc::UnboundedReceiver<String>, count: usize) -> Vec<String> {
    let mut seen = Vec::new();
    while seen.len() < count {
        let next = tokio::time::timeout(Duration::from_secs(20), receiver.recv()).await;
        seen.push(next.expect("the handler hears in time").expect("the handler is alive"));
    }
    seen
}
