//! Emitters: one pure function per artifact, from the model to tokens. Emitters never read raw
//! tags; everything they need is in the model.

mod aggregate;
mod client;
mod crd;
mod deepcopy;
mod group_version;
mod informer;
mod lister;
mod register;

pub use aggregate::{PackageModule, aggregate};
pub use client::{clients, rust_type, typed_client};
pub use crd::{RootType, crd, crd_list, crds, storage_version_problems};
pub use deepcopy::{clone_impl, deepcopy};
pub use group_version::{
    client_getter, group_version_client_ident, group_version_client_struct, group_version_method, upper_first,
};
pub use informer::{
    has_informer, informer, informer_getter, informers, version_informers_ident, version_informers_struct,
};
pub use lister::{has_lister, lister, lister_ident, listers};
pub use register::{VersionSource, registration, resource};
