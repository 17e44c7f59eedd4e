//! Suite 2, listers: `get(ns, name)` and namespace `list` through the generated
//! VirtualMachineLister over an informer's cache of N objects in 100 namespaces — alone, then
//! with readers on both cores while the informer applies an endless watch — next to
//! kube-runtime's reflector store (which has no namespace index) read the same way.

use std::time::{Duration, Instant};

use codegen_runtime::cache::{InformerOptions, SharedIndexInformer};
use futures::StreamExt;
use generated_example::apis::cloudnative::v1alpha1::VirtualMachine;
use generated_example::generated::cloudnative::v1alpha1::VirtualMachineLister;
use kube::api::Api;
use kube::core::Selector;
use kube::runtime::reflector::{self, ObjectRef, Store, reflector};
use kube::runtime::{WatchStreamExt, watcher};

use crate::error::BenchError;
use crate::ingest::kube_client;
use crate::process::ServerProcess;
use crate::stats::{Table, human, verdict};
use crate::vm_catalog::{name_of, namespace_of};

/// Namespace `(namespace, name)` pairs of every object, in a scrambled order so lookups do not
/// walk memory in insertion order.
fn scrambled_keys(objects: usize) -> Vec<(String, String)> {
    // Multiplying by a constant coprime with `objects` permutes 0..objects.
    let step = (0..)
        .map(|k| 7_919 + k)
        .find(|s| gcd(*s, objects) == 1)
        .expect("some step is coprime");
    (0..objects)
        .map(|i| (i * step) % objects)
        .map(|i| (namespace_of(i), name_of(i)))
        .collect()
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Readers of one cache, by this crate's lister or kube-runtime's store.
#[derive(Clone)]
enum Reader {
    Ours(VirtualMachineLister),
    Reflector(Store<VirtualMachine>),
}

impl Reader {
    /// The highest resourceVersion in the cache: how far its watch has got.
    fn progress(&self) -> u64 {
        let objects = match self {
            Reader::Ours(lister) => lister.list(&Selector::default()),
            Reader::Reflector(store) => store.state(),
        };
        objects
            .iter()
            .filter_map(|vm| vm.metadata.resource_version.as_deref()?.parse().ok())
            .max()
            .unwrap_or(0)
    }

    fn get(&self, namespace: &str, name: &str) -> bool {
        match self {
            Reader::Ours(lister) => lister.virtual_machines(namespace).get(name).is_ok(),
            Reader::Reflector(store) => store.get(&ObjectRef::new(name).within(namespace)).is_some(),
        }
    }

    fn list(&self, namespace: &str) -> usize {
        match self {
            Reader::Ours(lister) => lister.virtual_machines(namespace).list(&Selector::default()).len(),
            Reader::Reflector(store) => store
                .state_filter(|vm| vm.metadata.namespace.as_deref() == Some(namespace))
                .len(),
        }
    }
}

/// Gets per second of `keys` and microseconds per list of the first `namespaces` namespaces
/// (of `per_namespace` objects each) with `threads` readers, each for `window`; fails if a
/// lookup misses or a list has the wrong size.
fn read(
    reader: &Reader,
    keys: &[(String, String)],
    (namespaces, per_namespace): (usize, usize),
    threads: usize,
    window: Duration,
) -> Result<(f64, f64), BenchError> {
    let results: Vec<Result<(f64, f64), BenchError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let (mut gets, started) = (0u64, Instant::now());
                    let mut i = t * keys.len() / threads.max(1);
                    while started.elapsed() < window {
                        for _ in 0..1024 {
                            let (namespace, name) = &keys[i % keys.len()];
                            if !reader.get(namespace, name) {
                                return Err(BenchError::check(format!("{namespace}/{name} is not cached")));
                            }
                            i += 1;
                        }
                        gets += 1024;
                    }
                    let get_rate = gets as f64 / started.elapsed().as_secs_f64();
                    let (mut lists, started) = (0u64, Instant::now());
                    while started.elapsed() < window {
                        let namespace = namespace_of((lists as usize + t) % namespaces);
                        let found = reader.list(&namespace);
                        if found != per_namespace {
                            return Err(BenchError::check(format!(
                                "{namespace} lists {found} objects, not {per_namespace}"
                            )));
                        }
                        lists += 1;
                    }
                    let list_us = started.elapsed().as_secs_f64() * 1e6 / lists as f64;
                    Ok((get_rate, list_us))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a reader panicked"))
            .collect()
    });
    let mut total_gets = 0.0;
    let mut list_us = 0.0;
    for result in results {
        let (gets, us) = result?;
        total_gets += gets;
        list_us += us / threads as f64;
    }
    Ok((total_gets, list_us))
}

/// A synced cache of the server's objects, by both clients; the watch keeps applying what the
/// server sends.
async fn caches(url: &str) -> Result<Caches, BenchError> {
    let client = kube_client(url)?;
    let informer = SharedIndexInformer::<VirtualMachine>::new(client.clone(), InformerOptions::default());
    informer.run();
    informer.wait_for_sync().await;
    let (reader, writer) = reflector::store();
    let stream = reflector(
        writer,
        watcher(Api::<VirtualMachine>::all(client), watcher::Config::default()),
    );
    let reflector = tokio::spawn(stream.applied_objects().for_each(|_| async {}));
    reader.wait_until_ready().await?;
    Ok(Caches {
        informer,
        store: reader,
        reflector,
    })
}

/// Both caches of one server. The reflector's task is aborted on drop: once its server is gone,
/// a watcher without backoff retries in a busy loop that would take a core from the next phase
/// and keep the runtime from shutting down.
struct Caches {
    informer: SharedIndexInformer<VirtualMachine>,
    store: Store<VirtualMachine>,
    reflector: tokio::task::JoinHandle<()>,
}

impl Drop for Caches {
    fn drop(&mut self) {
        self.reflector.abort();
    }
}

/// Runs the suite with `objects` cached objects and prints the table and verdicts.
pub fn suite(objects: usize, rounds: usize, window: Duration) -> Result<(), BenchError> {
    let runtime = crate::runtime()?;
    let keys = scrambled_keys(objects);
    let mut table = Table::default();
    let quiet = ServerProcess::start(objects, Some(0), true)?;
    let quiet_caches = runtime.block_on(caches(&quiet.url))?;
    let ours = Reader::Ours(VirtualMachineLister::new(quiet_caches.informer.lister()));
    let theirs = Reader::Reflector(quiet_caches.store.clone());
    let per_namespace = objects / 100;
    // Cold: every object in turn, so each read misses the CPU caches as a controller's would.
    // Hot: 1k keys and one namespace, which stay cached, as a micro-benchmark usually measures.
    let hot = &keys[..per_namespace.min(keys.len())];
    for _ in 0..rounds {
        for (name, reader) in [("lister", &ours), ("reflector store", &theirs)] {
            let (gets, list_us) = read(reader, &keys, (100, per_namespace), 1, window)?;
            table.record(&format!("{name}, 1 reader"), "get/s", gets);
            table.record(&format!("{name}, 1 reader"), "namespace list µs", list_us);
            let (gets, list_us) = read(reader, hot, (1, per_namespace), 1, window)?;
            table.record(&format!("{name}, 1 reader, hot"), "get/s", gets);
            table.record(&format!("{name}, 1 reader, hot"), "namespace list µs", list_us);
        }
    }
    drop((ours, theirs, quiet_caches, quiet));
    // The same with two readers while an endless watch modifies the cached objects.
    let busy = ServerProcess::start(objects, None, true)?;
    let busy_caches = runtime.block_on(caches(&busy.url))?;
    let ours = Reader::Ours(VirtualMachineLister::new(busy_caches.informer.lister()));
    let theirs = Reader::Reflector(busy_caches.store.clone());
    for _ in 0..rounds {
        for (name, reader) in [("lister", &ours), ("reflector store", &theirs)] {
            let before = (reader.progress(), Instant::now());
            let (gets, list_us) = read(reader, &keys, (100, per_namespace), 2, window)?;
            let applied = (reader.progress() - before.0) as f64 / before.1.elapsed().as_secs_f64();
            let program = format!("{name}, 2 readers + watch");
            table.record(&program, "get/s", gets);
            table.record(&program, "namespace list µs", list_us);
            table.record(&program, "watch events applied/s meanwhile", applied);
        }
    }
    drop((ours, theirs, busy_caches, busy));
    println!(
        "\n### Listers: {objects} VirtualMachines in 100 namespaces ({} per namespace), {rounds} rounds of {} s per reading\n",
        objects / 100,
        window.as_secs_f64()
    );
    print!("{table}");
    println!();
    for variant in ["lister, 1 reader", "lister, 1 reader, hot"] {
        let gets = table.samples(variant, "get/s").median();
        let list = table.samples(variant, "namespace list µs").median();
        println!(
            "{}",
            verdict(
                &format!("get ({variant})"),
                format!("{}/s", human(gets)),
                "≥ 5 M/s",
                gets >= 5e6
            )
        );
        println!(
            "{}",
            verdict(
                &format!("namespace list ({variant})"),
                format!("{list:.1} µs for {per_namespace} objects"),
                "≤ 20 µs for 1k",
                list <= 20.0
            )
        );
    }
    Ok(())
}
