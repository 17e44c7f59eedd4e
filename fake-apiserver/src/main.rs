//! Serves the in-memory Kubernetes API server on loopback and writes a kubeconfig, so kubectl or
//! a controller in another process can use it: `cargo run -p codegen-runtime --example fake_apiserver`.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;
use fake_apiserver::FakeApiServer;

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
    /// Seed this many ConfigMaps of about 1.5 KB, spread over 100 namespaces (for benchmarks).
    #[arg(long, default_value_t = 0)]
    seed_configmaps: usize,
}

/// Seeds `count` ConfigMaps of about 1.5 KB in namespaces `bench-00` … `bench-99`.
fn seed(server: &FakeApiServer, count: usize) -> Result<(), fake_apiserver::ApiStatus> {
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

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let server = FakeApiServer::builder()
        .auto_create_namespaces(args.auto_create_namespaces)
        .build();
    seed(&server, args.seed_configmaps)?;
    let served = server.serve(args.addr).await?;
    served.write_kubeconfig(&args.kubeconfig)?;
    println!("in-memory Kubernetes API server listening on {}", served.url());
    println!("try: kubectl --kubeconfig {} get namespaces", args.kubeconfig.display());
    println!("press Ctrl-C to stop");
    tokio::signal::ctrl_c().await?;
    Ok(())
}
