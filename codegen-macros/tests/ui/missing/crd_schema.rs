// A +kubebuilder:object:root=true type without schemars::JsonSchema: the CRD needs a schema.
mod v1 {
    use codegen_macros::Codegen;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    /// +genclient
    /// +genclient:noStatus
    /// +groupName=example.dev
    /// +kubebuilder:object:root=true
    #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
    pub struct Widget {
        /// The API version, always written.
        #[serde(rename = "apiVersion")]
        pub api_version: ::codegen_runtime::ApiVersion<Self>,
        /// The kind, always written.
        pub kind: ::codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
    }
}

fn main() {}
