//! kube-codegen's generator: Rust API types tagged like Go's (`/// +genclient`, `//! +groupName=…`)
//! become `Clone` impls, registration, typed clientsets, listers and informers.
//!
//! The pipeline is pure: [`tags`] reads doc-comment tags, [`model`] builds and checks the model
//! of a version module (collecting every [`diag::Diagnostic`]), and [`emit`] turns the model
//! into tokens, one function per artifact. Reading, formatting and writing files belong to the
//! front ends (the derive and the CLI).

pub mod diag;
pub mod emit;
pub mod genclient;
pub mod model;
pub mod names;
pub mod tags;
