//! The informer's own list and watch (client-go's reflector): pages or a streaming list into the
//! store, then a watch resumed from the last resourceVersion, relisting at once on 410 Expired
//! and backing off (800 ms doubling to 30 s) only on failures: connection errors, 5xx, 403.
//!
//! Objects are decoded once, from the response bytes ([`super::wire`]), and handed as they
//! arrive to the informer's engine, which stores and announces them on another task.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use kube::api::{ListParams, VersionMatch, WatchParams};
use kube::client::Body;
use kube::core::Status;
use kube::runtime::utils::Backoff;
use kube::runtime::watcher::{self, DefaultBackoff, InitialListStrategy, ListSemantic};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::decode::Lenient;
use super::key::object_key;
use super::lines::Lines;
use super::shared::{Delta, InformerObject, Shared};
use super::wire::{self, WireEvent};

/// kube-apiserver's default watch timeout, when the informer sets none.
const DEFAULT_WATCH_TIMEOUT: u64 = 290;
/// A watch silent this much longer than its timeout is taken for a dead connection.
const IDLE_MARGIN: Duration = Duration::from_secs(5);

/// What the loop does next.
enum Next {
    /// Watch from this resourceVersion, at once (the watch ended as watches do).
    Watch(String),
    /// List again, at once: the resourceVersion expired (410), or the server has no streaming lists.
    Relist,
    /// Wait out the backoff, then watch from `resume` (or list, without one).
    Backoff { resume: Option<String>, error: String },
}

/// Lists and watches, handing what it decodes to the engine through `deltas`, until the
/// informer stops (the caller's `select!` drops it).
pub(super) async fn reflect<K: InformerObject>(shared: &Shared<K>, deltas: mpsc::Sender<Delta<K>>) {
    let mut reflector = Reflector {
        shared,
        deltas,
        backoff: DefaultBackoff::default(),
        streaming: shared.options.watcher.initial_list_strategy == InitialListStrategy::StreamingList,
    };
    let mut resume: Option<String> = None;
    loop {
        let next = match resume.take() {
            Some(resource_version) => reflector.watch(&resource_version, false).await,
            None if reflector.streaming => reflector.watch("0", true).await,
            None => match reflector.list().await {
                Ok(resource_version) => reflector.watch(&resource_version, false).await,
                Err(next) => next,
            },
        };
        match next {
            Next::Watch(resource_version) => resume = Some(resource_version),
            Next::Relist => {}
            Next::Backoff { resume: from, error } => {
                let delay = reflector.backoff.next().unwrap_or(Duration::from_secs(30));
                tracing::warn!(kind = %K::kind(&K::DynamicType::default()), %error, ?delay, "informer: list or watch failed; retrying");
                tokio::time::sleep(delay).await;
                resume = from;
            }
        }
    }
}

struct Reflector<'s, K> {
    shared: &'s Shared<K>,
    deltas: mpsc::Sender<Delta<K>>,
    backoff: DefaultBackoff,
    /// Whether the initial list is a streaming list; cleared when the server refuses those.
    streaming: bool,
}

/// Where a watch stands: in a streaming list's initial events (collected for the store's
/// replace), or past them.
struct Initial<K> {
    objects: Vec<Arc<K>>,
    undecodable: HashSet<String>,
}

impl<K: InformerObject> Reflector<'_, K> {
    fn config(&self) -> &watcher::Config {
        &self.shared.options.watcher
    }

    fn request(&self) -> kube::core::Request {
        kube::core::Request::new(self.shared.url_path.clone())
    }

    /// Lists every page into the store; returns the list's resourceVersion.
    async fn list(&mut self) -> Result<String, Next> {
        let config = self.config();
        let (resource_version, version_match) = match config.list_semantic {
            ListSemantic::Any => (Some("0".to_owned()), Some(VersionMatch::NotOlderThan)),
            ListSemantic::MostRecent => (None, None),
        };
        let mut params = ListParams {
            label_selector: config.label_selector.clone(),
            field_selector: config.field_selector.clone(),
            limit: config.page_size,
            resource_version,
            version_match,
            ..ListParams::default()
        };
        let mut objects: Vec<Arc<K>> = Vec::new();
        let mut failures = Vec::new();
        let mut prefetched: Option<JoinHandle<Fetched>> = None;
        loop {
            let fetched = match prefetched.take() {
                Some(page) => page.await.unwrap_or_else(|e| Err(kube::Error::Service(Box::new(e)))),
                None => {
                    let request = self.request().list(&params).map_err(|e| backoff(None, e))?;
                    fetch(self.shared.client.clone(), request).await
                }
            };
            let (status, bytes) = fetched.map_err(|e| backoff(None, e))?;
            if !(200..300).contains(&status) {
                let status = error_status(status, &bytes);
                // An expired continue token: start the list again.
                return Err(if status.code == 410 {
                    Next::Relist
                } else {
                    backoff(None, status_text(&status))
                });
            }
            // The next page is asked for before this one is decoded: the server prepares and
            // sends it meanwhile.
            if let Some(token) = wire::continue_token(&bytes) {
                params.continue_token = Some(token);
                let request = self.request().list(&params).map_err(|e| backoff(None, e))?;
                prefetched = Some(tokio::spawn(fetch(self.shared.client.clone(), request)));
            }
            let meta = wire::decode_page(&bytes, &mut objects, &mut failures, |object| self.shared.keep(object))
                .map_err(|e| backoff(None, e))?;
            match meta.continue_.filter(|c| !c.is_empty()) {
                Some(token) => params.continue_token = Some(token),
                None => {
                    let Some(resource_version) = meta.resource_version.filter(|rv| !rv.is_empty()) else {
                        return Err(backoff(None, "the list has no resourceVersion"));
                    };
                    let undecodable = failures.into_iter().map(|failed| self.shared.skip(failed)).collect();
                    self.hand_over(Delta::Replace { objects, undecodable }).await;
                    self.backoff.reset();
                    return Ok(resource_version);
                }
            }
        }
    }

    /// Watches from `resource_version` (a streaming list first, when `initial`) until the
    /// watch ends; says what to do next.
    async fn watch(&mut self, resource_version: &str, initial: bool) -> Next {
        let config = self.config();
        let params = WatchParams {
            label_selector: config.label_selector.clone(),
            field_selector: config.field_selector.clone(),
            timeout: config.timeout,
            bookmarks: config.bookmarks,
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
                410 => Next::Relist,
                // A server without streaming lists refuses `sendInitialEvents` (422 before
                // the WatchList feature, 400 from older validation): list and watch instead.
                400 | 422 if initial => {
                    tracing::info!(kind = %K::kind(&K::DynamicType::default()), reason = %status_text(&status), "informer: the server has no streaming lists; listing instead");
                    self.streaming = false;
                    Next::Relist
                }
                _ => backoff(resume, status_text(&status)),
            };
        }
        let mut initial = initial.then(|| Initial {
            objects: Vec::new(),
            undecodable: HashSet::new(),
        });
        let mut last = resource_version.to_owned();
        let mut body = response.into_body();
        let mut lines = Lines::default();
        loop {
            let frame = match idle {
                Some(idle) => match tokio::time::timeout(idle, body.frame()).await {
                    Ok(frame) => frame,
                    Err(_) => return self.resume_after_end(initial.is_some(), last),
                },
                None => body.frame().await,
            };
            let data = match frame {
                None => return self.resume_after_end(initial.is_some(), last),
                Some(Err(error)) => return backoff(initial.is_none().then_some(last), error),
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => data,
                    Err(_) => continue,
                },
            };
            lines.push(data);
            if initial.is_some() {
                // A streaming list's initial events are decoded a chunk at a time, as one
                // document: the engine has nothing to do with them before they end.
                let run: Vec<Bytes> = std::iter::from_fn(|| lines.next_line())
                    .filter(|line| !is_blank(line))
                    .collect();
                for decoded in wire::decode_events::<K>(&run) {
                    if let Some(next) = self.step(decoded, &mut initial, &mut last).await {
                        return next;
                    }
                }
            } else {
                while let Some(line) = lines.next_line() {
                    if is_blank(&line) {
                        continue;
                    }
                    if let Some(next) = self.step(wire::decode_event::<K>(&line), &mut initial, &mut last).await {
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
            Err(error) => (None, Some(backoff(initial.is_none().then(|| last.clone()), error))),
        };
        if let Some(delta) = delta {
            self.hand_over(delta).await;
        }
        next
    }

    /// A watch that ended as watches do (timeout, idle) resumes; a streaming list that ended
    /// before its initial events did starts over.
    fn resume_after_end(&self, in_initial: bool, last: String) -> Next {
        if in_initial { Next::Relist } else { Next::Watch(last) }
    }

    /// Hands a change to the engine; an engine that is gone (the informer stopping) takes none.
    async fn hand_over(&self, delta: Delta<K>) {
        let _ = self.deltas.send(delta).await;
    }

    /// Reads one event: the change for the engine, if any, and what ends the watch, if it does.
    fn on_event(
        &mut self,
        event: WireEvent<K>,
        initial: &mut Option<Initial<K>>,
        last: &mut String,
    ) -> (Option<Delta<K>>, Option<Next>) {
        let (delta, has_version) = match event {
            WireEvent::Added(object) | WireEvent::Modified(object) => {
                let has_version = resume_from(last, object.meta());
                let delta = match (object, initial.as_mut()) {
                    (Lenient::Decoded(object), Some(initial)) => {
                        initial.objects.push(self.shared.keep(object));
                        None
                    }
                    (Lenient::Decoded(object), None) => Some(Delta::Apply(self.shared.keep(object))),
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
                        undecodable: done.undecodable,
                    }),
                    None => None,
                };
                let has_version = !resource_version.is_empty();
                *last = resource_version;
                (delta, has_version)
            }
            WireEvent::Error(status) if status.code == 410 => return (None, Some(Next::Relist)),
            WireEvent::Error(status) => {
                return (
                    None,
                    Some(backoff(initial.is_none().then(|| last.clone()), status_text(&status))),
                );
            }
        };
        if !has_version {
            // Without a resourceVersion there is nothing to resume from.
            return (delta, Some(Next::Relist));
        }
        self.backoff.reset();
        (delta, None)
    }
}

/// Whether a line of a watch holds nothing (kube-apiserver sends none, but a proxy may).
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Copies `meta`'s resourceVersion into `last`'s buffer (once per event: no allocation);
/// whether it had one.
fn resume_from(last: &mut String, meta: &ObjectMeta) -> bool {
    let version = meta.resource_version.as_deref().unwrap_or_default();
    last.clear();
    last.push_str(version);
    !version.is_empty()
}

/// A response's status code and body.
type Fetched = Result<(u16, Bytes), kube::Error>;

/// Sends `request` and reads the whole answer.
async fn fetch(client: kube::Client, request: http::Request<Vec<u8>>) -> Fetched {
    let response = client.send(request.map(Body::from)).await?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?;
    Ok((status, body.to_bytes()))
}

/// A failure to wait out before `resume`.
fn backoff(resume: Option<String>, error: impl ToString) -> Next {
    Next::Backoff {
        resume,
        error: error.to_string(),
    }
}

/// The `Status` of an error response; a body that is not one (a proxy's page) keeps its code.
fn error_status(code: u16, bytes: &[u8]) -> Status {
    match serde_json::from_slice::<Status>(bytes) {
        Ok(status) if status.code != 0 => status,
        _ => Status::failure(String::from_utf8_lossy(bytes).trim(), "").with_code(code),
    }
}

fn status_text(status: &Status) -> String {
    format!("{} ({}): {}", status.code, status.reason, status.message)
}
