//! Emitters: one pure function per artifact, from the model to tokens. Emitters never read raw
//! tags; everything they need is in the model.

mod aggregate;
mod client;
mod deepcopy;
mod informer;
mod lister;
mod register;

pub use aggregate::{PackageModule, aggregate};
pub use client::{
    client_getter, clients, group_version_client_ident, group_version_client_struct, group_version_method, rust_type,
    typed_client, upper_first,
};
pub use deepcopy::{clone_impl, deepcopy};
pub use informer::{
    has_informer, informer, informer_getter, informers, version_informers_ident, version_informers_struct,
};
pub use lister::{has_lister, lister, lister_ident, listers};
pub use register::{VersionSource, registration, resource};
