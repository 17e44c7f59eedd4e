//! A derived `+kubebuilder:object:root=true` type gets its CRD: the schema from schemars, the
//! markers of its own fields applied, subresources and columns from its type markers, and the
//! in-memory API server (which checks CRDs as kube-apiserver does) serves it.

mod v1 {
    use codegen_macros::Codegen;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// Widget is a derived custom resource.
    ///
    /// +genclient
    /// +groupName=example.dev
    /// +kubebuilder:object:root=true
    /// +kubebuilder:subresource:status
    /// +kubebuilder:resource:shortName=wd,categories=all
    /// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=".size"
    #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    pub struct Widget {
        /// The API version, always written.
        #[serde(rename = "apiVersion")]
        pub api_version: ::codegen_runtime::ApiVersion<Self>,
        /// The kind, always written.
        pub kind: ::codegen_runtime::Kind<Self>,
        /// Standard object metadata.
        pub metadata: ObjectMeta,
        /// How big.
        ///
        /// +kubebuilder:validation:Minimum=1
        /// +kubebuilder:default=3
        #[serde(default)]
        pub size: i32,
        /// What happened.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub status: Option<WidgetStatus>,
    }

    /// What the widget is.
    #[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    pub struct WidgetStatus {
        /// Ready or not.
        pub ready: bool,
    }
}

use fake_apiserver::FakeApiServer;
use kube::CustomResourceExt;
use kube::api::{Api, ObjectMeta, PostParams};
use v1::Widget;

#[test]
fn a_derived_root_type_should_have_its_crd() {
    let crd = Widget::crd();
    assert_eq!(Widget::crd_name(), "widgets.example.dev");
    assert_eq!(Widget::shortnames(), ["wd"]);
    assert_eq!(crd.spec.names.categories.as_deref(), Some(&["all".to_owned()][..]));
    let version = &crd.spec.versions[0];
    assert_eq!(version.name, "v1", "the module's name");
    assert!(version.subresources.as_ref().unwrap().status.is_some());
    assert_eq!(
        version.additional_printer_columns.as_ref().unwrap()[0].json_path,
        ".size"
    );
    let schema = serde_json::to_value(version.schema.as_ref().unwrap().open_api_v3_schema.as_ref().unwrap()).unwrap();
    assert_eq!(schema["properties"]["size"]["minimum"], 1.0);
    assert_eq!(schema["properties"]["size"]["default"], 3);
}

#[tokio::test]
async fn the_in_memory_api_server_should_serve_it() {
    let server = FakeApiServer::builder().crd(&Widget::crd()).build();
    let api: Api<Widget> = Api::namespaced(server.client(), "default");
    let mut widget = Widget {
        metadata: ObjectMeta {
            name: Some("w".into()),
            ..ObjectMeta::default()
        },
        ..Widget::default()
    };
    // The marker's minimum is enforced by the server.
    let error = api.create(&PostParams::default(), &widget).await.unwrap_err();
    assert!(
        error.to_string().contains("should be greater than or equal to 1"),
        "{error}"
    );
    widget.size = 5;
    let created = api.create(&PostParams::default(), &widget).await.unwrap();
    assert_eq!(created.size, 5);
}
