//! The informer's own list and watch (client-go's reflector): pages or a streaming list into the
//! store, then a watch resumed from the last resourceVersion, relisting at once on 410 Expired
//! and backing off (800 ms doubling to 30 s) only on failures: connection errors, 5xx, 403, 429,
//! and a second watch in a row that ends at once without an event (a server that closes every
//! watch, or a list whose resourceVersion has expired by the time it is watched from). A
//! streaming list that fails otherwise than by a 429 or a version gone (an error, in its answer
//! or its stream, or an end before its initial events do) is replaced by a list at once, for
//! that relist, as client-go's reflector replaces it. The backoff starts over only once a watch
//! has made progress: an event after the list, or a second open.
//!
//! Objects are decoded once, from the response bytes ([`super::wire`]), and handed as they
//! arrive to the informer's engine, which stores and announces them.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use kube::api::{ListParams, VersionMatch};
use kube::core::Status;
use kube::runtime::utils::Backoff;
use kube::runtime::watcher::{self, DefaultBackoff, InitialListStrategy, ListSemantic};

use super::engine::Engine;
use super::shared::{Delta, InformerObject, Shared};
use super::wire::{self, ManagedFields};

mod ahead;
mod chunks;
mod pages;
mod watch;

use pages::{Page, Pages};

/// kube-apiserver's default watch timeout, when the informer sets none.
const DEFAULT_WATCH_TIMEOUT: u64 = 290;
/// A watch silent this much longer than its timeout is taken for a dead connection.
const IDLE_MARGIN: Duration = Duration::from_secs(5);
/// A watch that ends this soon without an event ended at once (client-go's "very short watch").
const SHORT_WATCH: Duration = Duration::from_secs(1);

/// What the loop does next.
enum Next {
    /// Watch from this resourceVersion, at once (the watch ended as watches do).
    Watch(String),
    /// List again, at once: the resourceVersion expired (410).
    Relist,
    /// List, at once: the server has no streaming lists.
    ListInstead,
    /// List, at once, this time: the streaming list failed, as this says (client-go's reflector
    /// lists on any failure of its watch list but a 429 or a version gone: "making progress is
    /// better than deadlocking"; kube-apiserver's watch cache answers a streaming list it
    /// cannot serve with an in-stream 500 and counts on that).
    ListOnce(String),
    /// Wait out the backoff, then watch from `resume` (or list, without one).
    Backoff { resume: Option<String>, error: String },
}

/// Lists and watches, handing what it decodes to `engine`, until the informer stops (the
/// caller's `select!` drops it).
pub(super) async fn reflect<K: InformerObject>(shared: &Shared<K>, engine: Engine<'_, K>) {
    let mut reflector = Reflector {
        shared,
        engine,
        backoff: DefaultBackoff::default(),
        backed_off: false,
        streaming: shared.options.watcher.initial_list_strategy == InitialListStrategy::StreamingList,
        events: 0,
        watching_since: None,
        ended_at_once: false,
        unpaged: false,
        synced: None,
        synced_gone: false,
    };
    let mut resume: Option<String> = None;
    let mut list_once = false;
    loop {
        let stream = reflector.streaming && !std::mem::take(&mut list_once);
        let next = match resume.take() {
            Some(resource_version) => reflector.paced_watch(&resource_version, false).await,
            None if stream => {
                // `resourceVersion=` asks a streaming list for the latest.
                let from = reflector.relist_version().unwrap_or_default();
                reflector.paced_watch(&from, true).await
            }
            None => match reflector.list().await {
                Ok(resource_version) => reflector.paced_watch(&resource_version, false).await,
                Err(next) => next,
            },
        };
        match next {
            Next::Watch(resource_version) => resume = Some(resource_version),
            Next::Relist | Next::ListInstead => {}
            Next::ListOnce(why) => {
                tracing::warn!(kind = %K::kind(&K::DynamicType::default()), %why, "informer: the streaming list failed; listing instead");
                list_once = true;
            }
            Next::Backoff { resume: from, error } => {
                let delay = reflector.backoff.next().unwrap_or(Duration::from_secs(30));
                reflector.backed_off = true;
                tracing::warn!(kind = %K::kind(&K::DynamicType::default()), %error, ?delay, "informer: list or watch failed; retrying");
                tokio::time::sleep(delay).await;
                resume = from;
            }
        }
    }
}

struct Reflector<'s, K> {
    shared: &'s Shared<K>,
    engine: Engine<'s, K>,
    backoff: DefaultBackoff,
    /// Whether the backoff has grown since the last success (resetting it on every watch
    /// event instead cost 1% of an informer's time).
    backed_off: bool,
    /// Whether the initial list is a streaming list; cleared when the server refuses those.
    streaming: bool,
    /// The events with a resourceVersion the current watch has read after its initial events
    /// (not errors, not a streaming list's own).
    events: u64,
    /// Since when the current watch has been watching: from its start, or for a streaming list
    /// from the bookmark that ends its initial events; `None` before that.
    watching_since: Option<tokio::time::Instant>,
    /// Whether the last watch ended at once, without an event.
    ended_at_once: bool,
    /// Whether the next list asks for every object in one answer: a continue token of the
    /// last one expired. A list that outlasts etcd's compaction interval would expire at every
    /// try (client-go's pager falls back so too).
    unpaged: bool,
    /// The last resourceVersion the store reached, where a relist must not go back from
    /// (client-go's `lastSyncResourceVersion`): set where a list ends and where a watch from it
    /// expires.
    synced: Option<String>,
    /// Whether the server no longer has `synced` (410, or 504 "Too large resource version"):
    /// the next list or streaming list asks for the latest state instead.
    synced_gone: bool,
}

/// A streaming list's initial events while they last: handed to the engine's relist a chunk at
/// a time, swapped in at the bookmark that ends them.
struct Initial<K> {
    /// Objects not yet handed to the engine.
    objects: Vec<Arc<K>>,
    undecodable: HashSet<String>,
    /// Whether some were: the engine's relist is under way.
    handed: bool,
}

impl<K: InformerObject> Reflector<'_, K> {
    /// What decoding does with the objects' managed fields: skips them where they are
    /// stripped. A watch line's update may leave its field sets as text instead
    /// ([`Shared::field_sets_as_text`]).
    fn managed_fields(&self) -> ManagedFields {
        match self.shared.options.strip_managed_fields {
            true => ManagedFields::Skip,
            false => ManagedFields::Decode,
        }
    }

    fn config(&self) -> &watcher::Config {
        &self.shared.options.watcher
    }

    fn request(&self) -> kube::core::Request {
        kube::core::Request::new(self.shared.url_path.clone())
    }

    /// Lists every page into the store; returns the list's resourceVersion.
    async fn list(&mut self) -> Result<String, Next> {
        let unpaged = std::mem::take(&mut self.unpaged);
        let resource_version = match self.config().list_semantic {
            ListSemantic::MostRecent => None,
            ListSemantic::Any => self.relist_version(),
        };
        let asked_a_version = resource_version.as_deref().is_some_and(at_a_version);
        let version_match = resource_version.as_ref().map(|_| VersionMatch::NotOlderThan);
        let config = self.config();
        // A list at a version ("0", or one the store reached) is not paged, as client-go's
        // reflector does not page it: the API server then answers it from its watch cache, where
        // before 1.31 it sends a paged one to etcd. (kube would also leave out a "0" sent with a
        // limit, making the list a read from etcd.)
        let limit = if unpaged || resource_version.is_some() {
            None
        } else {
            config.page_size
        };
        let mut params = ListParams {
            label_selector: config.label_selector.clone(),
            field_selector: config.field_selector.clone(),
            limit,
            resource_version,
            version_match,
            ..ListParams::default()
        };
        let mut failures = Vec::new();
        let mut pages = self.pages(&params);
        let mut first = true;
        loop {
            let Page { fetched, followed } = pages
                .next()
                .await
                .ok_or_else(|| backoff(None, "the list's pages stopped coming"))?;
            let (status, bytes) = fetched.map_err(|e| backoff(None, e))?;
            if !(200..300).contains(&status) {
                let status = error_status(status, &bytes);
                if first && asked_a_version && version_gone(&status) {
                    self.synced_gone = true;
                    return Err(Next::Relist);
                }
                // An expired continue token: start the list again, in one answer.
                return Err(if status.code == 410 {
                    self.unpaged = !first;
                    Next::Relist
                } else {
                    backoff(None, status_text(&status))
                });
            }
            let mut objects = Vec::new();
            let managed_fields = self.managed_fields();
            let meta = wire::decode_page(&bytes, managed_fields, &mut objects, &mut failures, |object| {
                self.shared.keep(object)
            })
            .map_err(|e| backoff(None, e))?;
            // Each page goes to the engine as it is decoded: the engine files it into the
            // relist it builds meanwhile, on the other core.
            let first_page = std::mem::replace(&mut first, false);
            match meta.continue_.filter(|c| !c.is_empty()) {
                Some(token) => {
                    // The pages' task follows each page's head; where the head named no next
                    // page, or another, the decoded metadata is the one to follow.
                    if followed.as_deref() != Some(token.as_str()) {
                        params.continue_token = Some(token);
                        pages = self.pages(&params);
                    }
                    self.engine
                        .hand_over(Delta::Listed {
                            objects,
                            first: first_page,
                        })
                        .await;
                }
                None => {
                    let Some(resource_version) = meta.resource_version.filter(|rv| !rv.is_empty()) else {
                        return Err(backoff(None, "the list has no resourceVersion"));
                    };
                    self.synced = Some(resource_version.clone());
                    self.synced_gone = false;
                    let undecodable = failures.into_iter().map(|failed| self.shared.skip(failed)).collect();
                    self.engine
                        .hand_over(Delta::Replace {
                            objects,
                            first: first_page,
                            undecodable,
                        })
                        .await;
                    // Not yet a success: a list whose resourceVersion expires at once, list
                    // after list, must back off further each time. The watch says.
                    return Ok(resource_version);
                }
            }
        }
    }

    /// Watches as [`Self::watch`] does, and paces what follows. A watch made progress when it
    /// read an event after its initial events, or stayed open for [`SHORT_WATCH`] after them:
    /// then the backoff starts over. One that ended at once, without either, is taken again at
    /// once (a watch cut at a bad time); where the one before it also did, the reflector backs
    /// off instead, as that would be a loop asking the server again and again (client-go backs
    /// off after one).
    async fn paced_watch(&mut self, resource_version: &str, initial: bool) -> Next {
        let started = tokio::time::Instant::now();
        self.events = 0;
        self.watching_since = (!initial).then_some(started);
        let next = self.watch(resource_version, initial).await;
        let progressed = self.events > 0 || self.watching_since.is_some_and(|since| since.elapsed() >= SHORT_WATCH);
        if progressed {
            self.succeeded();
        }
        if !matches!(next, Next::Watch(_) | Next::Relist) {
            // A failure backs off anyway; a fallback to lists is not the server's loop.
            self.ended_at_once = false;
            return next;
        }
        let the_one_before_too = std::mem::replace(&mut self.ended_at_once, !progressed);
        if progressed || !the_one_before_too {
            return next;
        }
        let lasted = started.elapsed();
        let why =
            |what: &str| format!("{what}: the watch ended after {lasted:?} without an event, as the one before it did");
        match next {
            Next::Watch(resume) => backoff(Some(resume), why("watching again")),
            Next::Relist => backoff(None, why("listing again")),
            next => next,
        }
    }

    /// The resourceVersion a list or streaming list asks for, no older than it
    /// (client-go's `relistResourceVersion` and `rewatchResourceVersion`). The first: "0",
    /// any, from the API server's cache, with [`ListSemantic::Any`]; otherwise `None`, the
    /// latest (a consistent read, as client-go's first streaming list). A later one: what the
    /// store has, so that a server whose cache lags (another API server behind the same
    /// address) cannot take the store back in time; `None` where the server no longer has it.
    fn relist_version(&self) -> Option<String> {
        match (&self.synced, self.synced_gone) {
            (_, true) => None,
            (Some(synced), false) => Some(synced.clone()),
            (None, false) => match self.config().list_semantic {
                ListSemantic::Any => Some("0".to_owned()),
                ListSemantic::MostRecent => None,
            },
        }
    }

    /// The pages of the list `params` asks for, fetched by a task of their own.
    fn pages(&self, params: &ListParams) -> Pages {
        pages::start(self.shared.client.clone(), self.request(), params.clone())
    }

    /// After a list or a watch event: the next failure backs off from the start again.
    fn succeeded(&mut self) {
        if std::mem::take(&mut self.backed_off) {
            self.backoff.reset();
        }
    }
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

/// Whether `resource_version` names a version, not "any" ("0") or "the latest" ("").
fn at_a_version(resource_version: &str) -> bool {
    !matches!(resource_version, "" | "0")
}

/// Whether `status` says the resourceVersion a list asked for is gone: expired (410), or not
/// reached by a lagging cache in time (client-go's `isTooLargeResourceVersionError`).
fn version_gone(status: &Status) -> bool {
    let too_large = |text: &str| text.contains("Too large resource version");
    status.code == 410
        || (status.code == 504
            && (too_large(&status.message)
                || status
                    .details
                    .iter()
                    .flat_map(|d| &d.causes)
                    .any(|cause| cause.reason == "ResourceVersionTooLarge" || too_large(&cause.message))))
}

fn status_text(status: &Status) -> String {
    format!("{} ({}): {}", status.code, status.reason, status.message)
}
