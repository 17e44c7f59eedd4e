//! Runtime used by kube-codegen generated code and controllers: client-go's toolbox on kube-rs.
//!
//! - [`cache`]: indexed store, listers, shared informers and the informer factory (client-go's
//!   `tools/cache`).
//! - [`workqueue`]: a rate-limited work queue with client-go's contract and metrics.
//! - [`leader`]: Lease-based leader election with client-go's semantics.
//! - [`events`]: event recording, with a test double.
//! - [`fake`]: an in-memory Kubernetes API server that runs under the real `kube::Client`.
//!
//! The entry points are re-exported here.

pub mod cache;
pub mod events;
pub mod fake;
pub mod leader;
pub mod workqueue;

mod scope;

pub use cache::{
    Deleted, EventHandler, HandlerFns, Lister, NamespaceLister, Notification, SharedIndexInformer,
    SharedInformerFactory, Store,
};
pub use events::{EventRecorder, FakeRecorder};
pub use fake::FakeApiServer;
pub use leader::{LeaderCallbacks, LeaderElectionConfig, LeaderElector};
pub use scope::ScopeKind;
pub use workqueue::WorkQueue;

/// What generated code names through this crate, so user crates need not depend on it
/// themselves. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use either::Either;
    pub use futures::Stream;
    pub use serde_json;
}
