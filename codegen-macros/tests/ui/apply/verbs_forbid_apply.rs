//! A kind whose tags leave out `apply` and `applyStatus` has no apply configuration and no
//! `apply` method; its parts need not derive Codegen.

use codegen_macros::Codegen;

mod v1 {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    /// +genclient
    /// +genclient:skipVerbs=apply,applyStatus
    /// +groupName=example.dev
    #[derive(Codegen, Debug, Default, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Widget {
        pub api_version: codegen_runtime::ApiVersion<Self>,
        pub kind: codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
        pub spec: WidgetSpec,
    }

    /// A part without Codegen: nothing applies it.
    #[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
    pub struct WidgetSpec {
        pub size: i32,
    }
}

async fn apply(widgets: v1::WidgetClient) {
    let config = v1::WidgetApplyConfiguration::new("w", "default");
    let _ = widgets.apply(&config, &codegen_runtime::ApplyOptions::new("me")).await;
}

fn main() {
    let _ = apply;
}
