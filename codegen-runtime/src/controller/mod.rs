//! The controller loop: a [`Reconcile`] per kind and workers over its [`WorkQueue`](crate::WorkQueue).
//!
//! Informer handlers add keys (`namespace/name`, see [`object_key`](crate::cache::object_key)) to
//! a queue; [`run_workers`] hands each key to one worker at a time, as sample-controller's
//! `runWorker`/`processNextWorkItem` do, and acts on the outcome of [`Reconcile::reconcile`]:
//!
//! - [`Next::Done`]: the key's retries are forgotten; it comes back when the object changes.
//! - [`Next::RequeueAfter`]: forgotten too, and added again after the delay.
//! - an error: logged and added again after the queue's per-item backoff
//!   ([`WorkQueue::add_rate_limited`](crate::WorkQueue::add_rate_limited)).
//!
//! Every reconcile is counted and timed in [`ReconcileMetrics`]; events about the objects go
//! through [`Events`](crate::events::Events).
//!
//! ```
//! use std::sync::Arc;
//!
//! use codegen_runtime::WorkQueue;
//! use codegen_runtime::cache::split_key;
//! use codegen_runtime::controller::{Next, Reconcile, ReconcileMetrics, run_workers};
//! use prometheus_client::registry::Registry;
//! use tokio_util::sync::CancellationToken;
//!
//! struct FooController;
//!
//! impl Reconcile for FooController {
//!     const NAME: &'static str = "Foo";
//!     type Error = std::convert::Infallible;
//!
//!     async fn reconcile(&self, key: &str) -> Result<Next, Self::Error> {
//!         let (namespace, name) = split_key(key);
//!         // Read the Foo from a lister and write what differs from its spec here.
//!         tracing::info!(?namespace, name, "reconciling");
//!         Ok(Next::Done)
//!     }
//! }
//!
//! # async fn demo() {
//! let mut registry = Registry::default();
//! let metrics = ReconcileMetrics::new(&mut registry);
//! let queue: WorkQueue<String> = WorkQueue::builder().name("foos").build();
//! // An informer's event handler does this for every Foo added or updated.
//! queue.add("default/example-foo".to_owned());
//! // Cancel it on SIGTERM: the workers finish what is in flight and return.
//! let stop = CancellationToken::new();
//! run_workers(Arc::new(FooController), queue, 2, metrics, stop).await;
//! # }
//! ```

mod metrics;
mod summary;
mod workers;

use std::future::Future;
use std::time::Duration;

pub use metrics::ReconcileMetrics;
pub use summary::ErrorSummary;
pub use workers::run_workers;

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
