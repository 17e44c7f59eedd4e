use codegen_macros::Codegen;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

mod v1 {
    use super::*;

    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen)]
    pub struct Thing {
        metadata: ObjectMeta,
    }
}

fn main() {}
