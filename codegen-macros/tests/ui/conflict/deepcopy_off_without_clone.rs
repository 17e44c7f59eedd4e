use codegen_macros::Codegen;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

mod v1 {
    use super::*;

    /// A test type.
    ///
    /// +genclient
    /// +k8s:deepcopy-gen=false
    /// +groupName=example.dev
    #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
    pub struct Thing {
        pub metadata: ObjectMeta,
        pub replicas: i32,
    }
}

fn main() {}
