//! An informer's engine: turns listed and watched objects into cache writes and notifications
//! (tombstones after relists, final states on deletes, resyncs), under the dispatch lock so
//! handlers registering concurrently miss nothing and see nothing twice.

use std::collections::HashSet;
use std::sync::Arc;

use kube::ResourceExt;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::decode::Lenient;
use super::handler::{Deleted, DeletedFinalStateUnknown, Message, Notification};
use super::key::object_key;
use super::reflector::reflect;
use super::shared::{ApplyEvents, Delta, Dispatch, InformerObject, Shared, lock};
use super::store::{Relist, Store};

/// How many changes may wait for the engine's task (list pages, and watch events when they are
/// applied there).
const STEP_BUFFER: usize = 1024;

/// Runs an informer until it stops: its list and watch, the engine that applies what they
/// decode, and the handlers' resyncs.
pub(super) async fn run_loop<K: InformerObject>(shared: Arc<Shared<K>>) {
    let (steps, receiver) = mpsc::channel(STEP_BUFFER);
    let task = tokio::spawn(apply_steps(shared.clone(), receiver));
    let engine = Engine {
        shared: &shared,
        steps,
        events_here: shared.options.apply_events == ApplyEvents::WhereDecoded,
        swapping: None,
    };
    tokio::select! {
        () = shared.stop.cancelled() => {}
        () = reflect(&shared, engine) => {}
        () = resync_loop(&shared) => {}
    }
    // The reflector is gone with the engine: its task applies what is queued and ends.
    let _ = task.await;
}

/// Applies the reflector's changes in order. A list's pages go to the engine's task, which
/// builds the relist on the other core while the next pages are decoded (a page is 500
/// objects: the hand-over costs little per object). Watch events go where
/// [`ApplyEvents`] says: applied here, where they were decoded, once the last list is swapped
/// in; or queued for the task behind the pages.
pub(super) struct Engine<'s, K> {
    shared: &'s Shared<K>,
    steps: mpsc::Sender<Step<K>>,
    /// Whether watch events are applied here ([`ApplyEvents::WhereDecoded`]).
    events_here: bool,
    /// Until the task has swapped in the last complete list: its signal.
    swapping: Option<oneshot::Receiver<()>>,
}

/// What the engine's task receives.
enum Step<K> {
    Delta(Delta<K>),
    /// Told once every change before it is applied.
    Barrier(oneshot::Sender<()>),
}

impl<K: InformerObject> Engine<'_, K> {
    /// Applies `delta` after every change handed over before it; a task that is gone (the
    /// informer stopping) takes nothing.
    pub(super) async fn hand_over(&mut self, delta: Delta<K>) {
        match delta {
            Delta::Apply(object) if self.events_here => {
                self.settle().await;
                self.shared.apply(object);
            }
            Delta::Delete { key, last } if self.events_here => {
                self.settle().await;
                self.shared.delete(&key, last);
            }
            delta => {
                let ends_list = matches!(delta, Delta::Replace { .. });
                self.send(Step::Delta(delta)).await;
                if ends_list && self.events_here {
                    let (swapped, signal) = oneshot::channel();
                    self.send(Step::Barrier(swapped)).await;
                    self.swapping = Some(signal);
                }
            }
        }
    }

    async fn send(&self, step: Step<K>) {
        let _ = self.steps.send(step).await;
    }

    /// Waits until the last complete list is in the store: watch events apply on top of it.
    async fn settle(&mut self) {
        if let Some(signal) = self.swapping.take() {
            let _ = signal.await;
        }
    }
}

/// The engine's task: files list pages into the relist being built, swaps each complete one
/// in, and applies the watch events it is handed, a batch at a time.
async fn apply_steps<K: InformerObject>(shared: Arc<Shared<K>>, mut steps: mpsc::Receiver<Step<K>>) {
    let mut batch = Vec::with_capacity(64);
    let mut relist: Option<Relist<K>> = None;
    while steps.recv_many(&mut batch, 64).await > 0 {
        for step in batch.drain(..) {
            match step {
                Step::Delta(Delta::Listed { objects, first }) => {
                    add_listed(&shared.store, &mut relist, objects, first);
                }
                Step::Delta(Delta::Replace {
                    objects,
                    first,
                    undecodable,
                }) => {
                    add_listed(&shared.store, &mut relist, objects, first);
                    let complete = relist.take().unwrap_or_else(|| shared.store.relist());
                    shared.replace(complete, &undecodable);
                }
                Step::Delta(Delta::Apply(object)) => shared.apply(object),
                Step::Delta(Delta::Delete { key, last }) => shared.delete(&key, last),
                Step::Barrier(done) => {
                    let _ = done.send(());
                }
            }
        }
    }
}

/// Adds listed objects to the relist being built; `first` starts a new one (a list that
/// failed halfway leaves its part behind).
fn add_listed<K: InformerObject>(store: &Store<K>, relist: &mut Option<Relist<K>>, objects: Vec<Arc<K>>, first: bool) {
    if first {
        *relist = None;
    }
    let relist = relist.get_or_insert_with(|| store.relist());
    for object in objects {
        relist.add(object);
    }
}

/// Resyncs the handlers whose period is due; a handler with a resync may be added meanwhile.
async fn resync_loop<K: InformerObject>(shared: &Shared<K>) {
    loop {
        tokio::select! {
            () = sleep_until(shared.next_resync()) => shared.resync_due(),
            () = shared.listeners_changed.notified() => {}
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
    /// An object as the store keeps it: transformed, shared.
    pub(super) fn keep(&self, mut object: K) -> Arc<K> {
        if let Some(transform) = &self.options.transform {
            transform(&mut object);
        }
        Arc::new(object)
    }

    /// A listed or watched object as the store keeps it, or `None` (logged) if it did not decode.
    pub(super) fn decoded(&self, object: Lenient<K>) -> Option<Arc<K>> {
        match object {
            Lenient::Decoded(object) => Some(self.keep(object)),
            failed => {
                self.skip(failed);
                None
            }
        }
    }

    /// Logs an object skipped because it does not decode; returns its key.
    pub(super) fn skip(&self, failed: Lenient<K>) -> String {
        let key = object_key(&failed);
        if let Lenient::Failed { metadata, error } = failed {
            tracing::warn!(
                kind = %K::kind(&K::DynamicType::default()),
                namespace = metadata.namespace.as_deref().unwrap_or(""),
                name = metadata.name.as_deref().unwrap_or(""),
                %error,
                "informer: skipping an object that does not decode"
            );
        }
        key
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
    fn replace(&self, mut relist: Relist<K>, undecodable: &HashSet<String>) {
        let mut dispatch = lock(&self.dispatch);
        for key in undecodable {
            if let Some(cached) = self.store.get(key) {
                relist.add(cached);
            }
        }
        let (objects, mut previous) = self.store.swap_in(relist);
        let first_list = !dispatch.synced;
        if previous.is_empty() {
            // Nothing to compare with (the first list): every object is new.
            for object in objects {
                self.notify(&mut dispatch, || Notification::Add {
                    object: object.clone(),
                    in_initial_list: first_list,
                });
            }
            self.mark_synced(&mut dispatch, first_list);
            return;
        }
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
        self.mark_synced(&mut dispatch, first_list);
    }

    /// After the first list: the informer and every handler owed it have synced.
    fn mark_synced(&self, dispatch: &mut Dispatch<K>, first_list: bool) {
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

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    use super::*;
    use crate::cache::{NAMESPACE_INDEX, SharedIndexInformer};

    fn cm(name: &str) -> Arc<ConfigMap> {
        cm_at(name, "1")
    }

    fn cm_at(name: &str, resource_version: &str) -> Arc<ConfigMap> {
        Arc::new(ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                namespace: Some("default".to_owned()),
                resource_version: Some(resource_version.to_owned()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        })
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_watch_event_should_apply_on_top_of_the_list_before_it() {
        for events_here in [true, false] {
            let server = fake_apiserver::FakeApiServer::new();
            let informer = SharedIndexInformer::<ConfigMap>::new(server.client(), Default::default());
            let shared = informer.shared();
            let (steps, receiver) = mpsc::channel(STEP_BUFFER);
            let task = tokio::spawn(apply_steps(shared.clone(), receiver));
            let mut engine = Engine {
                shared,
                steps,
                events_here,
                swapping: None,
            };
            // The task has not run yet when the event comes: applied here, the event waits
            // for the swap; applied by the task, it is queued behind the list.
            let listed = Delta::Replace {
                objects: vec![cm_at("a", "1")],
                first: true,
                undecodable: HashSet::new(),
            };
            engine.hand_over(listed).await;
            engine.hand_over(Delta::Apply(cm_at("a", "2"))).await;
            drop(engine);
            task.await.expect("the task ends with the engine");
            let cached = shared.store.get("default/a").expect("a is cached");
            assert_eq!(
                cached.resource_version().as_deref(),
                Some("2"),
                "events applied where decoded: {events_here}"
            );
        }
    }

    #[test]
    fn a_list_cut_short_should_leave_nothing_of_itself_in_the_next() {
        let store = Store::new();
        let mut relist = None;
        // A list whose third page never came (410 on its continue token, say): "b" was on
        // its second page and is deleted before the list starts again.
        add_listed(&store, &mut relist, vec![cm("a")], true);
        add_listed(&store, &mut relist, vec![cm("b")], false);
        add_listed(&store, &mut relist, vec![cm("a")], true);
        add_listed(&store, &mut relist, vec![cm("c")], false);
        let (listed, previous) = store.swap_in(relist.take().expect("a relist"));
        let names = |objects: &[Arc<ConfigMap>]| -> Vec<String> { objects.iter().map(|o| o.name_any()).collect() };
        assert_eq!(names(&listed), ["a", "c"]);
        assert!(previous.is_empty());
        assert_eq!(store.list_keys().len(), 2);
        assert!(store.get("default/b").is_none(), "nothing of the cut list is kept");
        assert_eq!(names(&store.by_index(NAMESPACE_INDEX, "default").unwrap()), ["a", "c"]);
    }
}
