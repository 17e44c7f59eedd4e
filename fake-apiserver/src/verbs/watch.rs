//! Watch: where a watch starts (current state, a resourceVersion, or 410 Gone), which changes a
//! watcher sees through its selectors, bookmarks, timeouts, and the streaming loop.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};

use crate::go_order::{GoStruct, Ordered};
use crate::semantics::{go_json_writer, versions};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;
use crate::storage::resource::StorageKey;
use crate::storage::store::{Broadcast, Change, ChangeKind};
use crate::verbs::options::{Query, parse_cached_rv};
use crate::verbs::read::Filter;

/// How long a watch without `timeoutSeconds` stays open: kube-apiserver's `--min-request-timeout`
/// (1800 s), which it stretches by a random factor of 1 to 2; this server takes the shortest.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);
/// How long before its deadline a watch that allows bookmarks gets its last one, as
/// kube-apiserver's watch cache sends it.
const LAST_BOOKMARK_BEFORE_DEADLINE: Duration = Duration::from_secs(2);

/// How the object of an event is rendered (as itself, or as a kubectl table row), given whether
/// it is the stream's first: the HTTP layer negotiates it.
pub(crate) type EventRenderer = Box<dyn for<'a> Fn(&ResourceInfo, &'a Value, bool) -> Cow<'a, Value> + Send>;

/// Everything a watch stream needs, taken atomically under the server lock.
pub(crate) struct WatchPlan {
    info: Arc<ResourceInfo>,
    /// `info`'s stored objects, which every change is checked against.
    storage: StorageKey,
    /// `info`'s apiVersion, which every event's object carries.
    api_version: String,
    namespace: Option<String>,
    filter: Filter,
    /// Events to send first: synthetic ADDED events or retained history.
    backlog: Vec<(&'static str, Arc<Value>)>,
    /// Send the `k8s.io/initial-events-end` bookmark after the backlog.
    initial_events_end: bool,
    /// An error to send instead of any event: 410 for a resourceVersion too old, 504 for a
    /// streaming list from one not reached.
    failed: Option<ApiStatus>,
    last_rv: u64,
    receiver: broadcast::Receiver<Broadcast>,
    bookmarks: bool,
    bookmark_interval: Duration,
    timeout: Duration,
    render: EventRenderer,
    /// Whether an event was sent yet (tables send column definitions with the first only).
    sent_any: bool,
}

/// Works out where a watch starts and subscribes to what follows.
pub(crate) fn start(
    state: &State,
    info: Arc<ResourceInfo>,
    namespace: Option<String>,
    query: &Query,
    render: EventRenderer,
) -> Result<WatchPlan, ApiStatus> {
    let filter = Filter::from_query(&info, query)?;
    let current = state.store.current_rv();
    let storage = info.storage_key();
    let requested = query
        .resource_version
        .as_deref()
        .filter(|rv| *rv != "0")
        .map(parse_cached_rv)
        .transpose()?;
    let streaming = query.streams_initial_events(state.options.watch_list);
    let mut backlog = Vec::new();
    let mut failed = None;
    let mut last_rv = current;
    let oldest = state.store.oldest_rv_of(&storage);
    match requested {
        // Not reached yet: the watch waits for it, and sends only what comes after it.
        Some(rv) if !streaming && rv > current => last_rv = rv,
        // A streaming list not older than that: kube-apiserver's watch cache waits up to 3 s
        // to reach it, then says in the stream it did not. Nothing is written while this
        // server holds its lock, so it says so at once.
        Some(rv) if rv > current => failed = Some(ApiStatus::resource_version_too_large(rv, current)),
        Some(rv) if !streaming => match state.store.changes_since(rv).filter(|_| rv >= oldest) {
            Some(changes) => {
                for change in changes {
                    if let Some(event) = visible(&storage, namespace.as_deref(), &filter, change) {
                        backlog.push(event);
                    }
                }
            }
            None => {
                failed = Some(ApiStatus::expired(format!("too old resource version: {rv} ({oldest})")));
                last_rv = rv;
            }
        },
        // `sendInitialEvents=false` from the latest (or any) resourceVersion: changes only.
        None if query.send_initial_events == Some(false) => {}
        // No resourceVersion, "0", or a streaming list: the current state comes first.
        _ => {
            for (_, object) in state.store.iter(&storage, namespace.as_deref()) {
                if filter.matches(object) {
                    backlog.push(("ADDED", object.clone()));
                }
            }
        }
    }
    // `timeoutSeconds=0` means the server's default; any other value is taken as given.
    let timeout = query
        .timeout_seconds
        .filter(|seconds| *seconds > 0)
        .map_or(DEFAULT_TIMEOUT, Duration::from_secs);
    Ok(WatchPlan {
        storage,
        api_version: info.api_version(),
        info,
        namespace,
        filter,
        backlog,
        initial_events_end: streaming,
        failed,
        last_rv,
        receiver: state.store.subscribe(),
        bookmarks: query.allow_watch_bookmarks,
        bookmark_interval: state.options.bookmark_interval,
        timeout,
        render,
        sent_any: false,
    })
}

/// What a watcher of `info` in `namespace` through `filter` sees of `change`: objects moving in
/// or out of a selector appear as ADDED or DELETED, as kube-apiserver's watch cache reports them.
fn visible(
    storage: &StorageKey,
    namespace: Option<&str>,
    filter: &Filter,
    change: &Change,
) -> Option<(&'static str, Arc<Value>)> {
    if change.storage != *storage {
        return None;
    }
    let selected = |o: &Value| namespace.is_none_or(|ns| object::namespace(o) == ns) && filter.matches(o);
    let before = change.previous.as_deref().is_some_and(selected);
    let after = selected(&change.object);
    match (change.kind, before, after) {
        (ChangeKind::Deleted, true, _) => Some(("DELETED", change.object.clone())),
        (ChangeKind::Deleted, false, _) | (_, false, false) => None,
        (_, true, true) => Some(("MODIFIED", change.object.clone())),
        (_, false, true) => Some(("ADDED", change.object.clone())),
        (_, true, false) => {
            // Leaving the selection reads as a delete of what the watcher last saw, at this
            // change's resourceVersion, as kube-apiserver's watch cache sends it.
            let mut last_seen = change.previous.as_deref().cloned().unwrap_or_default();
            object::meta_mut(&mut last_seen).insert("resourceVersion".to_owned(), change.rv.to_string().into());
            Some(("DELETED", Arc::new(last_seen)))
        }
    }
}

/// When a watch's next bookmark is due: after `interval`, or at `last` (2 s before the deadline)
/// if that comes first; none once `last` has passed (kube-apiserver's `nextBookmarkTime`).
fn next_bookmark_after(last: tokio::time::Instant, interval: Duration) -> Option<tokio::time::Instant> {
    let now = tokio::time::Instant::now();
    (now < last).then(|| (now + interval).min(last))
}

/// Starts a watch event's line with its type, as kube-apiserver writes it
/// (`{"type":…,"object":…}`), up to where the object goes.
fn event_head(line: &mut Vec<u8>, kind: &str) {
    line.extend_from_slice(br#"{"type":"#);
    go_json_writer::to_writer(&mut *line, kind);
    line.extend_from_slice(br#","object":"#);
}

/// A whole watch event line of `kind` about `object`.
fn event_line(kind: &str, object: &Value) -> Bytes {
    let mut line = Vec::with_capacity(256);
    event_head(&mut line, kind);
    go_json_writer::to_writer(&mut line, object);
    line.extend_from_slice(b"}\n");
    Bytes::from(line)
}

impl WatchPlan {
    /// One event line. An object sent as it is stored takes its JSON from `cached` (the
    /// change's), written once for every watcher of its resource.
    fn line(&mut self, kind: &str, object: &Value, cached: Option<&OnceLock<Bytes>>) -> Bytes {
        let first = !std::mem::replace(&mut self.sent_any, true);
        let shown = versions::view(&self.info, &self.api_version, object);
        let rendered = (self.render)(&self.info, &shown, first);
        // Written straight from the stored object: no copy of it per event and watcher.
        let mut line = Vec::with_capacity(512);
        event_head(&mut line, kind);
        let builtin = self.info.builtin;
        let write = |value: &Value| {
            if builtin {
                go_json_writer::to_vec(&Ordered {
                    value,
                    shape: GoStruct::Object,
                })
            } else {
                go_json_writer::to_vec(value)
            }
        };
        match cached.filter(|_| std::ptr::eq(rendered.as_ref(), object)) {
            Some(json) => line.extend_from_slice(json.get_or_init(|| Bytes::from(write(object)))),
            None => line.extend_from_slice(&write(rendered.as_ref())),
        }
        line.extend_from_slice(b"}\n");
        Bytes::from(line)
    }

    /// A BOOKMARK event at `rv`; `initial_events_end` marks the end of a streaming list's
    /// initial events.
    fn bookmark(&self, rv: u64, initial_events_end: bool) -> Bytes {
        let mut metadata = json!({ "resourceVersion": rv.to_string() });
        if initial_events_end {
            metadata["annotations"] = json!({ "k8s.io/initial-events-end": "true" });
        }
        let object = json!({ "kind": self.info.kind, "apiVersion": self.info.api_version(), "metadata": metadata });
        // Rendered as the watch's objects are: a metadata-only watch gets a
        // `PartialObjectMetadata` bookmark, which is what its clients decode.
        let rendered = (self.render)(&self.info, &object, false);
        event_line("BOOKMARK", rendered.as_ref())
    }

    /// Streams the watch into `out` until it times out, is cut, falls too far behind, or the
    /// client goes away.
    pub(crate) async fn run(mut self, out: mpsc::Sender<Bytes>) {
        if let Some(status) = self.failed.take() {
            let _ = out.send(event_line("ERROR", &status.to_json())).await;
            return;
        }
        let deadline = tokio::time::sleep(self.timeout);
        tokio::pin!(deadline);
        // Bookmarks say the watch has seen up to a resourceVersion: none is sent until one past
        // where the watch started (kube-apiserver's cache watcher drops it).
        let started_at = self.last_rv;
        let last_bookmark = tokio::time::Instant::now() + self.timeout.saturating_sub(LAST_BOOKMARK_BEFORE_DEADLINE);
        let mut next_bookmark = self
            .bookmarks
            .then(|| next_bookmark_after(last_bookmark, self.bookmark_interval))
            .flatten();
        for (kind, object) in std::mem::take(&mut self.backlog) {
            if out.send(self.line(kind, &object, None)).await.is_err() {
                return;
            }
        }
        if self.initial_events_end && self.bookmarks && out.send(self.bookmark(self.last_rv, true)).await.is_err() {
            return;
        }
        let bookmark_at = tokio::time::sleep_until(next_bookmark.unwrap_or(last_bookmark));
        tokio::pin!(bookmark_at);
        loop {
            tokio::select! {
                () = &mut deadline => return,
                () = &mut bookmark_at, if next_bookmark.is_some() => {
                    next_bookmark = next_bookmark_after(last_bookmark, self.bookmark_interval);
                    if let Some(at) = next_bookmark {
                        bookmark_at.as_mut().reset(at);
                    }
                    if self.last_rv > started_at && out.send(self.bookmark(self.last_rv, false)).await.is_err() {
                        return;
                    }
                }
                received = self.receiver.recv() => {
                    let change = match received {
                        Ok(Broadcast::Change(change)) => change,
                        // Cut by fault injection, or too slow: the client re-watches from the last
                        // resourceVersion it saw, as it would after kube-apiserver dropped it.
                        Ok(Broadcast::CutWatches) | Err(_) => return,
                    };
                    if change.rv <= self.last_rv {
                        continue;
                    }
                    self.last_rv = change.rv;
                    let Some((kind, object)) = visible(&self.storage, self.namespace.as_deref(), &self.filter, &change) else {
                        continue;
                    };
                    let cached = Arc::ptr_eq(&object, &change.object).then_some(&change.json);
                    if out.send(self.line(kind, &object, cached)).await.is_err() {
                        return;
                    }
                }
                () = out.closed() => return,
            }
        }
    }
}
