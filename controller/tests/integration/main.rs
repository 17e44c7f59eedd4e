//! The controller's tests against the in-memory API server (and its binary, kubectl and the
//! manifests of `deploy/`), linked into one binary: each test binary links kube, k8s-openapi and
//! the in-memory API server (about 100 MB), so one binary per file cost CI gigabytes of disk and
//! minutes of linking. The e2e suite, which also runs against real clusters, is its own binary.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod convergence;
mod deploy;
mod describe;
mod foo;
mod leader;
mod rbac;
mod vm;
