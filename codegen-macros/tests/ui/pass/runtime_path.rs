//! A crate that re-exports the runtime names it in the derive and in clientset!.
#![deny(warnings)]

mod rt {
    pub use codegen_runtime::*;
}

mod apis {
    pub mod example {
        pub mod v1 {
            use codegen_macros::Codegen;
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

            /// +genclient
            /// +groupName=example.dev
            #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
            #[codegen(runtime = crate::rt)]
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
        #![codegen(runtime = crate::rt)]
        "example.dev" => crate::apis::example::v1 { Thing },
    }
}

fn main() {
    let _ = client::Clientset::new;
    let _ = apis::example::v1::ThingInformer::new;
}
