//! Version v1 of `example-group.hyphens.dev`: scoping, verb selection, naming and hygiene edge
//! cases after code-generator's examples.
//!
//! +groupName=example-group.hyphens.dev
//! +k8s:deepcopy-gen=package

use codegen_runtime::{ApiVersion, Kind};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

/// ClusterTestType is cluster-scoped and scales through typed extension methods.
///
/// +genclient
/// +genclient:nonNamespaced
/// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
/// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
/// +genclient:method=ApplyScale,verb=apply,subresource=scale,input=k8s.io/api/autoscaling/v1.Scale,result=k8s.io/api/autoscaling/v1.Scale
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTestType {
    /// `example-group.hyphens.dev/v1`, written on every ClusterTestType sent (Go's `metav1.TypeMeta`).
    pub api_version: ApiVersion<Self>,
    /// `ClusterTestType`, written on every ClusterTestType sent.
    pub kind: Kind<Self>,
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// Desired state.
    pub spec: ReplicaSpec,
    /// Observed state.
    #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
    pub status: ::std::option::Option<ReplicaStatus>,
}

/// ReplicaSpec asks for replicas.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplicaSpec {
    /// Desired replicas.
    pub replicas: i32,
}

/// ReplicaStatus reports replicas.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplicaStatus {
    /// Observed replicas.
    pub replicas: i32,
}

/// ReadOnlyType can only be read: get, list, watch.
///
/// +genclient
/// +genclient:readonly
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadOnlyType {
    /// `example-group.hyphens.dev/v1`, written on every ReadOnlyType sent (Go's `metav1.TypeMeta`).
    pub api_version: ApiVersion<Self>,
    /// `ReadOnlyType`, written on every ReadOnlyType sent.
    pub kind: Kind<Self>,
    /// Standard object metadata.
    pub metadata: ObjectMeta,
}

/// CreateAndGetType offers exactly create and get.
///
/// +genclient
/// +genclient:onlyVerbs=create,get
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateAndGetType {
    /// `example-group.hyphens.dev/v1`, written on every CreateAndGetType sent (Go's `metav1.TypeMeta`).
    pub api_version: ApiVersion<Self>,
    /// `CreateAndGetType`, written on every CreateAndGetType sent.
    pub kind: Kind<Self>,
    /// Standard object metadata.
    pub metadata: ObjectMeta,
}

/// UndeletableType offers every verb but the deletes.
///
/// +genclient
/// +genclient:skipVerbs=delete,deleteCollection
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UndeletableType {
    /// `example-group.hyphens.dev/v1`, written on every UndeletableType sent (Go's `metav1.TypeMeta`).
    pub api_version: ApiVersion<Self>,
    /// `UndeletableType`, written on every UndeletableType sent.
    pub kind: Kind<Self>,
    /// Standard object metadata.
    pub metadata: ObjectMeta,
}

/// DNSRecord has a mixed-case kind.
///
/// +genclient
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DNSRecord {
    /// `example-group.hyphens.dev/v1`, written on every DNSRecord sent (Go's `metav1.TypeMeta`).
    pub api_version: ApiVersion<Self>,
    /// `DNSRecord`, written on every DNSRecord sent.
    pub kind: Kind<Self>,
    /// Standard object metadata.
    pub metadata: ObjectMeta,
}

// Hygiene decoys: the generated module glob-imports this one, so generated code must name
// std and core items by absolute path to compile.

/// Not std's Result.
///
/// +k8s:deepcopy-gen=false
pub struct Result;
/// Not std's Ok.
///
/// +k8s:deepcopy-gen=false
pub struct Ok;
/// Not std's Option.
///
/// +k8s:deepcopy-gen=false
pub struct Option;
/// Not std's Some.
///
/// +k8s:deepcopy-gen=false
pub struct Some;
/// Not std's String.
///
/// +k8s:deepcopy-gen=false
pub struct String;
/// Not std's Vec.
///
/// +k8s:deepcopy-gen=false
pub struct Vec;
/// Not std's Clone.
///
/// +k8s:deepcopy-gen=false
pub struct Clone;
