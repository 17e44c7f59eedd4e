//! What the informer tests share: the informer they watch with, a handler that records what
//! it hears, and the wait for what it heard.

use std::sync::Arc;
use std::time::Duration;

use codegen_runtime::cache::{Deleted, EventHandler, InformerOptions, SharedIndexInformer};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::{Client, ResourceExt};
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

/// Records what a handler sees as short strings: `add a (initial)`, `update a`, `delete b (tombstone default/b)`.
pub struct Recorder(pub mpsc::UnboundedSender<String>);

impl EventHandler<ConfigMap> for Recorder {
    fn on_add(&mut self, object: Arc<ConfigMap>, in_initial_list: bool) {
        let initial = if in_initial_list { " (initial)" } else { "" };
        let _ = self.0.send(format!("add {}{initial}", object.name_any()));
    }

    fn on_update(&mut self, _old: Arc<ConfigMap>, new: Arc<ConfigMap>) {
        let _ = self.0.send(format!("update {}", new.name_any()));
    }

    fn on_delete(&mut self, deleted: Deleted<ConfigMap>) {
        let how = match &deleted {
            Deleted::Tombstone(tombstone) => format!(" (tombstone {})", tombstone.key),
            Deleted::Object(_) => String::new(),
        };
        let _ = self.0.send(format!("delete {}{how}", deleted.object().name_any()));
    }
}
