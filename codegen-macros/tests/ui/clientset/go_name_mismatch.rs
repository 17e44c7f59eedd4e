mod apis {
    pub mod example {
        pub mod v1 {
            use codegen_macros::Codegen;
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

            /// +genclient
            /// +groupName=example-group.dev
            #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
            pub struct Thing {
                pub metadata: ObjectMeta,
            }
        }
    }
}

mod client {
    codegen_macros::clientset! {
        "example-group.dev" as Example => crate::apis::example::v1 { Thing },
    }
}

fn main() {}
