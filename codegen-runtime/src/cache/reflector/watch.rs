//! A watch: its response read line by line (a streaming list's initial events a chunk at a
//! time), each event turned into a change for the engine, and what to do when it ends.

use std::collections::HashSet;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use kube::api::WatchParams;
use kube::client::Body;

use super::chunks;
use super::{
    DEFAULT_WATCH_TIMEOUT, IDLE_MARGIN, Initial, Next, Reflector, at_a_version, backoff, error_status, status_text,
    version_gone,
};
use crate::cache::decode::Lenient;
use crate::cache::key::object_key;
use crate::cache::lines::Lines;
use crate::cache::reuse::has_field_sets;
use crate::cache::shared::{Delta, InformerObject};
use crate::cache::wire::{self, LineDecoder, ManagedFields, WireEvent};

impl<K: InformerObject> Reflector<'_, K> {
    /// Watches from `resource_version` (a streaming list first, when `initial`) until the
    /// watch ends; says what to do next.
    pub(super) async fn watch(&mut self, resource_version: &str, initial: bool) -> Next {
        let config = self.config();
        let params = WatchParams {
            label_selector: config.label_selector.clone(),
            field_selector: config.field_selector.clone(),
            timeout: config.timeout,
            // A streaming list ends with a bookmark: kube asks for them with it.
            bookmarks: config.bookmarks || initial,
            send_initial_events: initial,
        };
        let idle = match config.timeout {
            Some(0) => None,
            timeout => Some(Duration::from_secs(timeout.map_or(DEFAULT_WATCH_TIMEOUT, u64::from)) + IDLE_MARGIN),
        };
        let resume = (!initial).then(|| resource_version.to_owned());
        let request = match self.request().watch(&params, resource_version) {
            Ok(request) => request,
            Err(error) => return backoff(resume, error),
        };
        let response = match self.shared.client.send(request.map(Body::from)).await {
            Ok(response) => response,
            Err(error) => return backoff(resume, error),
        };
        if !response.status().is_success() {
            let code = response.status().as_u16();
            let bytes = response
                .into_body()
                .collect()
                .await
                .map(|c| c.to_bytes())
                .unwrap_or_default();
            let status = error_status(code, &bytes);
            return match status.code {
                // A streaming list from a version the server no longer has (or whose cache
                // has not reached it in time): the next one asks for the latest.
                _ if initial && at_a_version(resource_version) && version_gone(&status) => {
                    self.synced_gone = true;
                    Next::Relist
                }
                410 => {
                    self.relist_from(resource_version, initial);
                    Next::Relist
                }
                // A server without streaming lists refuses `sendInitialEvents` (422 before
                // the WatchList feature, 400 from older validation): list and watch instead.
                400 | 422 if initial => {
                    tracing::info!(kind = %K::kind(&K::DynamicType::default()), reason = %status_text(&status), "informer: the server has no streaming lists; listing instead");
                    self.streaming = false;
                    Next::ListInstead
                }
                // The server's load: the same again, after the backoff.
                429 => backoff(resume, status_text(&status)),
                _ if initial => Next::ListOnce(status_text(&status)),
                _ => backoff(resume, status_text(&status)),
            };
        }
        let mut initial = initial.then(|| Initial {
            objects: Vec::new(),
            undecodable: HashSet::new(),
            handed: false,
        });
        let mut last = resource_version.to_owned();
        // Field sets are left as text only while the last object decoded had some: objects of
        // one kind mostly all have them or none, and leaving them costs an update without
        // any 5–8% (BENCHMARKS.md).
        let mut field_sets_seen = true;
        let mut chunks = chunks::read(response.into_body());
        let mut lines = Lines::default();
        let mut decoder = LineDecoder::default();
        loop {
            let chunk = match idle {
                Some(idle) => match tokio::time::timeout(idle, chunks.next()).await {
                    Ok(chunk) => chunk,
                    Err(_) => return ended(&initial, &last, "it was silent past its timeout"),
                },
                None => chunks.next().await,
            };
            let data = match chunk {
                None => return ended(&initial, &last, "it ended"),
                // A cut connection ends a watch as its end does (client-go takes a reset or an
                // unexpected EOF for a close, and watches again at once).
                Some(Err(error)) => return ended(&initial, &last, error),
                Some(Ok(data)) => data,
            };
            lines.push(data);
            if initial.is_some() {
                // A streaming list's initial events are decoded a chunk at a time, as one
                // document, filed into the engine's relist a chunk at a time and swapped in at
                // the bookmark that ends them.
                let run: Vec<Bytes> = std::iter::from_fn(|| lines.next_line())
                    .filter(|line| !is_blank(line))
                    .collect();
                for decoded in wire::decode_events::<K>(&run, self.managed_fields()) {
                    if let Some(next) = self.step(decoded, &mut initial, &mut last).await {
                        return next;
                    }
                }
                if let Some(initial) = initial.as_mut().filter(|initial| !initial.objects.is_empty()) {
                    let first = !std::mem::replace(&mut initial.handed, true);
                    let objects = std::mem::take(&mut initial.objects);
                    self.engine.hand_over(Delta::Listed { objects, first }).await;
                }
            } else {
                while let Some(line) = lines.next_line() {
                    if is_blank(&line) {
                        continue;
                    }
                    let managed_fields = match self.managed_fields() {
                        ManagedFields::Decode if field_sets_seen && self.shared.field_sets_as_text() => {
                            ManagedFields::FieldSetsAsText
                        }
                        managed_fields => managed_fields,
                    };
                    let decoded = decoder.decode::<K>(&line, managed_fields);
                    field_sets_seen = had_field_sets(&decoded).unwrap_or(field_sets_seen);
                    if let Some(next) = self.step(decoded, &mut initial, &mut last).await {
                        return next;
                    }
                }
            }
        }
    }

    /// Takes one decoded watch line: hands its change to the engine; says what ends the
    /// watch, if it does.
    async fn step(
        &mut self,
        decoded: Result<WireEvent<K>, serde_json::Error>,
        initial: &mut Option<Initial<K>>,
        last: &mut String,
    ) -> Option<Next> {
        let (delta, next) = match decoded {
            Ok(event) => self.on_event(event, initial, last),
            Err(error) => (
                None,
                Some(self.failed_in_stream(initial.is_some(), last, error.to_string())),
            ),
        };
        if let Some(delta) = delta {
            self.engine.hand_over(delta).await;
        }
        next
    }

    /// Reads one event: the change for the engine, if any, and what ends the watch, if it does.
    fn on_event(
        &mut self,
        event: WireEvent<K>,
        initial: &mut Option<Initial<K>>,
        last: &mut String,
    ) -> (Option<Delta<K>>, Option<Next>) {
        let during_initial = initial.is_some();
        let (delta, has_version) = match event {
            WireEvent::Added(object) | WireEvent::Modified(object) => {
                let has_version = resume_from(last, object.meta());
                let delta = match (object, initial.as_mut()) {
                    (Lenient::Decoded(object), Some(initial)) => {
                        initial.objects.push(self.shared.keep(object));
                        None
                    }
                    (Lenient::Decoded(object), None) => Some(Delta::Apply(self.shared.keep(object), None)),
                    // Only a misfit needs its key: the store keeps its cached state.
                    (failed, Some(initial)) => {
                        initial.undecodable.insert(self.shared.skip(failed));
                        None
                    }
                    (failed, None) => {
                        self.shared.skip(failed);
                        None
                    }
                };
                (delta, has_version)
            }
            WireEvent::ModifiedPending { object, field_sets } => {
                // Left as text only for an informer without a transform, and outside a
                // streaming list's initial events; decoded here should that ever change.
                if initial.is_some() || self.shared.options.transform.is_some() {
                    let whole = WireEvent::Modified(field_sets.complete(object));
                    return self.on_event(whole, initial, last);
                }
                let has_version = resume_from(last, object.meta());
                (Some(Delta::Apply(object, Some(field_sets))), has_version)
            }
            WireEvent::Deleted(object) => {
                let key = object_key(&object);
                let has_version = resume_from(last, object.meta());
                let delta = initial.is_none().then(|| Delta::Delete {
                    key,
                    last: self.shared.decoded(object),
                });
                (delta, has_version)
            }
            WireEvent::Bookmark {
                resource_version,
                initial_events_end,
            } => {
                let delta = match initial.take_if(|_| initial_events_end) {
                    Some(done) => Some(Delta::Replace {
                        objects: done.objects,
                        first: !done.handed,
                        undecodable: done.undecodable,
                    }),
                    None => None,
                };
                if delta.is_some() {
                    self.watching_since = Some(tokio::time::Instant::now());
                    self.synced_gone = false;
                }
                let has_version = !resource_version.is_empty();
                if has_version {
                    *last = resource_version;
                }
                (delta, has_version)
            }
            WireEvent::Unknown(kind) => {
                tracing::warn!(kind = %K::kind(&K::DynamicType::default()), event = %kind, "informer: skipped a watch event of a type it does not know");
                return (None, None);
            }
            // A streaming list from a version the server no longer has, or whose cache has not
            // reached it in time (kube-apiserver says so in the stream, after waiting up to
            // 3 s): the next asks for the latest, as when the request itself is refused.
            WireEvent::Error(status) if during_initial && version_gone(&status) => {
                self.synced_gone = true;
                return (None, Some(Next::Relist));
            }
            WireEvent::Error(status) if status.code == 410 => {
                self.relist_from(last, during_initial);
                return (None, Some(Next::Relist));
            }
            // The server's load: the same again, after the backoff.
            WireEvent::Error(status) if status.code == 429 => {
                return (None, Some(backoff(resume_point(initial, last), status_text(&status))));
            }
            WireEvent::Error(status) => {
                return (
                    None,
                    Some(self.failed_in_stream(during_initial, last, status_text(&status))),
                );
            }
        };
        if !has_version {
            // Without a resourceVersion there is nothing to resume from.
            self.relist_from(last, during_initial);
            return (delta, Some(Next::Relist));
        }
        // A streaming list's own events are not yet progress: one that fails halfway every
        // time must back off further every time.
        if !during_initial {
            self.events += 1;
            self.succeeded();
        }
        (delta, None)
    }

    /// What follows an error in a watch's stream (an ERROR event, a line that does not decode):
    /// a streaming list's lists instead, at once; an established watch's relists after the
    /// backoff, no older than `last`, as client-go's reflector does (the same event would come
    /// again from the same resourceVersion).
    fn failed_in_stream(&mut self, during_initial: bool, last: &str, error: String) -> Next {
        if during_initial {
            return Next::ListOnce(error);
        }
        self.relist_from(last, false);
        backoff(None, error)
    }

    /// Before a relist: the store reached `last` (unless a streaming list's initial events were
    /// still arriving, or it is unknown), so the relist must not go back from there.
    fn relist_from(&mut self, last: &str, during_initial: bool) {
        if !during_initial && !last.is_empty() {
            self.synced = Some(last.to_owned());
        }
    }
}

/// Where a watch that ends resumes: from `last`, the resourceVersion of its last event; `None`
/// during a streaming list's initial events, which are asked for again (or listed instead).
fn resume_point<K>(initial: &Option<Initial<K>>, last: &str) -> Option<String> {
    initial.is_none().then(|| last.to_owned())
}

/// A watch that ended (`why`: its end, its silence, a cut connection) resumes at once, paced by
/// the rule for watches that end at once; a streaming list that ended before its initial events
/// did is replaced by a list, at once.
fn ended<K>(initial: &Option<Initial<K>>, last: &str, why: impl std::fmt::Display) -> Next {
    match resume_point(initial, last) {
        Some(resume) => Next::Watch(resume),
        None => Next::ListOnce(format!("{why} before its initial events did")),
    }
}

/// Whether a decoded event's object had managed-fields field sets, if it is an object.
fn had_field_sets<K: Resource>(decoded: &Result<WireEvent<K>, serde_json::Error>) -> Option<bool> {
    match decoded {
        Ok(WireEvent::ModifiedPending { .. }) => Some(true),
        Ok(WireEvent::Added(Lenient::Decoded(object)) | WireEvent::Modified(Lenient::Decoded(object))) => {
            Some(has_field_sets(object.meta()))
        }
        _ => None,
    }
}

/// Whether a line of a watch holds nothing (kube-apiserver sends none, but a proxy may).
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Copies `meta`'s resourceVersion into `last`'s buffer (once per event: no allocation);
/// whether it had one. Without one, `last` keeps the one before, to relist from.
fn resume_from(last: &mut String, meta: &ObjectMeta) -> bool {
    let version = meta.resource_version.as_deref().unwrap_or_default();
    if version.is_empty() {
        return false;
    }
    last.clear();
    last.push_str(version);
    true
}
