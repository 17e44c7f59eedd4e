//! An informer's run loop, and how listed and watched objects become cache writes and
//! notifications (tombstones after relists, final states on deletes, resyncs), under the
//! dispatch lock so handlers registering concurrently miss nothing and see nothing twice.

use std::collections::HashSet;
use std::sync::Arc;

use kube::ResourceExt;
use tokio::time::Instant;

use super::decode::Lenient;
use super::engine;
use super::field_sets::{FieldSetTexts, Fingerprint};
use super::handler::{Deleted, DeletedFinalStateUnknown, Notification};
use super::key::object_key;
use super::reflector::reflect;
use super::reuse::Unchanged;
use super::shared::{ApplyEvents, Dispatch, InformerObject, Shared};
use super::store::Relist;

/// Runs an informer until it stops: its list and watch, the engine that applies what they
/// decode, and the handlers' resyncs.
pub(super) async fn run_loop<K: InformerObject>(shared: Arc<Shared<K>>) {
    let (engine, task) = engine::start(&shared);
    tokio::select! {
        () = shared.stop.cancelled() => {}
        () = reflect(&shared, engine) => {}
        () = resync_loop(&shared) => {}
    }
    // The reflector is gone with the engine: its task applies what is queued and ends.
    let _ = task.await;
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

/// Whether an update keeps the unchanged field sets of the object it replaces: only where that
/// object is freed right after, by the thread that decoded the update (`handled_here`: every
/// handler is inline, or there is none). A buffered handler's notification takes it to the
/// handler's task, and events applied on the engine's task free it there: then the fresh
/// copies would be freed on another thread than the one that allocated them, which under
/// glibc's allocator costs more than the cold free it saves (both measured in BENCHMARKS.md).
fn unchanged_for(apply_events: ApplyEvents, handled_here: bool) -> Unchanged {
    match apply_events {
        ApplyEvents::WhereDecoded if handled_here => Unchanged::Keep,
        ApplyEvents::WhereDecoded | ApplyEvents::OnOwnTask => Unchanged::Free,
    }
}

impl<K: InformerObject> Shared<K> {
    /// An object as the store keeps it: without managed fields if they are stripped,
    /// transformed, shared.
    pub(super) fn keep(&self, mut object: Arc<K>) -> Arc<K> {
        debug_assert_eq!(
            Arc::strong_count(&object),
            1,
            "a decoded object reaches the store unshared"
        );
        // Skipped where decoded, but a misfit decoded on its own, or a `K` that reads its
        // metadata out of the decoder's way, still has them.
        if self.options.strip_managed_fields && object.meta().managed_fields.is_some() {
            // Not shared yet: `make_mut` changes it in place, without a copy.
            Arc::make_mut(&mut object).meta_mut().managed_fields = None;
        }
        if let Some(transform) = &self.options.transform {
            transform(Arc::make_mut(&mut object));
        }
        object
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
        dispatch.listeners.retain_mut(|listener| listener.send(make()));
    }

    /// Stores an added or modified object and notifies the handlers; `field_sets`, if its
    /// field sets were left as text, are taken from the replaced object or decoded here.
    pub(super) fn apply(&self, object: Arc<K>, field_sets: Option<FieldSetTexts>) {
        let mut dispatch = self.lock_dispatch();
        let (object, fingerprint) = match field_sets {
            None => (object, Fingerprint::NONE),
            Some(texts) => {
                // A handler gets the replaced object, which must then keep its trees.
                let object = match dispatch.listeners.is_empty() {
                    true => match self.store.apply_taking(object, &texts) {
                        Ok(_stored) => return,
                        Err(object) => object,
                    },
                    false => object,
                };
                let Some(object) = self.decoded(texts.complete(object)) else {
                    return;
                };
                (object, texts.fingerprint())
            }
        };
        let handled_here = dispatch.listeners.iter().all(|listener| listener.is_inline());
        let unchanged = unchanged_for(self.options.apply_events, handled_here);
        let (object, old) = self.store.apply(object, fingerprint, unchanged);
        match old {
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
    pub(super) fn delete(&self, key: &str, final_state: Option<Arc<K>>) {
        let mut dispatch = self.lock_dispatch();
        if let Some(cached) = self.store.delete(key) {
            let last = final_state.unwrap_or(cached);
            self.notify(&mut dispatch, || Notification::Delete(Deleted::Object(last.clone())));
        }
    }

    /// A complete list: swap it in, then report what vanished as tombstones, then what is new
    /// or changed in list order, as client-go's atomic replace does. Objects listed but not
    /// decodable keep their cached state; objects whose resourceVersion did not change are not
    /// announced again (client-go sends those only to handlers due a resync).
    pub(super) fn replace(&self, mut relist: Relist<K>, undecodable: &HashSet<String>) {
        let mut dispatch = self.lock_dispatch();
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
        // Each listed object's key, computed once: for what vanished, then for what changed.
        let keys: Vec<String> = objects.iter().map(|o| object_key(o.as_ref())).collect();
        let present: HashSet<&str> = keys.iter().map(String::as_str).collect();
        let mut vanished: Vec<(String, Arc<K>)> = previous
            .iter()
            .filter(|(key, _)| !present.contains(key.as_str()))
            .map(|(k, v)| (k.as_str().to_owned(), v.clone()))
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
        for (object, key) in objects.into_iter().zip(&keys) {
            match previous.remove(key.as_str()) {
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
                if !listener.is_removed() {
                    listener.synced();
                }
            }
            self.synced.send_replace(true);
        }
    }

    fn next_resync(&self) -> Option<Instant> {
        self.lock_dispatch()
            .listeners
            .iter()
            .filter(|l| !l.is_removed())
            .filter_map(|l| l.next_resync)
            .min()
    }

    /// Every handler whose resync is due gets every cached object as an update to itself.
    fn resync_due(&self) {
        let mut dispatch = self.lock_dispatch();
        let now = Instant::now();
        let synced = dispatch.synced;
        let objects = if synced { self.store.list() } else { Vec::new() };
        // Removed handlers go here too: an inline one may have flagged itself only.
        dispatch.listeners.retain_mut(|listener| {
            let due = listener.next_resync.is_some_and(|due| due <= now);
            match listener.resync.filter(|_| due) {
                Some(period) => {
                    listener.next_resync = Some(now + period);
                    let update = |object: &Arc<K>| Notification::Update {
                        old: object.clone(),
                        new: object.clone(),
                    };
                    objects.iter().all(|object| listener.send(update(object))) && !listener.is_removed()
                }
                None => !listener.is_removed(),
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{FieldsV1, ManagedFieldsEntry};
    use kube::api::ObjectMeta;

    use super::*;
    use crate::cache::wire::pending;
    use crate::cache::{HandlerFns, InformerOptions, SharedIndexInformer};

    /// ConfigMap `a` at `resource_version`, with one writer's field set.
    fn cm(resource_version: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some("a".to_owned()),
                namespace: Some("default".to_owned()),
                resource_version: Some(resource_version.to_owned()),
                managed_fields: Some(vec![ManagedFieldsEntry {
                    manager: Some("m".to_owned()),
                    fields_v1: Some(FieldsV1(serde_json::json!({"f:data": {".": {}, "f:k": {}}}))),
                    ..ManagedFieldsEntry::default()
                }]),
                ..ObjectMeta::default()
            },
            data: Some([("k".to_owned(), resource_version.to_owned())].into()),
            ..ConfigMap::default()
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn an_update_left_as_text_should_reach_the_store_and_a_handler_added_meanwhile_whole() {
        let server = fake_apiserver::FakeApiServer::new();
        let informer = SharedIndexInformer::<ConfigMap>::new(server.client(), InformerOptions::default());
        let shared = informer.shared();
        let mut relist = shared.store.relist(true);
        relist.add(Arc::new(cm("1")));
        shared.store.swap_in(relist);

        // No handler: the cached trees are taken over.
        let (fresh, texts) = pending(&cm("2"));
        shared.apply(fresh, Some(texts));
        assert_eq!(*shared.store.get("default/a").unwrap(), cm("2"));

        // A handler registered between the decode and the apply: the texts are decoded, and
        // the handler gets both objects whole.
        let (fresh, texts) = pending(&cm("3"));
        let updates = Arc::new(Mutex::new(Vec::new()));
        let heard = updates.clone();
        let handler = HandlerFns::new().on_update(move |old: Arc<ConfigMap>, new: Arc<ConfigMap>| {
            heard.lock().unwrap().push(((*old).clone(), (*new).clone()));
        });
        informer.add_inline_event_handler(handler);
        shared.apply(fresh, Some(texts));
        assert_eq!(*updates.lock().unwrap(), [(cm("2"), cm("3"))]);
        assert_eq!(*shared.store.get("default/a").unwrap(), cm("3"));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn an_object_decoded_with_its_managed_fields_should_be_stored_without_them_where_they_are_stripped() {
        // A misfit's lenient decode, or a `K` that reads its metadata out of the decoder's
        // way, hands over managed fields: they go before the transform and the store.
        let server = fake_apiserver::FakeApiServer::new();
        let transform_saw = Arc::new(Mutex::new(None));
        let saw = transform_saw.clone();
        let options = InformerOptions {
            strip_managed_fields: true,
            transform: Some(Arc::new(move |cm: &mut ConfigMap| {
                *saw.lock().unwrap() = Some(cm.metadata.managed_fields.clone());
            })),
            ..InformerOptions::default()
        };
        let informer = SharedIndexInformer::<ConfigMap>::new(server.client(), options);
        let kept = informer.shared().keep(Arc::new(cm("1")));
        let mut expected = cm("1");
        expected.metadata.managed_fields = None;
        assert_eq!(*kept, expected);
        assert_eq!(
            *transform_saw.lock().unwrap(),
            Some(None),
            "stripped before the transform"
        );
    }

    #[test]
    fn an_update_should_keep_unchanged_field_sets_only_where_the_replaced_object_is_freed() {
        assert_eq!(unchanged_for(ApplyEvents::WhereDecoded, true), Unchanged::Keep);
        assert_eq!(unchanged_for(ApplyEvents::WhereDecoded, false), Unchanged::Free);
        assert_eq!(unchanged_for(ApplyEvents::OnOwnTask, true), Unchanged::Free);
    }
}
