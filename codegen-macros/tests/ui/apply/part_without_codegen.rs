//! A kind that applies names a part that does not derive Codegen: the part has no apply
//! configuration, and the error points at it.

use codegen_macros::Codegen;

mod v1 {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    /// +genclient
    /// +groupName=example.dev
    #[derive(Codegen, Debug, Default, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Widget {
        pub api_version: codegen_runtime::ApiVersion<Self>,
        pub kind: codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
        pub spec: WidgetSpec,
    }

    /// A part the user forgot to derive Codegen on.
    #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct WidgetSpec {
        pub size: i32,
    }
}

fn main() {}
