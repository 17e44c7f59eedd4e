//! The end-to-end suite: the generated clients, informers and listers and the controllers,
//! written to the Kubernetes API contract so the same run passes against a real cluster
//! (`E2E_KUBECONFIG=<file> cargo test -p controller --test e2e`) and, without it, against the
//! in-memory API server in process and served on loopback.

mod apply;
mod clients;
mod harness;
mod informers;
mod reconcile;

#[path = "../common/mod.rs"]
mod common;
