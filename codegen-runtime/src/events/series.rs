//! [`SeriesRecorder`]: events.k8s.io/v1 events as kube-runtime's `Recorder` writes them (a
//! repeat of the same event within 6 minutes becomes a series on the first one), with its cache
//! aged once a minute instead of on every publish.
//!
//! kube-runtime's `Recorder` scans its whole cache each time it publishes. A controller that
//! records an event for each of 10k objects scans 50 M entries: the largest item in a profile
//! of the 10k-Foo benchmark (11% of the process).

use std::collections::HashMap;
use std::time::Duration;

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::{Event as K8sEvent, EventSeries};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{Api, ObjectMeta, Patch, PatchParams, PostParams};
use kube::runtime::events::{Event, EventType, Reporter};
use kube::{Client, ResourceExt};
use tokio::sync::Mutex;
use tokio::time::Instant;

/// How long a published event may grow into a series (kube-runtime's and client-go's 6 min).
const SERIES_WINDOW: Duration = Duration::from_secs(6 * 60);
/// How often the cache drops the events whose window has passed.
const AGE_EVERY: Duration = Duration::from_secs(60);

/// What makes two events the same one repeated: kube-runtime's key (the note is not part of it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct EventKey {
    type_: &'static str,
    action: String,
    reason: String,
    regarding: [Option<String>; 6],
    related: Option<[Option<String>; 6]>,
}

/// The identifying fields of a reference.
fn reference_key(reference: &ObjectReference) -> [Option<String>; 6] {
    [
        reference.api_version.clone(),
        reference.kind.clone(),
        reference.namespace.clone(),
        reference.name.clone(),
        reference.uid.clone(),
        reference.field_path.clone(),
    ]
}

struct Cached {
    event: K8sEvent,
    seen: Instant,
}

struct Cache {
    events: HashMap<EventKey, Cached>,
    next_aging: Instant,
}

/// Publishes events.k8s.io/v1 events for one reporter.
pub struct SeriesRecorder {
    client: Client,
    reporter: Reporter,
    cache: Mutex<Cache>,
}

impl SeriesRecorder {
    /// A recorder publishing as `reporter`.
    pub fn new(client: Client, reporter: Reporter) -> Self {
        Self {
            client,
            reporter,
            cache: Mutex::new(Cache {
                events: HashMap::new(),
                next_aging: Instant::now() + AGE_EVERY,
            }),
        }
    }

    /// Publishes `event` about `regarding`: a new Event, or the series of the same event
    /// published in the last 6 minutes, patched with its count and last time.
    pub async fn publish(&self, event: &Event, regarding: &ObjectReference) -> Result<(), kube::Error> {
        let key = EventKey {
            type_: type_name(event.type_),
            action: event.action.clone(),
            reason: event.reason.clone(),
            regarding: reference_key(regarding),
            related: event.secondary.as_ref().map(reference_key),
        };
        let now = Instant::now();
        let wall = MicroTime(jiff::Timestamp::now());
        let repeated = {
            let mut cache = self.cache.lock().await;
            if now >= cache.next_aging {
                cache
                    .events
                    .retain(|_, cached| now.duration_since(cached.seen) < SERIES_WINDOW);
                cache.next_aging = now + AGE_EVERY;
            }
            cache
                .events
                .get(&key)
                .filter(|cached| now.duration_since(cached.seen) < SERIES_WINDOW)
                .map(|cached| cached.event.clone())
        };
        let namespace = regarding.namespace.as_deref().unwrap_or("default");
        let events: Api<K8sEvent> = Api::namespaced(self.client.clone(), namespace);
        let published = match repeated {
            Some(mut earlier) => {
                let count = earlier.series.as_ref().map_or(2, |series| series.count + 1);
                earlier.series = Some(EventSeries {
                    count,
                    last_observed_time: wall,
                });
                let patched = events
                    .patch(&earlier.name_any(), &PatchParams::default(), &Patch::Merge(&earlier))
                    .await;
                match patched {
                    // Deleted meanwhile (`kubectl delete events`): written again, with its
                    // series, as client-go's recorder does.
                    Err(kube::Error::Api(status)) if status.code == 404 => {
                        events.create(&PostParams::default(), &earlier).await?;
                    }
                    patched => {
                        patched?;
                    }
                }
                earlier
            }
            None => {
                let new = self.new_event(event, regarding, wall);
                events.create(&PostParams::default(), &new).await?;
                new
            }
        };
        let cached = Cached {
            event: published,
            seen: now,
        };
        self.cache.lock().await.events.insert(key, cached);
        Ok(())
    }

    /// A new Event, named as kube-runtime names them (`<object>.<nanoseconds in hex>`, see
    /// [`event_name`]).
    fn new_event(&self, event: &Event, regarding: &ObjectReference, now: MicroTime) -> K8sEvent {
        let object = regarding.name.as_deref().unwrap_or(&self.reporter.controller);
        K8sEvent {
            action: Some(event.action.clone()),
            reason: Some(event.reason.clone()),
            event_time: Some(now.clone()),
            regarding: Some(regarding.clone()),
            note: event.note.clone(),
            metadata: ObjectMeta {
                namespace: regarding.namespace.clone(),
                name: Some(event_name(object, &now)),
                ..ObjectMeta::default()
            },
            reporting_controller: Some(self.reporter.controller.clone()),
            reporting_instance: Some(
                self.reporter
                    .instance
                    .clone()
                    .unwrap_or_else(|| self.reporter.controller.clone()),
            ),
            type_: Some(type_name(event.type_).to_owned()),
            related: event.secondary.clone(),
            ..K8sEvent::default()
        }
    }
}

/// A new Event's name: `<object>.<nanoseconds in hex>`, or a random UUID where that is not a
/// DNS subdomain, which kube-apiserver refuses (an object name of more than 236 characters, or
/// one with a `:` as RBAC objects may have), as client-go's recorder falls back to since 1.33.
fn event_name(object: &str, now: &MicroTime) -> String {
    let name = format!("{object}.{:x}", now.0.as_nanosecond());
    if is_dns_subdomain(&name) {
        name
    } else {
        uuid::Uuid::new_v4().to_string()
    }
}

/// Whether `name` is a lowercase RFC 1123 subdomain, as kube-apiserver checks most names: at
/// most 253 characters, dot-separated labels of `[a-z0-9-]` that start and end alphanumeric.
fn is_dns_subdomain(name: &str) -> bool {
    let label = |label: &str| {
        let alphanumeric = |byte: Option<u8>| byte.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        alphanumeric(label.bytes().next())
            && alphanumeric(label.bytes().last())
            && label
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    name.len() <= 253 && name.split('.').all(label)
}

fn type_name(type_: EventType) -> &'static str {
    match type_ {
        EventType::Normal => "Normal",
        EventType::Warning => "Warning",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_name_should_be_a_dns_subdomain_or_a_uuid() {
        let now = MicroTime(jiff::Timestamp::from_nanosecond(0x1234).unwrap());
        assert_eq!(event_name("web-1", &now), "web-1.1234");
        for object in ["x".repeat(250).as_str(), "system:controller:web"] {
            let name = event_name(object, &now);
            assert!(uuid::Uuid::parse_str(&name).is_ok(), "{name}");
        }
        assert!(!is_dns_subdomain("a..b") && !is_dns_subdomain("-a") && !is_dns_subdomain("A"));
    }
}
