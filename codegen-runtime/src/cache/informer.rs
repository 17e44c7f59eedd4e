//! `SharedIndexInformer`: its own list and watch feeding an indexed store and any number of
//! handlers and subscribers, with client-go's semantics — old and new objects on update,
//! tombstones for deletes found by a relist, late handlers replayed the cache, per-handler
//! resync and sync state, a transform before the store.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube::Client;
use tokio::sync::{Notify, mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::handler::{EventHandler, Listener, Notification, Sink, Subscription, drive};
use super::lister::Lister;
use super::shared::{Dispatch, InformerObject, InformerOptions, Shared, in_inline_handler, lock};
use super::store::Store;

/// client-go raises shorter handler resync periods to this.
const MINIMUM_RESYNC: Duration = Duration::from_secs(1);

/// A handler's registration: ask whether it has seen its initial list, or remove it.
pub struct HandlerRegistration {
    id: u64,
    delivered: Arc<AtomicBool>,
    removed: Arc<AtomicBool>,
    informer_synced: watch::Receiver<bool>,
}

impl HandlerRegistration {
    /// Whether the informer has synced and this handler has processed its initial list.
    pub fn has_synced(&self) -> bool {
        *self.informer_synced.borrow() && self.delivered.load(Ordering::Acquire)
    }
}

/// A shared informer over objects of type `K`; clones share it.
pub struct SharedIndexInformer<K> {
    shared: Arc<Shared<K>>,
}

impl<K> Clone for SharedIndexInformer<K> {
    fn clone(&self) -> Self {
        Self {
            shared: self.shared.clone(),
        }
    }
}

impl<K: InformerObject> SharedIndexInformer<K> {
    /// An informer that has not started; see [`SharedIndexInformer::run`].
    pub fn new(client: Client, options: InformerOptions<K>) -> Self {
        let url_path = K::url_path(&K::DynamicType::default(), options.namespace.as_deref());
        let dispatch = Dispatch {
            listeners: Vec::new(),
            unsynced: Vec::new(),
            synced: false,
        };
        let shared = Shared {
            client,
            url_path,
            options,
            store: Store::new(),
            dispatch: Mutex::new(dispatch),
            synced: watch::channel(false).0,
            next_id: AtomicU64::new(0),
            stop: CancellationToken::new(),
            task: Mutex::new(None),
            listeners_changed: Notify::new(),
            listening: AtomicBool::new(false),
        };
        Self {
            shared: Arc::new(shared),
        }
    }

    #[cfg(test)]
    pub(super) fn shared(&self) -> &Arc<Shared<K>> {
        &self.shared
    }

    /// The cache; add indexers here.
    pub fn store(&self) -> &Store<K> {
        &self.shared.store
    }

    /// A lister over the cache.
    pub fn lister(&self) -> Lister<K> {
        Lister::new(self.shared.store.clone())
    }

    /// Adds a handler with the informer's default resync period.
    pub fn add_event_handler(&self, handler: impl EventHandler<K>) -> HandlerRegistration {
        self.add_event_handler_with_resync(handler, self.shared.options.resync)
    }

    /// Adds a handler resynced every `resync` (at least 1 s; `None` for never). A handler added
    /// after the informer started first receives every cached object as an add.
    pub fn add_event_handler_with_resync(
        &self,
        handler: impl EventHandler<K>,
        resync: Option<Duration>,
    ) -> HandlerRegistration {
        let (sender, receiver) = mpsc::unbounded_channel();
        let registration = self.register(|_| Sink::Buffer(sender), resync);
        tokio::spawn(drive(
            receiver,
            handler,
            registration.delivered.clone(),
            registration.removed.clone(),
        ));
        registration
    }

    /// Adds a handler called where the informer makes its notifications, with the informer's
    /// default resync period: on the informer's task as each event is applied and as resyncs
    /// fall due, and in this call for the cache replayed to a handler added after the informer
    /// started (every cached object as an add, before this returns). For handlers that only
    /// note what changed (a controller's that enqueue keys or read listers): no buffer, no task
    /// woken per event, and the object an update replaces is freed where the next ones are
    /// allocated, so under glibc's allocator (Rust's default) the informer keeps its rate and
    /// peak memory; under mimalloc or jemalloc, whose frees from another thread take no lock, a
    /// handler on its own task is the faster (BENCHMARKS.md, "one inline handler"). Every later
    /// event waits while it runs: it must not block or await, and must not add handlers or
    /// subscriptions to any informer (that panics, and the call is logged and skipped); it may
    /// remove handlers.
    pub fn add_inline_event_handler(&self, handler: impl EventHandler<K>) -> HandlerRegistration {
        self.add_inline_event_handler_with_resync(handler, self.shared.options.resync)
    }

    /// [`add_inline_event_handler`](Self::add_inline_event_handler), resynced every `resync`
    /// (at least 1 s; `None` for never).
    pub fn add_inline_event_handler_with_resync(
        &self,
        handler: impl EventHandler<K>,
        resync: Option<Duration>,
    ) -> HandlerRegistration {
        let handler = Box::new(handler);
        self.register(
            |delivered| Sink::Inline {
                handler,
                delivered: delivered.clone(),
            },
            resync,
        )
    }

    /// The same notifications as a handler gets, as a `Stream`.
    pub fn subscribe(&self) -> Subscription<K> {
        let (sender, receiver) = mpsc::unbounded_channel();
        let registration = self.register(|_| Sink::Buffer(sender), self.shared.options.resync);
        Subscription {
            receiver,
            synced: registration.delivered,
            peeked: None,
        }
    }

    /// Stops a handler: at most the notification it is handling completes; the rest of its
    /// buffer is dropped, as client-go's `RemoveEventHandler` does.
    pub fn remove_handler(&self, registration: &HandlerRegistration) {
        registration.removed.store(true, Ordering::Release);
        if in_inline_handler() {
            // Called by an inline handler, under a dispatch lock: the flag is enough, the
            // handler is dropped after its current notification or at its next one.
            return;
        }
        let mut dispatch = self.shared.lock_dispatch();
        dispatch.listeners.retain(|l| l.id != registration.id);
        dispatch.unsynced.retain(|id| *id != registration.id);
    }

    /// Adds a consumer whose notifications go to the sink `sink` makes of its sync state.
    fn register(
        &self,
        sink: impl FnOnce(&Arc<AtomicBool>) -> Sink<K>,
        resync: Option<Duration>,
    ) -> HandlerRegistration {
        assert!(
            !in_inline_handler(),
            "an inline event handler added a handler or a subscription, under the dispatch lock \
             it runs under (that could deadlock): add them outside of inline handlers"
        );
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let resync = resync.filter(|r| !r.is_zero()).map(|r| r.max(MINIMUM_RESYNC));
        let registration = HandlerRegistration {
            id,
            delivered: Arc::default(),
            removed: Arc::default(),
            informer_synced: self.shared.synced.subscribe(),
        };
        let mut listener = Listener {
            id,
            sink: sink(&registration.delivered),
            removed: registration.removed.clone(),
            resync,
            next_resync: resync.map(|r| Instant::now() + r),
        };
        if self.shared.stop.is_cancelled() {
            // A stopped informer takes no handlers (client-go refuses them too): dropping the
            // sink ends the handler's task or the subscription at once.
            tracing::warn!("informer: a handler was added after shutdown and will receive nothing");
            return registration;
        }
        let mut dispatch = self.shared.lock_dispatch();
        // Under the dispatch lock the cache cannot change, so nothing is missed or doubled.
        for object in self.shared.store.list() {
            listener.send(Notification::Add {
                object,
                in_initial_list: true,
            });
        }
        if dispatch.synced {
            listener.synced();
        } else {
            dispatch.unsynced.push(id);
        }
        dispatch.listeners.push(listener);
        drop(dispatch);
        self.shared.listeners_changed.notify_one();
        registration
    }

    /// Whether the first full list has been stored.
    pub fn has_synced(&self) -> bool {
        *self.shared.synced.borrow()
    }

    /// Waits until the first full list has been stored; `false` if the informer stopped first.
    pub async fn wait_for_sync(&self) -> bool {
        let mut synced = self.shared.synced.subscribe();
        tokio::select! {
            result = synced.wait_for(|s| *s) => result.is_ok(),
            () = self.shared.stop.cancelled() => self.has_synced(),
        }
    }

    /// Starts listing and watching on the current tokio runtime; does nothing if started.
    pub fn run(&self) {
        let mut task = lock(&self.shared.task);
        if task.is_none() && !self.shared.stop.is_cancelled() {
            *task = Some(tokio::spawn(super::distribute::run_loop(self.shared.clone())));
        }
    }

    /// Whether the informer was shut down.
    pub fn is_stopped(&self) -> bool {
        self.shared.stop.is_cancelled()
    }

    /// Stops the informer and waits for it; subscriptions end, handlers finish their buffers.
    pub async fn shutdown(&self) {
        self.shared.stop.cancel();
        let task = lock(&self.shared.task).take();
        if let Some(task) = task {
            let _ = task.await;
        }
        self.shared.lock_dispatch().listeners.clear();
    }
}
