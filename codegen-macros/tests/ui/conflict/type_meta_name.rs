use codegen_macros::Codegen;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

mod v1 {
    use super::*;

    /// `apiVersion` under its Rust name.
    ///
    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen, serde::Serialize, serde::Deserialize)]
    pub struct Thing {
        pub api_version: codegen_runtime::ApiVersion<Self>,
        pub kind: codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
    }
}

fn main() {}
