//! One informer-ingest measurement, in its own process (`bench ingest`): list N VirtualMachines
//! from the benchmark server and apply M watch events with one client — this crate's
//! `SharedIndexInformer`, kube-runtime's `reflector` + `watcher`, or plain decoding — then print
//! the rates and this process's memory as one JSON line.

use std::sync::Arc;
use std::time::{Duration, Instant};

use codegen_runtime::cache::{ApplyEvents, HandlerFns, InformerOptions, SharedIndexInformer};
use futures::{Stream, StreamExt, TryStreamExt};
use generated_example::apis::cloudnative::v1alpha1::VirtualMachine;
use kube::api::{Api, ListParams, WatchEvent, WatchParams};
use kube::runtime::reflector::reflector;
use kube::runtime::reflector::{self, ObjectRef};
use kube::runtime::{WatchStreamExt, watcher};
use serde::{Deserialize, Serialize};

use crate::error::BenchError;
use crate::process::{peak_rss_mib, rss_mib};
use crate::vm_catalog::{name_of, namespace_of};

/// The clients compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// This crate's `SharedIndexInformer` (namespace index on).
    Informer,
    /// The same storing objects without managed fields, as most controllers can
    /// (`strip_managed_fields`: skipped where decoded).
    InformerDroppingManagedFields,
    /// The informer with watch events applied on the engine's task (`ApplyEvents::OnOwnTask`).
    InformerEventsOnOwnTask,
    /// The informer with one event handler, which reads each update's name as a controller's
    /// handler reads its key (the handler frees the replaced objects, on its own task).
    InformerWithHandler,
    /// The same handler added inline (`add_inline_event_handler`): called on the informer's
    /// task, which then frees the replaced objects itself.
    InformerWithInlineHandler,
    /// kube-runtime's `reflector` over its `watcher`.
    Reflector,
    /// The same storing objects without managed fields: cleared by `.modify()` on the
    /// watcher's stream, kube-runtime's way to transform objects before the store.
    ReflectorDroppingManagedFields,
    /// The same pages and events decoded into `VirtualMachine`, nothing else.
    Decode,
}

/// What one run measured.
#[derive(Debug, Serialize, Deserialize)]
pub struct Ingest {
    /// Objects in the store (or decoded) after the initial list.
    pub objects: usize,
    /// Initial list: objects per second.
    pub list_per_s: f64,
    /// Watch events applied (or decoded) per second after the list.
    pub watch_per_s: f64,
    /// Resident memory after the initial list, MiB.
    pub rss_after_sync_mib: f64,
    /// Peak resident memory, MiB.
    pub peak_rss_mib: f64,
    /// Objects whose final resourceVersion differs from the server's (always 0 for decode).
    pub stale: usize,
}

/// The resourceVersion object `i` ends at after `events` events over `objects` objects: event
/// `j` sets object `j % objects` to `objects + j + 1`.
pub fn final_version(i: usize, objects: usize, events: usize) -> u64 {
    if i >= events {
        return i as u64 + 1;
    }
    let last = i + objects * ((events - 1 - i) / objects);
    (objects + last + 1) as u64
}

fn version_of(vm: &VirtualMachine) -> u64 {
    vm.metadata
        .resource_version
        .as_deref()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// A client of the benchmark server at `url` (plain HTTP on loopback).
pub fn kube_client(url: &str) -> Result<kube::Client, BenchError> {
    let config = kube::Config::new(url.parse().map_err(|source| BenchError::Url {
        url: url.to_owned(),
        source,
    })?);
    Ok(kube::Client::try_from(config)?)
}

/// Runs one measurement against the server at `url` and prints it.
pub async fn run(url: &str, client: Client, streaming: bool, objects: usize, events: usize) -> Result<(), BenchError> {
    let kube = kube_client(url)?;
    let mut watcher_config = watcher::Config::default();
    if streaming {
        watcher_config = watcher_config.streaming_lists();
    }
    let last = (events > 0).then(|| ((events - 1) % objects, (objects + events) as u64));
    let started = Instant::now();
    let result = match client {
        Client::Informer
        | Client::InformerDroppingManagedFields
        | Client::InformerEventsOnOwnTask
        | Client::InformerWithHandler
        | Client::InformerWithInlineHandler => {
            let informer = SharedIndexInformer::<VirtualMachine>::new(
                kube,
                InformerOptions {
                    watcher: watcher_config,
                    strip_managed_fields: client == Client::InformerDroppingManagedFields,
                    apply_events: if client == Client::InformerEventsOnOwnTask {
                        ApplyEvents::OnOwnTask
                    } else {
                        ApplyEvents::WhereDecoded
                    },
                    ..InformerOptions::default()
                },
            );
            let handler = || {
                HandlerFns::new().on_update(|_old, new: Arc<VirtualMachine>| {
                    std::hint::black_box(new.metadata.name.as_deref());
                })
            };
            match client {
                Client::InformerWithHandler => drop(informer.add_event_handler(handler())),
                Client::InformerWithInlineHandler => drop(informer.add_inline_event_handler(handler())),
                _ => {}
            }
            informer.run();
            informer.wait_for_sync().await;
            let synced = started.elapsed();
            let rss = rss_mib();
            let store = informer.store();
            let version = |i: usize| {
                store
                    .get_in(&namespace_of(i), &name_of(i))
                    .map_or(0, |vm| version_of(&vm))
            };
            let (watched, stale) = settle(last, objects, events, version).await;
            measured(store.len(), synced, watched, events, rss, stale)
        }
        Client::Reflector => {
            let stream = watcher(Api::all(kube), watcher_config);
            reflect(stream, started, last, objects, events).await?
        }
        Client::ReflectorDroppingManagedFields => {
            let stream = watcher(Api::all(kube), watcher_config).modify(drop_managed_fields);
            reflect(stream, started, last, objects, events).await?
        }
        Client::Decode => decode(kube, streaming, events, started).await?,
    };
    println!("{}", serde_json::to_string(&result)?);
    Ok(())
}

/// kube-runtime's reflector over `stream`, measured as the informer is.
async fn reflect(
    stream: impl Stream<Item = watcher::Result<watcher::Event<VirtualMachine>>> + Send + 'static,
    started: Instant,
    last: Option<(usize, u64)>,
    objects: usize,
    events: usize,
) -> Result<Ingest, BenchError> {
    let (reader, writer) = reflector::store();
    let applied = reflector(writer, stream).applied_objects();
    let task = tokio::spawn(applied.for_each(|_| async {}));
    reader.wait_until_ready().await?;
    let synced = started.elapsed();
    let rss = rss_mib();
    let version = |i: usize| {
        reader
            .get(&ObjectRef::new(&name_of(i)).within(&namespace_of(i)))
            .map_or(0, |vm| version_of(&vm))
    };
    let (watched, stale) = settle(last, objects, events, version).await;
    task.abort();
    Ok(measured(reader.len(), synced, watched, events, rss, stale))
}

/// What the reflector's `managedFields dropped` row does to each object.
fn drop_managed_fields(vm: &mut VirtualMachine) {
    vm.metadata.managed_fields = None;
}

fn measured(objects: usize, synced: Duration, watched: Duration, events: usize, rss: f64, stale: usize) -> Ingest {
    Ingest {
        objects,
        list_per_s: objects as f64 / synced.as_secs_f64(),
        watch_per_s: events as f64 / watched.as_secs_f64(),
        rss_after_sync_mib: rss,
        peak_rss_mib: peak_rss_mib(),
        stale,
    }
}

/// How long until the last event's object has the last event's resourceVersion (watch events
/// apply in order, so then all have; polled every millisecond), and then how many objects are
/// not at their final resourceVersion.
async fn settle(
    last: Option<(usize, u64)>,
    objects: usize,
    events: usize,
    version: impl Fn(usize) -> u64,
) -> (Duration, usize) {
    let started = Instant::now();
    if let Some((object, wanted)) = last {
        while version(object) != wanted {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    let watched = started.elapsed();
    let stale = (0..objects)
        .filter(|&i| version(i) != final_version(i, objects, events))
        .count();
    (watched, stale)
}

/// The baseline: the list's pages (or a streaming list's events) decoded and kept, then the
/// watch events decoded and dropped.
async fn decode(kube: kube::Client, streaming: bool, events: usize, started: Instant) -> Result<Ingest, BenchError> {
    let api: Api<VirtualMachine> = Api::all(kube);
    let mut objects: Vec<VirtualMachine> = Vec::new();
    let mut watch_params = WatchParams::default();
    let mut from = "0".to_owned();
    if streaming {
        watch_params = WatchParams::streaming_lists();
    } else {
        let mut params = ListParams::default().limit(500);
        loop {
            let page = api.list(&params).await?;
            objects.extend(page.items);
            match page.metadata.continue_ {
                Some(token) if !token.is_empty() => params = params.continue_token(&token),
                _ => {
                    from = page.metadata.resource_version.unwrap_or_default();
                    break;
                }
            }
        }
    }
    let mut stream = api.watch(&watch_params, &from).await?.boxed();
    let mut synced = if streaming { None } else { Some(started.elapsed()) };
    let mut rss = if streaming { 0.0 } else { rss_mib() };
    let mut watch_started = Instant::now();
    let mut seen = 0;
    while synced.is_none() || seen < events {
        match stream.try_next().await? {
            Some(WatchEvent::Added(vm)) if synced.is_none() => objects.push(vm),
            Some(WatchEvent::Bookmark(_)) if synced.is_none() => {
                synced = Some(started.elapsed());
                rss = rss_mib();
                watch_started = Instant::now();
            }
            Some(WatchEvent::Modified(vm)) => {
                std::hint::black_box(vm);
                seen += 1;
            }
            Some(other) => return Err(BenchError::check(format!("unexpected watch event {other:?}"))),
            None => {
                let ended = format!("the watch ended after {seen} of {events} events");
                return Err(BenchError::check(ended));
            }
        }
    }
    let watched = watch_started.elapsed();
    let synced = synced.ok_or_else(|| BenchError::check("the streaming list never ended"))?;
    Ok(measured(objects.len(), synced, watched, events, rss, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_versions_should_follow_the_servers_event_numbering() {
        // 3 objects, 4 events: events 0..4 touch objects 0, 1, 2, 0 at versions 4, 5, 6, 7.
        assert_eq!((0..3).map(|i| final_version(i, 3, 4)).collect::<Vec<_>>(), [7, 5, 6]);
        assert_eq!(final_version(2, 3, 0), 3, "no events: the created version");
        assert_eq!(final_version(2, 5, 1), 3, "untouched by the one event");
    }
}
