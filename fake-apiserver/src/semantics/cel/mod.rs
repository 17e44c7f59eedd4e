//! `x-kubernetes-validations`: CEL rules compiled when a CRD is written and evaluated when its
//! objects are (`apiextensions-apiserver/pkg/apiserver/schema/cel/{compilation,validation}.go`),
//! in the environments of the server's minor (`environment.rs`; cel-go v0.16.1 on 1.28, v0.20.1
//! on 1.31). The `cel` crate parses and evaluates; the checker, the AST validators, the cost
//! estimator and Kubernetes' libraries are ported here.

pub(crate) mod admission;
pub(crate) mod admission_runtime;
mod ast_validators;
mod checker;
mod checker_calls;
pub(crate) mod compile;
mod cost;
mod decl_type;
mod declarations;
mod environment;
mod field_path;
mod issues;
mod list_equality;
pub(crate) mod policy_type_check;
mod runtime_library;
mod types;
mod validator;
mod values;

use std::sync::{Arc, OnceLock};

use serde_json::Value;

pub(crate) use compile::{Loader, Preexisting};
pub(crate) use field_path::normalize as normalize_field_path;
pub(crate) use field_path::resolve as resolve_field_path;
pub(crate) use validator::{At, Ratchet, Validator};

/// The compiled rules of a resource's schema, built on first use and shared by the clones of
/// its `ResourceInfo` (a changed schema comes with a new `ResourceInfo`, so new rules), for
/// the minor of the server that serves it (`None` outside a server: 1.28's, the first
/// modelled).
#[derive(Clone, Default)]
pub struct CompiledRules {
    minor: Option<u32>,
    validator: Arc<OnceLock<Option<Validator>>>,
}

impl CompiledRules {
    /// The rules a server of `minor` compiles, in the environment of its stored expressions.
    pub(crate) fn for_minor(minor: u32) -> Self {
        Self {
            minor: Some(minor),
            validator: Arc::default(),
        }
    }

    /// The validator of `schema`, compiled the first time; `None` when no node has rules.
    pub(crate) fn validator(&self, schema: &Value) -> Option<&Validator> {
        let minor = self.minor.unwrap_or(FIRST_MINOR);
        self.validator.get_or_init(|| validator::build(schema, minor)).as_ref()
    }
}

/// The first minor whose CEL environments are modelled.
const FIRST_MINOR: u32 = 28;

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
