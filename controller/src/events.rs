//! Recording events about the objects the controllers reconcile. Events are best effort, as in
//! client-go: a failure to record one is logged, never a reason to fail a reconcile.

use std::sync::Arc;

use codegen_runtime::EventRecorder;
use codegen_runtime::events::{Event, EventType};
use kube::Resource;

/// Records events for one controller.
#[derive(Clone)]
pub struct Events {
    recorder: Arc<dyn EventRecorder>,
}

impl Events {
    /// Events through `recorder` (kube-runtime's `Recorder` in a cluster, `FakeRecorder` in tests).
    pub fn new(recorder: Arc<dyn EventRecorder>) -> Self {
        Self { recorder }
    }

    /// A Normal event about `object`.
    pub async fn normal<K: Resource<DynamicType = ()>>(&self, object: &K, reason: &str, note: String) {
        self.record(object, EventType::Normal, reason, note).await;
    }

    /// A Warning event about `object`.
    pub async fn warning<K: Resource<DynamicType = ()>>(&self, object: &K, reason: &str, note: String) {
        self.record(object, EventType::Warning, reason, note).await;
    }

    async fn record<K: Resource<DynamicType = ()>>(&self, object: &K, type_: EventType, reason: &str, note: String) {
        let event = Event {
            type_,
            reason: reason.to_owned(),
            note: Some(note),
            action: "Reconciling".to_owned(),
            secondary: None,
        };
        let regarding = object.object_ref(&());
        if let Err(error) = self.recorder.publish(&event, &regarding).await {
            tracing::warn!(
                reason,
                object = regarding.name.as_deref().unwrap_or_default(),
                %error,
                "cannot record event"
            );
        }
    }
}
