//! The derive and `clientset!` used as a user crate uses them, linked into one binary (each test
//! binary links kube, k8s-openapi and the in-memory API server, about 100 MB). The compile-fail
//! diagnostics are `tests/ui.rs`, a binary of their own for trybuild.

mod clientset;
mod derive;
mod derive_crd;
mod user_crate;
