//! A version whose types have no informer (no list or watch) compiles without warnings.
#![deny(warnings)]

mod apis {
    pub mod example {
        pub mod v1 {
            use codegen_macros::Codegen;
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

            /// +genclient
            /// +genclient:onlyVerbs=create,get
            /// +groupName=example.dev
            #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
            pub struct Ticket {
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
        "example.dev" => crate::apis::example::v1 { Ticket },
    }
}

fn main() {
    let _ = client::Clientset::new;
    let _ = client::SharedInformerFactory::new;
}
