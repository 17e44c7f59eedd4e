//! kubectl against the served fake: apply a CRD and a custom resource, `get` with the CRD's
//! printer columns, `get -w` seeing a change, re-apply, server-side apply, delete.
//!
//! kubectl comes from Debian's packages (`hack/test.sh` installs it); without it the test is
//! skipped locally and fails under CI, so CI always runs it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use fake_apiserver::{FakeApiServer, ServedApiServer};
use kube::CustomResourceExt;
use kube::api::{Patch, PatchParams};
use serde_json::json;

use crate::common::*;

/// kubectl, or `None` when it is not installed outside CI (the test is then skipped; under CI
/// it fails, so CI always runs it).
fn kubectl_or_skip() -> Option<PathBuf> {
    let found = find_kubectl();
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "kubectl is required under CI: hack/test.sh installs it"
        );
        eprintln!("skipped: kubectl not found (hack/test.sh installs it)");
    }
    found
}

fn find_kubectl() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("kubectl"))
        .find(|candidate| candidate.is_file())
}

struct Kubectl {
    binary: PathBuf,
    kubeconfig: PathBuf,
    cache: PathBuf,
}

impl Kubectl {
    /// kubectl with a kubeconfig for `served` and a discovery cache, both in `dir`.
    fn for_served(binary: PathBuf, served: &ServedApiServer, dir: &Path) -> Self {
        let kubeconfig = dir.join("kubeconfig");
        served.write_kubeconfig(&kubeconfig).unwrap();
        Kubectl {
            binary,
            kubeconfig,
            cache: dir.join("cache"),
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.binary);
        command
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .arg("--cache-dir")
            .arg(&self.cache)
            .args(args);
        command
    }

    /// Runs kubectl to completion off the async runtime; returns stdout, failing on a non-zero exit.
    async fn run(&self, args: &[&str]) -> String {
        let mut command = self.command(args);
        let description = format!("kubectl {}", args.join(" "));
        let output = tokio::task::spawn_blocking(move || command.output())
            .await
            .unwrap()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            output.status.success(),
            "{description} failed\nstdout: {stdout}\nstderr: {stderr}"
        );
        stdout
    }
}

fn write_json(dir: &Path, name: &str, value: &serde_json::Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_should_apply_get_watch_and_delete() {
    let Some(binary) = kubectl_or_skip() else {
        return;
    };
    let server = FakeApiServer::new();
    let served = server.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubectl = Kubectl::for_served(binary, &served, dir.path());

    let crd = write_json(
        dir.path(),
        "crd.yaml",
        &serde_json::to_value(VirtualMachine::crd()).unwrap(),
    );
    let out = kubectl.run(&["apply", "-f", &crd]).await;
    assert!(
        out.contains("customresourcedefinition.apiextensions.k8s.io/virtualmachines.cloudnative.tw created"),
        "{out}"
    );
    // As on a cluster, a new CRD serves its kind once it is established. (`kubectl wait`
    // fails on the `conditions: null` kube-apiserver keeps until then.)
    established(server.client(), "virtualmachines.cloudnative.tw").await;

    let manifest = |cpu: i64| {
        json!({ "apiVersion": "cloudnative.tw/v1alpha1", "kind": "VirtualMachine",
                "metadata": { "name": "test-vm" }, "spec": { "resource": { "cpu": cpu, "memory": "1Gi" } } })
    };
    let vm_file = write_json(dir.path(), "vm.yaml", &manifest(2));
    let out = kubectl.run(&["apply", "-f", &vm_file]).await;
    assert!(out.contains("virtualmachine.cloudnative.tw/test-vm created"), "{out}");

    let api = vms(&server);
    let status = json!({ "status": { "phase": "Active", "server": { "usage": { "cpu": 12.5, "memory": 30.0 } } } });
    api.patch_status("test-vm", &PatchParams::default(), &Patch::Merge(status))
        .await
        .unwrap();
    let out = kubectl.run(&["get", "vm"]).await;
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(lines[0], ["NAME", "STATUS", "CPU", "AGE"], "{out}");
    assert_eq!(lines[1][..3], ["test-vm", "Active", "12.5"], "{out}");

    // `get -w` prints the current row, then every change.
    let mut watch = kubectl
        .command(&["get", "vm", "-w"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (lines_tx, lines_rx) = mpsc::channel();
    let stdout = watch.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let next_line = || {
        lines_rx
            .recv_timeout(Duration::from_secs(20))
            .expect("kubectl get -w printed a line")
    };
    assert!(next_line().starts_with("NAME"));
    assert!(next_line().contains("Active"));
    let failed = json!({ "status": { "phase": "Failed" } });
    api.patch_status("test-vm", &PatchParams::default(), &Patch::Merge(failed))
        .await
        .unwrap();
    let changed = tokio::task::spawn_blocking(move || {
        loop {
            let line = lines_rx
                .recv_timeout(Duration::from_secs(20))
                .expect("kubectl get -w printed the change");
            if line.contains("Failed") {
                return line;
            }
        }
    });
    assert!(changed.await.unwrap().starts_with("test-vm"));
    watch.kill().unwrap();
    let _ = watch.wait();

    let vm_file = write_json(dir.path(), "vm.yaml", &manifest(4));
    let out = kubectl.run(&["apply", "-f", &vm_file]).await;
    assert!(
        out.contains("virtualmachine.cloudnative.tw/test-vm configured"),
        "{out}"
    );
    assert_eq!(api.get("test-vm").await.unwrap().spec.resource.cpu, 4);

    let vm_file = write_json(dir.path(), "vm.yaml", &manifest(6));
    let out = kubectl.run(&["apply", "--server-side", "-f", &vm_file]).await;
    assert!(
        out.contains("virtualmachine.cloudnative.tw/test-vm serverside-applied"),
        "{out}"
    );
    assert_eq!(api.get("test-vm").await.unwrap().spec.resource.cpu, 6);

    let out = kubectl.run(&["delete", "vm", "test-vm"]).await;
    assert!(
        out.contains("virtualmachine.cloudnative.tw \"test-vm\" deleted"),
        "{out}"
    );
    assert!(api_error(api.get("test-vm").await).is_not_found());
    let out = kubectl.run(&["delete", "-f", &crd]).await;
    assert!(out.contains("deleted"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_auth_can_i_should_answer_from_rbac() {
    let Some(binary) = kubectl_or_skip() else {
        return;
    };
    let server = FakeApiServer::builder().authentication(true).build();
    // kubectl sends the kubeconfig's token over TLS only.
    let served = server.serve_tls("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubectl = Kubectl::for_served(binary, &served, dir.path());
    // kubectl answers yes with exit 0 and no with exit 1.
    let can_i = |args: &[&str]| {
        let output = kubectl.command(args).output().unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).trim().to_owned(),
        )
    };
    assert_eq!(
        can_i(&["auth", "can-i", "delete", "nodes"]),
        (Some(0), "yes".to_owned())
    );
    let account = "system:serviceaccount:default:default";
    assert_eq!(
        can_i(&["auth", "can-i", "list", "secrets", "--as", account]),
        (Some(1), "no".to_owned())
    );
    // Every authenticated user may ask what it may do (system:basic-user).
    assert_eq!(
        can_i(&[
            "auth",
            "can-i",
            "create",
            "selfsubjectaccessreviews.authorization.k8s.io",
            "--as",
            account
        ]),
        (Some(0), "yes".to_owned())
    );
    let rules = kubectl.run(&["auth", "can-i", "--list", "--as", account]).await;
    assert!(
        rules.contains("selfsubjectrulesreviews.authorization.k8s.io"),
        "{rules}"
    );
    assert!(!rules.contains("secrets"), "{rules}");
}
