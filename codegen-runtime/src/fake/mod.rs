//! An in-memory Kubernetes API server: the fake clientset, CI's cluster, and the embedded demo.
//!
//! [`FakeApiServer`] keeps objects in memory and answers the Kubernetes REST API with the real
//! server's semantics. It runs under the real `kube::Client` ([`FakeApiServer::client`]), so
//! `kube::Api`, kube-runtime's watcher and everything built on them work unchanged; or it serves
//! HTTP on loopback with a kubeconfig ([`FakeApiServer::serve`]) for another process or kubectl.
//! Tests can read the requests it received ([`FakeApiServer::actions`]), answer in its place
//! ([`FakeApiServer::prepend_reactor`]) and inject faults ([`FakeApiServer::fail_next`],
//! [`FakeApiServer::cut_watches`], [`FakeApiServer::expire_resource_versions`],
//! [`FakeApiServer::set_latency`]).

mod apply;
mod builtin;
mod checks;
mod core;
mod crd;
mod delete;
mod discovery;
mod dispatch;
mod fieldpath;
mod fields;
mod gc;
mod object;
mod openapi;
mod patch;
mod query;
mod read;
mod registry;
mod resource;
mod route;
mod schema;
mod selector;
mod serve;
mod server;
mod service;
mod status;
mod store;
mod strategic;
mod table;
mod testing;
mod watch;

pub use crate::scope::ScopeKind;
pub use dispatch::ResponseBody;
pub use resource::{PrinterColumn, ResourceInfo, ScalePaths};
pub use route::Verb;
pub use serve::{ServeError, ServedApiServer};
pub use server::{FakeApiServer, FakeApiServerBuilder};
pub use service::FakeService;
pub use status::ApiStatus;
pub use testing::{Action, Reaction, ReactorFn};
