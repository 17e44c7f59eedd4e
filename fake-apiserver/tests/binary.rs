//! The `fake-apiserver` binary, as kubectl users and other-language tests run it: it prints its
//! URL, writes a working kubeconfig, answers on loopback, and stops cleanly on SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use k8s_openapi::api::core::v1::Namespace;
use kube::Api;

#[tokio::test]
async fn binary_should_serve_until_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fake-apiserver"))
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut url = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let url = url.trim();
    assert!(url.starts_with("https://127.0.0.1:"), "HTTPS, as kube-apiserver: {url}");
    let text = std::fs::read_to_string(&kubeconfig).unwrap();
    assert!(text.contains(url));
    let kubeconfig = kube::config::Kubeconfig::from_yaml(&text).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    let get = |config: kube::Config| async move {
        let client = kube::Client::try_from(config).unwrap();
        Api::<Namespace>::all(client).get("default").await
    };
    let default = get(config.clone()).await.unwrap();
    assert_eq!(default.metadata.name.as_deref(), Some("default"));
    // Authentication and RBAC are on: no token is the anonymous user, an unknown one is refused.
    let mut anonymous = config.clone();
    anonymous.auth_info.token = None;
    match get(anonymous).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 403);
            assert!(
                status
                    .message
                    .contains(r#"User "system:anonymous" cannot get resource "namespaces""#),
                "{status:?}"
            );
        }
        other => panic!("expected 403, got {other:?}"),
    }
    let mut stranger = config;
    stranger.auth_info.token = Some("wrong".to_owned().into());
    assert!(matches!(get(stranger).await, Err(kube::Error::Api(status)) if status.code == 401));

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert!(child.wait().unwrap().success(), "SIGTERM is a clean stop");
}

#[test]
fn binary_should_refuse_a_non_loopback_address() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_fake-apiserver"))
        .arg("--kubeconfig")
        .arg(dir.path().join("kubeconfig"))
        .args(["--addr", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("loopback only"), "{stderr}");
}
