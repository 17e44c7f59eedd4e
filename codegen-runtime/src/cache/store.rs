//! The indexed cache behind informers and listers: objects keyed `namespace/name`, handed out as
//! `Arc<K>`, with a built-in namespace index and user indexers (client-go's `cache.Indexer`).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use kube::Resource;

use super::key::{Key, key_of, write_key};
use super::reuse::{Unchanged, has_field_sets, keep_unchanged};

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

struct Cache<K> {
    items: HashMap<Key, Arc<K>>,
    indexers: HashMap<String, IndexFn<K>>,
    /// index name → index value → key → object.
    indices: HashMap<String, IndexValues<K>>,
    /// Where a written or relisted object's key is built, so that neither allocates a `String`.
    scratch_key: String,
}

/// The values of index `name`, created empty on first use (without allocating the name again
/// on every later write).
fn values_of<'a, K>(indices: &'a mut HashMap<String, IndexValues<K>>, name: &str) -> &'a mut IndexValues<K> {
    if !indices.contains_key(name) {
        indices.insert(name.to_owned(), HashMap::new());
    }
    indices.get_mut(name).expect("inserted above")
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

    /// Removes `object`, stored under `key`, from every index.
    fn unindex(&mut self, key: &str, object: &K) {
        for (name, index) in &self.indexers {
            let values = values_of(&mut self.indices, name);
            for value in index(object) {
                remove_key(values, &value, key);
            }
        }
    }

    /// Stores `fresh` under `key`; returns it as stored and the object it replaced.
    fn put(&mut self, key: &str, mut fresh: Arc<K>, unchanged: Unchanged) -> (Arc<K>, Option<Arc<K>>)
    where
        K: Resource,
    {
        let Some(stored) = self.items.get_mut(key) else {
            self.items.insert(Key::from(key), fresh.clone());
            self.index(key, &fresh);
            return (fresh, None);
        };
        // Keeping needs the replaced object held by the store alone: user indexes hold more
        // references to it, and a change of namespace moves its index entry.
        let keeps = unchanged == Unchanged::Keep
            && has_field_sets(fresh.meta())
            && self.indexers.len() == 1
            && stored.meta().namespace == fresh.meta().namespace;
        let namespace = stored.meta().namespace.as_deref().filter(|_| keeps);
        let entry = namespace.and_then(|ns| self.indices.get_mut(NAMESPACE_INDEX)?.get_mut(ns)?.get_mut(key));
        if !keeps || (entry.is_none() && stored.meta().namespace.is_some()) {
            let old = std::mem::replace(stored, fresh.clone());
            self.reindex(key, &old, &fresh);
            return (fresh, Some(old));
        }
        // The index entry takes the fresh object, moved and not cloned: then `get_mut` finds
        // both objects unshared unless a reader or a handler holds the replaced one.
        if let Some(entry) = entry {
            drop(std::mem::replace(entry, fresh));
            if let (Some(new), Some(old)) = (Arc::get_mut(entry), Arc::get_mut(stored)) {
                keep_unchanged(new.meta_mut(), old.meta_mut());
            }
            fresh = entry.clone();
        } else if let (Some(new), Some(old)) = (Arc::get_mut(&mut fresh), Arc::get_mut(stored)) {
            keep_unchanged(new.meta_mut(), old.meta_mut());
        }
        let old = std::mem::replace(stored, fresh.clone());
        (fresh, Some(old))
    }

    /// Moves `key` from `old` to `new` in every index. The common update leaves an object's
    /// index values as they were: then only the stored `Arc`s are swapped, and the index maps
    /// are not touched.
    fn reindex(&mut self, key: &str, old: &K, new: &Arc<K>)
    where
        K: Resource,
    {
        for (name, index) in &self.indexers {
            let values = values_of(&mut self.indices, name);
            // The built-in namespace index (its name is reserved): an object keeps its
            // namespace, so its `Arc` is swapped without computing values, once per event.
            if name == NAMESPACE_INDEX && old.meta().namespace == new.meta().namespace {
                let namespace = new.meta().namespace.as_deref();
                if let Some(slot) = namespace
                    .and_then(|ns| values.get_mut(ns))
                    .and_then(|keys| keys.get_mut(key))
                {
                    *slot = new.clone();
                }
                continue;
            }
            let (before, after) = (index(old), index(new));
            if before == after {
                for value in &after {
                    if let Some(slot) = values.get_mut(value).and_then(|keys| keys.get_mut(key)) {
                        *slot = new.clone();
                    }
                }
                continue;
            }
            for value in before {
                remove_key(values, &value, key);
            }
            for value in after {
                values.entry(value).or_default().insert(Key::from(key), new.clone());
            }
        }
    }
}

/// The index `index` of `items`.
fn build_index<K>(items: &HashMap<Key, Arc<K>>, index: &IndexFn<K>) -> IndexValues<K> {
    let mut values: IndexValues<K> = HashMap::new();
    for (key, object) in items {
        for value in index(object) {
            values.entry(value).or_default().insert(key.clone(), object.clone());
        }
    }
    values
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

    /// Stores `object`; returns it as stored and what it replaced. With [`Unchanged::Keep`]
    /// the stored object may own the replaced one's unchanged field sets: hand it over unshared,
    /// so that it can.
    pub(crate) fn apply(&self, object: Arc<K>, unchanged: Unchanged) -> (Arc<K>, Option<Arc<K>>) {
        let mut cache = self.write();
        let mut key = std::mem::take(&mut cache.scratch_key);
        write_key(&mut key, object.meta());
        let stored = cache.put(&key, object, unchanged);
        cache.scratch_key = key;
        stored
    }

    /// Removes the object under `key`, returning it.
    pub(crate) fn delete(&self, key: &str) -> Option<Arc<K>> {
        let mut cache = self.write();
        let old = cache.items.remove(key)?;
        cache.unindex(key, &old);
        Some(old)
    }

    /// An empty cache with this store's indexers, for a relist to fill while its pages arrive.
    pub(crate) fn relist(&self) -> Relist<K> {
        let (indexers, size) = {
            let cache = self.read();
            (cache.indexers.clone(), cache.items.len())
        };
        Relist {
            cache: Cache {
                // A relist is usually the size of the last one.
                items: HashMap::with_capacity(size),
                indexers,
                indices: HashMap::new(),
                scratch_key: String::new(),
            },
            listed: Vec::new(),
        }
    }

    /// Swaps a complete relist in, in one step: readers wait only for the swap, and never see
    /// half a list. Returns the objects in list order and the previous contents.
    pub(crate) fn swap_in(&self, relist: Relist<K>) -> (Vec<Arc<K>>, HashMap<Key, Arc<K>>) {
        let Relist {
            cache: mut fresh,
            listed,
        } = relist;
        let mut cache = self.write();
        // An indexer added while the relist was being built is kept and applied.
        let late: Vec<(String, IndexFn<K>)> = cache
            .indexers
            .iter()
            .filter(|(name, _)| !fresh.indexers.contains_key(*name))
            .map(|(name, index)| (name.clone(), index.clone()))
            .collect();
        for (name, index) in late {
            let values = build_index(&fresh.items, &index);
            fresh.indexers.insert(name.clone(), index);
            fresh.indices.insert(name, values);
        }
        (listed, std::mem::replace(&mut *cache, fresh).items)
    }
}

/// A relist's cache, built on the informer's engine task while the list's pages arrive (so the
/// keys and indexes are computed alongside the decoding, not after it), then swapped in whole.
pub(crate) struct Relist<K> {
    cache: Cache<K>,
    /// The objects in list order, for the handlers.
    listed: Vec<Arc<K>>,
}

impl<K: Resource> Relist<K> {
    /// Adds a listed object (a later one of the same key replaces it, in the indexes too).
    pub(crate) fn add(&mut self, object: Arc<K>) {
        // Built in the reused buffer: a key that fits inline allocates nothing.
        write_key(&mut self.cache.scratch_key, object.meta());
        let key = Key::from(self.cache.scratch_key.as_str());
        if let Some(earlier) = self.cache.items.insert(key.clone(), object.clone()) {
            self.cache.unindex(&key, &earlier);
        }
        self.cache.index(&key, &object);
        self.listed.push(object);
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
