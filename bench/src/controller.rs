//! Suite 6, controller: the bundled controllers (2 workers each, the seeds' settings) against
//! the embedded API server, as `controller --embedded` runs them; N Foos created at once, the
//! time until every one has its Deployment and a status reporting it available, then the CPU
//! the whole process (server included) uses while idle.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use controller::vm::simulated::SimulatedHypervisor;
use controller::{RunOptions, embedded};
use futures::StreamExt;
use generated_example::apis::samplecontroller::v1alpha1::Foo;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, ListParams};
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::error::BenchError;
use crate::process::cpu_time;
use crate::stats::{Table, verdict};

const NAMESPACE: &str = "bench";

fn converged(foo: &Foo) -> bool {
    let wanted = foo.spec.replicas.unwrap_or(1);
    foo.status.as_ref().is_some_and(|s| s.available_replicas == wanted)
}

/// Waits until `count` Foos of `namespace` have converged, by watching them.
async fn wait_converged(client: kube::Client, namespace: &str, count: usize) {
    let api: Api<Foo> = Api::namespaced(client, namespace);
    let mut done: HashSet<String> = HashSet::new();
    let mut foos = std::pin::pin!(watcher(api, watcher::Config::default()).applied_objects());
    while let Some(foo) = foos.next().await {
        let Ok(foo) = foo else { continue };
        if converged(&foo) {
            done.insert(foo.metadata.name.clone().unwrap_or_default());
        }
        if done.len() >= count {
            return;
        }
    }
}

/// One run: returns (seconds to converge, idle CPU percent).
async fn run_once(foos: usize, idle: Duration) -> Result<(f64, f64), BenchError> {
    let scratch = tempfile::tempdir().map_err(BenchError::io("cannot create a scratch directory"))?;
    let embedded = embedded::start(
        SocketAddr::from(([127, 0, 0, 1], 0)),
        Some(scratch.path().join("kubeconfig")),
    )
    .await?;
    let client = embedded.server.client();
    let shutdown = CancellationToken::new();
    let options = RunOptions::new("bench", Arc::new(SimulatedHypervisor::new()));
    let running = tokio::spawn(controller::run(client.clone(), options, shutdown.clone()));
    // Started: the bundled example-foo (in `default`) has converged.
    tokio::time::timeout(Duration::from_secs(30), wait_converged(client.clone(), "default", 1))
        .await
        .map_err(|_| BenchError::check("the controller did not reconcile example-foo within 30 s"))?;
    let started = Instant::now();
    let watch = tokio::spawn(wait_converged(client.clone(), NAMESPACE, foos));
    for i in 0..foos {
        let name = format!("foo-{i:05}");
        embedded
            .server
            .insert(&json!({
                "apiVersion": "samplecontroller.k8s.io/v1alpha1", "kind": "Foo",
                "metadata": { "name": name, "namespace": NAMESPACE },
                "spec": { "deploymentName": name, "replicas": 1 },
            }))
            .map_err(|status| BenchError::check(format!("creating {name}: {status}")))?;
    }
    tokio::time::timeout(Duration::from_secs(600), watch)
        .await
        .map_err(|_| BenchError::check(format!("{foos} Foos did not converge within 600 s")))??;
    let converge = started.elapsed().as_secs_f64();
    let deployments = Api::<Deployment>::namespaced(client.clone(), NAMESPACE)
        .list(&ListParams::default())
        .await?;
    let owned = deployments
        .items
        .iter()
        .filter(|d| {
            d.metadata
                .owner_references
                .iter()
                .flatten()
                .any(|o| o.kind == "Foo" && o.controller == Some(true) && Some(&o.name) == d.metadata.name.as_ref())
        })
        .count();
    if owned != foos {
        return Err(BenchError::check(format!(
            "{owned} of {foos} Foos have their owned Deployment"
        )));
    }
    let (cpu_before, idle_started) = (cpu_time(), Instant::now());
    tokio::time::sleep(idle).await;
    let idle_cpu = (cpu_time() - cpu_before).as_secs_f64() / idle_started.elapsed().as_secs_f64() * 100.0;
    shutdown.cancel();
    running.await??;
    Ok((converge, idle_cpu))
}

/// Runs the suite: `rounds` fresh servers and controllers, `foos` Foos each.
pub fn suite(foos: usize, idle: Duration, rounds: usize) -> Result<(), BenchError> {
    let runtime = crate::runtime()?;
    let mut table = Table::default();
    for round in 1..=rounds {
        let (converge, idle_cpu) = runtime.block_on(run_once(foos, idle))?;
        eprintln!("controller: round {round}: converged in {converge:.2} s, idle CPU {idle_cpu:.2} %");
        let program = format!("{foos} Foos");
        table.record(&program, "converged s", converge);
        table.record(&program, "Foos/s", foos as f64 / converge);
        table.record(&program, &format!("idle CPU % over {} s", idle.as_secs()), idle_cpu);
    }
    println!("\n### Controller: {foos} Foos at once, embedded API server, {rounds} rounds\n");
    print!("{table}");
    let program = format!("{foos} Foos");
    let converge = table.samples(&program, "converged s").median();
    let idle_cpu = table
        .samples(&program, &format!("idle CPU % over {} s", idle.as_secs()))
        .median();
    println!();
    println!(
        "{}",
        verdict("convergence", format!("{converge:.2} s"), "≤ 10 s", converge <= 10.0)
    );
    println!(
        "{}",
        verdict("idle CPU", format!("{idle_cpu:.2} %"), "< 1 %", idle_cpu < 1.0)
    );
    Ok(())
}
