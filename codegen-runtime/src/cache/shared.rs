//! What an informer's run loop and its handles share: the options, the store, the handlers'
//! dispatch state, the changes its reflector hands its engine, and the traits an informer's
//! object type needs.

use std::cell::Cell;
use std::collections::HashSet;
use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use kube::runtime::watcher;
use kube::{Client, Resource};
use serde::de::DeserializeOwned;
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use super::field_sets::FieldSetTexts;
use super::handler::Listener;
use super::store::Store;

/// A function applied to every object before it is stored (e.g. to drop managed fields).
pub type Transform<K> = Arc<dyn Fn(&mut K) + Send + Sync>;

/// How an informer lists and watches.
pub struct InformerOptions<K> {
    /// Watch one namespace (namespaced kinds only); `None` for all.
    pub namespace: Option<String>,
    /// Label and field selectors, page size, streaming lists: kube-runtime's watcher config.
    pub watcher: watcher::Config,
    /// Resync period of handlers added without one; `None` for no resync.
    pub resync: Option<Duration>,
    /// Applied to every object before it is stored.
    pub transform: Option<Transform<K>>,
    /// Store objects without their managed fields, as client-go's
    /// `TransformStripManagedFields` and a kube-runtime `.modify()` that clears them do, but
    /// skipped unread where the objects are decoded instead of built and dropped: lists and
    /// updates of objects with managed fields ingest 1.6–2.4× as fast as when they are kept,
    /// and the trees never take memory (BENCHMARKS.md). Objects without any decode about 8%
    /// slower with it (up to 12%). Handlers, listers and the transform see
    /// `managed_fields: None`. The server keeps them: server-side apply works as before. Only
    /// extracting a field manager's apply configuration from a cached object needs them
    /// (`apply::extract`, which would find the manager owning nothing), so leave them where a
    /// controller does that.
    pub strip_managed_fields: bool,
    /// Where watch events are applied to the store and the handlers.
    pub apply_events: ApplyEvents,
}

/// Where an informer applies watch events to its store and handlers. Either way each object
/// is decoded once, events apply in order and on top of the list before them, and no lock is
/// held across a decode. A list's pages always go to a second task of the informer's, which
/// builds the new cache on another core while the next page is decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApplyEvents {
    /// On the task that decoded them (the default); the first event after a list waits until
    /// that list is in the cache. The object an event replaces is freed by the thread that
    /// allocates the next ones, and no task is woken per event: the rate is steady whatever the
    /// objects and the allocator. While the informer has no handler, an update's managed-fields
    /// field sets are left as text and, when their fingerprint says the replaced object holds
    /// them already, its trees are taken over instead of decoded: about 1.5× the updates per
    /// second with managed fields (BENCHMARKS.md). With inline handlers only, an update takes
    /// over the unchanged trees and frees its own equal copies while they are hot. A buffered
    /// handler's notification takes the replaced object to the handler's task, which frees it.
    #[default]
    WhereDecoded,
    /// On the informer's second task, behind the list pages, as client-go's DeltaFIFO hands
    /// events to its processing loop: one core decodes while the other stores and frees the
    /// replaced objects. That pays under mimalloc or jemalloc, whose frees from another thread
    /// take no lock. Under glibc's allocator it costs more peak memory, and at times runs at
    /// about half the default's rate: a slow mode that comes and goes with the machine, not
    /// with tokio's scheduling (the task on a thread of its own kept it), its cause not pinned
    /// down. Measured by this repository's `bench informer` suite ("informer, events on own
    /// task").
    OnOwnTask,
}

impl<K> Default for InformerOptions<K> {
    fn default() -> Self {
        Self {
            namespace: None,
            watcher: watcher::Config::default(),
            resync: None,
            transform: None,
            strip_managed_fields: false,
            apply_events: ApplyEvents::default(),
        }
    }
}

/// The traits an informer's object type needs: what kube-runtime's watcher needs, shared.
pub trait InformerObject:
    Resource<DynamicType: Default + Clone + Eq + Hash> + Clone + DeserializeOwned + Debug + Send + Sync + 'static
{
}

impl<K> InformerObject for K where
    K: Resource<DynamicType: Default + Clone + Eq + Hash> + Clone + DeserializeOwned + Debug + Send + Sync + 'static
{
}

/// The handlers of an informer and where each stands in its initial list.
pub(super) struct Dispatch<K> {
    pub(super) listeners: Vec<Listener<K>>,
    /// Listeners still owed the marker that ends their initial list.
    pub(super) unsynced: Vec<u64>,
    pub(super) synced: bool,
}

pub(super) struct Shared<K> {
    pub(super) client: Client,
    /// The collection listed and watched: all namespaces or one.
    pub(super) url_path: String,
    pub(super) options: InformerOptions<K>,
    pub(super) store: Store<K>,
    pub(super) dispatch: Mutex<Dispatch<K>>,
    pub(super) synced: watch::Sender<bool>,
    pub(super) next_id: AtomicU64,
    pub(super) stop: CancellationToken,
    pub(super) task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Wakes the run loop to recompute when the next resync is due.
    pub(super) listeners_changed: Notify,
    /// Whether a handler is registered, as the dispatch lock was last released: read without
    /// the lock, to choose how to decode (a stale answer costs speed, not correctness).
    pub(super) listening: AtomicBool,
}

thread_local! {
    /// How many informers' dispatch locks this thread holds.
    static DISPATCH_LOCKS_HELD: Cell<usize> = const { Cell::new(0) };
}

/// An informer's dispatch lock, held. It counts itself on this thread: an inline handler,
/// called under it, that registers or removes a handler is then told so instead of
/// deadlocking.
pub(super) struct DispatchGuard<'a, K> {
    guard: MutexGuard<'a, Dispatch<K>>,
    listening: &'a AtomicBool,
}

impl<K> Deref for DispatchGuard<'_, K> {
    type Target = Dispatch<K>;

    fn deref(&self) -> &Dispatch<K> {
        &self.guard
    }
}

impl<K> DerefMut for DispatchGuard<'_, K> {
    fn deref_mut(&mut self) -> &mut Dispatch<K> {
        &mut self.guard
    }
}

impl<K> Drop for DispatchGuard<'_, K> {
    fn drop(&mut self) {
        self.listening
            .store(!self.guard.listeners.is_empty(), Ordering::Relaxed);
        DISPATCH_LOCKS_HELD.set(DISPATCH_LOCKS_HELD.get() - 1);
    }
}

impl<K> Shared<K> {
    /// Takes the dispatch lock: the handlers, their sync state and every notification.
    pub(super) fn lock_dispatch(&self) -> DispatchGuard<'_, K> {
        let guard = lock(&self.dispatch);
        DISPATCH_LOCKS_HELD.set(DISPATCH_LOCKS_HELD.get() + 1);
        DispatchGuard {
            guard,
            listening: &self.listening,
        }
    }

    /// Whether updates are decoded with their field sets left as text, for the store to take
    /// the cached ones over (`field_sets`): only where the replaced object is dropped unseen,
    /// right after the update, by the thread that decoded it. So not with a handler, which
    /// gets the replaced object whole; nor with a transform, which must see the object whole
    /// before it is stored; nor on the engine's task. Nor where managed fields are stripped:
    /// there are none.
    pub(super) fn field_sets_as_text(&self) -> bool {
        !self.options.strip_managed_fields
            && self.options.transform.is_none()
            && self.options.apply_events == ApplyEvents::WhereDecoded
            && !self.listening.load(Ordering::Relaxed)
    }
}

/// Whether this thread holds an informer's dispatch lock: it is running an inline handler.
/// Taking a dispatch lock then could deadlock: the same informer's on this thread, or
/// another's held by a thread that waits for this one.
pub(super) fn in_inline_handler() -> bool {
    DISPATCH_LOCKS_HELD.get() > 0
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while these locks are held except a bug in a transform or index
    // function; the dispatch state is updated after the store, so it stays consistent.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A change the reflector hands the engine, applied in order.
pub(super) enum Delta<K> {
    /// Objects of a list page (or of a chunk of a streaming list's initial events), for the
    /// relist the engine builds meanwhile; `first` starts a new relist, dropping one a failed
    /// list left half built.
    Listed { objects: Vec<Arc<K>>, first: bool },
    /// The end of a complete list: its last objects (`first` if they are all of it), then the
    /// relist swapped in. Objects listed but undecodable keep their cached state.
    Replace {
        objects: Vec<Arc<K>>,
        first: bool,
        undecodable: HashSet<String>,
    },
    /// An object added or modified; with the texts of its field sets if they were left so.
    Apply(Arc<K>, Option<FieldSetTexts>),
    /// An object deleted, with its final state when it decoded.
    Delete { key: String, last: Option<Arc<K>> },
}
