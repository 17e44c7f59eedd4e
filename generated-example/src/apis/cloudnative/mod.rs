//! The `cloudnative.tw` API group.

pub mod v1alpha1;
