//! Runtime used by kube-codegen generated code and controllers.
//!
//! - [`cache`]: indexed store, listers and shared informers (client-go's `tools/cache`).
//! - [`events`]: event recording, with a test double.
//! - [`fake`]: an in-memory Kubernetes API server that runs under the real `kube::Client`.
//! - [`leader`]: Lease-based leader election with client-go's semantics.
//! - [`workqueue`]: a rate-limited work queue with client-go's contract and metrics.

pub mod cache;
pub mod events;
pub mod fake;
pub mod leader;
pub mod workqueue;

mod scope;
pub use scope::ScopeKind;
