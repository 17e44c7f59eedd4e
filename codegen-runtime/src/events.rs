//! Recording Kubernetes events: controllers talk to [`EventRecorder`], which kube-runtime's
//! `events::Recorder` implements for real clusters and [`FakeRecorder`] implements for tests
//! (client-go's `record.FakeRecorder`).

use std::sync::Mutex;

use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::ObjectReference;
pub use kube::runtime::events::{Event, EventType, Recorder, Reporter};

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
}
