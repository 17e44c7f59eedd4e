use codegen_macros::Codegen;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

mod v1 {
    use super::*;

    /// +genclient
    #[derive(Codegen)]
    pub struct Thing {
        pub metadata: ObjectMeta,
    }
}

fn main() {}
