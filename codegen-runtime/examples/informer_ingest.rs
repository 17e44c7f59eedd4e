//! Lists and syncs every ConfigMap of a cluster with one of three clients, then reports the
//! ingest rate and this process's memory: `informer` (this crate's `SharedIndexInformer`, with
//! its namespace index), `reflector` (kube-runtime's `reflector` + `watcher`), or `decode` (the
//! same pages decoded into `Vec<ConfigMap>` and kept, nothing else).
//!
//! `cargo run --release -p codegen-runtime --example informer_ingest -- <mode> <kubeconfig>`;
//! `hack/bench-informer.sh` runs the modes alternately against a seeded fake server.

use std::time::Instant;

use codegen_runtime::cache::{InformerOptions, SharedIndexInformer};
use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::{WatchStreamExt, reflector, watcher};

fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: informer_ingest <informer|reflector|decode> <kubeconfig>";
    let mode = args.next().ok_or(usage)?;
    let kubeconfig = Kubeconfig::read_from(args.next().ok_or(usage)?)?;
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
    let client = kube::Client::try_from(config)?;
    let started = Instant::now();
    let (count, keep): (usize, Box<dyn std::any::Any>) = match mode.as_str() {
        "informer" => {
            let informer = SharedIndexInformer::<ConfigMap>::new(client, InformerOptions::default());
            informer.run();
            informer.wait_for_sync().await;
            (informer.store().len(), Box::new(informer))
        }
        "reflector" => {
            let api: Api<ConfigMap> = Api::all(client);
            let (reader, writer) = reflector::store();
            let stream = reflector(writer, watcher(api, watcher::Config::default())).applied_objects();
            tokio::spawn(stream.for_each(|_| async {}));
            reader.wait_until_ready().await?;
            (reader.state().len(), Box::new(reader))
        }
        "decode" => {
            let api: Api<ConfigMap> = Api::all(client);
            let mut objects: Vec<ConfigMap> = Vec::new();
            let mut params = ListParams::default().limit(500);
            loop {
                let page = api.list(&params).await?;
                objects.extend(page.items);
                match page.metadata.continue_ {
                    Some(token) if !token.is_empty() => params = params.continue_token(&token),
                    _ => break,
                }
            }
            (objects.len(), Box::new(objects))
        }
        other => return Err(format!("unknown mode {other:?}; {usage}").into()),
    };
    let elapsed = started.elapsed();
    println!(
        "{mode:<9} objects={count} list_objects_per_s={:.0} rss_after_sync_mib={:.1}",
        count as f64 / elapsed.as_secs_f64(),
        rss_mib()
    );
    drop(keep);
    Ok(())
}
