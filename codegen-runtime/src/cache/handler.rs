//! What informers tell their consumers: add/update/delete notifications (deletes possibly as
//! tombstones), the handler trait, and where each consumer's notifications go: its own buffer,
//! which keeps a slow consumer from holding up the informer or anyone else, or straight into
//! an inline handler.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::Stream;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// An object whose deletion was noticed only when a relist no longer contained it: its last
/// known state, which may be stale (client-go's `DeletedFinalStateUnknown`).
#[derive(Debug)]
pub struct DeletedFinalStateUnknown<K> {
    /// The object's key, `namespace/name` or `name`.
    pub key: String,
    /// The last state the cache had.
    pub object: Arc<K>,
}

/// The object of a delete notification.
#[derive(Debug)]
pub enum Deleted<K> {
    /// The object's final state, from the watch.
    Object(Arc<K>),
    /// A delete missed while disconnected, found by a relist.
    Tombstone(DeletedFinalStateUnknown<K>),
}

impl<K> Deleted<K> {
    /// The object, whichever way the delete was noticed.
    pub fn object(&self) -> &Arc<K> {
        match self {
            Deleted::Object(object) => object,
            Deleted::Tombstone(tombstone) => &tombstone.object,
        }
    }
}

/// One notification, as a handler or a subscriber receives it.
#[derive(Debug)]
pub enum Notification<K> {
    /// An object appeared; `in_initial_list` while the informer (or a late handler) is syncing.
    Add {
        /// The object.
        object: Arc<K>,
        /// Whether it came with the initial list rather than a later change.
        in_initial_list: bool,
    },
    /// An object changed, or a relist or resync delivered it again (then `old` and `new` may be
    /// the same version: compare resourceVersions to tell).
    Update {
        /// The cached state before.
        old: Arc<K>,
        /// The new state.
        new: Arc<K>,
    },
    /// An object was deleted.
    Delete(Deleted<K>),
}

/// Receives an informer's notifications, in order; no method is called concurrently with
/// another. Added with `add_event_handler` it runs on a task of its own: do not block for long,
/// the buffer grows while you do. Added with `add_inline_event_handler` it runs where the
/// informer notifies, mostly its task: do not block at all, every later event waits.
pub trait EventHandler<K>: Send + 'static {
    /// An object appeared.
    fn on_add(&mut self, _object: Arc<K>, _in_initial_list: bool) {}
    /// An object changed (or was delivered again by a relist or resync).
    fn on_update(&mut self, _old: Arc<K>, _new: Arc<K>) {}
    /// An object was deleted.
    fn on_delete(&mut self, _deleted: Deleted<K>) {}
}

type AddFn<K> = Box<dyn FnMut(Arc<K>, bool) + Send>;
type UpdateFn<K> = Box<dyn FnMut(Arc<K>, Arc<K>) + Send>;
type DeleteFn<K> = Box<dyn FnMut(Deleted<K>) + Send>;

/// Builds an [`EventHandler`] from closures, like client-go's `ResourceEventHandlerFuncs`.
pub struct HandlerFns<K> {
    add: Option<AddFn<K>>,
    update: Option<UpdateFn<K>>,
    delete: Option<DeleteFn<K>>,
}

impl<K> Default for HandlerFns<K> {
    fn default() -> Self {
        Self {
            add: None,
            update: None,
            delete: None,
        }
    }
}

impl<K> HandlerFns<K> {
    /// A handler that ignores everything until given closures.
    pub fn new() -> Self {
        Self::default()
    }

    /// Called for adds.
    pub fn on_add(mut self, f: impl FnMut(Arc<K>, bool) + Send + 'static) -> Self {
        self.add = Some(Box::new(f));
        self
    }

    /// Called for updates.
    pub fn on_update(mut self, f: impl FnMut(Arc<K>, Arc<K>) + Send + 'static) -> Self {
        self.update = Some(Box::new(f));
        self
    }

    /// Called for deletes.
    pub fn on_delete(mut self, f: impl FnMut(Deleted<K>) + Send + 'static) -> Self {
        self.delete = Some(Box::new(f));
        self
    }
}

impl<K: Send + Sync + 'static> EventHandler<K> for HandlerFns<K> {
    fn on_add(&mut self, object: Arc<K>, in_initial_list: bool) {
        if let Some(f) = &mut self.add {
            f(object, in_initial_list);
        }
    }

    fn on_update(&mut self, old: Arc<K>, new: Arc<K>) {
        if let Some(f) = &mut self.update {
            f(old, new);
        }
    }

    fn on_delete(&mut self, deleted: Deleted<K>) {
        if let Some(f) = &mut self.delete {
            f(deleted);
        }
    }
}

/// What flows through a consumer's buffer: notifications, and the marker after which the
/// consumer has seen everything of its initial list.
pub(crate) enum Message<K> {
    Notify(Notification<K>),
    Synced,
}

/// Where one consumer's notifications go.
pub(crate) enum Sink<K> {
    /// Its buffer, drained by its handler's task or by its subscription.
    Buffer(mpsc::UnboundedSender<Message<K>>),
    /// Its handler, called where the notification is made; `delivered` is its registration's
    /// sync state.
    Inline {
        handler: Box<dyn EventHandler<K>>,
        delivered: Arc<AtomicBool>,
    },
}

/// The informer's side of one consumer: where its notifications go, and its resync schedule.
pub(crate) struct Listener<K> {
    pub(crate) id: u64,
    pub(crate) sink: Sink<K>,
    /// Set by `remove_handler`; a removed consumer gets nothing more.
    pub(crate) removed: Arc<AtomicBool>,
    pub(crate) resync: Option<Duration>,
    pub(crate) next_resync: Option<Instant>,
}

impl<K: 'static> Listener<K> {
    /// Delivers a notification; `false` if the consumer went away or was removed, and is to be
    /// dropped by the caller.
    pub(crate) fn send(&mut self, notification: Notification<K>) -> bool {
        if self.is_removed() {
            return false;
        }
        match &mut self.sink {
            Sink::Buffer(sender) => sender.send(Message::Notify(notification)).is_ok(),
            Sink::Inline { handler, .. } => {
                deliver(handler.as_mut(), notification);
                // It may have removed itself: then it is dropped now, not at its next event.
                !self.is_removed()
            }
        }
    }

    /// Tells the consumer that its initial list is complete.
    pub(crate) fn synced(&self) {
        match &self.sink {
            Sink::Buffer(sender) => {
                let _ = sender.send(Message::Synced);
            }
            Sink::Inline { delivered, .. } => delivered.store(true, Ordering::Release),
        }
    }

    /// Whether the consumer was removed (and is to be dropped by whoever holds the dispatch
    /// lock next).
    pub(crate) fn is_removed(&self) -> bool {
        self.removed.load(Ordering::Acquire)
    }

    /// Whether the consumer is called where notifications are made.
    pub(crate) fn is_inline(&self) -> bool {
        matches!(self.sink, Sink::Inline { .. })
    }
}

/// Calls `handler` with one notification. A panicking call is logged and skipped, like
/// client-go's `HandleCrash`: one bad notification must not silence the handler for good.
fn deliver<K: 'static>(handler: &mut dyn EventHandler<K>, notification: Notification<K>) {
    let call = std::panic::AssertUnwindSafe(|| match notification {
        Notification::Add {
            object,
            in_initial_list,
        } => handler.on_add(object, in_initial_list),
        Notification::Update { old, new } => handler.on_update(old, new),
        Notification::Delete(deleted) => handler.on_delete(deleted),
    });
    if std::panic::catch_unwind(call).is_err() {
        tracing::error!("informer: an event handler panicked; the notification was skipped");
    }
}

/// Runs `handler` over a consumer's buffer until the informer goes away or the handler is
/// removed.
pub(crate) async fn drive<K: 'static>(
    mut receiver: mpsc::UnboundedReceiver<Message<K>>,
    mut handler: impl EventHandler<K>,
    synced: Arc<AtomicBool>,
    removed: Arc<AtomicBool>,
) {
    while let Some(message) = receiver.recv().await {
        if removed.load(Ordering::Acquire) {
            return;
        }
        match message {
            Message::Notify(notification) => deliver(&mut handler, notification),
            Message::Synced => synced.store(true, Ordering::Release),
        }
    }
}

/// A subscriber's view of its buffer: the same notifications as a handler, as a `Stream`.
pub struct Subscription<K> {
    pub(crate) receiver: mpsc::UnboundedReceiver<Message<K>>,
    pub(crate) synced: Arc<AtomicBool>,
    /// A notification taken early by `has_synced`, handed out next.
    pub(crate) peeked: Option<Notification<K>>,
}

impl<K> Subscription<K> {
    /// Whether every notification of the initial list has been taken from this stream (true as
    /// soon as the last one was, so `while !s.has_synced() { s.next().await }` terminates).
    pub fn has_synced(&mut self) -> bool {
        if !self.synced.load(Ordering::Acquire) && self.peeked.is_none() {
            // The sync marker directly follows the last initial notification: look one ahead.
            match self.receiver.try_recv() {
                Ok(Message::Synced) => self.synced.store(true, Ordering::Release),
                Ok(Message::Notify(notification)) => self.peeked = Some(notification),
                Err(_) => {}
            }
        }
        self.synced.load(Ordering::Acquire)
    }
}

impl<K> Stream for Subscription<K> {
    type Item = Notification<K>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(notification) = self.peeked.take() {
            return Poll::Ready(Some(notification));
        }
        loop {
            match self.receiver.poll_recv(cx) {
                Poll::Ready(Some(Message::Notify(notification))) => return Poll::Ready(Some(notification)),
                Poll::Ready(Some(Message::Synced)) => self.synced.store(true, Ordering::Release),
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}
