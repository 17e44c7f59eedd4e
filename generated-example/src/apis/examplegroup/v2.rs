//! Version v2 of `example-group.hyphens.dev`: a second version in the same group.
//!
//! +groupName=example-group.hyphens.dev
//! +k8s:deepcopy-gen=package

use codegen_runtime::{ApiVersion, Kind};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

/// TestType is namespaced in v2.
///
/// +genclient
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestType {
    /// `example-group.hyphens.dev/v2`, written on every TestType sent (Go's `metav1.TypeMeta`).
    pub api_version: ApiVersion<Self>,
    /// `TestType`, written on every TestType sent.
    pub kind: Kind<Self>,
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// Anything.
    #[serde(default)]
    pub spec: ::std::collections::BTreeMap<::std::string::String, ::std::string::String>,
}
