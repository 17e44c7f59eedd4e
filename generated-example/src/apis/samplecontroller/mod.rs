//! The `samplecontroller.k8s.io` API group.

pub mod v1alpha1;
