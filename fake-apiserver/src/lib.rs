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
//!
//! A request takes one path through the crate: `auth` (who sends it and whether they may, as
//! kube-apiserver's authentication, impersonation and RBAC decide) → `http` (the tower service or the loopback server,
//! routing against the resource table, query parsing, discovery, OpenAPI and kubectl tables) →
//! `verbs` (one file per verb family, each a transaction under one lock) → `storage` (the resource
//! table, the versioned store and its watch log), with `semantics` (validation, CRD schemas,
//! field paths, managed fields, selectors, strategic merge) beside the verbs and `lifecycle`
//! (garbage collection, CRD and namespace controllers) run by them after each write. The
//! resource table ([`ResourceInfo`], one row per served resource) says what each resource
//! serves — scope, verbs, subresources, names — and which [`Lifecycle`] acts on its objects.

mod auth;
mod credentials;
mod go_order;
mod http;
mod lifecycle;
mod semantics;
mod server;
mod status;
mod status_body;
mod storage;
mod testing;
mod verbs;

pub use http::responses::{HandlerPanicked, ResponseBody};
pub use http::serve::{ServeError, ServedApiServer};
pub use http::service::FakeService;
pub use server::{FakeApiServer, FakeApiServerBuilder};
pub use status::ApiStatus;
pub use storage::definition::DefinitionError;
pub use storage::resource::{Lifecycle, PrinterColumn, ResourceInfo, ScalePaths};
pub use storage::verb::Verb;
pub use testing::{Action, Reaction, ReactorFn};
