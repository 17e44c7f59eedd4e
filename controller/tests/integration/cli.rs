//! The binary as a user meets it: `--embedded` reconciles the examples with no cluster and
//! exits 0 on SIGTERM; bad flags, a missing kubeconfig, an unreachable server and missing CRDs
//! are one clear line and a non-zero exit, never a panic.

use crate::common;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{Spawned, terminate};
use fake_apiserver::FakeApiServer;
use generated_example::apis::cloudnative::v1alpha1::VirtualMachine;
use generated_example::apis::samplecontroller::v1alpha1::Foo;
use k8s_openapi::api::apps::v1::Deployment;
use kube::Api;

fn controller(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_controller"))
        .args(args)
        .env_remove("KUBECONFIG")
        .env("HOME", "/nonexistent")
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn bad_flags_and_missing_config_should_be_one_clear_error() {
    let output = controller(&["--threads", "zero"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("invalid value 'zero' for '--threads"),
        "{}",
        stderr(&output)
    );
    let output = controller(&["--leader-elect-lease-duration", "soon"]);
    assert!(stderr(&output).contains("is not a duration"), "{}", stderr(&output));
    let output = controller(&["--kubeconfig", "/nonexistent/kubeconfig"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(
        text.starts_with("error: cannot read kubeconfig /nonexistent/kubeconfig"),
        "{text}"
    );
    assert!(!text.contains("panicked"), "{text}");
    let output = controller(&["--leader-elect-renew-deadline", "20s"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("check the --leader-elect-* flags"),
        "{}",
        stderr(&output)
    );
    let output = controller(&["--version"]);
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("controller "));
}

#[test]
fn an_unreachable_server_should_be_named() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    // Port 1 on loopback: nothing listens there.
    let text = "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:1\n\
                contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user: {}\n";
    std::fs::write(&kubeconfig, text).unwrap();
    let output = controller(&["--kubeconfig", kubeconfig.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(
        text.contains("error: cannot reach the API server at http://127.0.0.1:1/"),
        "{text}"
    );
    // --master alone, with no kubeconfig anywhere, is enough (client-go's BuildConfigFromFlags).
    let output = controller(&["--master", "http://127.0.0.1:1"]);
    assert!(
        stderr(&output).contains("cannot reach the API server at http://127.0.0.1:1/"),
        "{}",
        stderr(&output)
    );
    let output = controller(&["--kubeconfig", kubeconfig.to_str().unwrap(), "--master", "not a url"]);
    assert!(
        stderr(&output).contains("--master \"not a url\" is not a URL"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_without_the_crds_should_say_how_to_install_them() {
    let server = FakeApiServer::new();
    let dir = tempfile::tempdir().unwrap();
    let output = run_against(&server, dir.path()).await;
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(
        text.contains(
            "does not serve virtualmachines.cloudnative.tw: install the CRDs with `kubectl apply -f deploy/crds/`"
        ),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_should_reconcile_the_examples_and_exit_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let probes = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    let child = Spawned::new(
        Command::new(env!("CARGO_BIN_EXE_controller"))
            .args(["--embedded", "--probe-address", &probes, "--embedded-kubeconfig"])
            .arg(&kubeconfig)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while !kubeconfig.exists() {
        assert!(started.elapsed() < Duration::from_secs(20), "no kubeconfig written");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(&kubeconfig).unwrap(),
        &kube::config::KubeConfigOptions::default(),
    )
    .await
    .unwrap();
    let client = kube::Client::try_from(config).unwrap();
    let (vms, foos) = (
        Api::<VirtualMachine>::default_namespaced(client.clone()),
        Api::<Foo>::default_namespaced(client.clone()),
    );
    let deployments = Api::<Deployment>::default_namespaced(client);
    loop {
        let vm = vms.get_opt("test-vm").await.unwrap();
        let foo = foos.get_opt("example-foo").await.unwrap();
        let deployment = deployments.get_opt("example-foo").await.unwrap();
        let active = vm.and_then(|v| v.status).is_some_and(|s| s.phase == "Active");
        let available = foo.and_then(|f| f.status).is_some_and(|s| s.available_replicas == 1);
        if active && available && deployment.is_some() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the examples did not converge"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let ready = get(&probes, "/readyz").await;
    assert!(ready.starts_with("HTTP/1.1 200"), "{ready}");
    let metrics = get(&probes, "/metrics").await;
    for series in [
        "workqueue_adds_total{name=\"VirtualMachine\"}",
        "controller_reconcile_total{controller=\"Foo\",result=\"success\"}",
        "controller_reconcile_duration_seconds_count{controller=\"VirtualMachine\"}",
        "leader_election_master_status{name=\"kube-codegen-controller\"} 1",
    ] {
        assert!(metrics.contains(series), "{series} missing from\n{metrics}");
    }
    let output = terminate(child.into_child()).await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("shut down cleanly"));
}

/// A plain HTTP/1.1 GET of `path`: the response's head and body.
async fn get(address: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let (address, path) = (address.to_owned(), path.to_owned());
    tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(&address).unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_credentials_and_a_malformed_kubeconfig_should_be_one_line() {
    let server = common::server();
    server.prepend_reactor("list", "virtualmachines", |_| {
        Some(Err(fake_apiserver::ApiStatus::forbidden(
            "virtualmachines.cloudnative.tw is forbidden: User \"system:anonymous\" cannot list resource \"virtualmachines\"",
        )))
    });
    let dir = tempfile::tempdir().unwrap();
    let output = run_against(&server, dir.path()).await;
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(text.contains("refused the credentials (403"), "{text}");
    assert!(
        text.contains("check the kubeconfig's user or the ServiceAccount's RBAC"),
        "{text}"
    );
    assert_eq!(text.lines().filter(|l| l.starts_with("error:")).count(), 1, "{text}");

    let malformed = dir.path().join("malformed");
    std::fs::write(
        &malformed,
        "apiVersion: v1\nclusters: [this is not: a list of clusters\n",
    )
    .unwrap();
    let output = controller(&["--kubeconfig", malformed.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stderr(&output);
    assert!(text.starts_with("error: cannot read kubeconfig"), "{text}");
    assert!(!text.contains("panicked"), "{text}");
}

/// Runs the binary against `server`, served on loopback with a kubeconfig in `dir`.
async fn run_against(server: &FakeApiServer, dir: &std::path::Path) -> Output {
    let served = server.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let kubeconfig = dir.join("kubeconfig");
    served.write_kubeconfig(&kubeconfig).unwrap();
    let path = kubeconfig.to_str().unwrap().to_owned();
    tokio::task::spawn_blocking(move || controller(&["--kubeconfig", &path]))
        .await
        .unwrap()
}

#[test]
fn a_spawned_controller_should_not_outlive_a_failed_test() {
    let spawned = Spawned::new(
        Command::new(env!("CARGO_BIN_EXE_controller"))
            .args(["--embedded", "--probe-address", "127.0.0.1:0"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let pid = spawned.id().to_string();
    // A failing assertion unwinds past the guard, as here.
    let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let _running = spawned;
        panic!("the test failed");
    }));
    assert!(failed.is_err());
    let alive = Command::new("kill")
        .args(["-0", &pid])
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(!alive.success(), "the controller {pid} is still running");
}
