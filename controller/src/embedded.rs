//! `--embedded`: the in-memory API server in this process, served on loopback with a kubeconfig
//! so kubectl can watch, with `deploy/crds/` and `deploy/examples/` installed; and a stand-in
//! for the scheduler and kubelets that reports every pod running and ready, so that the server's
//! own Deployment and ReplicaSet controllers count the Foos' replicas available with no cluster.

use std::net::SocketAddr;
use std::path::PathBuf;

use fake_apiserver::FakeApiServer;
use fake_apiserver::{ApiStatus, ServeError, ServedApiServer};
use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::watcher;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// The manifests installed at startup: the generated CRDs, then the seeds' examples.
pub const MANIFESTS: [(&str, &str); 4] = [
    (
        "deploy/crds/cloudnative.tw_virtualmachines.yaml",
        include_str!("../../deploy/crds/cloudnative.tw_virtualmachines.yaml"),
    ),
    (
        "deploy/crds/samplecontroller.k8s.io_foos.yaml",
        include_str!("../../deploy/crds/samplecontroller.k8s.io_foos.yaml"),
    ),
    (
        "deploy/examples/test-vm.yaml",
        include_str!("../../deploy/examples/test-vm.yaml"),
    ),
    (
        "deploy/examples/example-foo.yaml",
        include_str!("../../deploy/examples/example-foo.yaml"),
    ),
];

/// Why the embedded API server could not start.
#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    /// A bundled manifest is not YAML of objects.
    #[error("{path}: {error}")]
    Manifest {
        /// The manifest.
        path: &'static str,
        /// Why.
        error: String,
    },
    /// The server refused a bundled object.
    #[error("{path}: the API server refused it: {status}")]
    Refused {
        /// The manifest.
        path: &'static str,
        /// The server's answer.
        status: ApiStatus,
    },
    /// Serving or writing the kubeconfig failed.
    #[error(transparent)]
    Serve(#[from] ServeError),
}

/// The running embedded API server.
pub struct Embedded {
    /// The server, for in-process clients.
    pub server: FakeApiServer,
    /// Its loopback listener.
    pub served: ServedApiServer,
    /// The kubeconfig written for it.
    pub kubeconfig: PathBuf,
    simulator: JoinHandle<()>,
}

impl Drop for Embedded {
    fn drop(&mut self) {
        self.simulator.abort();
    }
}

/// The objects of a YAML stream (documents separated by `---`).
pub fn objects(path: &'static str, yaml: &str) -> Result<Vec<Value>, EmbeddedError> {
    let documents: Vec<Value> = serde_saphyr::from_multiple(yaml).map_err(|error| EmbeddedError::Manifest {
        path,
        error: error.to_string(),
    })?;
    Ok(documents.into_iter().filter(|d| !d.is_null()).collect())
}

/// Starts the server on `address`, installs the bundled manifests, writes a kubeconfig to
/// `kubeconfig` (default: in the temporary directory) and starts the kubelet simulator.
pub async fn start(address: SocketAddr, kubeconfig: Option<PathBuf>) -> Result<Embedded, EmbeddedError> {
    // A long-running server: it keeps no record of the requests it answered. Served to
    // kubectl, it authenticates and authorizes as a cluster does; the kubeconfig written for
    // it, and the controller in this process, are the admin.
    let server = FakeApiServer::builder()
        .auto_create_namespaces(true)
        .record_actions(false)
        .authentication(true)
        .build();
    for (path, yaml) in MANIFESTS {
        for object in objects(path, yaml)? {
            server
                .insert(&object)
                .map_err(|status| EmbeddedError::Refused { path, status })?;
        }
    }
    let served = server.serve_tls(address).await?;
    let kubeconfig = kubeconfig.unwrap_or_else(|| std::env::temp_dir().join("kube-codegen-embedded.kubeconfig"));
    served.write_kubeconfig(&kubeconfig)?;
    let simulator = tokio::spawn(simulate_kubelets(server.client()));
    Ok(Embedded {
        server,
        served,
        kubeconfig,
        simulator,
    })
}

/// Reports each pod running and ready, as the scheduler and kubelets of a healthy cluster would
/// once its containers started.
async fn simulate_kubelets(client: kube::Client) {
    let api = Api::<Pod>::all(client.clone());
    let mut events = watcher(api, watcher::Config::default()).boxed();
    while let Some(event) = events.next().await {
        let pod = match event {
            Ok(watcher::Event::Apply(pod) | watcher::Event::InitApply(pod)) => pod,
            Ok(_) => continue,
            Err(error) => {
                tracing::debug!(%error, "kubelet simulator: watch error");
                continue;
            }
        };
        let ready = pod
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|conditions| conditions.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
        let (Some(namespace), Some(name)) = (pod.metadata.namespace.as_deref(), pod.metadata.name.as_deref()) else {
            continue;
        };
        if ready || pod.metadata.deletion_timestamp.is_some() {
            continue;
        }
        let conditions = ["PodScheduled", "Initialized", "ContainersReady", "Ready"]
            .map(|kind| json!({ "type": kind, "status": "True" }));
        let patch = json!({ "status": { "phase": "Running", "conditions": conditions } });
        let api = Api::<Pod>::namespaced(client.clone(), namespace);
        if let Err(error) = api
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            tracing::debug!(%error, name, "kubelet simulator: cannot update status");
        }
    }
}
