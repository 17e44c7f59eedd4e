//! An informer's engine: applies what the reflector decodes, in order. A list's pages are filed
//! into the relist on a task of the engine's own; watch events are applied where they were
//! decoded or on that task, as [`ApplyEvents`] says.

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::shared::{ApplyEvents, Delta, InformerObject, Shared};
use super::store::{Relist, Store};

/// How many changes may wait for the engine's task (list pages, and watch events when they are
/// applied there).
const STEP_BUFFER: usize = 1024;

/// The engine for `shared`'s informer, and its task (which ends once the engine is dropped and
/// what it was handed is applied).
pub(super) fn start<K: InformerObject>(shared: &Arc<Shared<K>>) -> (Engine<'_, K>, JoinHandle<()>) {
    let (steps, receiver) = mpsc::channel(STEP_BUFFER);
    let task = tokio::spawn(apply_steps(shared.clone(), receiver));
    let engine = Engine {
        shared,
        steps,
        events_here: shared.options.apply_events == ApplyEvents::WhereDecoded,
        swapping: None,
    };
    (engine, task)
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
    /// Applies `delta` after every change handed over before it.
    pub(super) async fn hand_over(&mut self, delta: Delta<K>) {
        match delta {
            Delta::Apply(object, field_sets) if self.events_here => {
                self.settle().await;
                self.shared.apply(object, field_sets);
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
        if self.steps.send(step).await.is_err() {
            self.task_died();
        }
    }

    /// Waits until the last complete list is in the store: watch events apply on top of it.
    async fn settle(&mut self) {
        if let Some(signal) = self.swapping.take()
            && signal.await.is_err()
        {
            self.task_died();
        }
    }

    /// The task ends only after the engine is dropped, unless it panicked (in an index
    /// function, which it runs on every listed object): then lists would be lost while events
    /// went on, and the cache would drift from the server. The informer stops instead.
    fn task_died(&self) {
        if !self.shared.stop.is_cancelled() {
            tracing::error!(
                kind = %K::kind(&K::DynamicType::default()),
                "informer: its engine's task panicked; the informer stops"
            );
            self.shared.stop.cancel();
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
                    add_listed(&shared.store, shared.field_sets_as_text(), &mut relist, objects, first);
                }
                Step::Delta(Delta::Replace {
                    objects,
                    first,
                    undecodable,
                }) => {
                    add_listed(&shared.store, shared.field_sets_as_text(), &mut relist, objects, first);
                    let complete = relist.take().unwrap_or_else(|| shared.store.relist(false));
                    shared.replace(complete, &undecodable);
                }
                Step::Delta(Delta::Apply(object, field_sets)) => shared.apply(object, field_sets),
                Step::Delta(Delta::Delete { key, last }) => shared.delete(&key, last),
                Step::Barrier(done) => {
                    let _ = done.send(());
                }
            }
        }
    }
}

/// Adds listed objects to the relist being built; `first` starts a new one, dropping what a
/// list that failed halfway left behind.
/// `fingerprints`: where updates are recognized by their field sets' fingerprints
/// ([`Shared::field_sets_as_text`]), listed objects get one.
fn add_listed<K: InformerObject>(
    store: &Store<K>,
    fingerprints: bool,
    relist: &mut Option<Relist<K>>,
    objects: Vec<Arc<K>>,
    first: bool,
) {
    if first {
        *relist = None;
    }
    let relist = relist.get_or_insert_with(|| store.relist(fingerprints));
    for object in objects {
        relist.add(object);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::ResourceExt;
    use kube::api::ObjectMeta;

    use super::*;
    use crate::cache::{InformerOptions, NAMESPACE_INDEX, SharedIndexInformer};

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
        for apply_events in [ApplyEvents::WhereDecoded, ApplyEvents::OnOwnTask] {
            let server = fake_apiserver::FakeApiServer::new();
            let options = InformerOptions {
                apply_events,
                ..InformerOptions::default()
            };
            let informer = SharedIndexInformer::<ConfigMap>::new(server.client(), options);
            let shared = informer.shared();
            let (mut engine, task) = start(shared);
            assert_eq!(engine.events_here, apply_events == ApplyEvents::WhereDecoded);
            // The task has not run yet when the event comes: applied here, the event waits
            // for the swap; applied by the task, it is queued behind the list.
            let listed = Delta::Replace {
                objects: vec![cm_at("a", "1")],
                first: true,
                undecodable: HashSet::new(),
            };
            engine.hand_over(listed).await;
            engine.hand_over(Delta::Apply(cm_at("a", "2"), None)).await;
            drop(engine);
            task.await.expect("the task ends with the engine");
            let cached = shared.store.get("default/a").expect("a is cached");
            assert_eq!(cached.resource_version().as_deref(), Some("2"), "{apply_events:?}");
        }
    }

    #[test]
    fn a_list_cut_short_should_leave_nothing_of_itself_in_the_next() {
        let store = Store::new();
        let mut relist = None;
        // A list whose third page never came (410 on its continue token, say): "b" was on
        // its second page and is deleted before the list starts again.
        add_listed(&store, false, &mut relist, vec![cm("a")], true);
        add_listed(&store, false, &mut relist, vec![cm("b")], false);
        add_listed(&store, false, &mut relist, vec![cm("a")], true);
        add_listed(&store, false, &mut relist, vec![cm("c")], false);
        let (listed, previous) = store.swap_in(relist.take().expect("a relist"));
        let names = |objects: &[Arc<ConfigMap>]| -> Vec<String> { objects.iter().map(|o| o.name_any()).collect() };
        assert_eq!(names(&listed), ["a", "c"]);
        assert!(previous.is_empty());
        assert_eq!(store.list_keys().len(), 2);
        assert!(store.get("default/b").is_none(), "nothing of the cut list is kept");
        assert_eq!(names(&store.by_index(NAMESPACE_INDEX, "default").unwrap()), ["a", "c"]);
    }
}
