//! Version v1alpha1 of the `cloudnative.tw` API: controller101's VirtualMachine.
//!
//! +k8s:deepcopy-gen=package
//! +groupName=cloudnative.tw

use codegen_runtime::{ApiVersion, Kind};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// VirtualMachine is a specification for a VirtualMachine resource.
///
/// +genclient
/// +genclient:noStatus
/// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:shortName=vm;vms,categories=all;cloudnative
/// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=".status.phase"
/// +kubebuilder:printcolumn:name="Server",type=string,JSONPath=".status.server.id",priority=1
/// +kubebuilder:printcolumn:name="CPU",type=number,JSONPath=".status.server.usage.cpu"
/// +kubebuilder:printcolumn:name="Memory",type=number,JSONPath=".status.server.usage.memory"
/// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
#[derive(Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VirtualMachine {
    /// `cloudnative.tw/v1alpha1`, written on every VirtualMachine sent (Go's `metav1.TypeMeta`).
    pub api_version: ApiVersion<Self>,
    /// `VirtualMachine`, written on every VirtualMachine sent.
    pub kind: Kind<Self>,
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// What the VirtualMachine should be.
    pub spec: VirtualMachineSpec,
    /// What the controller observed; written with Update, as controller101 does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<VirtualMachineStatus>,
}

/// VirtualMachineSpec is the spec for a VirtualMachine resource.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VirtualMachineSpec {
    /// What to do with the server, e.g. `active`.
    ///
    /// +optional
    #[serde(default)]
    pub action: String,
    /// The resources the server gets.
    pub resource: ResourceRequest,
}

/// ResourceRequest is the resources a VirtualMachine asks for.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceRequest {
    /// CPU, e.g. `2`.
    pub cpu: Quantity,
    /// Memory, e.g. `1Gi`.
    pub memory: Quantity,
    /// Root disk, e.g. `40Gi`; the driver's default when unset.
    ///
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_disk: Option<Quantity>,
}

/// VirtualMachineStatus is the status for a VirtualMachine resource.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VirtualMachineStatus {
    /// Creating, Active, Failed or Terminating.
    ///
    /// +kubebuilder:validation:Enum=Creating;Active;Failed;Terminating
    pub phase: String,
    /// Why the VirtualMachine is in its phase.
    #[serde(default)]
    pub reason: String,
    /// The server behind the VirtualMachine.
    #[serde(default)]
    pub server: ServerStatus,
    /// When the status was last written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_update_time: Option<Time>,
}

/// ServerStatus is the state of the server backing a VirtualMachine.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerStatus {
    /// The driver's server id.
    pub id: String,
    /// The driver's server state.
    pub state: String,
    /// What the server uses.
    pub usage: ResourceUsage,
}

/// ResourceUsage is what a server uses, in percent.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceUsage {
    /// CPU usage.
    pub cpu: f64,
    /// Memory usage.
    pub memory: f64,
}
