//! A rate-limited work queue with client-go's contract (`util/workqueue`).
//!
//! [`WorkQueue`] never hands the same item to two workers at once: an item added while it is
//! being processed is queued again when the worker calls [`WorkQueue::done`], and duplicates
//! waiting in the queue are coalesced. Failed items come back with
//! [`WorkQueue::add_rate_limited`] after a per-item exponential backoff (and an overall token
//! bucket), until [`WorkQueue::forget`]. Metrics carry client-go's names.
//!
//! ```
//! # async fn demo() {
//! use codegen_runtime::workqueue::WorkQueue;
//!
//! let queue: WorkQueue<String> = WorkQueue::builder().name("foos").build();
//! queue.add("default/example-foo".to_owned());
//! while let Some(key) = queue.get().await {
//!     let succeeded = !key.is_empty(); // reconcile `key` here
//!     if succeeded { queue.forget(&key) } else { queue.add_rate_limited(key.clone()) }
//!     queue.done(&key);
//!     # queue.shutdown();
//! }
//! # }
//! ```

mod limiter;
mod metrics;
mod queue;

use std::sync::Arc;
use std::time::Duration;

pub use limiter::{ItemExponentialFailure, MaxOf, RateLimiter, TokenBucket, default_controller_rate_limiter};
pub use metrics::WorkqueueMetrics;
pub use queue::QueueKey;

use queue::Queue;

/// client-go's rate-limiting work queue: `add`, `get`, `done`, `add_after`, `add_rate_limited`,
/// `forget`, `num_requeues`, `shutdown`, `shutdown_with_drain`, `len`. Clones share the queue.
pub struct WorkQueue<T> {
    queue: Queue<T>,
    limiter: Arc<dyn RateLimiter<T>>,
}

impl<T> Clone for WorkQueue<T> {
    fn clone(&self) -> Self {
        Self {
            queue: self.queue.clone(),
            limiter: self.limiter.clone(),
        }
    }
}

/// Configures a [`WorkQueue`].
pub struct WorkQueueBuilder<T> {
    name: String,
    limiter: Option<Box<dyn RateLimiter<T>>>,
    metrics: Option<WorkqueueMetrics>,
}

impl<T: QueueKey> Default for WorkQueue<T> {
    fn default() -> Self {
        Self::builder().build()
    }
}

impl<T: QueueKey> WorkQueue<T> {
    /// A queue with the default controller rate limiter and no metrics.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts configuring a queue.
    pub fn builder() -> WorkQueueBuilder<T> {
        WorkQueueBuilder {
            name: String::new(),
            limiter: None,
            metrics: None,
        }
    }

    /// Queues `item` unless it is already queued; while it is being processed it is queued
    /// again on [`WorkQueue::done`]. Ignored after shutdown.
    pub fn add(&self, item: T) {
        self.queue.add(item);
    }

    /// Queues `item` after `delay`; of several pending delays the earliest wins.
    pub fn add_after(&self, item: T, delay: Duration) {
        self.queue.add_after(item, delay);
    }

    /// Queues `item` after the rate limiter's delay, counting one more retry.
    pub fn add_rate_limited(&self, item: T) {
        let delay = self.limiter.when(&item);
        self.queue.add_after(item, delay);
    }

    /// Clears the retry count of `item` (call it when the item succeeded).
    pub fn forget(&self, item: &T) {
        self.limiter.forget(item);
    }

    /// How often `item` was retried since it was last forgotten.
    pub fn num_requeues(&self, item: &T) -> u32 {
        self.limiter.num_requeues(item)
    }

    /// The next item, waiting until there is one; `None` once shut down and empty. Call
    /// [`WorkQueue::done`] when finished with it.
    pub async fn get(&self) -> Option<T> {
        self.queue.get().await
    }

    /// Marks `item` processed.
    pub fn done(&self, item: &T) {
        self.queue.done(item);
    }

    /// How many items wait to be handed out.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no item waits to be handed out.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stops taking items; [`WorkQueue::get`] hands out what is queued, then `None`.
    pub fn shutdown(&self) {
        self.queue.shutdown();
    }

    /// Shuts down and waits until every item handed out is marked done.
    pub async fn shutdown_with_drain(&self) {
        self.queue.shutdown_with_drain().await;
    }

    /// Whether [`WorkQueue::shutdown`] was called.
    pub fn is_shutting_down(&self) -> bool {
        self.queue.is_shutting_down()
    }
}

impl<T: QueueKey> WorkQueueBuilder<T> {
    /// The queue's name, the `name` label of its metrics.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The rate limiter of [`WorkQueue::add_rate_limited`] (default:
    /// [`default_controller_rate_limiter`]).
    pub fn rate_limiter(mut self, limiter: impl RateLimiter<T> + 'static) -> Self {
        self.limiter = Some(Box::new(limiter));
        self
    }

    /// Records metrics in `metrics` under this queue's name. The in-progress gauges are
    /// refreshed by a task on the current tokio runtime, if there is one.
    pub fn metrics(mut self, metrics: &WorkqueueMetrics) -> Self {
        self.metrics = Some(metrics.clone());
        self
    }

    /// Builds the queue.
    pub fn build(self) -> WorkQueue<T> {
        let queue_metrics = self.metrics.as_ref().map(|m| m.for_queue(&self.name));
        let queue = Queue::new(queue_metrics);
        if self.metrics.is_some()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(queue::update_in_progress(Arc::downgrade(&queue.shared)));
        }
        let limiter: Arc<dyn RateLimiter<T>> = match self.limiter {
            Some(limiter) => Arc::from(limiter),
            None => Arc::new(default_controller_rate_limiter()),
        };
        WorkQueue { queue, limiter }
    }
}
