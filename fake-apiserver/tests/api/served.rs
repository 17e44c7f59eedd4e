//! The served form: HTTP on loopback with a kubeconfig.

use fake_apiserver::FakeApiServer;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};

use crate::common::*;

#[tokio::test]
async fn served_server_should_work_through_a_kubeconfig() {
    let server = FakeApiServer::new();
    let served = server.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeconfig");
    served.write_kubeconfig(&path).unwrap();

    let kubeconfig = Kubeconfig::read_from(&path).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .unwrap();
    let client = kube::Client::try_from(config).unwrap();
    let configmaps: Api<ConfigMap> = Api::default_namespaced(client);
    configmaps
        .create(&PostParams::default(), &configmap("over-http", &[]))
        .await
        .unwrap();
    assert!(
        Api::<ConfigMap>::default_namespaced(server.client())
            .get("over-http")
            .await
            .is_ok()
    );
    let missing = api_error(configmaps.get("missing").await);
    assert_eq!(missing.code, 404);
}
