mod apis {
    pub mod example {
        pub mod v1 {
            use codegen_macros::Codegen;
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

            /// +genclient
            /// +groupName=example.dev
            #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
            pub struct Thing {
                pub metadata: ObjectMeta,
            }
        }
    }
}

codegen_macros::clientset! {
    "other.dev" => crate::apis::example::v1 { Thing },
}

fn main() {}
