//! kube-codegen's generator: Rust API types tagged like Go's (`/// +genclient`, `//! +groupName=…`)
//! become `Clone` impls, registration, typed clientsets, listers and informers.
//!
//! The pipeline is pure: [`tags`] reads doc-comment tags (their keys spelled once, in `symbol`),
//! [`model`] builds and checks the model of a version module or of one type (collecting every
//! [`diag::Diagnostic`]), [`check`] holds the rules across packages, and [`emit`] turns the model
//! into tokens, one function per artifact, naming what it declares through [`names`]. Reading,
//! formatting and writing files belong to the front ends (the derive and the CLI).

pub mod check;
mod clientset_macro;
mod derive;
pub mod diag;
pub mod emit;
pub mod genclient;
mod generate;
pub mod kube_version;
pub mod markers;
pub mod model;
pub mod names;
pub mod rbac;
mod source;
mod symbol;
pub mod tags;

pub use clientset_macro::clientset;
pub use derive::derive;
pub use generate::generate;
pub use source::{Source, SourceDiagnostic};

/// Settings of the generated code.
#[derive(Clone, Debug)]
pub struct Config {
    /// The path generated code names the runtime crate by (default `::codegen_runtime`), for
    /// crates that re-export it.
    pub runtime: syn::Path,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            runtime: syn::parse_quote!(::codegen_runtime),
        }
    }
}
