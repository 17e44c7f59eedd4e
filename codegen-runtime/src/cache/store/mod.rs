//! The indexed cache behind informers and listers: objects keyed `namespace/name`, handed out as
//! `Arc<K>`, with a built-in namespace index and user indexers (client-go's `cache.Indexer`).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use kube::Resource;

use super::field_sets::{FieldSetTexts, Fingerprint};
use super::key::{Key, key_of, write_key};
use super::reuse::Unchanged;

/// The name of the built-in index from namespace to objects.
pub const NAMESPACE_INDEX: &str = "namespace";

/// An index function: the index values of an object (none, one or many).
pub type IndexFn<K> = Arc<dyn Fn(&K) -> Vec<String> + Send + Sync>;

/// Why an index query failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// No indexer of that name was added.
    #[error("index {0:?} does not exist: add it with Store::add_indexer before querying it")]
    NoSuchIndex(String),
    /// An indexer of that name exists already.
    #[error("indexer {0:?} conflicts with an existing indexer: choose another name")]
    IndexExists(String),
}

/// The objects under each value of one index, by key: lists through an index clone the
/// `Arc`s found here instead of looking each key up again.
type IndexValues<K> = HashMap<String, BTreeMap<Key, Arc<K>>>;

/// An object as stored, and the one it replaced.
type Stored<K> = (Arc<K>, Option<Arc<K>>);

struct Cache<K> {
    items: HashMap<Key, Arc<K>>,
    /// The fingerprints of stored objects' field sets, where known. Beside the items, not in
    /// them: the items map's slot stays 32 bytes, in one cache line, which is what a lister's
    /// cold `get` waits for (a 40-byte slot made it 30–50% slower).
    field_sets: HashMap<Key, Fingerprint>,
    indexers: HashMap<String, IndexFn<K>>,
    /// index name → index value → key → object.
    indices: HashMap<String, IndexValues<K>>,
    /// Where a written or relisted object's key is built, so that neither allocates a `String`.
    scratch_key: String,
}

/// The values of index `name`, created empty on first use (without allocating the name again
/// on every later write).
fn values_of<'a, V: Default>(indices: &'a mut HashMap<String, V>, name: &str) -> &'a mut V {
    if !indices.contains_key(name) {
        indices.insert(name.to_owned(), V::default());
    }
    indices.get_mut(name).expect("inserted above")
}

/// One index's entries, grouped by value, before they are packed into B-trees.
type Grouped<K> = HashMap<String, Vec<(Key, Arc<K>)>>;

/// Adds `object`, stored under `key`, to `grouped` under each of its values of `index`.
fn group<K>(grouped: &mut Grouped<K>, index: &IndexFn<K>, key: &Key, object: &Arc<K>) {
    for value in index(object) {
        grouped.entry(value).or_default().push((key.clone(), object.clone()));
    }
}

/// The B-trees of grouped index entries, each built in one pass. Their nodes are then full:
/// inserted one by one in ascending order, as a list's objects arrive, a B-tree leaves each
/// node about half full (at 1000 objects per namespace, some 30 bytes more per object).
/// Of entries with the same key, the last is kept.
fn packed<K>(grouped: Grouped<K>) -> IndexValues<K> {
    grouped
        .into_iter()
        .map(|(value, entries)| (value, entries.into_iter().collect()))
        .collect()
}

/// Removes `key` from index value `value`, and the value once no key has it.
fn remove_key<K>(values: &mut IndexValues<K>, value: &str, key: &str) {
    if let Some(keys) = values.get_mut(value) {
        keys.remove(key);
        if keys.is_empty() {
            values.remove(value);
        }
    }
}

impl<K> Cache<K> {
    /// Adds `object` under `key` to every index.
    fn index(&mut self, key: &str, object: &Arc<K>) {
        for (name, index) in &self.indexers {
            let values = values_of(&mut self.indices, name);
            for value in index(object) {
                values.entry(value).or_default().insert(Key::from(key), object.clone());
            }
        }
    }

    /// Records the fingerprint of the field sets of the object under `key`.
    fn set_field_sets(&mut self, key: &str, field_sets: Fingerprint) {
        if field_sets == Fingerprint::NONE {
            // Most informers have none: then nothing is looked up.
            if !self.field_sets.is_empty() {
                self.field_sets.remove(key);
            }
        } else if let Some(held) = self.field_sets.get_mut(key) {
            *held = field_sets;
        } else {
            self.field_sets.insert(Key::from(key), field_sets);
        }
    }

    /// Removes `object`, stored under `key`, from every index.
    fn unindex(&mut self, key: &str, object: &K) {
        for (name, index) in &self.indexers {
            let values = values_of(&mut self.indices, name);
            for value in index(object) {
                remove_key(values, &value, key);
            }
        }
    }
}

/// The index `index` of `items`.
fn build_index<K>(items: &HashMap<Key, Arc<K>>, index: &IndexFn<K>) -> IndexValues<K> {
    let mut grouped: Grouped<K> = HashMap::new();
    for (key, object) in items {
        group(&mut grouped, index, key, object);
    }
    packed(grouped)
}

/// A thread-safe indexed cache; clones share it. Readers take a read lock for a lookup; the
/// single writer (the informer) holds the write lock per object, and swaps in whole relists.
pub struct Store<K> {
    cache: Arc<RwLock<Cache<K>>>,
}

impl<K> Clone for Store<K> {
    fn clone(&self) -> Self {
        Self {
            cache: self.cache.clone(),
        }
    }
}

impl<K: Resource + Send + Sync + 'static> Default for Store<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Resource + Send + Sync + 'static> Store<K> {
    /// An empty store with the namespace index.
    pub fn new() -> Self {
        let namespace: IndexFn<K> = Arc::new(|object: &K| object.meta().namespace.iter().cloned().collect());
        let cache = Cache {
            items: HashMap::new(),
            field_sets: HashMap::new(),
            indexers: HashMap::from([(NAMESPACE_INDEX.to_owned(), namespace)]),
            indices: HashMap::new(),
            scratch_key: String::new(),
        };
        Self {
            cache: Arc::new(RwLock::new(cache)),
        }
    }

    // Writers never panic while holding the lock, so a poisoned lock only means a reader
    // panicked; the data is intact.
    fn read(&self) -> RwLockReadGuard<'_, Cache<K>> {
        self.cache.read().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Cache<K>> {
        self.cache.write().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The object stored under `key` (`namespace/name` or `name`).
    pub fn get(&self, key: &str) -> Option<Arc<K>> {
        self.read().items.get(key).cloned()
    }

    /// The object `name` of `namespace` (`""` for cluster-scoped objects), as [`Store::get`]
    /// of its key.
    pub fn get_in(&self, namespace: &str, name: &str) -> Option<Arc<K>> {
        // Most keys fit this buffer, which spares listers an allocation per lookup.
        let mut buffer = [0u8; 128];
        let length = namespace.len() + 1 + name.len();
        if namespace.is_empty() || length > buffer.len() {
            return self.get(&key_of(Some(namespace), name));
        }
        buffer[..namespace.len()].copy_from_slice(namespace.as_bytes());
        buffer[namespace.len()] = b'/';
        buffer[namespace.len() + 1..length].copy_from_slice(name.as_bytes());
        match std::str::from_utf8(&buffer[..length]) {
            Ok(key) => self.get(key),
            Err(_) => unreachable!("two strings joined by '/' are UTF-8"),
        }
    }

    /// Every stored object, in no particular order.
    pub fn list(&self) -> Vec<Arc<K>> {
        self.read().items.values().cloned().collect()
    }

    /// Every stored key.
    pub fn list_keys(&self) -> Vec<String> {
        self.read().items.keys().map(|key| key.as_str().to_owned()).collect()
    }

    /// How many objects are stored.
    pub fn len(&self) -> usize {
        self.read().items.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds an index; it covers the objects already stored too.
    pub fn add_indexer(
        &self,
        name: &str,
        index: impl Fn(&K) -> Vec<String> + Send + Sync + 'static,
    ) -> Result<(), StoreError> {
        let mut cache = self.write();
        if cache.indexers.contains_key(name) {
            return Err(StoreError::IndexExists(name.to_owned()));
        }
        let index: IndexFn<K> = Arc::new(index);
        let values = build_index(&cache.items, &index);
        cache.indices.insert(name.to_owned(), values);
        cache.indexers.insert(name.to_owned(), index);
        Ok(())
    }

    /// The keys whose objects have `value` in index `index`.
    pub fn index_keys(&self, index: &str, value: &str) -> Result<Vec<String>, StoreError> {
        let cache = self.read();
        if !cache.indexers.contains_key(index) {
            return Err(StoreError::NoSuchIndex(index.to_owned()));
        }
        let keys = cache.indices.get(index).and_then(|values| values.get(value));
        Ok(keys
            .map(|keys| keys.keys().map(|key| key.as_str().to_owned()).collect())
            .unwrap_or_default())
    }

    /// The objects that have `value` in index `index`.
    pub fn by_index(&self, index: &str, value: &str) -> Result<Vec<Arc<K>>, StoreError> {
        let cache = self.read();
        if !cache.indexers.contains_key(index) {
            return Err(StoreError::NoSuchIndex(index.to_owned()));
        }
        let keys = cache.indices.get(index).and_then(|values| values.get(value));
        Ok(keys.map(|keys| keys.values().cloned().collect()).unwrap_or_default())
    }

    /// Every value of index `index` that some object has (client-go's `ListIndexFuncValues`).
    pub fn index_values(&self, index: &str) -> Result<Vec<String>, StoreError> {
        let cache = self.read();
        if !cache.indexers.contains_key(index) {
            return Err(StoreError::NoSuchIndex(index.to_owned()));
        }
        let mut values: Vec<String> = cache
            .indices
            .get(index)
            .map(|values| values.keys().cloned().collect())
            .unwrap_or_default();
        values.sort();
        Ok(values)
    }

    /// Stores `object`, its field sets' fingerprint `field_sets`; returns it as stored and what
    /// it replaced. With [`Unchanged::Keep`] the stored object may own the replaced one's
    /// unchanged field sets: hand it over unshared, so that it can.
    pub(crate) fn apply(&self, object: Arc<K>, field_sets: Fingerprint, unchanged: Unchanged) -> Stored<K> {
        self.write_under_key(object, |cache, key, object| {
            cache.put(key, object, field_sets, unchanged)
        })
    }

    /// Stores `object`, whose field sets are still `texts`, if the object it replaces holds
    /// them (by fingerprint) and gives them over; returns it as stored and what it replaced,
    /// or, with nothing changed, `object` back to decode its texts into.
    pub(crate) fn apply_taking(&self, object: Arc<K>, texts: &FieldSetTexts) -> Result<Stored<K>, Arc<K>> {
        self.write_under_key(object, |cache, key, object| cache.put_taking(key, object, texts))
    }

    /// Runs `write` on the cache, under the write lock, with `object` and its key, built in the
    /// cache's reused buffer (no `String` per write).
    fn write_under_key<T>(&self, object: Arc<K>, write: impl FnOnce(&mut Cache<K>, &str, Arc<K>) -> T) -> T {
        let mut cache = self.write();
        let mut key = std::mem::take(&mut cache.scratch_key);
        write_key(&mut key, object.meta());
        let written = write(&mut cache, &key, object);
        cache.scratch_key = key;
        written
    }

    /// Removes the object under `key`, returning it.
    pub(crate) fn delete(&self, key: &str) -> Option<Arc<K>> {
        let mut cache = self.write();
        let old = cache.items.remove(key)?;
        cache.set_field_sets(key, Fingerprint::NONE);
        cache.unindex(key, &old);
        Some(old)
    }
}

mod relist;
mod update;

pub(crate) use relist::Relist;

#[cfg(test)]
mod tests;
