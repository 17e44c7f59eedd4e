//! Two controller processes against the in-memory API server served on loopback: exactly one
//! leads; SIGKILL of the leader hands over within the lease duration; SIGTERM hands over at
//! once, because the leader releases the lease after finishing its work, and exits 0.

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Spawned, server};
use k8s_openapi::api::coordination::v1::Lease;
use kube::Api;

const LEASE: &str = "kube-codegen-controller";

fn spawn(kubeconfig: &Path, identity: &str) -> Spawned {
    let child = Command::new(env!("CARGO_BIN_EXE_controller"))
        .args(["--kubeconfig", kubeconfig.to_str().unwrap()])
        .args(["--holder-identity", identity, "--lease-lock-namespace", "default"])
        .args([
            "--leader-elect-lease-duration",
            "3s",
            "--leader-elect-renew-deadline",
            "2s",
        ])
        .args(["--leader-elect-retry-period", "250ms", "--probe-address", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the controller binary runs");
    Spawned::new(child)
}

async fn holder(leases: &Api<Lease>) -> Option<String> {
    leases
        .get_opt(LEASE)
        .await
        .unwrap()
        .and_then(|l| l.spec)
        .and_then(|s| s.holder_identity)
        .filter(|h| !h.is_empty())
}

/// Waits until `who` holds the lease; returns how long that took.
async fn until_held_by(leases: &Api<Lease>, who: &str, timeout: Duration) -> Duration {
    let started = Instant::now();
    loop {
        if holder(leases).await.as_deref() == Some(who) {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < timeout,
            "{who} did not take the lease within {timeout:?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn kill(child: &mut Child, signal: &str) {
    let status = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_process_should_lead_and_hand_over_on_kill_and_at_once_on_term() {
    let server = server();
    let served = server.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    served.write_kubeconfig(&kubeconfig).unwrap();
    let leases = Api::<Lease>::namespaced(server.client(), "default");

    let mut a = spawn(&kubeconfig, "a");
    until_held_by(&leases, "a", Duration::from_secs(20)).await;
    let mut b = spawn(&kubeconfig, "b");
    // b campaigns but never takes a lease a keeps renewing.
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(holder(&leases).await.as_deref(), Some("a"), "exactly one leader");
    assert!(b.try_wait().unwrap().is_none(), "the standby keeps running");

    // SIGKILL: no release; b takes over once the lease expires (3 s) plus a retry or two.
    kill(&mut a, "KILL");
    a.wait().unwrap();
    let handover = until_held_by(&leases, "b", Duration::from_secs(10)).await;
    eprintln!("SIGKILL handover: {handover:?} (lease duration 3 s)");
    assert!(handover <= Duration::from_secs(5), "took {handover:?}");

    // SIGTERM: b finishes, releases and exits 0; c takes over within about a retry period.
    let mut c = spawn(&kubeconfig, "c");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(holder(&leases).await.as_deref(), Some("b"));
    kill(&mut b, "TERM");
    let handover = until_held_by(&leases, "c", Duration::from_secs(10)).await;
    eprintln!("SIGTERM handover: {handover:?}");
    let status = b.wait().unwrap();
    assert!(status.success(), "SIGTERM exits 0, got {status:?}");
    assert!(
        handover < Duration::from_millis(1500),
        "a released lease is taken at once, not after the 3 s lease duration: {handover:?}"
    );
    kill(&mut c, "TERM");
    assert!(c.wait().unwrap().success());
}
