//! Connecting to the API server: a kubeconfig (--kubeconfig, $KUBECONFIG, ~/.kube/config) or the
//! in-cluster service account, --master over either, and a startup probe that turns the usual
//! mistakes (no cluster, wrong address, no credentials, CRDs not installed) into one clear line.

use std::path::PathBuf;

use kube::api::{Api, ListParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

use generated_example::apis::cloudnative::v1alpha1::VirtualMachine;
use generated_example::apis::samplecontroller::v1alpha1::Foo;

/// Why the controller could not start talking to the API server.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The kubeconfig file is missing or malformed.
    #[error("cannot read kubeconfig {path}: {source}; pass --kubeconfig <file> of a working cluster")]
    Kubeconfig {
        /// The file.
        path: PathBuf,
        /// Why.
        source: kube::config::KubeconfigError,
    },
    /// No kubeconfig and not in a cluster.
    #[error("no cluster configured: {0}; pass --kubeconfig <file>, set KUBECONFIG, run in a pod, or try --embedded")]
    Infer(kube::config::InferConfigError),
    /// The kubeconfig names no usable cluster or credentials.
    #[error("cannot use the kubeconfig: {0}")]
    Config(kube::config::KubeconfigError),
    /// `--master` is not a URL.
    #[error("--master {0:?} is not a URL; write e.g. https://10.0.0.1:6443")]
    Master(String),
    /// The client could not be built (e.g. TLS settings).
    #[error("cannot create a client for {url}: {source}")]
    Client {
        /// The server.
        url: String,
        /// Why.
        source: kube::Error,
    },
    /// The server did not answer.
    #[error("cannot reach the API server at {url}: {source}; check --master/--kubeconfig and that the cluster is up")]
    Unreachable {
        /// The server.
        url: String,
        /// Why.
        source: kube::Error,
    },
    /// The server refused our credentials.
    #[error(
        "the API server at {url} refused the credentials ({code} {reason}); check the kubeconfig's user or the ServiceAccount's RBAC (deploy/rbac)"
    )]
    Unauthorized {
        /// The server.
        url: String,
        /// 401 or 403.
        code: u16,
        /// The server's reason.
        reason: String,
    },
    /// A CRD the controllers need is not installed.
    #[error("the API server at {url} does not serve {resource}: install the CRDs with `kubectl apply -f deploy/crds/`")]
    MissingCrd {
        /// The server.
        url: String,
        /// e.g. `virtualmachines.cloudnative.tw`.
        resource: &'static str,
    },
}

/// The client configuration from the flags.
pub async fn config(kubeconfig: Option<&PathBuf>, master: Option<&str>) -> Result<Config, ConnectError> {
    let master: Option<http::Uri> = master
        .map(|m| m.parse().map_err(|_| ConnectError::Master(m.to_owned())))
        .transpose()?;
    let mut config = match kubeconfig {
        Some(path) => {
            let file = Kubeconfig::read_from(path).map_err(|source| ConnectError::Kubeconfig {
                path: path.clone(),
                source,
            })?;
            Config::from_custom_kubeconfig(file, &KubeConfigOptions::default())
                .await
                .map_err(ConnectError::Config)?
        }
        None => match (Config::infer().await, &master) {
            (Ok(config), _) => config,
            // Like client-go's BuildConfigFromFlags(master, ""): a master alone is enough,
            // e.g. `kubectl proxy` at http://127.0.0.1:8001.
            (Err(_), Some(master)) => Config::new(master.clone()),
            (Err(error), None) => return Err(ConnectError::Infer(error)),
        },
    };
    if let Some(master) = master {
        config.cluster_url = master;
    }
    Ok(config)
}

/// A client for `config`, after checking that the server answers, accepts us and serves the
/// controllers' CRDs.
pub async fn connect(config: Config) -> Result<Client, ConnectError> {
    let url = config.cluster_url.to_string();
    let client = Client::try_from(config).map_err(|source| ConnectError::Client {
        url: url.clone(),
        source,
    })?;
    probe(&client, &url).await?;
    Ok(client)
}

/// Lists one object of each CRD: proves the server is up, the credentials work and the CRDs
/// are installed, with RBAC the controllers need anyway.
pub async fn probe(client: &Client, url: &str) -> Result<(), ConnectError> {
    let one = ListParams::default().limit(1);
    let vms = Api::<VirtualMachine>::all(client.clone()).list_metadata(&one).await;
    let foos = Api::<Foo>::all(client.clone()).list_metadata(&one).await;
    for (result, resource) in [
        (vms.map(drop), "virtualmachines.cloudnative.tw"),
        (foos.map(drop), "foos.samplecontroller.k8s.io"),
    ] {
        match result {
            Ok(()) => {}
            Err(kube::Error::Api(status)) if status.code == 404 => {
                return Err(ConnectError::MissingCrd {
                    url: url.to_owned(),
                    resource,
                });
            }
            Err(kube::Error::Api(status)) if status.code == 401 || status.code == 403 => {
                return Err(ConnectError::Unauthorized {
                    url: url.to_owned(),
                    code: status.code,
                    reason: status.message.clone(),
                });
            }
            Err(source) => {
                return Err(ConnectError::Unreachable {
                    url: url.to_owned(),
                    source,
                });
            }
        }
    }
    Ok(())
}
