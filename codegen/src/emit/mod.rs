//! Emitters: one pure function per artifact, from the model to tokens. Emitters never read raw
//! tags and check nothing; everything they need is in the model, every name they declare comes
//! from `names`.

mod aggregate;
mod apply;
mod client;
mod crd;
mod deepcopy;
mod group_version;
mod informer;
mod lister;
mod register;

use proc_macro2::TokenStream;
use quote::quote;

pub use aggregate::{PackageModule, aggregate};
pub use apply::{applied_whole, apply_configuration, apply_configurations, has_apply_configuration};
pub use client::{clients, rust_type, typed_client};
pub use crd::{crd, crd_list, crds};
pub use deepcopy::{clone_impl, deepcopy};
pub use group_version::{client_getter, group_version_client_struct};
pub use informer::{has_informer, informer, informer_getter, informers, version_informers_struct};
pub use lister::{has_lister, lister, listers};
pub use register::{VersionSource, registration, resource};

/// A doc comment of several lines as one `#[doc]` per line, which renders as `///` lines (one
/// attribute holding newlines renders as a `/** */` block).
pub(crate) fn doc_lines(text: &str) -> TokenStream {
    let lines = text
        .lines()
        .map(|line| format!(" {}", line.strip_prefix(' ').unwrap_or(line)));
    quote!(#(#[doc = #lines])*)
}
