//! `x-kubernetes-validations`: CEL rules compiled when a CRD is written and evaluated when its
//! objects are (`apiextensions-apiserver/pkg/apiserver/schema/cel/{compilation,validation}.go`,
//! on cel-go v0.16.1 as kube-apiserver 1.28 vendors it). The `cel` crate parses and evaluates;
//! the checker, the cost estimator and Kubernetes' libraries are ported here.

mod checker;
pub(crate) mod compile;
mod cost;
mod decl_type;
mod declarations;
mod field_path;
mod issues;
mod list_equality;
mod runtime_library;
mod types;
mod validator;
mod values;

use std::sync::{Arc, OnceLock};

use serde_json::Value;

pub(crate) use field_path::normalize as normalize_field_path;
pub(crate) use validator::{At, Validator};

/// The compiled rules of a resource's schema, built on first use and shared by the clones of
/// its `ResourceInfo` (a changed schema comes with a new `ResourceInfo`, so new rules).
#[derive(Clone, Default)]
pub struct CompiledRules(Arc<OnceLock<Option<Validator>>>);

impl CompiledRules {
    /// The validator of `schema`, compiled the first time; `None` when no node has rules.
    pub(crate) fn validator(&self, schema: &Value) -> Option<&Validator> {
        self.0.get_or_init(|| validator::build(schema)).as_ref()
    }
}

impl std::fmt::Debug for CompiledRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompiledRules")
    }
}

impl PartialEq for CompiledRules {
    /// Rules follow the schema they were compiled from, which the resource compares.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
