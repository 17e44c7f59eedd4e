//! The controllers end to end: the binary (or, with no kubeconfig, the same code in process),
//! limited to the test's namespace, brings test-vm to Active with its finalizer and deletes it
//! cleanly, and turns example-foo into an owned Deployment whose replicas follow the Foo;
//! kubectl, when present, shows the CRDs' printer columns.

use std::process::{Command, Stdio};
use std::sync::Arc;

use controller::vm::FINALIZER;
use controller::vm::simulated::SimulatedHypervisor;
use controller::{RunOptions, run};
use generated_example::generated::Clientset;
use k8s_openapi::api::apps::v1::Deployment;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::common::{Spawned, find_kubectl, foo, terminate, vm};
use crate::harness::{Env, each_target, eventually};

/// The controllers for `env`: the binary when there is a kubeconfig, else in process.
enum Running {
    Binary(Spawned),
    InProcess(
        CancellationToken,
        tokio::task::JoinHandle<Result<(), controller::RunError>>,
    ),
}

fn start(env: &Env) -> Running {
    match &env.kubeconfig {
        Some(kubeconfig) => Running::Binary(Spawned::new(
            Command::new(env!("CARGO_BIN_EXE_controller"))
                .arg("--kubeconfig")
                .arg(kubeconfig)
                .args([
                    "--namespace",
                    &env.namespace,
                    "--leader-elect=false",
                    "--probe-address",
                    "127.0.0.1:0",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        )),
        None => {
            let shutdown = CancellationToken::new();
            let options = RunOptions {
                namespace: Some(env.namespace.clone()),
                ..RunOptions::new("e2e", Arc::new(SimulatedHypervisor::new()))
            };
            Running::InProcess(
                shutdown.clone(),
                tokio::spawn(run(env.client.clone(), options, shutdown)),
            )
        }
    }
}

async fn stop(running: Running) {
    match running {
        Running::Binary(child) => {
            let status = terminate(child.into_child()).await.status;
            assert!(status.success(), "the controller exits 0 on SIGTERM: {status:?}");
        }
        Running::InProcess(shutdown, task) => {
            shutdown.cancel();
            task.await.unwrap().unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controllers_should_reconcile_test_vm_and_example_foo() {
    each_target("reconcile", |env: Env| async move {
        let running = start(&env);
        let clientset = Clientset::new(env.client.clone());
        let vms = clientset.cloudnative_v1alpha1().virtual_machines(&env.namespace);
        let foos = clientset.samplecontroller_v1alpha1().foos(&env.namespace);
        vms.create(&vm("test-vm", &[]), &PostParams::default()).await.unwrap();
        foos.create(&foo("example-foo", "example-foo", 1), &PostParams::default())
            .await
            .unwrap();

        let active = eventually("test-vm Active", || async {
            vms.get("test-vm")
                .await
                .ok()
                .filter(|vm| vm.status.as_ref().is_some_and(|s| s.phase == "Active"))
        })
        .await;
        assert!(active.finalizers().contains(&FINALIZER.to_owned()));
        assert!(!active.status.unwrap().server.id.is_empty());

        let deployments = Api::<Deployment>::namespaced(env.client.clone(), &env.namespace);
        let foo_uid = foos.get("example-foo").await.unwrap().uid();
        let owned = eventually("the Deployment", || async { deployments.get("example-foo").await.ok() }).await;
        let owner = owned
            .owner_references()
            .iter()
            .find(|r| r.controller == Some(true))
            .cloned()
            .unwrap();
        assert_eq!((owner.kind.as_str(), Some(owner.uid)), ("Foo", foo_uid));
        assert_eq!(owned.spec.replicas, Some(1));
        let scale = json!({"spec": {"replicas": 2}});
        foos.patch("example-foo", &PatchParams::default(), &Patch::Merge(&scale))
            .await
            .unwrap();
        eventually("the Deployment to follow the Foo", || async {
            deployments
                .get("example-foo")
                .await
                .ok()
                .filter(|d| d.spec.replicas == Some(2))
        })
        .await;

        if let (Some(kubeconfig), Some(kubectl)) = (&env.kubeconfig, find_kubectl()) {
            let mut command = Command::new(kubectl);
            command
                .arg("--kubeconfig")
                .arg(kubeconfig)
                .args(["get", "virtualmachines,foos", "-n", &env.namespace]);
            // Off the async workers: the in-memory server answering kubectl runs on them.
            let output = tokio::task::spawn_blocking(move || command.output())
                .await
                .unwrap()
                .unwrap();
            let text = String::from_utf8_lossy(&output.stdout);
            assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
            for header in ["STATUS", "CPU", "MEMORY", "DEPLOYMENT", "DESIRED", "AVAILABLE", "AGE"] {
                assert!(text.contains(header), "no {header} column in\n{text}");
            }
            assert!(text.contains("Active"), "{text}");
        }

        vms.delete("test-vm", &DeleteParams::default()).await.unwrap();
        eventually("test-vm deleted", || async {
            vms.get("test-vm").await.is_err().then_some(())
        })
        .await;
        stop(running).await;
    })
    .await;
}
