//! Version v1alpha1 of the `samplecontroller.k8s.io` API: sample-controller's Foo.
//!
//! +k8s:deepcopy-gen=package
//! +groupName=samplecontroller.k8s.io

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

/// Foo is a specification for a Foo resource.
///
/// +genclient
/// +kubebuilder:subresource:status
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Foo {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// The Deployment the Foo wants.
    pub spec: FooSpec,
    /// What the controller observed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<FooStatus>,
}

/// FooSpec is the spec for a Foo resource.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FooSpec {
    /// The name of the Deployment the Foo owns.
    pub deployment_name: String,
    /// How many replicas the Deployment runs.
    ///
    /// +optional
    /// +kubebuilder:validation:Minimum=1
    /// +kubebuilder:validation:Maximum=10
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
}

/// FooStatus is the status for a Foo resource.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FooStatus {
    /// Available replicas of the Deployment.
    pub available_replicas: i32,
}
