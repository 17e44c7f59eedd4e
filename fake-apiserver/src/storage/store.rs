//! The fake server's storage: objects, one resourceVersion counter, a bounded change history for
//! watches and consistent paginated lists, and the broadcast that feeds open watches.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::broadcast;

use crate::storage::key::ObjectKey;
use crate::storage::object;
use crate::storage::resource::StorageKey;

/// What a change did to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

/// One committed write, as retained in the history and sent to watches.
#[derive(Debug)]
pub(crate) struct Change {
    pub(crate) rv: u64,
    pub(crate) storage: StorageKey,
    pub(crate) kind: ChangeKind,
    /// The object after the change (for deletes: the final state).
    pub(crate) object: Arc<Value>,
    /// The object before the change, if it existed.
    pub(crate) previous: Option<Arc<Value>>,
    /// `object` as JSON, written once for every watch that sends it as it is stored.
    pub(crate) json: OnceLock<Bytes>,
}

/// What open watches receive.
#[derive(Clone, Debug)]
pub(crate) enum Broadcast {
    Change(Arc<Change>),
    /// Fault injection: every open watch ends, as when a connection to the server drops.
    CutWatches,
}

/// A reference to a stored object.
pub(crate) type StoredRef = (StorageKey, ObjectKey);

pub(crate) struct Store {
    rv: u64,
    objects: HashMap<StorageKey, BTreeMap<ObjectKey, Arc<Value>>>,
    history: VecDeque<Arc<Change>>,
    history_limit: usize,
    /// Watches may resume from any resourceVersion at or after this one.
    compacted: u64,
    /// Where the watch history of a resource served later (a CRD's) begins: kube-apiserver's
    /// watch cache of a resource starts when it is first served, and knows nothing older.
    cache_starts: HashMap<StorageKey, u64>,
    /// Owner uid → objects that list it in `ownerReferences`, for garbage collection.
    dependents: HashMap<String, BTreeSet<StoredRef>>,
    sender: broadcast::Sender<Broadcast>,
}

/// The resourceVersion of an empty store. A cluster's bootstrap writes a few hundred objects
/// before any client sees a resourceVersion; starting above 1, with the history beginning
/// here, makes a watch from one the server never handed out (`"1"`) too old, as on a cluster.
const FIRST_RESOURCE_VERSION: u64 = 100;

impl Store {
    pub(crate) fn new(history_limit: usize, watch_buffer: usize) -> Self {
        Self {
            rv: FIRST_RESOURCE_VERSION,
            objects: HashMap::new(),
            history: VecDeque::new(),
            history_limit: history_limit.max(1),
            compacted: FIRST_RESOURCE_VERSION,
            cache_starts: HashMap::new(),
            dependents: HashMap::new(),
            // A watcher further behind than the history could not resume anyway, so the ring
            // (which keeps changes alive) is never larger than the history.
            sender: broadcast::channel(watch_buffer.min(history_limit).max(16)).0,
        }
    }

    /// The resourceVersion of the latest write.
    pub(crate) fn current_rv(&self) -> u64 {
        self.rv
    }

    /// Starts the watch history of a resource that begins to be served now (if it was not).
    pub(crate) fn start_cache(&mut self, storage: &StorageKey) {
        self.cache_starts.entry(storage.clone()).or_insert(self.rv);
    }

    /// Forgets the watch history of a resource no longer served.
    pub(crate) fn end_cache(&mut self, storage: &StorageKey) {
        self.cache_starts.remove(storage);
    }

    /// The oldest resourceVersion a watch of `storage` may resume from.
    pub(crate) fn oldest_rv_of(&self, storage: &StorageKey) -> u64 {
        self.cache_starts
            .get(storage)
            .map_or(self.compacted, |start| (*start).max(self.compacted))
    }

    /// The oldest resourceVersion a watch may still resume from.
    pub(crate) fn oldest_rv(&self) -> u64 {
        self.compacted
    }

    pub(crate) fn get(&self, storage: &StorageKey, key: &ObjectKey) -> Option<&Arc<Value>> {
        self.objects.get(storage)?.get(key)
    }

    /// How many objects of a resource are stored.
    pub(crate) fn count(&self, storage: &StorageKey) -> usize {
        self.objects.get(storage).map_or(0, BTreeMap::len)
    }

    /// Stored objects of a resource in key order, optionally in one namespace.
    pub(crate) fn iter<'a>(
        &'a self,
        storage: &StorageKey,
        namespace: Option<&'a str>,
    ) -> impl Iterator<Item = (&'a ObjectKey, &'a Arc<Value>)> + 'a {
        self.iter_after(storage, namespace, None)
    }

    /// Like [`Store::iter`], starting after `after` (a list continuation) without scanning the
    /// keys before it.
    pub(crate) fn iter_after<'a>(
        &'a self,
        storage: &StorageKey,
        namespace: Option<&'a str>,
        after: Option<&ObjectKey>,
    ) -> impl Iterator<Item = (&'a ObjectKey, &'a Arc<Value>)> + 'a {
        let start = match after {
            Some(key) => Bound::Excluded(key.clone()),
            None => Bound::Included(ObjectKey::new(namespace.unwrap_or(""), "")),
        };
        let map = self.objects.get(storage);
        map.into_iter()
            .flat_map(move |m| m.range((start.clone(), Bound::Unbounded)))
            .take_while(move |(key, _)| namespace.is_none_or(|ns| key.namespace == ns))
    }

    /// Every storage key with at least one object.
    pub(crate) fn storage_keys(&self) -> Vec<StorageKey> {
        self.objects
            .iter()
            .filter(|(_, m)| !m.is_empty())
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// Objects listing `owner_uid` in their owner references.
    pub(crate) fn dependents_of(&self, owner_uid: &str) -> Vec<StoredRef> {
        self.dependents
            .get(owner_uid)
            .map(|set| set.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Stores `object` (added or modified) with the next resourceVersion and tells the watches.
    pub(crate) fn put(&mut self, storage: &StorageKey, mut object: Value) -> Arc<Value> {
        self.rv += 1;
        object::meta_mut(&mut object).insert("resourceVersion".to_owned(), Value::from(self.rv.to_string()));
        let key = ObjectKey::of(&object);
        let object = Arc::new(object);
        let previous = self
            .objects
            .entry(storage.clone())
            .or_default()
            .insert(key.clone(), object.clone());
        self.reindex(storage, &key, previous.as_deref(), Some(&object));
        let kind = if previous.is_some() {
            ChangeKind::Modified
        } else {
            ChangeKind::Added
        };
        self.record(storage, kind, object.clone(), previous);
        object
    }

    /// Removes an object, stamping its final state (`last`, or the stored object) with the next
    /// resourceVersion.
    pub(crate) fn remove(&mut self, storage: &StorageKey, key: &ObjectKey, last: Option<Value>) -> Option<Arc<Value>> {
        let previous = self.objects.get_mut(storage)?.remove(key)?;
        self.rv += 1;
        let mut last = last.unwrap_or_else(|| (*previous).clone());
        object::meta_mut(&mut last).insert("resourceVersion".to_owned(), Value::from(self.rv.to_string()));
        let last = Arc::new(last);
        self.reindex(storage, key, Some(&previous), None);
        self.record(storage, ChangeKind::Deleted, last.clone(), Some(previous));
        Some(last)
    }

    fn reindex(&mut self, storage: &StorageKey, key: &ObjectKey, old: Option<&Value>, new: Option<&Value>) {
        let owners = |v: Option<&Value>| -> BTreeSet<String> {
            v.map(object::owner_references)
                .unwrap_or_default()
                .iter()
                .filter_map(|r| r.get("uid").and_then(Value::as_str).map(str::to_owned))
                .collect()
        };
        let (before, after) = (owners(old), owners(new));
        let entry = (storage.clone(), key.clone());
        for uid in before.difference(&after) {
            if let Some(set) = self.dependents.get_mut(uid) {
                set.remove(&entry);
                if set.is_empty() {
                    self.dependents.remove(uid);
                }
            }
        }
        for uid in after.difference(&before) {
            self.dependents.entry(uid.clone()).or_default().insert(entry.clone());
        }
    }

    fn record(&mut self, storage: &StorageKey, kind: ChangeKind, object: Arc<Value>, previous: Option<Arc<Value>>) {
        let change = Arc::new(Change {
            rv: self.rv,
            storage: storage.clone(),
            kind,
            object,
            previous,
            json: OnceLock::new(),
        });
        self.history.push_back(change.clone());
        while self.history.len() > self.history_limit {
            if let Some(dropped) = self.history.pop_front() {
                self.compacted = dropped.rv;
            }
        }
        // No receiver is not an error: nobody is watching.
        let _ = self.sender.send(Broadcast::Change(change));
    }

    /// A receiver of every change committed after this call.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Broadcast> {
        self.sender.subscribe()
    }

    /// Ends every open watch.
    pub(crate) fn cut_watches(&self) {
        let _ = self.sender.send(Broadcast::CutWatches);
    }

    /// Forgets the history, so every older resourceVersion is answered with 410 Gone.
    pub(crate) fn compact(&mut self) {
        self.history.clear();
        self.compacted = self.rv;
    }

    /// The retained changes after `rv`, or `None` when `rv` is older than the retained history.
    pub(crate) fn changes_since(&self, rv: u64) -> Option<impl Iterator<Item = &Arc<Change>>> {
        if rv < self.compacted {
            return None;
        }
        let start = self.history.partition_point(|c| c.rv <= rv);
        Some(self.history.range(start..))
    }

    /// The objects of a resource as they were at `rv`, after `after` in key order, in one
    /// namespace or all; `None` when `rv` is older than the retained history.
    pub(crate) fn snapshot(
        &self,
        storage: &StorageKey,
        namespace: Option<&str>,
        rv: u64,
        after: Option<&ObjectKey>,
    ) -> Option<Vec<Arc<Value>>> {
        let mut at_rv: BTreeMap<ObjectKey, Option<Arc<Value>>> = BTreeMap::new();
        for change in self.changes_since(rv)?.filter(|c| &c.storage == storage) {
            let key = ObjectKey::of(&change.object);
            // The first change after `rv` tells what the object was at `rv`.
            at_rv.entry(key).or_insert_with(|| change.previous.clone());
        }
        let mut merged: BTreeMap<&ObjectKey, &Arc<Value>> = self
            .iter(storage, namespace)
            .filter(|(key, _)| !at_rv.contains_key(*key))
            .collect();
        for (key, object) in &at_rv {
            if let Some(object) = object
                && namespace.is_none_or(|ns| key.namespace == ns)
            {
                merged.insert(key, object);
            }
        }
        Some(
            merged
                .into_iter()
                .filter(|(key, _)| after.is_none_or(|after| *key > after))
                .map(|(_, object)| object.clone())
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key() -> StorageKey {
        StorageKey {
            group: "g".into(),
            plural: "things".into(),
        }
    }

    fn thing(name: &str, value: i64) -> Value {
        json!({"metadata": {"name": name, "namespace": "ns"}, "spec": {"value": value}})
    }

    #[test]
    fn snapshot_should_show_objects_as_they_were() {
        let mut store = Store::new(100, 16);
        store.put(&key(), thing("a", 1));
        store.put(&key(), thing("b", 1));
        let rv = store.current_rv();
        store.put(&key(), thing("a", 2));
        store.remove(&key(), &ObjectKey::new("ns", "b"), None);
        store.put(&key(), thing("c", 1));
        let at_rv = store.snapshot(&key(), Some("ns"), rv, None).unwrap();
        let names: Vec<(&str, &Value)> = at_rv.iter().map(|o| (object::name(o), &o["spec"]["value"])).collect();
        assert_eq!(names, [("a", &json!(1)), ("b", &json!(1))]);
        let after_a = store
            .snapshot(&key(), None, rv, Some(&ObjectKey::new("ns", "a")))
            .unwrap();
        assert_eq!(after_a.len(), 1);
    }

    #[test]
    fn history_should_expire_beyond_its_limit() {
        let mut store = Store::new(2, 16);
        let first = store.current_rv();
        for i in 0..3 {
            store.put(&key(), thing("a", i));
        }
        assert!(store.changes_since(first).is_none());
        assert_eq!(store.changes_since(store.current_rv() - 1).unwrap().count(), 1);
        store.compact();
        assert!(store.changes_since(store.current_rv() - 1).is_none());
        assert_eq!(store.changes_since(store.current_rv()).unwrap().count(), 0);
    }

    #[test]
    fn dependents_should_follow_owner_references() {
        let mut store = Store::new(10, 16);
        let mut child = thing("child", 1);
        child["metadata"]["ownerReferences"] =
            json!([{"uid": "owner-1", "name": "o", "kind": "K", "apiVersion": "v1"}]);
        store.put(&key(), child);
        assert_eq!(store.dependents_of("owner-1").len(), 1);
        store.remove(&key(), &ObjectKey::new("ns", "child"), None);
        assert!(store.dependents_of("owner-1").is_empty());
    }
}
