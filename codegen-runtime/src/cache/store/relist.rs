//! A relist built on the side while the list's pages arrive, then swapped in whole.

use std::collections::HashMap;
use std::sync::Arc;

use kube::Resource;

use super::{Cache, Grouped, IndexFn, Store, build_index, group, packed, values_of};
use crate::cache::field_sets::Fingerprint;
use crate::cache::key::{Key, write_key};

impl<K: Resource + Send + Sync + 'static> Store<K> {
    /// An empty cache with this store's indexers, for a relist to fill while its pages arrive.
    pub(crate) fn relist(&self, fingerprints: bool) -> Relist<K> {
        let (indexers, size) = {
            let cache = self.read();
            (cache.indexers.clone(), cache.items.len())
        };
        Relist {
            cache: Cache {
                // A relist is usually the size of the last one.
                items: HashMap::with_capacity(size),
                field_sets: HashMap::with_capacity(if fingerprints { size } else { 0 }),
                indexers,
                indices: HashMap::new(),
                scratch_key: String::new(),
            },
            grouped: HashMap::new(),
            repeated: false,
            listed: Vec::new(),
            fingerprints,
        }
    }

    /// Swaps a complete relist in, in one step: readers wait only for the swap, and never see
    /// half a list. Returns the objects in list order and the previous contents.
    pub(crate) fn swap_in(&self, relist: Relist<K>) -> (Vec<Arc<K>>, HashMap<Key, Arc<K>>) {
        let (mut fresh, listed) = relist.into_parts();
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
/// keys and index values are computed alongside the decoding, not after it), then swapped in
/// whole.
pub(crate) struct Relist<K> {
    cache: Cache<K>,
    /// Each index's entries by value, in list order, packed into the index's B-trees once the
    /// list is complete.
    grouped: HashMap<String, Grouped<K>>,
    /// Whether a key was listed twice. Its earlier entries are then among `grouped`, so the
    /// indexes are built from the items instead (no API server lists a key twice).
    repeated: bool,
    /// The objects in list order, for the handlers.
    listed: Vec<Arc<K>>,
    /// Whether the objects' field sets are fingerprinted, for updates to be recognized by.
    fingerprints: bool,
}

impl<K: Resource> Relist<K> {
    /// Adds a listed object (a later one of the same key replaces it, in the indexes too).
    pub(crate) fn add(&mut self, object: Arc<K>) {
        // Built in the reused buffer: a key that fits inline allocates nothing.
        write_key(&mut self.cache.scratch_key, object.meta());
        let key = Key::from(self.cache.scratch_key.as_str());
        let field_sets = match self.fingerprints {
            true => Fingerprint::of_trees(object.meta()),
            false => Fingerprint::NONE,
        };
        self.cache.set_field_sets(&key, field_sets);
        self.repeated |= self.cache.items.insert(key.clone(), object.clone()).is_some();
        if !self.repeated {
            for (name, index) in &self.cache.indexers {
                group(values_of(&mut self.grouped, name), index, &key, &object);
            }
        }
        self.listed.push(object);
    }

    /// The complete cache, its indexes built, and the objects in list order.
    fn into_parts(self) -> (Cache<K>, Vec<Arc<K>>) {
        let Relist {
            mut cache,
            mut grouped,
            repeated,
            listed,
            ..
        } = self;
        for (name, index) in &cache.indexers {
            let values = match grouped.remove(name) {
                Some(grouped) if !repeated => packed(grouped),
                _ => build_index(&cache.items, index),
            };
            cache.indices.insert(name.clone(), values);
        }
        (cache, listed)
    }
}
