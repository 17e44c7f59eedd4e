use codegen_macros::Codegen;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

mod v1 {
    use super::*;

    /// A test type.
    ///
    /// +genclient
    /// +genclient:method=Watcher,verb=watch
    /// +groupName=example.dev
    #[derive(Codegen)]
    pub struct Thing {
        pub metadata: ObjectMeta,
        pub replicas: i32,
    }
}

fn main() {}
