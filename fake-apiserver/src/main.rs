//! `fake-apiserver`: serves the in-memory Kubernetes API server on loopback (HTTPS, with
//! authentication and RBAC, as a cluster) and writes a kubeconfig for it, so kubectl, a
//! controller in another process or a test in another language can use it, as envtest's
//! binaries are used: `cargo run -p fake-apiserver -- --kubeconfig PATH`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use fake_apiserver::{ApiStatus, FakeApiServer, ServeError};
use tokio::signal::unix::{SignalKind, signal};

/// Serve an in-memory Kubernetes API server until SIGINT or SIGTERM.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Where to write the kubeconfig that points at the server.
    #[arg(long)]
    kubeconfig: PathBuf,
    /// Loopback address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// Create namespaces on first use instead of answering 404 NotFound.
    #[arg(long)]
    auto_create_namespaces: bool,
    /// Seed this many ConfigMaps of about 1.5 KB, spread over 100 namespaces (for benchmarks).
    #[arg(long, default_value_t = 0)]
    seed_configmaps: usize,
    /// Serve plain HTTP and answer every request as the admin's, without authentication or RBAC
    /// authorization (by default the server serves HTTPS with a test CA the kubeconfig trusts,
    /// the kubeconfig carries the admin's token, a request without a token is anonymous, and
    /// RBAC decides what each user may do, as on a cluster).
    #[arg(long)]
    no_authentication: bool,
    /// Also accept this bearer token, `TOKEN,USER,UID[,GROUP...]` (a `--token-auth-file` line;
    /// repeatable).
    #[arg(long = "token", value_name = "TOKEN,USER,UID[,GROUP...]")]
    tokens: Vec<String>,
}

/// Why the server did not start or stop cleanly.
#[derive(Debug, thiserror::Error)]
enum Error {
    #[error("--addr {0}: the server listens on loopback only; use 127.0.0.1 or [::1]")]
    NotLoopback(SocketAddr),
    #[error("seeding ConfigMaps: {}", .0.message)]
    Seed(ApiStatus),
    #[error(transparent)]
    Serve(#[from] ServeError),
    #[error("cannot listen for SIGINT and SIGTERM: {0}")]
    Signals(std::io::Error),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("--token {0:?}: give TOKEN,USER,UID and any groups, comma-separated")]
    Token(String),
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)
        .and_then(|runtime| runtime.block_on(serve(args)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(args: Args) -> Result<(), Error> {
    if !args.addr.ip().is_loopback() {
        return Err(Error::NotLoopback(args.addr));
    }
    // Registered first, so a signal during start-up stops the server instead of killing it.
    let mut interrupt = signal(SignalKind::interrupt()).map_err(Error::Signals)?;
    let mut terminate = signal(SignalKind::terminate()).map_err(Error::Signals)?;
    let mut builder = FakeApiServer::builder()
        .auto_create_namespaces(args.auto_create_namespaces)
        .authentication(!args.no_authentication);
    for line in &args.tokens {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [token, user, uid, groups @ ..] = &fields[..] else {
            return Err(Error::Token(line.clone()));
        };
        if token.is_empty() || user.is_empty() {
            return Err(Error::Token(line.clone()));
        }
        builder = builder.static_token(token, user, uid, groups);
    }
    let server = builder.build();
    seed(&server, args.seed_configmaps).map_err(Error::Seed)?;
    let served = if args.no_authentication {
        server.serve(args.addr).await?
    } else {
        server.serve_tls(args.addr).await?
    };
    served.write_kubeconfig(&args.kubeconfig)?;
    println!("{}", served.url());
    eprintln!(
        "in-memory Kubernetes API server listening on {}; kubeconfig written to {}\ntry: kubectl --kubeconfig {} get namespaces",
        served.url(),
        args.kubeconfig.display(),
        args.kubeconfig.display()
    );
    tokio::select! {
        _ = interrupt.recv() => {}
        _ = terminate.recv() => {}
    }
    eprintln!("stopping");
    Ok(())
}

/// Seeds `count` ConfigMaps of about 1.5 KB in namespaces `bench-00` … `bench-99`.
fn seed(server: &FakeApiServer, count: usize) -> Result<(), ApiStatus> {
    for i in 0..count {
        let namespace = format!("bench-{:02}", i % 100);
        let data: serde_json::Map<String, serde_json::Value> = (0..12)
            .map(|k| (format!("key-{k}"), serde_json::Value::from("x".repeat(100))))
            .collect();
        server.insert(&serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": { "name": format!("cm-{i:06}"), "namespace": namespace, "labels": { "app": "bench", "shard": (i % 7).to_string() } },
            "data": data,
        }))?;
    }
    Ok(())
}
