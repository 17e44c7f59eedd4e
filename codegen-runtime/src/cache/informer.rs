//! `SharedIndexInformer`: kube-runtime's `watcher` feeding an indexed store and any number of
//! handlers and subscribers, with client-go's semantics — old and new objects on update,
//! tombstones for deletes found by a relist, late handlers replayed the cache, per-handler
//! resync and sync state, a transform before the store.

use std::collections::HashSet;
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::StreamExt;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use tokio::sync::{Notify, mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::decode::Lenient;
use super::handler::{
    Deleted, DeletedFinalStateUnknown, EventHandler, Listener, Message, Notification, Subscription, drive,
};
use super::lister::Lister;
use super::store::{Store, object_key};

/// client-go raises shorter handler resync periods to this.
const MINIMUM_RESYNC: Duration = Duration::from_secs(1);

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
}

impl<K> Default for InformerOptions<K> {
    fn default() -> Self {
        Self {
            namespace: None,
            watcher: watcher::Config::default(),
            resync: None,
            transform: None,
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

struct Dispatch<K> {
    listeners: Vec<Listener<K>>,
    /// Listeners still owed the marker that ends their initial list.
    unsynced: Vec<u64>,
    synced: bool,
}

struct Shared<K> {
    api: Api<Lenient<K>>,
    options: InformerOptions<K>,
    store: Store<K>,
    dispatch: Mutex<Dispatch<K>>,
    synced: watch::Sender<bool>,
    next_id: AtomicU64,
    stop: CancellationToken,
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Wakes the run loop to recompute when the next resync is due.
    listeners_changed: Notify,
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

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while these locks are held except a bug in a transform or index
    // function; the dispatch state is updated after the store, so it stays consistent.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl<K: InformerObject> SharedIndexInformer<K> {
    /// An informer that has not started; see [`SharedIndexInformer::run`].
    pub fn new(client: Client, options: InformerOptions<K>) -> Self {
        let dynamic = K::DynamicType::default();
        let api = match &options.namespace {
            Some(namespace) => Api::namespaced_with(client, namespace, &dynamic),
            None => Api::all_with(client, &dynamic),
        };
        let dispatch = Dispatch {
            listeners: Vec::new(),
            unsynced: Vec::new(),
            synced: false,
        };
        let shared = Shared {
            api,
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
            *task = Some(tokio::spawn(run_loop(self.shared.clone())));
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

async fn run_loop<K: InformerObject>(shared: Arc<Shared<K>>) {
    let stream = watcher(shared.api.clone(), shared.options.watcher.clone()).default_backoff();
    let mut stream = std::pin::pin!(stream);
    let mut relist: Vec<Arc<K>> = Vec::new();
    // Keys listed but not decodable: still there, so a relist must not report them deleted.
    let mut undecodable: HashSet<String> = HashSet::new();
    loop {
        let next_resync = shared.next_resync();
        tokio::select! {
            () = shared.stop.cancelled() => return,
            () = sleep_until(next_resync) => shared.resync_due(),
            // A handler with a resync may have been added while this loop slept.
            () = shared.listeners_changed.notified() => {}
            event = stream.next() => match event {
                None => return,
                Some(Err(error)) => {
                    tracing::warn!(kind = %K::kind(&K::DynamicType::default()), %error, "informer: list or watch failed; retrying with backoff");
                }
                Some(Ok(watcher::Event::Init)) => {
                    relist.clear();
                    undecodable.clear();
                }
                Some(Ok(watcher::Event::InitApply(object))) => {
                    let key = object_key(&object);
                    match shared.decode(object) {
                        Some(object) => relist.push(Arc::new(object)),
                        None => {
                            undecodable.insert(key);
                        }
                    }
                }
                Some(Ok(watcher::Event::InitDone)) => {
                    shared.replace(std::mem::take(&mut relist), &std::mem::take(&mut undecodable));
                }
                Some(Ok(watcher::Event::Apply(object))) => {
                    if let Some(object) = shared.decode(object) {
                        shared.apply(Arc::new(object));
                    }
                }
                Some(Ok(watcher::Event::Delete(object))) => {
                    let key = object_key(&object);
                    shared.delete(&key, shared.decode(object).map(Arc::new));
                }
            },
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

impl<K: InformerObject> Shared<K> {
    fn decode(&self, object: Lenient<K>) -> Option<K> {
        match object {
            Lenient::Decoded(mut object) => {
                if let Some(transform) = &self.options.transform {
                    transform(&mut object);
                }
                Some(object)
            }
            Lenient::Failed { metadata, error } => {
                tracing::warn!(
                    kind = %K::kind(&K::DynamicType::default()),
                    namespace = metadata.namespace.as_deref().unwrap_or(""),
                    name = metadata.name.as_deref().unwrap_or(""),
                    %error,
                    "informer: skipping an object that does not decode"
                );
                None
            }
        }
    }

    fn notify(&self, dispatch: &mut Dispatch<K>, make: impl Fn() -> Notification<K>) {
        dispatch.listeners.retain(|listener| listener.send(make()));
    }

    fn apply(&self, object: Arc<K>) {
        let mut dispatch = lock(&self.dispatch);
        match self.store.apply(object.clone()) {
            Some(old) => self.notify(&mut dispatch, || Notification::Update {
                old: old.clone(),
                new: object.clone(),
            }),
            None => self.notify(&mut dispatch, || Notification::Add {
                object: object.clone(),
                in_initial_list: false,
            }),
        }
    }

    /// Removes `key`; handlers get the watch's final state, or the cached one if it did not
    /// decode.
    fn delete(&self, key: &str, final_state: Option<Arc<K>>) {
        let mut dispatch = lock(&self.dispatch);
        if let Some(cached) = self.store.delete(key) {
            let last = final_state.unwrap_or(cached);
            self.notify(&mut dispatch, || Notification::Delete(Deleted::Object(last.clone())));
        }
    }

    /// A complete list: swap it in, then report what vanished as tombstones, then what is new
    /// or changed in list order, as client-go's atomic replace does. Objects listed but not
    /// decodable keep their cached state; objects whose resourceVersion did not change are not
    /// announced again (client-go sends those only to handlers due a resync).
    fn replace(&self, mut objects: Vec<Arc<K>>, undecodable: &HashSet<String>) {
        let mut dispatch = lock(&self.dispatch);
        for key in undecodable {
            if let Some(cached) = self.store.get(key) {
                objects.push(cached);
            }
        }
        let mut previous = self.store.replace(objects.clone());
        let first_list = !dispatch.synced;
        let present: HashSet<String> = objects.iter().map(|o| object_key(o.as_ref())).collect();
        let mut vanished: Vec<(String, Arc<K>)> = previous
            .iter()
            .filter(|(key, _)| !present.contains(*key))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        vanished.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, object) in vanished {
            self.notify(&mut dispatch, || {
                Notification::Delete(Deleted::Tombstone(DeletedFinalStateUnknown {
                    key: key.clone(),
                    object: object.clone(),
                }))
            });
        }
        for object in objects {
            match previous.remove(&object_key(object.as_ref())) {
                Some(old) if old.resource_version() == object.resource_version() => {}
                Some(old) => self.notify(&mut dispatch, || Notification::Update {
                    old: old.clone(),
                    new: object.clone(),
                }),
                None => self.notify(&mut dispatch, || Notification::Add {
                    object: object.clone(),
                    in_initial_list: first_list,
                }),
            }
        }
        if first_list {
            dispatch.synced = true;
            let owed = std::mem::take(&mut dispatch.unsynced);
            for listener in dispatch.listeners.iter().filter(|l| owed.contains(&l.id)) {
                let _ = listener.sender.send(Message::Synced);
            }
            self.synced.send_replace(true);
        }
    }

    fn next_resync(&self) -> Option<Instant> {
        lock(&self.dispatch)
            .listeners
            .iter()
            .filter_map(|l| l.next_resync)
            .min()
    }

    /// Every handler whose resync is due gets every cached object as an update to itself.
    fn resync_due(&self) {
        let mut dispatch = lock(&self.dispatch);
        let now = Instant::now();
        let synced = dispatch.synced;
        let objects = if synced { self.store.list() } else { Vec::new() };
        for listener in &mut dispatch.listeners {
            let (Some(due), Some(period)) = (listener.next_resync, listener.resync) else {
                continue;
            };
            if due > now {
                continue;
            }
            listener.next_resync = Some(now + period);
            for object in &objects {
                listener.send(Notification::Update {
                    old: object.clone(),
                    new: object.clone(),
                });
            }
        }
    }
}
