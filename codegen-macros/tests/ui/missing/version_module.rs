use codegen_macros::Codegen;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

mod api {
    use super::*;

    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
    pub struct Thing {
        /// The API version, always written.
        #[serde(rename = "apiVersion")]
        pub api_version: ::codegen_runtime::ApiVersion<Self>,
        /// The kind, always written.
        pub kind: ::codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
    }
}

fn main() {}
