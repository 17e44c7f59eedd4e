//! The loop every controller runs, as sample-controller's `runWorker`/`processNextWorkItem`: take
//! a key from the rate-limited queue, reconcile it, forget it on success, re-add it with backoff
//! on error, requeue it after a delay when asked; count and time every reconcile.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use codegen_runtime::WorkQueue;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// What a reconcile asks for next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Nothing until the object changes.
    Done,
    /// Look again after this long (e.g. to refresh usage).
    RequeueAfter(Duration),
}

/// A controller's reconcile of one `namespace/name` key.
pub trait Reconcile: Send + Sync + 'static {
    /// Its name in logs and metrics, e.g. `VirtualMachine`.
    const NAME: &'static str;
    /// The error of a failed reconcile; the key is retried with backoff.
    type Error: std::fmt::Display + Send;
    /// Brings the object `key` names to its desired state.
    fn reconcile(&self, key: &str) -> impl Future<Output = Result<Next, Self::Error>> + Send;
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    controller: String,
    result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabels {
    controller: String,
}

/// `controller_reconcile_total{controller,result}` and `controller_reconcile_duration_seconds`.
#[derive(Clone)]
pub struct ReconcileMetrics {
    total: Family<ResultLabels, Counter>,
    duration: Family<ControllerLabels, Histogram, fn() -> Histogram>,
}

impl ReconcileMetrics {
    /// The families, registered in `registry`.
    pub fn new(registry: &mut Registry) -> Self {
        let metrics = Self {
            total: Family::default(),
            duration: Family::new_with_constructor(|| Histogram::new(exponential_buckets(0.0005, 2.0, 16))),
        };
        registry.register(
            "controller_reconcile",
            "Reconciles by controller and result (success, requeue, error)",
            metrics.total.clone(),
        );
        registry.register(
            "controller_reconcile_duration_seconds",
            "How long reconciles take",
            metrics.duration.clone(),
        );
        metrics
    }

    fn observe(&self, controller: &str, result: &str, took: Duration) {
        self.total
            .get_or_create(&ResultLabels {
                controller: controller.to_owned(),
                result: result.to_owned(),
            })
            .inc();
        self.duration
            .get_or_create(&ControllerLabels {
                controller: controller.to_owned(),
            })
            .observe(took.as_secs_f64());
    }
}

/// Runs `threads` workers on `queue` until `stop`: each finishes the reconcile in flight and
/// takes no more; returns when the last has finished, with the queue shut down.
pub async fn run_workers<R: Reconcile>(
    reconciler: Arc<R>,
    queue: WorkQueue<String>,
    threads: u16,
    metrics: ReconcileMetrics,
    stop: CancellationToken,
) {
    let mut workers = JoinSet::new();
    for _ in 0..threads {
        let (reconciler, queue, metrics, stop) = (reconciler.clone(), queue.clone(), metrics.clone(), stop.clone());
        workers.spawn(async move {
            loop {
                let key = tokio::select! {
                    biased;
                    () = stop.cancelled() => break,
                    key = queue.get() => match key {
                        Some(key) => key,
                        None => break,
                    },
                };
                process(&*reconciler, &queue, &metrics, &key).await;
                queue.done(&key);
            }
        });
    }
    while workers.join_next().await.is_some() {}
    queue.shutdown();
    tracing::info!(controller = R::NAME, "workers stopped");
}

async fn process<R: Reconcile>(reconciler: &R, queue: &WorkQueue<String>, metrics: &ReconcileMetrics, key: &str) {
    let started = Instant::now();
    let result = reconciler.reconcile(key).await;
    let took = started.elapsed();
    let key = key.to_owned();
    match result {
        Ok(Next::Done) => {
            queue.forget(&key);
            metrics.observe(R::NAME, "success", took);
            tracing::debug!(controller = R::NAME, %key, ?took, "synced");
        }
        Ok(Next::RequeueAfter(delay)) => {
            queue.forget(&key);
            queue.add_after(key.clone(), delay);
            metrics.observe(R::NAME, "requeue", took);
            tracing::debug!(controller = R::NAME, %key, ?delay, "synced, requeued");
        }
        Err(error) => {
            let retries = queue.num_requeues(&key);
            queue.add_rate_limited(key.clone());
            metrics.observe(R::NAME, "error", took);
            tracing::warn!(controller = R::NAME, %key, retries, %error, "error syncing; requeuing with backoff");
        }
    }
}

/// client-go's `MetaNamespaceKeyFunc`: `namespace/name`, or `name` for cluster objects.
pub fn key_of(meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> String {
    let name = meta.name.as_deref().unwrap_or_default();
    match meta.namespace.as_deref() {
        Some(namespace) if !namespace.is_empty() => format!("{namespace}/{name}"),
        _ => name.to_owned(),
    }
}

/// client-go's `SplitMetaNamespaceKey`.
pub fn split_key(key: &str) -> (&str, &str) {
    key.split_once('/').unwrap_or(("", key))
}
