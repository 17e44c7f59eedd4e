//! Server-side apply with typed apply configurations (client-go's `applyconfigurations`): the
//! trait that maps a field's type to what an apply configuration holds for it, the metadata an
//! apply may carry, the options of an apply, and extraction of what one field manager owns.

mod extract;
mod meta;
#[doc(hidden)]
pub mod wire;

use std::fmt::Debug;

use kube::api::PatchParams;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use extract::{ExtractError, extract};
pub use meta::ObjectMetaApplyConfiguration;

/// What an apply configuration holds for a field of this type.
///
/// Structs that derive `Codegen` (or that `codegen-cli` generated code for) hold their generated
/// `…ApplyConfiguration`, whose fields are all optional, so that an apply sends only what it sets.
/// Types of k8s-openapi, whose optional fields are already `Option`s, and scalars are held as
/// they are ([`AppliedWhole`]). `Option`, `Box`, `Vec` and maps are unwrapped by the generator.
/// A type that has none gets [`AppliedWhole`]'s message, which names the fixes.
pub trait ApplyField {
    /// The type an apply configuration's field holds.
    type Configuration: Clone + Debug + PartialEq + Serialize + DeserializeOwned;
}

/// A type an apply configuration holds as it is: k8s-openapi's types (each implements
/// `DeepMerge`), `String`, `bool`, `i32`, `i64`, `f64`, `serde_json::Value` and timestamps.
///
/// It stands between [`ApplyField`] and `DeepMerge` so that a type which is neither gets a
/// message that names the fix (the compiler reports the last trait it could not find, and
/// `DeepMerge`'s impls are hidden from it below), not "`DeepMerge` is not implemented".
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no apply configuration",
    label = "a field of an API type, so part of its apply configuration",
    note = "a type of your crate: derive `Codegen` on `{Self}` to generate its apply configuration; a type of another crate: tag the field `+k8s:applyconfiguration-gen=false` to apply its value whole"
)]
pub trait AppliedWhole: Clone + Debug + PartialEq + Serialize + DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T> AppliedWhole for T where T: k8s_openapi::DeepMerge + Clone + Debug + PartialEq + Serialize + DeserializeOwned {}

impl<T: AppliedWhole> ApplyField for T {
    type Configuration = T;
}

/// The options of an apply (Go's `metav1.ApplyOptions`): the field manager is required, and
/// taking fields other managers own (`force`) is asked for explicitly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Who applies: the manager that owns what the apply sets.
    pub field_manager: String,
    /// Take the fields other managers own instead of failing with a conflict.
    pub force: bool,
    /// Validate and answer without storing anything.
    pub dry_run: bool,
}

impl ApplyOptions {
    /// An apply by `field_manager` that fails on conflicts.
    pub fn new(field_manager: impl Into<String>) -> Self {
        Self {
            field_manager: field_manager.into(),
            force: false,
            dry_run: false,
        }
    }

    /// Takes the fields other managers own (`force=true`), as a controller that is the one
    /// authority over them does.
    #[must_use]
    pub fn force(mut self) -> Self {
        self.force = true;
        self
    }

    /// Sends the apply as a dry run.
    #[must_use]
    pub fn dry_run(mut self) -> Self {
        self.dry_run = true;
        self
    }

    /// The `kube` parameters of the patch that carries the apply.
    pub fn patch_params(&self) -> PatchParams {
        PatchParams {
            dry_run: self.dry_run,
            force: self.force,
            field_manager: Some(self.field_manager.clone()),
            field_validation: None,
        }
    }
}

/// The error of an apply whose configuration names no object: client-go's "name must be
/// provided to Apply", as a `kube::Error`.
pub fn missing_name(kind: &str) -> kube::Error {
    kube::Error::BuildRequest(kube::core::request::Error::Validation(format!(
        "{kind}ApplyConfiguration.metadata.name must be provided to apply"
    )))
}
