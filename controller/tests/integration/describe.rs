//! `kubectl describe foo` shows the events the Foo controller recorded, as on a cluster: the
//! controller's recorder (kube-runtime's) writes events.k8s.io/v1 Events, kubectl reads core/v1
//! Events by `involvedObject`, and the in-memory API server keeps both as one store.
//!
//! kubectl comes from Debian's packages (`hack/test.sh` installs it); without it the test is
//! skipped locally and fails under CI.

use crate::common;

use std::process::Command;
use std::time::Duration;

use common::{eventually, find_kubectl, foo, server};
use controller::vm::simulated::SimulatedHypervisor;
use controller::{RunOptions, run};
use generated_example::apis::samplecontroller::v1alpha1::Foo;
use kube::Api;
use kube::api::PostParams;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_describe_should_show_the_events_of_a_foo() {
    let Some(kubectl) = find_kubectl() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have kubectl (hack/install-test-deps.sh)"
        );
        eprintln!("kubectl not found; skipped");
        return;
    };
    let fake = server();
    let served = fake.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    served.write_kubeconfig(&kubeconfig).unwrap();

    // The controllers with their real event recorder (no FakeRecorder).
    let shutdown = CancellationToken::new();
    let options = RunOptions::new("describe-test", Arc::new(SimulatedHypervisor::new()));
    let task = tokio::spawn(run(fake.client(), options, shutdown.clone()));
    let foos: Api<Foo> = Api::namespaced(fake.client(), "default");
    foos.create(&PostParams::default(), &foo("example-foo", "example-foo", 1))
        .await
        .unwrap();

    let described = eventually(
        "kubectl describe shows the Synced event",
        Duration::from_secs(20),
        || {
            let mut command = Command::new(&kubectl);
            command
                .arg("--kubeconfig")
                .arg(&kubeconfig)
                .args(["describe", "foo", "example-foo", "-n", "default"]);
            async move {
                let output = tokio::task::spawn_blocking(move || command.output())
                    .await
                    .unwrap()
                    .unwrap();
                let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
                stdout.contains("Foo synced successfully").then_some(stdout)
            }
        },
    )
    .await;
    assert!(described.contains("Events:"), "{described}");
    assert!(described.contains("Synced"), "{described}");
    shutdown.cancel();
    task.await.unwrap().unwrap();
}
