//! Recording Kubernetes events: controllers record through [`Events`] into an [`EventRecorder`],
//! which [`SeriesRecorder`] (kube-runtime's `Recorder` semantics, without its per-publish scan)
//! and kube-runtime's `events::Recorder` implement for real clusters and [`FakeRecorder`]
//! implements for tests (client-go's `record.FakeRecorder`).
//!
//! Events are best effort, as in client-go: a failure to record one is logged, never a reason
//! to fail a reconcile.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::ObjectReference;
use kube::Resource;
pub use kube::runtime::events::{Event, EventType, Recorder, Reporter};
pub use series::SeriesRecorder;

mod series;

/// Publishes events about objects.
pub trait EventRecorder: Send + Sync {
    /// Records `event` about the object `regarding`.
    fn publish<'a>(
        &'a self,
        event: &'a Event,
        regarding: &'a ObjectReference,
    ) -> BoxFuture<'a, Result<(), kube::Error>>;
}

impl EventRecorder for Recorder {
    fn publish<'a>(
        &'a self,
        event: &'a Event,
        regarding: &'a ObjectReference,
    ) -> BoxFuture<'a, Result<(), kube::Error>> {
        Box::pin(Recorder::publish(self, event, regarding))
    }
}

impl EventRecorder for SeriesRecorder {
    fn publish<'a>(
        &'a self,
        event: &'a Event,
        regarding: &'a ObjectReference,
    ) -> BoxFuture<'a, Result<(), kube::Error>> {
        Box::pin(SeriesRecorder::publish(self, event, regarding))
    }
}

/// Records events for one controller.
#[derive(Clone)]
pub struct Events {
    recorder: Arc<dyn EventRecorder>,
}

impl Events {
    /// Events through `recorder` (`SeriesRecorder` in a cluster, `FakeRecorder` in tests).
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
                error = %crate::controller::ErrorSummary(&error),
                "cannot record event"
            );
        }
    }
}

/// Keeps events in memory as client-go's `FakeRecorder` formats them: `"<type> <reason> <note>"`.
#[derive(Debug, Default)]
pub struct FakeRecorder {
    events: Mutex<Vec<String>>,
}

impl FakeRecorder {
    /// An empty recorder.
    pub fn new() -> Self {
        Self::default()
    }

    /// The events recorded so far, oldest first.
    pub fn events(&self) -> Vec<String> {
        self.lock().clone()
    }

    /// The events recorded so far, forgetting them.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        // Only pushes and clones happen under the lock.
        self.events.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl EventRecorder for FakeRecorder {
    fn publish<'a>(
        &'a self,
        event: &'a Event,
        _regarding: &'a ObjectReference,
    ) -> BoxFuture<'a, Result<(), kube::Error>> {
        let kind = match event.type_ {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        };
        let line = match &event.note {
            Some(note) => format!("{kind} {} {note}", event.reason),
            None => format!("{kind} {}", event.reason),
        };
        self.lock().push(line);
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    use super::*;

    #[tokio::test]
    async fn fake_recorder_should_format_like_client_go() {
        let recorder = FakeRecorder::new();
        let event = Event {
            type_: EventType::Warning,
            reason: "ErrResourceExists".into(),
            note: Some("Resource \"web\" already exists and is not managed by Foo".into()),
            action: "Reconciling".into(),
            secondary: None,
        };
        EventRecorder::publish(&recorder, &event, &ObjectReference::default())
            .await
            .unwrap();
        assert_eq!(
            recorder.take(),
            ["Warning ErrResourceExists Resource \"web\" already exists and is not managed by Foo"]
        );
        assert!(recorder.events().is_empty());
    }

    /// Refuses every event, as an API server that forbids them would, counting the attempts.
    #[derive(Default)]
    struct Refusing {
        attempts: AtomicUsize,
    }

    impl EventRecorder for Refusing {
        fn publish<'a>(&'a self, _: &'a Event, _: &'a ObjectReference) -> BoxFuture<'a, Result<(), kube::Error>> {
            self.attempts.fetch_add(1, Ordering::Relaxed);
            // Any kube error will do: `Events` treats them all alike.
            let refused = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "events are refused");
            Box::pin(async { Err(kube::Error::ReadEvents(refused)) })
        }
    }

    fn config_map() -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some("settings".into()),
                namespace: Some("default".into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    #[tokio::test]
    async fn events_should_record_normal_and_warning_events_while_reconciling() {
        let recorder = Arc::new(FakeRecorder::new());
        let events = Events::new(recorder.clone());
        events.normal(&config_map(), "Synced", "synced".to_owned()).await;
        events.warning(&config_map(), "Failed", "cannot sync".to_owned()).await;
        assert_eq!(recorder.take(), ["Normal Synced synced", "Warning Failed cannot sync"]);
    }

    #[tokio::test]
    async fn events_should_swallow_a_failure_to_record() {
        let recorder = Arc::new(Refusing::default());
        // `warning` returns nothing to fail with: the refusal is logged and the reconcile goes on.
        Events::new(recorder.clone())
            .warning(&config_map(), "Failed", "cannot sync".to_owned())
            .await;
        assert_eq!(recorder.attempts.load(Ordering::Relaxed), 1);
    }
}
