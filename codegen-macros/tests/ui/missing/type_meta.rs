use codegen_macros::Codegen;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

mod v1 {
    use super::*;

    /// A type that would be sent without `apiVersion` and `kind`.
    ///
    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen, serde::Serialize, serde::Deserialize)]
    pub struct Thing {
        pub metadata: ObjectMeta,
    }
}

fn main() {}
