//! The README's "Use it in your crate" example, compiled and run here: a user's own API types
//! with `#[derive(Codegen)]`, applied through their generated apply configurations. The README
//! shows the part between the markers; a test below keeps the two identical.

// README:start
mod apis {
    pub mod v1 {
        use codegen_macros::Codegen;
        use codegen_runtime::{ApiVersion, Kind};
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
        use serde::{Deserialize, Serialize};

        /// A Widget: what the user asks for and what the controller saw.
        ///
        /// +genclient
        /// +groupName=example.dev
        #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct Widget {
            pub api_version: ApiVersion<Self>,
            pub kind: Kind<Self>,
            pub metadata: ObjectMeta,
            pub spec: WidgetSpec,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub status: Option<WidgetStatus>,
        }

        /// Deriving Codegen on a part gives it `Clone` and its apply configuration.
        #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct WidgetSpec {
            pub size: i32,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub color: Option<String>,
        }

        #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct WidgetStatus {
            pub ready: bool,
        }
    }
}

use apis::v1::{
    Widget, WidgetApplyConfiguration, WidgetClient, WidgetSpecApplyConfiguration, WidgetStatusApplyConfiguration,
    extract_widget,
};
use codegen_runtime::ApplyOptions;

/// The user applies the spec; the controller applies the status; the user later changes the
/// color from what it applied, leaving the controller's fields alone.
pub async fn apply_widget(client: kube::Client) -> Result<Widget, Box<dyn std::error::Error>> {
    let widgets = WidgetClient::namespaced(client, "default");
    let spec = WidgetSpecApplyConfiguration::default().size(3).color("blue");
    let desired = WidgetApplyConfiguration::new("w", "default").spec(spec);
    widgets.apply(&desired, &ApplyOptions::new("user")).await?;

    let status = WidgetStatusApplyConfiguration::default().ready(true);
    let observed = WidgetApplyConfiguration::new("w", "default").status(status);
    let widget = widgets
        .apply_status(&observed, &ApplyOptions::new("widget-controller"))
        .await?;

    let mut mine = extract_widget(&widget, "user")?;
    mine.spec = mine.spec.map(|spec| spec.color("green"));
    Ok(widgets.apply(&mine, &ApplyOptions::new("user")).await?)
}
// README:end

#[tokio::test]
async fn the_readme_example_should_apply_over_the_in_memory_server() {
    let server = fake_apiserver::FakeApiServer::new();
    server.register(fake_apiserver::ResourceInfo::of::<Widget>().with_status());
    let widget = apply_widget(server.client()).await.unwrap();
    assert_eq!(widget.spec.size, 3);
    assert_eq!(widget.spec.color.as_deref(), Some("green"));
    assert_eq!(widget.status, Some(apis::v1::WidgetStatus { ready: true }));
}

#[test]
fn the_readme_should_show_this_example() {
    let this = include_str!("user_crate.rs");
    let start = this.find("// README:start\n").unwrap() + "// README:start\n".len();
    let example = &this[start..this.find("// README:end").unwrap()];
    let readme = include_str!("../../../README.md");
    assert!(
        readme.contains(&format!("```rust\n{example}```")),
        "README.md's \"Use it in your crate\" example differs from codegen-macros/tests/integration/user_crate.rs"
    );
}
