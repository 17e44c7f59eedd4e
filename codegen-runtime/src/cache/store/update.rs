//! How a write replaces a stored object: the indexes moved, and the replaced object's
//! unchanged field sets kept or taken over.

use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;

use super::{Cache, NAMESPACE_INDEX, Stored, remove_key, values_of};
use crate::cache::field_sets::{FieldSetTexts, Fingerprint, holds_field_sets, take_field_sets};
use crate::cache::key::Key;
use crate::cache::reuse::{Unchanged, has_field_sets, keep_unchanged};

impl<K> Cache<K> {
    /// Stores `fresh` under `key`, its field sets' fingerprint `field_sets`; returns it as
    /// stored and the object it replaced.
    pub(super) fn put(&mut self, key: &str, fresh: Arc<K>, field_sets: Fingerprint, unchanged: Unchanged) -> Stored<K>
    where
        K: Resource,
    {
        self.set_field_sets(key, field_sets);
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
        let kept = match entry {
            None if !keeps || stored.meta().namespace.is_some() => Err(fresh),
            entry => with_both(entry, fresh, stored, keep_unchanged),
        };
        // Not kept (a reader or a handler holds the replaced object): the indexes still hold
        // the replaced object, and move to the fresh one.
        let fresh = match kept {
            Ok(fresh) => fresh,
            Err(fresh) => {
                let old = std::mem::replace(stored, fresh.clone());
                self.reindex(key, &old, &fresh);
                return (fresh, Some(old));
            }
        };
        let old = std::mem::replace(stored, fresh.clone());
        (fresh, Some(old))
    }

    /// [`Store::apply_taking`](super::Store::apply_taking) under `key`. The replaced object
    /// gives its trees away and is dropped unseen: it must be held by the store alone (no
    /// reader, no user index), and the fresh object takes its place in the items and the
    /// namespace index.
    pub(super) fn put_taking(
        &mut self,
        key: &str,
        mut fresh: Arc<K>,
        texts: &FieldSetTexts,
    ) -> Result<Stored<K>, Arc<K>>
    where
        K: Resource,
    {
        let held = self.field_sets.get(key).copied().unwrap_or(Fingerprint::NONE);
        let Some(stored) = self.items.get_mut(key) else {
            return Err(fresh);
        };
        let namespace = stored.meta().namespace.as_deref();
        let entry = namespace.and_then(|ns| self.indices.get_mut(NAMESPACE_INDEX)?.get_mut(ns)?.get_mut(key));
        let holders = match &entry {
            Some(entry) if Arc::ptr_eq(entry, stored) => 2,
            Some(_) => return Err(fresh),
            None if namespace.is_some() => return Err(fresh),
            None => 1,
        };
        let alone = self.indexers.len() == 1
            && Arc::strong_count(stored) == holders
            && Arc::weak_count(stored) == 0
            && Arc::get_mut(&mut fresh).is_some()
            && stored.meta().namespace == fresh.meta().namespace;
        if !alone || !holds_field_sets(stored.meta(), held, texts) {
            return Err(fresh);
        }
        // With the index's reference dropped the items' is the only one, and no reader can
        // clone it while the write lock is held.
        let fresh = with_both(entry, fresh, stored, take_field_sets)?;
        let old = std::mem::replace(stored, fresh.clone());
        self.set_field_sets(key, texts.fingerprint());
        Ok((fresh, Some(old)))
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

/// Moves `fresh` into the namespace index's `entry` (not a clone: then the items hold the only
/// other reference to `stored`) and calls `act` with both objects' metadata, if both are
/// unshared. Returns the fresh object as stored; or, where `act` could not run (a reader or a
/// handler holds `stored`), `fresh`, with `entry` holding `stored` again.
fn with_both<K: Resource>(
    entry: Option<&mut Arc<K>>,
    mut fresh: Arc<K>,
    stored: &mut Arc<K>,
    act: impl FnOnce(&mut ObjectMeta, &mut ObjectMeta),
) -> Result<Arc<K>, Arc<K>> {
    let slot = match entry {
        Some(entry) => {
            drop(std::mem::replace(entry, fresh));
            entry
        }
        None => &mut fresh,
    };
    match (Arc::get_mut(slot), Arc::get_mut(stored)) {
        (Some(new), Some(old)) => {
            act(new.meta_mut(), old.meta_mut());
            Ok(slot.clone())
        }
        _ => Err(std::mem::replace(slot, stored.clone())),
    }
}
