use codegen_macros::Codegen;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

mod api {
    use super::*;

    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
    pub struct Thing {
        pub metadata: ObjectMeta,
    }
}

fn main() {}
