//! Runtime used by kube-codegen generated code and controllers.
//!
//! - [`fake`]: an in-memory Kubernetes API server that runs under the real `kube::Client`.

pub mod fake;
