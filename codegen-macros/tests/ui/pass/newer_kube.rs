//! A marker newer than the default minimum compiles once the type raises its minimum, and the
//! CRD carries it.

mod v1 {
    use codegen_macros::Codegen;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    /// A Widget whose CRD has a selectable field.
    ///
    /// +genclient
    /// +groupName=example.dev
    /// +kubebuilder:object:root=true
    /// +kubebuilder:selectablefield:JSONPath=".spec.size"
    #[derive(Codegen, Debug, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "camelCase")]
    #[codegen(min_kube_version = "1.31")]
    pub struct Widget {
        pub api_version: codegen_runtime::ApiVersion<Self>,
        pub kind: codegen_runtime::Kind<Self>,
        pub metadata: ObjectMeta,
        pub spec: WidgetSpec,
    }

    /// The spec.
    #[derive(Codegen, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    pub struct WidgetSpec {
        pub size: String,
    }
}

fn main() {
    use kube::CustomResourceExt;
    let crd = v1::Widget::crd();
    let fields = crd.spec.versions[0].selectable_fields.as_ref().expect("selectable fields");
    assert_eq!(fields[0].json_path, ".spec.size");
    let json = serde_json::to_value(v1::Widget::default()).unwrap();
    assert_eq!(json["apiVersion"], "example.dev/v1");
    assert_eq!(json["kind"], "Widget");
}
