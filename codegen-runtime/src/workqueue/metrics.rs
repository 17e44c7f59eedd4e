//! Work queue metrics under client-go's names (`workqueue_depth`, `workqueue_adds_total`, …),
//! one series per queue `name`, through prometheus-client.

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

type Labels = Vec<(String, String)>;

fn duration_histogram() -> Histogram {
    // client-go: prometheus.ExponentialBuckets(10e-9, 10, 12), 10 ns to 1000 s.
    Histogram::new(exponential_buckets(1e-8, 10.0, 12))
}

/// The metric families of every work queue; register once, share with every queue.
#[derive(Clone)]
pub struct WorkqueueMetrics {
    depth: Family<Labels, Gauge>,
    adds: Family<Labels, Counter>,
    queue_duration: Family<Labels, Histogram, fn() -> Histogram>,
    work_duration: Family<Labels, Histogram, fn() -> Histogram>,
    unfinished_work: Family<Labels, Gauge<f64, AtomicU64>>,
    longest_running: Family<Labels, Gauge<f64, AtomicU64>>,
    retries: Family<Labels, Counter>,
}

impl Default for WorkqueueMetrics {
    fn default() -> Self {
        Self {
            depth: Family::default(),
            adds: Family::default(),
            queue_duration: Family::new_with_constructor(duration_histogram),
            work_duration: Family::new_with_constructor(duration_histogram),
            unfinished_work: Family::default(),
            longest_running: Family::default(),
            retries: Family::default(),
        }
    }
}

impl WorkqueueMetrics {
    /// Families not yet registered anywhere.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers the families in `registry` (counters get their `_total` suffix there).
    pub fn register(&self, registry: &mut Registry) {
        registry.register("workqueue_depth", "Current depth of workqueue", self.depth.clone());
        registry.register(
            "workqueue_adds",
            "Total number of adds handled by workqueue",
            self.adds.clone(),
        );
        registry.register(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested",
            self.queue_duration.clone(),
        );
        registry.register(
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes",
            self.work_duration.clone(),
        );
        registry.register(
            "workqueue_unfinished_work_seconds",
            "How many seconds of work has been done that is in progress and hasn't been observed by \
             work_duration. Large values indicate stuck threads",
            self.unfinished_work.clone(),
        );
        registry.register(
            "workqueue_longest_running_processor_seconds",
            "How many seconds has the longest running processor for workqueue been running",
            self.longest_running.clone(),
        );
        registry.register(
            "workqueue_retries",
            "Total number of retries handled by workqueue",
            self.retries.clone(),
        );
    }

    pub(crate) fn for_queue(&self, name: &str) -> QueueMetrics {
        let labels = vec![("name".to_owned(), name.to_owned())];
        QueueMetrics {
            depth: self.depth.get_or_create(&labels).clone(),
            adds: self.adds.get_or_create(&labels).clone(),
            queue_duration: self.queue_duration.get_or_create(&labels).clone(),
            work_duration: self.work_duration.get_or_create(&labels).clone(),
            unfinished_work: self.unfinished_work.get_or_create(&labels).clone(),
            longest_running: self.longest_running.get_or_create(&labels).clone(),
            retries: self.retries.get_or_create(&labels).clone(),
        }
    }
}

/// The series of one queue.
pub(crate) struct QueueMetrics {
    depth: Gauge,
    adds: Counter,
    queue_duration: Histogram,
    work_duration: Histogram,
    unfinished_work: Gauge<f64, AtomicU64>,
    longest_running: Gauge<f64, AtomicU64>,
    retries: Counter,
}

impl QueueMetrics {
    pub(crate) fn added(&self) {
        self.adds.inc();
    }

    pub(crate) fn depth(&self, depth: usize) {
        self.depth.set(i64::try_from(depth).unwrap_or(i64::MAX));
    }

    pub(crate) fn started(&self, waited: Option<Duration>) {
        if let Some(waited) = waited {
            self.queue_duration.observe(waited.as_secs_f64());
        }
    }

    pub(crate) fn finished(&self, worked: Option<Duration>) {
        if let Some(worked) = worked {
            self.work_duration.observe(worked.as_secs_f64());
        }
    }

    pub(crate) fn retry(&self) {
        self.retries.inc();
    }

    /// Sets the in-progress gauges from the ages of the items being processed now.
    pub(crate) fn in_progress(&self, ages: impl Iterator<Item = Duration>) {
        let (total, longest) = ages.fold((0.0, 0.0_f64), |(total, longest), age| {
            (total + age.as_secs_f64(), longest.max(age.as_secs_f64()))
        });
        self.unfinished_work.set(total);
        self.longest_running.set(longest);
    }
}
