//! Where the e2e suite runs and how each test gets a clean place: the cluster named by
//! `E2E_KUBECONFIG` when it is set, otherwise the in-memory API server both in process and
//! served on loopback (so CI always runs the suite twice). The CRDs are applied from
//! `deploy/crds/` through the API, each test gets a fresh namespace, and the namespace is
//! deleted afterwards, also when the test fails.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use controller::embedded::{MANIFESTS, objects};
use fake_apiserver::FakeApiServer;
use fake_apiserver::ServedApiServer;
use generated_example::apis::cloudnative::v1alpha1::VirtualMachine;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};

/// What a test gets: a client, its own namespace, and how to reach the server from elsewhere.
#[derive(Clone)]
pub struct Env {
    /// A client for the target.
    pub client: Client,
    /// This test's namespace.
    pub namespace: String,
    /// A kubeconfig for other processes (the controller binary, kubectl), when there is one.
    pub kubeconfig: Option<PathBuf>,
    /// Which target this is, for messages.
    pub target: &'static str,
}

/// One place the suite runs against, and what keeps it up.
struct Target {
    env: Env,
    _fake: Option<FakeApiServer>,
    _served: Option<ServedApiServer>,
    _dir: Option<tempfile::TempDir>,
}

/// Runs `test` against every target: the `E2E_KUBECONFIG` cluster, or the in-memory server in
/// process and then served.
pub async fn each_target<F, Fut>(name: &str, test: F)
where
    F: Fn(Env) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    match std::env::var_os("E2E_KUBECONFIG") {
        Some(path) => run_one(name, cluster(PathBuf::from(path)).await, &test).await,
        None => {
            run_one(name, in_process().await, &test).await;
            run_one(name, served().await, &test).await;
        }
    }
}

async fn run_one<F, Fut>(name: &str, target: Target, test: &F)
where
    F: Fn(Env) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let mut env = target.env.clone();
    install_crds(&env.client).await;
    let suffix = uuid::Uuid::new_v4().simple().to_string();
    env.namespace = format!("e2e-{name}-{}", &suffix[..8]).replace('_', "-");
    let namespace = Namespace {
        metadata: ObjectMeta {
            name: Some(env.namespace.clone()),
            ..ObjectMeta::default()
        },
        ..Namespace::default()
    };
    Api::<Namespace>::all(env.client.clone())
        .create(&PostParams::default(), &namespace)
        .await
        .unwrap();
    // The test runs as its own task so that a failure still reaches the cleanup below.
    let outcome = tokio::spawn(test(env.clone())).await;
    cleanup(&env.client, &env.namespace).await;
    drop(target);
    if let Err(error) = outcome {
        eprintln!("e2e {name} failed against {}", env.target);
        match error.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(error) => panic!("e2e {name} against {}: {error}", env.target),
        }
    }
}

/// Removes the finalizers a stopped controller would leave, then deletes the namespace.
async fn cleanup(client: &Client, namespace: &str) {
    let vms = Api::<VirtualMachine>::namespaced(client.clone(), namespace);
    if let Ok(list) = vms.list(&ListParams::default()).await {
        for vm in list {
            let patch = serde_json::json!({"metadata": {"finalizers": null}});
            let _ = vms
                .patch(&vm.name_any(), &PatchParams::default(), &Patch::Merge(&patch))
                .await;
        }
    }
    let namespaces = Api::<Namespace>::all(client.clone());
    if let Err(error) = namespaces.delete(namespace, &DeleteParams::default()).await {
        eprintln!("cannot delete namespace {namespace}: {error}");
    }
}

async fn cluster(kubeconfig: PathBuf) -> Target {
    let file = kube::config::Kubeconfig::read_from(&kubeconfig).expect("E2E_KUBECONFIG is a kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(file, &kube::config::KubeConfigOptions::default())
        .await
        .expect("E2E_KUBECONFIG names a usable cluster");
    Target {
        env: Env {
            client: Client::try_from(config).unwrap(),
            namespace: String::new(),
            kubeconfig: Some(kubeconfig),
            target: "the E2E_KUBECONFIG cluster",
        },
        _fake: None,
        _served: None,
        _dir: None,
    }
}

async fn in_process() -> Target {
    let fake = FakeApiServer::new();
    Target {
        env: Env {
            client: fake.client(),
            namespace: String::new(),
            kubeconfig: None,
            target: "the in-memory API server in process",
        },
        _fake: Some(fake),
        _served: None,
        _dir: None,
    }
}

async fn served() -> Target {
    let fake = FakeApiServer::new();
    let served = fake.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    served.write_kubeconfig(&kubeconfig).unwrap();
    let config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(&kubeconfig).unwrap(),
        &kube::config::KubeConfigOptions::default(),
    )
    .await
    .unwrap();
    Target {
        env: Env {
            client: Client::try_from(config).unwrap(),
            namespace: String::new(),
            kubeconfig: Some(kubeconfig),
            target: "the in-memory API server served on loopback",
        },
        _fake: Some(fake),
        _served: Some(served),
        _dir: Some(dir),
    }
}

/// Server-side applies `deploy/crds/` and waits until each CRD is Established.
async fn install_crds(client: &Client) {
    let crds = Api::<CustomResourceDefinition>::all(client.clone());
    let params = PatchParams::apply("kube-codegen-e2e").force();
    for (path, yaml) in MANIFESTS.iter().filter(|(path, _)| path.starts_with("deploy/crds/")) {
        for crd in objects(path, yaml).unwrap() {
            let name = crd["metadata"]["name"].as_str().unwrap().to_owned();
            crds.patch(&name, &params, &Patch::Apply(&crd)).await.unwrap();
            let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
            loop {
                let established = crds
                    .get(&name)
                    .await
                    .unwrap()
                    .status
                    .and_then(|s| s.conditions)
                    .is_some_and(|c| c.iter().any(|c| c.type_ == "Established" && c.status == "True"));
                if established {
                    break;
                }
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "CRD {name} never became Established"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Polls `check` until it returns `Some` (60 s: real clusters are slower than the fake).
pub async fn eventually<T, Fut>(what: &str, check: impl FnMut() -> Fut) -> T
where
    Fut: Future<Output = Option<T>>,
{
    crate::common::eventually(what, Duration::from_secs(60), check).await
}
