//! `apiVersion` and `kind` in request bodies, checked as kube-apiserver checks them (the
//! conformance corpus' `bad-bodies` scenario): a custom resource needs both, a built-in kind
//! defaults absent ones, and neither accepts another kind or group.

use kube::client::Client;
use serde_json::{Value, json};

use crate::common::*;

const VMS: &str = "/apis/cloudnative.tw/v1alpha1/namespaces/default/virtualmachines";
const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

/// Sends `body` as JSON with `method` to `path` (a PATCH as a server-side apply): the answer, or the failure's code, reason,
/// message and details.
async fn send(client: &Client, method: &str, path: &str, body: &Value) -> Result<Value, (u16, String, String)> {
    let content_type = if method == "PATCH" {
        "application/apply-patch+yaml"
    } else {
        "application/json"
    };
    let request = http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type)
        .body(serde_json::to_vec(body).unwrap())
        .unwrap();
    client.request::<Value>(request).await.map_err(|error| match error {
        kube::Error::Api(status) => (status.code, status.reason.clone(), status.message.clone()),
        other => panic!("not an API error: {other}"),
    })
}

fn vm_body() -> Value {
    json!({ "metadata": { "name": "nokind" }, "spec": { "resource": { "cpu": 1, "memory": "1Gi" } } })
}

#[tokio::test]
async fn a_custom_resource_without_kind_or_api_version_should_be_a_bad_request() {
    let server = server();
    let client = server.client();
    let (code, reason, message) = send(&client, "POST", VMS, &vm_body()).await.unwrap_err();
    assert_eq!((code, reason.as_str()), (400, "BadRequest"));
    assert!(
        message.starts_with(
            "the object provided is unrecognized (must be of type VirtualMachine): Object 'Kind' is missing in '{"
        ),
        "{message}"
    );
    assert!(
        message.ends_with(" ...)"),
        "the body is summarized after the message: {message}"
    );

    let mut no_version = vm_body();
    no_version["kind"] = json!("VirtualMachine");
    let (code, _, message) = send(&client, "POST", VMS, &no_version).await.unwrap_err();
    assert_eq!(code, 400);
    assert_eq!(
        message,
        "the API version in the data () does not match the expected API version (cloudnative.tw/v1alpha1)"
    );

    let mut other_group = no_version.clone();
    other_group["apiVersion"] = json!("other.example.com/v1alpha1");
    let (code, _, message) = send(&client, "POST", VMS, &other_group).await.unwrap_err();
    assert_eq!(code, 400);
    assert!(
        message.starts_with("the API version in the data (other.example.com/v1alpha1)"),
        "{message}"
    );
    assert!(
        vms(&server).list(&Default::default()).await.unwrap().items.is_empty(),
        "nothing was stored"
    );
}

#[tokio::test]
async fn a_custom_resource_of_another_kind_should_be_invalid() {
    let server = server();
    let mut gadget = vm_body();
    gadget["apiVersion"] = json!("cloudnative.tw/v1alpha1");
    gadget["kind"] = json!("Gadget");
    let (code, reason, message) = send(&server.client(), "POST", VMS, &gadget).await.unwrap_err();
    assert_eq!((code, reason.as_str()), (422, "Invalid"));
    assert_eq!(
        message,
        r#"Gadget.cloudnative.tw "nokind" is invalid: kind: Invalid value: "Gadget": must be VirtualMachine"#
    );
}

#[tokio::test]
async fn a_custom_resource_update_without_kind_should_be_a_bad_request() {
    let server = server();
    let created = vms(&server)
        .create(&Default::default(), &vm("test-vm", 1))
        .await
        .unwrap();
    let mut body = serde_json::to_value(&created).unwrap();
    let object = body.as_object_mut().unwrap();
    object.remove("kind");
    object.remove("apiVersion");
    let (code, _, message) = send(&server.client(), "PUT", &format!("{VMS}/test-vm"), &body)
        .await
        .unwrap_err();
    assert_eq!(code, 400);
    assert!(message.contains("Object 'Kind' is missing"), "{message}");
}

#[tokio::test]
async fn a_built_in_kind_should_default_absent_type_meta_and_refuse_another() {
    let server = server();
    let client = server.client();
    let created = send(
        &client,
        "POST",
        CONFIGMAPS,
        &json!({ "metadata": { "name": "nokind" }, "data": { "a": "b" } }),
    )
    .await
    .unwrap();
    assert_eq!(
        (created["apiVersion"].as_str(), created["kind"].as_str()),
        (Some("v1"), Some("ConfigMap"))
    );

    let secret = json!({ "apiVersion": "v1", "kind": "Secret", "metadata": { "name": "wrongkind" } });
    let (code, reason, message) = send(&client, "POST", CONFIGMAPS, &secret).await.unwrap_err();
    assert_eq!((code, reason.as_str()), (400, "BadRequest"));
    assert!(
        message.starts_with(r#"Secret in version "v1" cannot be handled as a ConfigMap"#),
        "{message}"
    );

    let apps = json!({ "apiVersion": "apps/v1", "kind": "ConfigMap", "metadata": { "name": "othergroup" } });
    let (code, _, message) = send(&client, "POST", CONFIGMAPS, &apps).await.unwrap_err();
    assert_eq!(code, 400);
    assert!(
        message.contains(r#"no kind "ConfigMap" is registered for version "apps/v1""#),
        "{message}"
    );
}

#[tokio::test]
async fn an_apply_of_another_group_version_or_kind_should_be_a_bad_request() {
    let server = server();
    let client = server.client();
    let apply = |path: &str| format!("{path}?fieldManager=applier");
    let secret = json!({ "apiVersion": "v1", "kind": "Secret", "metadata": { "name": "c1" } });
    let (code, reason, message) = send(&client, "PATCH", &apply(&format!("{CONFIGMAPS}/c1")), &secret)
        .await
        .unwrap_err();
    assert_eq!(
        (code, reason.as_str(), message.as_str()),
        (400, "BadRequest", "invalid object type: /v1, Kind=Secret")
    );

    let mut other_version = vm_body();
    other_version["apiVersion"] = json!("cloudnative.tw/v1");
    other_version["kind"] = json!("VirtualMachine");
    let (code, _, message) = send(&client, "PATCH", &apply(&format!("{VMS}/nokind")), &other_version)
        .await
        .unwrap_err();
    assert_eq!(
        (code, message.as_str()),
        (400, "invalid object type: cloudnative.tw/v1, Kind=VirtualMachine")
    );

    let (code, _, message) = send(&client, "PATCH", &apply(&format!("{VMS}/nokind")), &vm_body())
        .await
        .unwrap_err();
    assert_eq!((code, message.as_str()), (400, "invalid object type: /, Kind="));
    assert!(
        vms(&server).list(&Default::default()).await.unwrap().items.is_empty(),
        "nothing was stored"
    );
}
