//! Serving the fake API server on loopback, over HTTP or HTTPS, with a kubeconfig for other
//! processes (the controller binary, kubectl).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

use tokio_rustls::TlsAcceptor;

use crate::http::tls;
use crate::server::FakeApiServer;

/// Why serving failed.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source} (choose another port, or port 0 for any free one)")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The embedded serving certificate did not load (a bug of this crate).
    #[error("cannot set up TLS: {0}")]
    Tls(#[from] tokio_rustls::rustls::Error),
    /// The kubeconfig could not be written.
    #[error("cannot write kubeconfig {path}: {source}")]
    WriteKubeconfig {
        /// The file asked for.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// A [`FakeApiServer`] listening on a socket; stops serving when dropped.
pub struct ServedApiServer {
    addr: SocketAddr,
    /// Whether it serves HTTPS (with the embedded test CA).
    tls: bool,
    /// The admin's bearer token, which kubeconfigs written for the server carry.
    token: String,
    accept: tokio::task::JoinHandle<()>,
}

impl FakeApiServer {
    /// Serves the API over plain HTTP on `addr` (e.g. `127.0.0.1:0` for any free port). Clients
    /// that send credentials only over TLS (kubectl) are anonymous here: with authentication on,
    /// serve them with [`FakeApiServer::serve_tls`].
    pub async fn serve(&self, addr: SocketAddr) -> Result<ServedApiServer, ServeError> {
        self.serve_with(addr, None).await
    }

    /// Serves the API over HTTPS on `addr`, as kube-apiserver serves it, with a certificate for
    /// `127.0.0.1`, `::1` and `localhost` from a fixed test CA, which the kubeconfig trusts.
    pub async fn serve_tls(&self, addr: SocketAddr) -> Result<ServedApiServer, ServeError> {
        self.serve_with(addr, Some(tls::acceptor()?)).await
    }

    async fn serve_with(&self, addr: SocketAddr, tls: Option<TlsAcceptor>) -> Result<ServedApiServer, ServeError> {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| ServeError::Bind { addr, source })?;
        // kube-apiserver advertises an address clients can reach, never the unspecified one.
        let advertised = match addr.ip().is_unspecified() {
            true => SocketAddr::from(([127, 0, 0, 1], addr.port())),
            false => addr,
        };
        self.inner.external_address.get_or_init(|| advertised.to_string());
        let service = self.service();
        let secure = tls.is_some();
        let accept = tokio::spawn(async move {
            // Connections live as long as the accept loop: aborting it drops the set and them.
            let mut connections = JoinSet::new();
            loop {
                let stream = tokio::select! {
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => stream,
                        Err(error) => {
                            tracing::warn!(%error, "fake API server: accept failed");
                            continue;
                        }
                    },
                    Some(_) = connections.join_next() => continue,
                };
                // Responses go out in several writes; without this, Nagle's algorithm and
                // delayed ACKs add 40 ms to every list page.
                if let Err(error) = stream.set_nodelay(true) {
                    tracing::debug!(%error, "fake API server: cannot disable Nagle's algorithm");
                }
                let service = hyper_util::service::TowerToHyperService::new(service.clone());
                let tls = tls.clone();
                connections.spawn(async move {
                    let http = hyper::server::conn::http1::Builder::new();
                    let served = match tls {
                        None => http.serve_connection(TokioIo::new(stream), service).await,
                        Some(tls) => match tls.accept(stream).await {
                            Ok(stream) => http.serve_connection(TokioIo::new(stream), service).await,
                            Err(error) => {
                                tracing::debug!(%error, "fake API server: TLS handshake failed");
                                return;
                            }
                        },
                    };
                    if let Err(error) = served {
                        tracing::debug!(%error, "fake API server: connection ended with an error");
                    }
                });
            }
        });
        Ok(ServedApiServer {
            addr,
            tls: secure,
            token: self.admin_token().to_owned(),
            accept,
        })
    }
}

impl ServedApiServer {
    /// The socket address served.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The server URL, e.g. `https://127.0.0.1:43125`.
    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    /// A kubeconfig (YAML) whose current context points at this server, namespace `default`,
    /// as the admin (its bearer token), trusting the test CA when it serves HTTPS.
    pub fn kubeconfig(&self) -> String {
        let ca = if self.tls {
            format!("    certificate-authority-data: {}\n", tls::ca_data())
        } else {
            String::new()
        };
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {}\n{ca}\
             contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n    namespace: default\n\
             current-context: fake\nusers:\n- name: fake\n  user:\n    token: {}\n",
            self.url(),
            self.token
        )
    }

    /// Writes [`ServedApiServer::kubeconfig`] to `path`, replacing the file atomically.
    pub fn write_kubeconfig(&self, path: &Path) -> Result<(), ServeError> {
        let error = |source| ServeError::WriteKubeconfig {
            path: path.to_owned(),
            source,
        };
        let partial = path.with_extension("partial");
        std::fs::write(&partial, self.kubeconfig()).map_err(error)?;
        std::fs::rename(&partial, path).map_err(error)
    }

    /// A `kube::Config` for this server as the admin, for clients in this process.
    pub fn kube_config(&self) -> kube::Config {
        let url = self.url().parse().expect("a socket address makes a valid URL");
        let mut config = kube::Config::new(url);
        config.auth_info.token = Some(self.token.clone().into());
        if self.tls {
            config.root_cert = Some(vec![tls::ca_der()]);
        }
        config
    }
}

impl Drop for ServedApiServer {
    fn drop(&mut self) {
        self.accept.abort();
    }
}
