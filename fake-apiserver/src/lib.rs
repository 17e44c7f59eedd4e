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

mod http;
mod lifecycle;
mod semantics;
mod server;
mod status;
mod storage;
mod testing;
mod verbs;

pub use http::dispatch::ResponseBody;
pub use http::route::Verb;
pub use http::serve::{ServeError, ServedApiServer};
pub use http::service::FakeService;
pub use server::{FakeApiServer, FakeApiServerBuilder};
pub use status::ApiStatus;
pub use storage::resource::{PrinterColumn, ResourceInfo, ScalePaths};
pub use testing::{Action, Reaction, ReactorFn};
