// One bad tag, one error: the type still gets its Clone and clientset! still compiles.
mod apis {
    pub mod example {
        pub mod v1 {
            use codegen_macros::Codegen;
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

            /// +genclient
            /// +genclient:skipVerb=delete
            /// +groupName=example.dev
            #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
            pub struct Thing {
                /// The API version, always written.
                #[serde(rename = "apiVersion")]
                pub api_version: ::codegen_runtime::ApiVersion<Self>,
                /// The kind, always written.
                pub kind: ::codegen_runtime::Kind<Self>,
                pub metadata: ObjectMeta,
            }
        }
    }
}

mod client {
    codegen_macros::clientset! {
        "example.dev" => crate::apis::example::v1 { Thing },
    }
}

fn main() {
    let thing = apis::example::v1::Thing { api_version: Default::default(), kind: Default::default(), metadata: Default::default() };
    let _copy = thing.clone();
    let _ = client::Clientset::new;
}
