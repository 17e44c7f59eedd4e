//! The runtime's integration tests, linked into one binary: each test binary links kube,
//! k8s-openapi and the in-memory API server (about 100 MB), so one binary per file cost CI
//! gigabytes of disk and minutes of linking.

mod support;

mod crd;
mod events;
mod handlers;
mod informer;
mod leader;
mod reflector;
mod reliability;
mod retries;
mod streaming;
mod workqueue;
