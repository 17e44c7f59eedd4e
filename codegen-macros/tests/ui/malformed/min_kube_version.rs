use codegen_macros::Codegen;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

mod v1 {
    use super::*;

    /// A minimum older than supported.
    ///
    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[codegen(min_kube_version = "1.27")]
    pub struct Thing {
        pub api_version: codegen_runtime::ApiVersion<Self>,
        pub kind: codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
    }
}

fn main() {}
