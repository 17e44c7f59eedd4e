use codegen_macros::Codegen;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

mod v1 {
    use super::*;

    /// A test type.
    ///
    /// +genclient
    /// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get
    /// +groupName=example.dev
    #[derive(Codegen)]
    pub struct Thing {
        /// The API version, always written.
        #[allow(non_snake_case)]
        pub apiVersion: ::codegen_runtime::ApiVersion<Self>,
        /// The kind, always written.
        pub kind: ::codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
        pub replicas: i32,
    }
}

fn main() {}
