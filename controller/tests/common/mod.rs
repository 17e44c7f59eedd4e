//! What the controller tests share: an in-memory API server with the generated CRDs installed,
//! and polling until a condition holds.

#![allow(dead_code)]

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use codegen_runtime::FakeRecorder;
use controller::embedded::{MANIFESTS, objects};
use controller::vm::simulated::SimulatedHypervisor;
use controller::{RunError, RunOptions, run};
use fake_apiserver::Action;
use fake_apiserver::FakeApiServer;
use generated_example::apis::cloudnative::v1alpha1::{ResourceRequest, VirtualMachine, VirtualMachineSpec};
use generated_example::apis::samplecontroller::v1alpha1::{Foo, FooSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::Api;
use kube::api::ObjectMeta;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

/// An in-memory API server serving the CRDs of `deploy/crds/`, namespaces created on use.
pub fn server() -> FakeApiServer {
    let server = FakeApiServer::builder().auto_create_namespaces(true).build();
    for (path, yaml) in MANIFESTS.iter().filter(|(path, _)| path.starts_with("deploy/crds/")) {
        for crd in objects(path, yaml).unwrap() {
            server.insert(&crd).unwrap();
        }
    }
    server
}

/// Polls `check` every 10 ms until it returns `Some`, failing the test after `timeout`.
pub async fn eventually<T, Fut>(what: &str, timeout: Duration, mut check: impl FnMut() -> Fut) -> T
where
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// [`eventually`] for a check that needs no waiting of its own.
pub async fn wait_for<T>(what: &str, timeout: Duration, mut check: impl FnMut() -> Option<T>) -> T {
    eventually(what, timeout, || std::future::ready(check())).await
}

/// The actions that change state, as `verb resource[/subresource]` (sample-controller's
/// `filterInformerActions` drops the informers' lists and watches).
pub fn writes(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter(|a| !matches!(a.verb.as_str(), "list" | "watch" | "get"))
        .map(|a| match &a.subresource {
            Some(sub) => format!("{} {}/{sub}", a.verb.as_str(), a.resource),
            None => format!("{} {}", a.verb.as_str(), a.resource),
        })
        .collect()
}

/// Polls the server until the object `name` satisfies `check`; returns it.
pub async fn until<K>(api: &Api<K>, name: &str, what: &str, check: impl Fn(&K) -> bool) -> K
where
    K: Clone + DeserializeOwned + Debug,
{
    let what = format!("{name}: {what}");
    eventually(&what, Duration::from_secs(10), || async {
        api.get_opt(name).await.unwrap().filter(|object| check(object))
    })
    .await
}

/// Polls the server until the object `name` is gone.
pub async fn until_gone<K>(api: &Api<K>, name: &str)
where
    K: Clone + DeserializeOwned + Debug,
{
    let what = format!("{name} to be deleted");
    eventually(&what, Duration::from_secs(10), || async {
        api.get_opt(name).await.unwrap().is_none().then_some(())
    })
    .await;
}

/// kubectl, when it is on the PATH.
pub fn find_kubectl() -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("kubectl"))
        .find(|candidate| candidate.is_file())
}

/// Both controllers running in this process on an in-memory API server, without leader
/// election, with the simulated hypervisor and events kept in memory.
pub struct Running {
    pub server: FakeApiServer,
    pub hypervisor: Arc<SimulatedHypervisor>,
    pub recorder: Arc<FakeRecorder>,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<Result<(), RunError>>,
}

impl Running {
    /// Starts the controllers; usage is refreshed every `refresh`.
    pub fn start(refresh: Duration) -> Self {
        let server = server();
        let hypervisor = Arc::new(SimulatedHypervisor::new());
        let recorder = Arc::new(FakeRecorder::new());
        let shutdown = CancellationToken::new();
        let options = RunOptions {
            vm_refresh: refresh,
            recorder: Some(recorder.clone()),
            ..RunOptions::new("test", hypervisor.clone())
        };
        let task = tokio::spawn(run(server.client(), options, shutdown.clone()));
        Self {
            server,
            hypervisor,
            recorder,
            shutdown,
            task,
        }
    }

    /// An API of `K` in `default`.
    pub fn api<K>(&self) -> Api<K>
    where
        K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        K::DynamicType: Default,
    {
        Api::namespaced(self.server.client(), "default")
    }

    /// Stops the controllers, which must exit cleanly.
    pub async fn stop(self) {
        self.shutdown.cancel();
        self.task.await.unwrap().unwrap();
    }
}

/// A VirtualMachine like controller101's test-vm (1 CPU, 4G), with labels.
pub fn vm(name: &str, labels: &[(&str, &str)]) -> VirtualMachine {
    VirtualMachine {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            labels: Some(labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()),
            ..ObjectMeta::default()
        },
        spec: VirtualMachineSpec {
            action: String::new(),
            resource: ResourceRequest {
                cpu: Quantity("1".into()),
                memory: Quantity("4G".into()),
                root_disk: None,
            },
        },
        status: None,
        ..Default::default()
    }
}

/// A Foo like sample-controller's example-foo, owning the Deployment `deployment`.
pub fn foo(name: &str, deployment: &str, replicas: i32) -> Foo {
    Foo {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            ..ObjectMeta::default()
        },
        spec: FooSpec {
            deployment_name: deployment.to_owned(),
            replicas: Some(replicas),
        },
        status: None,
        ..Default::default()
    }
}

/// A spawned controller that is killed if the test ends without stopping it (a failed assertion
/// unwinds past it): a `std::process::Child` is not killed on drop, and a leftover controller
/// would go on writing to the cluster it was pointed at.
pub struct Spawned(Option<std::process::Child>);

impl Spawned {
    /// Guards `child`.
    pub fn new(child: std::process::Child) -> Self {
        Self(Some(child))
    }

    /// The process, handed back to be stopped deliberately (e.g. by [`terminate`]).
    pub fn into_child(mut self) -> std::process::Child {
        self.0.take().expect("a Spawned holds its child until taken")
    }
}

impl std::ops::Deref for Spawned {
    type Target = std::process::Child;

    fn deref(&self) -> &Self::Target {
        self.0.as_ref().expect("a Spawned holds its child until taken")
    }
}

impl std::ops::DerefMut for Spawned {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.0.as_mut().expect("a Spawned holds its child until taken")
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            // Already exited is fine; reap it either way so no zombie is left.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Sends SIGTERM to `child` and waits for it, off the async workers; returns its output.
pub async fn terminate(child: std::process::Child) -> std::process::Output {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "cannot signal the controller");
    tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap()
}

/// Reports every pod that is not yet running and ready as both, as its kubelet would.
pub async fn start_pods(pods: &Api<k8s_openapi::api::core::v1::Pod>) -> Result<(), String> {
    let list = pods
        .list(&kube::api::ListParams::default())
        .await
        .map_err(|e| e.to_string())?;
    for pod in list
        .iter()
        .filter(|pod| pod.status.as_ref().and_then(|s| s.phase.as_deref()) != Some("Running"))
    {
        let conditions = ["PodScheduled", "Initialized", "ContainersReady", "Ready"]
            .map(|kind| serde_json::json!({ "type": kind, "status": "True" }));
        let status = serde_json::json!({ "status": { "phase": "Running", "conditions": conditions } });
        // A pod its ReplicaSet removed meanwhile needs no kubelet.
        let _ = pods
            .patch_status(
                &kube::ResourceExt::name_any(pod),
                &kube::api::PatchParams::default(),
                &kube::api::Patch::Merge(&status),
            )
            .await;
    }
    Ok(())
}
