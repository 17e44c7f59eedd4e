use codegen_macros::Codegen;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

mod v1 {
    use super::*;

    /// A selectable field, which Kubernetes 1.28 (the default minimum) refuses.
    ///
    /// +genclient
    /// +genclient:noStatus
    /// +groupName=example.dev
    /// +kubebuilder:object:root=true
    /// +kubebuilder:selectablefield:JSONPath=".metadata.labels"
    #[derive(Codegen, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Thing {
        pub api_version: codegen_runtime::ApiVersion<Self>,
        pub kind: codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
    }
}

fn main() {}
