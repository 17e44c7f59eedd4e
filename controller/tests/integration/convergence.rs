//! Controller convergence under faults, seeded: VirtualMachines and Foos are created in bulk
//! while the in-memory API server cuts watches, expires resourceVersions, fails lists with 500s
//! and answers updates with 409 Conflicts; every VirtualMachine still ends Active with its
//! server and finalizer, every Foo with its owned Deployment at the right replicas and its
//! status following the Deployment's — no workqueue key is lost.
//!
//! `CONVERGENCE_SEEDS` (default 4) and `CONVERGENCE_OBJECTS` (300 of each kind) scale it.

use crate::common;

#[path = "../../../codegen-runtime/tests/integration/support/seeded.rs"]
mod seeded;

use seeded::{Rng, setting};
use std::future::Future;
use std::time::Duration;

use common::{Running, foo, vm};
use fake_apiserver::ApiStatus;
use generated_example::apis::cloudnative::v1alpha1::VirtualMachine;
use generated_example::apis::samplecontroller::v1alpha1::Foo;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use kube::ResourceExt;
use kube::api::{ListParams, PostParams};

fn conflict() -> ApiStatus {
    ApiStatus::new(409, "Conflict", "injected conflict: the object has been modified")
}

/// Polls until `done` holds, in virtual time; returns the last report on failure.
async fn until<F, Fut>(what: &str, mut done: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3600);
    loop {
        match done().await {
            Ok(()) => return,
            Err(report) if tokio::time::Instant::now() > deadline => panic!("{what} never converged: {report}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

async fn one_seed(seed: u64, objects: u64) -> u64 {
    let running = Running::start(Duration::from_secs(20));
    let server = running.server.clone();
    let (vms, foos, deployments) = (
        running.api::<VirtualMachine>(),
        running.api::<Foo>(),
        running.api::<Deployment>(),
    );
    let mut rng = Rng::new(seed);
    let mut faults = 0;
    for i in 0..objects {
        if rng.below(15) == 0 {
            faults += 1;
            match rng.below(4) {
                0 => server.cut_watches(),
                1 => {
                    server.cut_watches();
                    server.expire_resource_versions();
                }
                2 => {
                    let resource = ["virtualmachines", "foos", "deployments"][rng.below(3) as usize];
                    server.fail_next(
                        1 + rng.below(2) as usize,
                        "list",
                        resource,
                        ApiStatus::internal("injected"),
                    );
                    server.cut_watches();
                    server.expire_resource_versions();
                }
                _ => {
                    let (verb, resource) = [
                        ("update", "virtualmachines"),
                        ("update", "deployments"),
                        ("update", "foos"),
                    ][rng.below(3) as usize];
                    server.fail_next(1 + rng.below(3) as usize, verb, resource, conflict());
                }
            }
        }
        vms.create(&PostParams::default(), &vm(&format!("vm-{i}"), &[]))
            .await
            .unwrap();
        let replicas = 1 + rng.below(5) as i32;
        let name = format!("foo-{i}");
        foos.create(&PostParams::default(), &foo(&name, &name, replicas))
            .await
            .unwrap();
        if i % 10 == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    until("the VirtualMachines", || async {
        let list = vms.list(&ListParams::default()).await.map_err(|e| e.to_string())?;
        let pending: Vec<String> = list
            .iter()
            .filter(|vm| {
                let active = vm
                    .status
                    .as_ref()
                    .is_some_and(|s| s.phase == "Active" && !s.server.id.is_empty());
                !active || !vm.finalizers().contains(&controller::vm::FINALIZER.to_owned())
            })
            .map(ResourceExt::name_any)
            .collect();
        if pending.is_empty() {
            Ok(())
        } else {
            Err(format!("{} not Active: {pending:?}", pending.len()))
        }
    })
    .await;
    assert_eq!(
        running.hypervisor.server_names().len() as u64,
        objects,
        "one server per VirtualMachine"
    );
    until("the Deployments", || async {
        let foo_list = foos.list(&ListParams::default()).await.map_err(|e| e.to_string())?;
        for foo in &foo_list {
            let deployment = deployments
                .get(&foo.spec.deployment_name)
                .await
                .map_err(|e| format!("{}: {e}", foo.name_any()))?;
            let owned = deployment
                .owner_references()
                .iter()
                .any(|r| Some(&r.uid) == foo.uid().as_ref() && r.controller == Some(true));
            if !owned || deployment.spec.replicas != foo.spec.replicas {
                return Err(format!("{} not reconciled", foo.name_any()));
            }
        }
        Ok(())
    })
    .await;
    // The Deployments' pods start, as kubelets would report them: the server's Deployment and
    // ReplicaSet controllers count them available, and every Foo's status follows.
    let pods = running.api::<Pod>();
    until("the Foo statuses", || async {
        common::start_pods(&pods).await?;
        let foo_list = foos.list(&ListParams::default()).await.map_err(|e| e.to_string())?;
        let behind = foo_list
            .iter()
            .filter(|f| f.status.as_ref().map(|s| s.available_replicas) != f.spec.replicas)
            .count();
        if behind == 0 {
            Ok(())
        } else {
            Err(format!("{behind} Foos behind"))
        }
    })
    .await;
    running.stop().await;
    faults
}

// Paused time: the server runs in process, so backoffs and the convergence waits are virtual.
#[tokio::test(start_paused = true)]
async fn the_controllers_should_converge_under_faults() {
    let (seeds, objects) = (setting("CONVERGENCE_SEEDS", 4), setting("CONVERGENCE_OBJECTS", 300));
    let mut faults = 0;
    for seed in 1..=seeds {
        let injected = one_seed(seed, objects).await;
        eprintln!("seed {seed}: {objects} VirtualMachines and {objects} Foos converged through {injected} faults");
        faults += injected;
    }
    assert!(faults > 0);
}
