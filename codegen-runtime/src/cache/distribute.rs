//! An informer's engine: turns kube-runtime watcher events into cache writes and notifications
//! (tombstones after relists, final states on deletes, resyncs), under the dispatch lock so
//! handlers registering concurrently miss nothing and see nothing twice.

use std::collections::HashSet;
use std::sync::Arc;

use futures::StreamExt;
use kube::ResourceExt;
use kube::runtime::{WatchStreamExt, watcher};
use tokio::time::Instant;

use super::decode::Lenient;
use super::handler::{Deleted, DeletedFinalStateUnknown, Message, Notification};
use super::shared::{Dispatch, InformerObject, Shared, lock};
use super::store::object_key;

pub(super) async fn run_loop<K: InformerObject>(shared: Arc<Shared<K>>) {
    let stream = watcher(shared.api.clone(), shared.options.watcher.clone()).default_backoff();
    let mut stream = std::pin::pin!(stream);
    let mut relist: Vec<Arc<K>> = Vec::new();
    // Keys listed but not decodable: still there, so a relist must not report them deleted.
    let mut undecodable: HashSet<String> = HashSet::new();
    loop {
        let next_resync = shared.next_resync();
        tokio::select! {
            () = shared.stop.cancelled() => return,
            () = sleep_until(next_resync) => shared.resync_due(),
            // A handler with a resync may have been added while this loop slept.
            () = shared.listeners_changed.notified() => {}
            event = stream.next() => match event {
                None => return,
                Some(Err(error)) => {
                    tracing::warn!(kind = %K::kind(&K::DynamicType::default()), %error, "informer: list or watch failed; retrying with backoff");
                }
                Some(Ok(watcher::Event::Init)) => {
                    relist.clear();
                    undecodable.clear();
                }
                Some(Ok(watcher::Event::InitApply(object))) => {
                    let key = object_key(&object);
                    match shared.decode(object) {
                        Some(object) => relist.push(Arc::new(object)),
                        None => {
                            undecodable.insert(key);
                        }
                    }
                }
                Some(Ok(watcher::Event::InitDone)) => {
                    shared.replace(std::mem::take(&mut relist), &std::mem::take(&mut undecodable));
                }
                Some(Ok(watcher::Event::Apply(object))) => {
                    if let Some(object) = shared.decode(object) {
                        shared.apply(Arc::new(object));
                    }
                }
                Some(Ok(watcher::Event::Delete(object))) => {
                    let key = object_key(&object);
                    shared.delete(&key, shared.decode(object).map(Arc::new));
                }
            },
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

impl<K: InformerObject> Shared<K> {
    fn decode(&self, object: Lenient<K>) -> Option<K> {
        match object {
            Lenient::Decoded(mut object) => {
                if let Some(transform) = &self.options.transform {
                    transform(&mut object);
                }
                Some(object)
            }
            Lenient::Failed { metadata, error } => {
                tracing::warn!(
                    kind = %K::kind(&K::DynamicType::default()),
                    namespace = metadata.namespace.as_deref().unwrap_or(""),
                    name = metadata.name.as_deref().unwrap_or(""),
                    %error,
                    "informer: skipping an object that does not decode"
                );
                None
            }
        }
    }

    fn notify(&self, dispatch: &mut Dispatch<K>, make: impl Fn() -> Notification<K>) {
        dispatch.listeners.retain(|listener| listener.send(make()));
    }

    fn apply(&self, object: Arc<K>) {
        let mut dispatch = lock(&self.dispatch);
        match self.store.apply(object.clone()) {
            Some(old) => self.notify(&mut dispatch, || Notification::Update {
                old: old.clone(),
                new: object.clone(),
            }),
            None => self.notify(&mut dispatch, || Notification::Add {
                object: object.clone(),
                in_initial_list: false,
            }),
        }
    }

    /// Removes `key`; handlers get the watch's final state, or the cached one if it did not
    /// decode.
    fn delete(&self, key: &str, final_state: Option<Arc<K>>) {
        let mut dispatch = lock(&self.dispatch);
        if let Some(cached) = self.store.delete(key) {
            let last = final_state.unwrap_or(cached);
            self.notify(&mut dispatch, || Notification::Delete(Deleted::Object(last.clone())));
        }
    }

    /// A complete list: swap it in, then report what vanished as tombstones, then what is new
    /// or changed in list order, as client-go's atomic replace does. Objects listed but not
    /// decodable keep their cached state; objects whose resourceVersion did not change are not
    /// announced again (client-go sends those only to handlers due a resync).
    fn replace(&self, mut objects: Vec<Arc<K>>, undecodable: &HashSet<String>) {
        let mut dispatch = lock(&self.dispatch);
        for key in undecodable {
            if let Some(cached) = self.store.get(key) {
                objects.push(cached);
            }
        }
        let mut previous = self.store.replace(objects.clone());
        let first_list = !dispatch.synced;
        let present: HashSet<String> = objects.iter().map(|o| object_key(o.as_ref())).collect();
        let mut vanished: Vec<(String, Arc<K>)> = previous
            .iter()
            .filter(|(key, _)| !present.contains(*key))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        vanished.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, object) in vanished {
            self.notify(&mut dispatch, || {
                Notification::Delete(Deleted::Tombstone(DeletedFinalStateUnknown {
                    key: key.clone(),
                    object: object.clone(),
                }))
            });
        }
        for object in objects {
            match previous.remove(&object_key(object.as_ref())) {
                Some(old) if old.resource_version() == object.resource_version() => {}
                Some(old) => self.notify(&mut dispatch, || Notification::Update {
                    old: old.clone(),
                    new: object.clone(),
                }),
                None => self.notify(&mut dispatch, || Notification::Add {
                    object: object.clone(),
                    in_initial_list: first_list,
                }),
            }
        }
        if first_list {
            dispatch.synced = true;
            let owed = std::mem::take(&mut dispatch.unsynced);
            for listener in dispatch.listeners.iter().filter(|l| owed.contains(&l.id)) {
                let _ = listener.sender.send(Message::Synced);
            }
            self.synced.send_replace(true);
        }
    }

    fn next_resync(&self) -> Option<Instant> {
        lock(&self.dispatch)
            .listeners
            .iter()
            .filter_map(|l| l.next_resync)
            .min()
    }

    /// Every handler whose resync is due gets every cached object as an update to itself.
    fn resync_due(&self) {
        let mut dispatch = lock(&self.dispatch);
        let now = Instant::now();
        let synced = dispatch.synced;
        let objects = if synced { self.store.list() } else { Vec::new() };
        for listener in &mut dispatch.listeners {
            let (Some(due), Some(period)) = (listener.next_resync, listener.resync) else {
                continue;
            };
            if due > now {
                continue;
            }
            listener.next_resync = Some(now + period);
            for object in &objects {
                listener.send(Notification::Update {
                    old: object.clone(),
                    new: object.clone(),
                });
            }
        }
    }
}
