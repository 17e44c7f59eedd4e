//! The queue itself: client-go's dirty and processing sets (one worker per key, duplicates
//! coalesced, re-adds during processing queued again on `done`), delayed adds, and shutdown with
//! or without draining.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::metrics::QueueMetrics;

/// What a queue can hold: cheap to clone, hashable keys such as `ObjectRef`s or `String`s.
pub trait QueueKey: Clone + Eq + Hash + Send + Sync + 'static {}

impl<T: Clone + Eq + Hash + Send + Sync + 'static> QueueKey for T {}

pub(crate) struct State<T> {
    queue: VecDeque<T>,
    dirty: HashSet<T>,
    processing: HashSet<T>,
    /// Delayed adds: when each waiting item is due (the earliest asked for wins).
    waiting: HashMap<T, Instant>,
    /// Due times of waiting items, earliest first; stale entries are skipped when popped.
    due: BinaryHeap<Reverse<Due<T>>>,
    sequence: u64,
    shutting_down: bool,
    drain: bool,
    /// When each queued item was added, and when each processed item was handed out (metrics).
    pub(crate) added_at: HashMap<T, Instant>,
    pub(crate) started_at: HashMap<T, Instant>,
}

/// A delayed add, ordered by due time and then by when it was asked for.
pub(crate) struct Due<T> {
    at: Instant,
    sequence: u64,
    item: T,
}

impl<T> PartialEq for Due<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.sequence) == (other.at, other.sequence)
    }
}

impl<T> Eq for Due<T> {}

impl<T> PartialOrd for Due<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Due<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.sequence).cmp(&(other.at, other.sequence))
    }
}

pub(crate) struct Shared<T> {
    state: Mutex<State<T>>,
    ready: Notify,
    drained: Notify,
    pub(crate) metrics: Option<QueueMetrics>,
}

/// client-go's work queue contract, with `add_after`.
pub(crate) struct Queue<T> {
    pub(crate) shared: Arc<Shared<T>>,
}

impl<T> Clone for Queue<T> {
    fn clone(&self) -> Self {
        Self {
            shared: self.shared.clone(),
        }
    }
}

impl<T: QueueKey> Queue<T> {
    pub(crate) fn new(metrics: Option<QueueMetrics>) -> Self {
        let state = State {
            queue: VecDeque::new(),
            dirty: HashSet::new(),
            processing: HashSet::new(),
            waiting: HashMap::new(),
            due: BinaryHeap::new(),
            sequence: 0,
            shutting_down: false,
            drain: false,
            added_at: HashMap::new(),
            started_at: HashMap::new(),
        };
        let shared = Shared {
            state: Mutex::new(state),
            ready: Notify::new(),
            drained: Notify::new(),
            metrics,
        };
        Self {
            shared: Arc::new(shared),
        }
    }

    /// The state, with due delayed items moved into the queue. The lock is held for a few
    /// operations on in-memory sets, never across an await, so a poisoned lock is still sound.
    pub(crate) fn state(&self) -> MutexGuard<'_, State<T>> {
        let mut state = self
            .shared
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        while let Some(Reverse(next)) = state.due.peek() {
            if next.at > now {
                break;
            }
            let Reverse(Due { at, item, .. }) = state.due.pop().expect("peeked");
            if state.waiting.get(&item) == Some(&at) {
                state.waiting.remove(&item);
                self.insert(&mut state, item);
            }
        }
        state
    }

    /// Marks `item` for processing; a no-op while shutting down or when it is already queued.
    pub(crate) fn add(&self, item: T) {
        let mut state = self.state();
        self.insert(&mut state, item);
    }

    fn insert(&self, state: &mut State<T>, item: T) {
        if state.shutting_down || !state.dirty.insert(item.clone()) {
            return;
        }
        if let Some(metrics) = &self.shared.metrics {
            metrics.added();
        }
        state.added_at.entry(item.clone()).or_insert_with(Instant::now);
        // An item being processed is queued again by `done`, never handed to a second worker.
        if !state.processing.contains(&item) {
            state.queue.push_back(item);
            self.depth_changed(state);
            self.shared.ready.notify_one();
        }
    }

    /// Adds `item` once `delay` has passed; an earlier pending add of the same item wins.
    pub(crate) fn add_after(&self, item: T, delay: Duration) {
        let mut state = self.state();
        if state.shutting_down {
            return;
        }
        if let Some(metrics) = &self.shared.metrics {
            metrics.retry();
        }
        if delay.is_zero() {
            self.insert(&mut state, item);
            return;
        }
        let due = Instant::now() + delay;
        if state.waiting.get(&item).is_some_and(|pending| *pending <= due) {
            return;
        }
        state.waiting.insert(item.clone(), due);
        state.sequence += 1;
        let sequence = state.sequence;
        state.due.push(Reverse(Due {
            at: due,
            sequence,
            item,
        }));
        // A waiting `get` must re-arm its timer for the new earliest due time.
        self.shared.ready.notify_waiters();
    }

    /// The next item to process, waiting for one; `None` once shut down and empty.
    pub(crate) async fn get(&self) -> Option<T> {
        loop {
            let notified = self.shared.ready.notified();
            tokio::pin!(notified);
            let next_due = {
                let mut state = self.state();
                if let Some(item) = state.queue.pop_front() {
                    state.dirty.remove(&item);
                    state.processing.insert(item.clone());
                    let now = Instant::now();
                    let added = state.added_at.remove(&item);
                    state.started_at.insert(item.clone(), now);
                    if let Some(metrics) = &self.shared.metrics {
                        metrics.started(added.map(|a| now - a));
                    }
                    self.depth_changed(&state);
                    return Some(item);
                }
                if state.shutting_down {
                    return None;
                }
                // Register before unlocking so an add in between is not missed.
                notified.as_mut().enable();
                state.due.peek().map(|Reverse(next)| next.at)
            };
            match next_due {
                Some(due) => {
                    tokio::select! {
                        () = &mut notified => {}
                        () = tokio::time::sleep_until(due) => {}
                    }
                }
                None => notified.await,
            }
        }
    }

    /// Ends processing of `item`; queues it again if it was added meanwhile.
    pub(crate) fn done(&self, item: &T) {
        let mut state = self.state();
        if !state.processing.remove(item) {
            return;
        }
        let started = state.started_at.remove(item);
        if let Some(metrics) = &self.shared.metrics {
            metrics.finished(started.map(|s| s.elapsed()));
        }
        if state.dirty.contains(item) {
            state.queue.push_back(item.clone());
            self.depth_changed(&state);
            self.shared.ready.notify_one();
        }
        if state.processing.is_empty() {
            self.shared.drained.notify_waiters();
        }
    }

    /// Items waiting to be handed out (delayed items count once they are due).
    pub(crate) fn len(&self) -> usize {
        self.state().queue.len()
    }

    /// Ignores new adds; `get` hands out what is queued, then answers `None`. Also ends a
    /// `shutdown_with_drain` that is waiting, as client-go's `ShutDown` does.
    pub(crate) fn shutdown(&self) {
        self.stop(false);
        self.shared.drained.notify_waiters();
    }

    fn stop(&self, drain: bool) {
        let mut state = self.state();
        state.shutting_down = true;
        state.drain = drain;
        state.waiting.clear();
        state.due.clear();
        drop(state);
        self.shared.ready.notify_waiters();
    }

    /// Shuts down, then waits until every item handed out has been marked `done` (or until a
    /// plain `shutdown` cancels the wait).
    pub(crate) async fn shutdown_with_drain(&self) {
        self.stop(true);
        loop {
            let drained = self.shared.drained.notified();
            tokio::pin!(drained);
            {
                let state = self.state();
                if state.processing.is_empty() || !state.drain {
                    return;
                }
                drained.as_mut().enable();
            }
            drained.await;
        }
    }

    pub(crate) fn is_shutting_down(&self) -> bool {
        self.state().shutting_down
    }

    fn depth_changed(&self, state: &State<T>) {
        if let Some(metrics) = &self.shared.metrics {
            metrics.depth(state.queue.len());
        }
    }
}

impl<T> State<T> {
    /// Whether nothing more can happen: shut down, nothing queued, nothing in progress.
    pub(crate) fn is_shut_down_and_idle(&self) -> bool {
        self.shutting_down && self.queue.is_empty() && self.processing.is_empty()
    }

    /// How long each item being processed has been at it (metrics).
    pub(crate) fn processing_ages(&self, now: Instant) -> impl Iterator<Item = Duration> + '_ {
        self.started_at.values().map(move |started| now - *started)
    }
}

/// Refreshes the in-progress gauges every 500 ms, as client-go does, until the queue is dropped
/// or shut down.
pub(crate) async fn update_in_progress<T: QueueKey>(shared: Weak<Shared<T>>) {
    let mut ticker = tokio::time::interval(Duration::from_millis(500));
    loop {
        ticker.tick().await;
        let Some(shared) = shared.upgrade() else { return };
        let queue = Queue { shared };
        let state = queue.state();
        if let Some(metrics) = &queue.shared.metrics {
            metrics.in_progress(state.processing_ages(Instant::now()));
        }
        let done = state.is_shut_down_and_idle();
        drop(state);
        if done {
            return;
        }
    }
}
