//! Test fixtures: a VirtualMachine custom resource shaped like controller101's, and helpers.

use fake_apiserver::FakeApiServer;
use http_body_util::BodyExt;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tower::ServiceExt;

/// controller101's VirtualMachine, with a status subresource.
#[derive(CustomResource, Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[kube(
    group = "cloudnative.tw",
    version = "v1alpha1",
    kind = "VirtualMachine",
    namespaced,
    status = "VirtualMachineStatus",
    shortname = "vm",
    printcolumn = r#"{"name":"Status","type":"string","jsonPath":".status.phase"}"#,
    printcolumn = r#"{"name":"CPU","type":"number","jsonPath":".status.server.usage.cpu"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
pub struct VirtualMachineSpec {
    pub resource: VirtualMachineResource,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
pub struct VirtualMachineResource {
    pub cpu: i64,
    pub memory: String,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
pub struct VirtualMachineStatus {
    pub phase: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerStatus>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
pub struct ServerStatus {
    pub usage: ServerUsage,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
pub struct ServerUsage {
    pub cpu: f64,
    pub memory: f64,
}

/// A server with the VirtualMachine CRD installed.
pub fn server() -> FakeApiServer {
    FakeApiServer::builder().crd(&VirtualMachine::crd()).build()
}

/// [`server`] without what a fresh cluster holds (the bootstrap RBAC, `default/kubernetes`, each
/// namespace's `default` ServiceAccount and `kube-root-ca.crt`), for tests that count every
/// object of a namespace.
pub fn empty_server() -> FakeApiServer {
    FakeApiServer::builder()
        .crd(&VirtualMachine::crd())
        .bootstrap(false)
        .build()
}

pub fn vm(name: &str, cpu: i64) -> VirtualMachine {
    let mut vm = VirtualMachine::new(
        name,
        VirtualMachineSpec {
            resource: VirtualMachineResource {
                cpu,
                memory: "1Gi".into(),
            },
        },
    );
    vm.metadata.namespace = None;
    vm
}

pub fn vms(server: &FakeApiServer) -> Api<VirtualMachine> {
    Api::namespaced(server.client(), "default")
}

pub fn configmap(name: &str, labels: &[(&str, &str)]) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(labels.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect()),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    }
}

pub async fn create_configmaps(api: &Api<ConfigMap>, count: usize, labels: &[(&str, &str)]) {
    for i in 0..count {
        api.create(&PostParams::default(), &configmap(&format!("cm-{i:03}"), labels))
            .await
            .unwrap();
    }
}

/// Polls `check` every 50 ms until it holds, as a client of a real cluster waits for the
/// controllers (the fake server's react after its controller delay); fails after 10 s.
pub async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while !check().await {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Waits until the CRD `name` is established, as a client of a cluster must before it uses the
/// CRD's kind.
pub async fn established(client: kube::Client, name: &str) {
    let crds: Api<CustomResourceDefinition> = Api::all(client);
    eventually("the CRD is established", || async {
        let crd = crds.get(name).await.unwrap();
        let conditions = crd.status.and_then(|s| s.conditions).unwrap_or_default();
        conditions
            .iter()
            .any(|c| c.type_ == "Established" && c.status == "True")
    })
    .await;
}

/// The `kube::Error::Api` response of a failed call.
pub fn api_error<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> kube::core::Status {
    match result {
        Err(kube::Error::Api(status)) => *status,
        other => panic!("expected an API error, got {other:?}"),
    }
}

/// One answer: code, `Warning` headers and body.
pub struct Answer {
    pub code: u16,
    pub warnings: Vec<String>,
    pub body: Value,
}

/// Sends one request through the server's HTTP service and reads its answer.
pub async fn send(server: &FakeApiServer, method: &str, uri: &str, content_type: &str, body: &str) -> Answer {
    let request = http::Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", content_type)
        .body(http_body_util::Full::new(bytes::Bytes::from(body.to_owned())))
        .unwrap();
    let response = server.service().oneshot(request).await.unwrap();
    let code = response.status().as_u16();
    let warnings = response
        .headers()
        .get_all("warning")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Answer {
        code,
        warnings,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    }
}
