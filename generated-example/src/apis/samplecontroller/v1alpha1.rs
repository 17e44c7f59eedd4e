//! Version v1alpha1 of the `samplecontroller.k8s.io` API: sample-controller's Foo.
//!
//! +k8s:deepcopy-gen=package
//! +groupName=samplecontroller.k8s.io

use codegen_runtime::{ApiVersion, Kind};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Foo is a specification for a Foo resource.
///
/// +genclient
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.availableReplicas
/// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=unapproved, experimental-only; please get an approval from Kubernetes API reviewers if you're trying to develop a CRD in the *.k8s.io or *.kubernetes.io groups"
/// +kubebuilder:printcolumn:name="Deployment",type=string,JSONPath=".spec.deploymentName"
/// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=".spec.replicas"
/// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=".status.availableReplicas"
/// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
#[derive(Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Foo {
    /// `samplecontroller.k8s.io/v1alpha1`, written on every Foo sent (Go's `metav1.TypeMeta`).
    pub api_version: ApiVersion<Self>,
    /// `Foo`, written on every Foo sent.
    pub kind: Kind<Self>,
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// The Deployment the Foo wants.
    pub spec: FooSpec,
    /// What the controller observed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<FooStatus>,
}

/// FooSpec is the spec for a Foo resource.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooSpec {
    /// The name of the Deployment the Foo owns.
    ///
    /// +kubebuilder:validation:MaxLength=253
    pub deployment_name: String,
    /// How many replicas the Deployment runs.
    ///
    /// +optional
    /// +kubebuilder:default=1
    /// +kubebuilder:validation:Minimum=1
    /// +kubebuilder:validation:Maximum=10
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
}

/// FooStatus is the status for a Foo resource.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FooStatus {
    /// Available replicas of the Deployment.
    pub available_replicas: i32,
}
