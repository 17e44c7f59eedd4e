//! The `example-group.hyphens.dev` API group: code-generator's edge cases, in two versions.

pub mod v1;
pub mod v2;
