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
    let thing = apis::example::v1::Thing { metadata: Default::default() };
    let _copy = thing.clone();
    let _ = client::Clientset::new;
}
