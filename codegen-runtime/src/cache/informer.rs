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

use super::handler::{EventHandler, Listener, Message, Notification, Subscription, drive};
use super::lister::Lister;
use super::shared::{Dispatch, InformerObject, InformerOptions, Shared, lock};
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
        let (receiver, registration) = self.register(resync);
        tokio::spawn(drive(
            receiver,
            handler,
            registration.delivered.clone(),
            registration.removed.clone(),
        ));
        registration
    }

    /// The same notifications as a handler gets, as a `Stream`.
    pub fn subscribe(&self) -> Subscription<K> {
        let (receiver, registration) = self.register(self.shared.options.resync);
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
        let mut dispatch = lock(&self.shared.dispatch);
        dispatch.listeners.retain(|l| l.id != registration.id);
        dispatch.unsynced.retain(|id| *id != registration.id);
    }

    fn register(&self, resync: Option<Duration>) -> (mpsc::UnboundedReceiver<Message<K>>, HandlerRegistration) {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = mpsc::unbounded_channel();
        let resync = resync.filter(|r| !r.is_zero()).map(|r| r.max(MINIMUM_RESYNC));
        let listener = Listener {
            id,
            sender,
            resync,
            next_resync: resync.map(|r| Instant::now() + r),
        };
        let registration = HandlerRegistration {
            id,
            delivered: Arc::default(),
            removed: Arc::default(),
            informer_synced: self.shared.synced.subscribe(),
        };
        if self.shared.stop.is_cancelled() {
            // A stopped informer takes no handlers (client-go refuses them too): dropping the
            // sender ends the handler's task or the subscription at once.
            tracing::warn!("informer: a handler was added after shutdown and will receive nothing");
            return (receiver, registration);
        }
        let mut dispatch = lock(&self.shared.dispatch);
        // Under the dispatch lock the cache cannot change, so nothing is missed or doubled.
        for object in self.shared.store.list() {
            listener.send(Notification::Add {
                object,
                in_initial_list: true,
            });
        }
        if dispatch.synced {
            let _ = listener.sender.send(Message::Synced);
        } else {
            dispatch.unsynced.push(id);
        }
        dispatch.listeners.push(listener);
        drop(dispatch);
        self.shared.listeners_changed.notify_one();
        (receiver, registration)
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
        lock(&self.shared.dispatch).listeners.clear();
    }
}
