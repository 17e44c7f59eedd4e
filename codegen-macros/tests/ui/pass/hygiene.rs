//! Derived and aggregate code compiles with prelude names shadowed and every warning denied.
#![deny(warnings, missing_docs)]

/// The API types.
pub mod apis {
    /// The `example` group.
    pub mod example {
        /// Version v1, with decoys for every prelude name generated code could lean on.
        pub mod v1 {
            #![allow(dead_code)]
            use codegen_macros::Codegen;
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

            struct Result;
            struct Ok;
            struct Err;
            struct Option;
            struct Some;
            struct None;
            struct String;
            struct Vec;
            struct Box;
            struct Clone;
            struct Default;

            /// A namespaced type with every verb.
            ///
            /// +genclient
            /// +groupName=example.dev
            #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
            pub struct Widget {
                /// The API version, always written.
                #[serde(rename = "apiVersion")]
                pub api_version: ::codegen_runtime::ApiVersion<Self>,
                /// The kind, always written.
                pub kind: ::codegen_runtime::Kind<Self>,
                /// Standard object metadata.
                pub metadata: ObjectMeta,
                /// The spec.
                pub spec: WidgetSpec,
            }

            /// The spec of a Widget.
            ///
            /// +k8s:deepcopy-gen=true
            #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
            pub struct WidgetSpec {
                /// A size.
                pub size: i64,
            }

            /// A cluster-scoped, read-only type with a scale method.
            ///
            /// +genclient
            /// +genclient:nonNamespaced
            /// +genclient:readonly
            /// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
            /// +groupName=example.dev
            #[derive(Codegen, Debug, serde::Serialize, serde::Deserialize)]
            pub struct Pool {
                /// The API version, always written.
                #[serde(rename = "apiVersion")]
                pub api_version: ::codegen_runtime::ApiVersion<Self>,
                /// The kind, always written.
                pub kind: ::codegen_runtime::Kind<Self>,
                /// Standard object metadata.
                pub metadata: ObjectMeta,
            }
        }
    }
}

/// The clientset.
pub mod client {
    #![allow(dead_code)]
    struct Result;
    struct Ok;
    struct Option;
    struct String;

    codegen_macros::clientset! {
        "example.dev" => crate::apis::example::v1 { Widget, Pool },
    }
}

fn main() {
    let _ = client::Clientset::new;
}
