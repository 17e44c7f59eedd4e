//! The CRD builder: schemars schemas shaped like controller-gen's, markers merged in, versions
//! merged.

use std::borrow::Cow;

use codegen_runtime::crd::{CrdBuilder, CrdError, merge_versions};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Machine is a test kind.
///
/// +genclient
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
struct Machine {
    /// The API version, always written.
    #[serde(rename = "apiVersion")]
    pub api_version: ::codegen_runtime::ApiVersion<Self>,
    /// The kind, always written.
    pub kind: ::codegen_runtime::Kind<Self>,
    metadata: ObjectMeta,
    spec: MachineSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<MachineStatus>,
}

/// What the machine should be.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MachineSpec {
    /// Memory.
    memory: Quantity,
    /// Replicas.
    ///
    /// +optional
    /// +kubebuilder:validation:Minimum=1
    #[serde(default, skip_serializing_if = "Option::is_none")]
    replicas: Option<i32>,
    /// Disks.
    disk_names: Vec<String>,
}

/// What the machine is.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MachineStatus {
    phase: String,
    last_update_time: Option<Time>,
}

fn static_str(s: &'static str) -> Cow<'static, str> {
    Cow::Borrowed(s)
}

macro_rules! resource {
    ($ty:ty, $version:literal) => {
        impl kube::Resource for $ty {
            type DynamicType = ();
            type Scope = k8s_openapi::NamespaceResourceScope;
            fn kind(_: &()) -> Cow<'_, str> {
                static_str("Machine")
            }
            fn group(_: &()) -> Cow<'_, str> {
                static_str("example.dev")
            }
            fn version(_: &()) -> Cow<'_, str> {
                static_str($version)
            }
            fn plural(_: &()) -> Cow<'_, str> {
                static_str("machines")
            }
            fn meta(&self) -> &ObjectMeta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut ObjectMeta {
                &mut self.metadata
            }
        }
    };
}
resource!(Machine, "v1");

#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
struct MachineV2 {
    metadata: ObjectMeta,
    spec: MachineSpec,
}
resource!(MachineV2, "v2");

fn schema_of(
    crd: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
) -> Value {
    serde_json::to_value(
        crd.spec.versions[0]
            .schema
            .as_ref()
            .unwrap()
            .open_api_v3_schema
            .as_ref()
            .unwrap(),
    )
    .unwrap()
}

#[test]
fn the_builder_should_shape_the_schema_like_controller_gen() {
    let crd = CrdBuilder::for_kind::<Machine>()
        .short_names(&["mc"])
        .categories(&["all"])
        .printer_column("Phase", "string", ".status.phase", Some("The phase"), None, Some(1))
        .status_subresource()
        .scale_subresource(".spec.replicas", ".status.replicas", None)
        .annotation("api-approved.kubernetes.io", "unapproved")
        .merge("/properties/spec/properties/replicas", r#"{"minimum":1}"#, "+Minimum")
        .merge(
            "/properties/spec/properties/diskNames",
            r#"{"x-kubernetes-list-type":"set"}"#,
            "+listType",
        )
        .merge(
            "/properties/spec/properties/diskNames/items",
            r#"{"maxLength":8}"#,
            "+items:MaxLength",
        )
        .required("/properties/spec", "diskNames", false, "+optional")
        .required("/properties/status", "phase", false, "+optional")
        .build()
        .unwrap();
    assert_eq!(crd.metadata.name.as_deref(), Some("machines.example.dev"));
    assert_eq!(
        crd.metadata.annotations.as_ref().unwrap()["api-approved.kubernetes.io"],
        "unapproved"
    );
    assert_eq!(crd.spec.scope, "Namespaced");
    assert_eq!(crd.spec.names.short_names.as_deref(), Some(&["mc".to_owned()][..]));
    assert_eq!(crd.spec.names.list_kind.as_deref(), Some("MachineList"));
    let version = &crd.spec.versions[0];
    assert!(version.served && version.storage);
    let subresources = version.subresources.as_ref().unwrap();
    assert!(subresources.status.is_some());
    assert_eq!(
        subresources.scale.as_ref().unwrap().spec_replicas_path,
        ".spec.replicas"
    );
    assert_eq!(
        version.additional_printer_columns.as_ref().unwrap()[0].priority,
        Some(1)
    );
    let schema = schema_of(&crd);
    assert_eq!(schema["properties"]["metadata"], json!({"type": "object"}));
    assert_eq!(schema["properties"]["apiVersion"]["type"], "string");
    assert_eq!(schema["required"], json!(["spec"]), "metadata is never required");
    assert!(schema.get("title").is_none());
    assert_eq!(
        schema["description"], "Machine is a test kind.",
        "marker lines are dropped"
    );
    let spec = &schema["properties"]["spec"];
    assert_eq!(
        spec["properties"]["replicas"]["minimum"], 1.0,
        "JSONSchemaProps holds numbers as f64"
    );
    assert_eq!(spec["properties"]["diskNames"]["x-kubernetes-list-type"], "set");
    assert_eq!(spec["properties"]["diskNames"]["items"]["maxLength"], 8);
    assert_eq!(spec["properties"]["memory"]["x-kubernetes-int-or-string"], true);
    assert_eq!(spec["required"], json!(["memory"]));
    assert!(schema["properties"]["status"].get("required").is_none());
}

#[test]
fn validations_should_append_and_schemaless_should_replace() {
    let crd = CrdBuilder::for_kind::<Machine>()
        .merge("", r#"{"x-kubernetes-validations":[{"rule":"a"}]}"#, "+XValidation")
        .merge("", r#"{"x-kubernetes-validations":[{"rule":"b"}]}"#, "+XValidation")
        .replace("/properties/spec/properties/memory", "{}", "+Schemaless")
        .merge(
            "/properties/spec/properties/memory",
            r#"{"x-kubernetes-preserve-unknown-fields":true}"#,
            "+PreserveUnknownFields",
        )
        .build()
        .unwrap();
    let schema = schema_of(&crd);
    assert_eq!(
        schema["x-kubernetes-validations"],
        json!([{"rule": "a"}, {"rule": "b"}])
    );
    assert_eq!(
        schema["properties"]["spec"]["properties"]["memory"],
        json!({"x-kubernetes-preserve-unknown-fields": true})
    );
}

#[test]
fn a_patch_that_does_not_fit_should_name_the_marker_and_the_path() {
    let error = CrdBuilder::for_kind::<Machine>()
        .merge(
            "/properties/spec/properties/cpu",
            r#"{"minimum":1}"#,
            "+Minimum on MachineSpec.cpu",
        )
        .build()
        .unwrap_err();
    assert!(matches!(error, CrdError::MissingPath { .. }));
    let message = error.to_string();
    assert!(
        message.contains("/properties/spec/properties/cpu") && message.contains("+Minimum on MachineSpec.cpu"),
        "{message}"
    );
    let error = CrdBuilder::for_kind::<Machine>()
        .merge("/properties/spec", "{not json", "+default")
        .build()
        .unwrap_err();
    assert!(matches!(error, CrdError::InvalidFragment { .. }), "{error}");
}

#[test]
fn versions_should_merge_into_one_crd_with_one_storage_version() {
    let v1 = CrdBuilder::for_kind::<Machine>().build().unwrap();
    let v2 = CrdBuilder::for_kind::<MachineV2>().build().unwrap();
    let merged = merge_versions(vec![v1.clone(), v2.clone()], "v2").unwrap();
    let versions: Vec<(&str, bool)> = merged
        .spec
        .versions
        .iter()
        .map(|v| (v.name.as_str(), v.storage))
        .collect();
    assert_eq!(versions, [("v1", false), ("v2", true)]);
    let error = merge_versions(vec![v1.clone(), v2.clone()], "v3").unwrap_err();
    assert!(error.to_string().contains("no version is named \"v3\""), "{error}");
    let short = CrdBuilder::for_kind::<MachineV2>().short_names(&["m"]).build().unwrap();
    let error = merge_versions(vec![v1, short], "v1").unwrap_err();
    assert!(error.to_string().contains("disagree on the names"), "{error}");
    assert!(merge_versions(vec![], "v1").is_err());
}
