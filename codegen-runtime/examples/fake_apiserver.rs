//! Serves the in-memory Kubernetes API server on loopback and writes a kubeconfig, so kubectl or
//! a controller in another process can use it: `cargo run -p codegen-runtime --example fake_apiserver`.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;
use codegen_runtime::fake::FakeApiServer;

/// Serve an in-memory Kubernetes API server.
#[derive(Parser)]
struct Args {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// Where to write the kubeconfig.
    #[arg(long, default_value = "fake-apiserver.kubeconfig")]
    kubeconfig: PathBuf,
    /// Create namespaces on first use instead of answering 404.
    #[arg(long)]
    auto_create_namespaces: bool,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let server = FakeApiServer::builder()
        .auto_create_namespaces(args.auto_create_namespaces)
        .build();
    let served = server.serve(args.addr).await?;
    served.write_kubeconfig(&args.kubeconfig)?;
    println!("in-memory Kubernetes API server listening on {}", served.url());
    println!("try: kubectl --kubeconfig {} get namespaces", args.kubeconfig.display());
    println!("press Ctrl-C to stop");
    tokio::signal::ctrl_c().await?;
    Ok(())
}
