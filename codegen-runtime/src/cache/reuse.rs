//! Keeping the unchanged metadata of a replaced object: a watch event's object takes over the
//! parts the cached one has equal, and the event's own copies are freed while still hot.
//!
//! Why: a cache frees the object an event replaces, allocated long before, so each of its
//! blocks misses the CPU caches and glibc's allocator merges each with cold neighbours. An
//! update mostly leaves the bulkiest parts of the metadata as they were: the managed-fields
//! trees above all, labels, annotations, owner references. The cached copies of those stay; the
//! event's equal copies are freed instead, right after their decode, and the next decode reuses
//! their memory. The stored object equals the event's in every field.

use std::mem;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, ObjectMeta};

/// What an update does with the metadata the replaced object has unchanged (see `reuse`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unchanged {
    /// The fresh object takes the replaced one's copies over, and its own are freed at once,
    /// while they are still in the CPU caches: for updates applied where they were decoded.
    Keep,
    /// Left where they are, freed with the replaced object: for updates applied on another
    /// thread than the one that decoded them, which under glibc's allocator pays more for
    /// freeing the fresh copies than the cold free would cost.
    Free,
}

/// Swaps into `fresh` each part of `cached` that `fresh` has equal: afterwards both still hold
/// the values they held, field by field, but `fresh` owns the older allocations.
pub(crate) fn keep_unchanged(fresh: &mut ObjectMeta, cached: &mut ObjectMeta) {
    swap_if_equal(&mut fresh.labels, &mut cached.labels);
    swap_if_equal(&mut fresh.annotations, &mut cached.annotations);
    swap_if_equal(&mut fresh.owner_references, &mut cached.owner_references);
    swap_if_equal(&mut fresh.finalizers, &mut cached.finalizers);
    match (&mut fresh.managed_fields, &mut cached.managed_fields) {
        (Some(fresh), Some(cached)) if fresh == cached => mem::swap(fresh, cached),
        // An update usually changes one entry's time and operation, not what it owns.
        (Some(fresh), Some(cached)) => keep_field_sets(fresh, cached),
        _ => {}
    }
}

/// Entry by entry, matched by position (the API server keeps their order).
fn keep_field_sets(fresh: &mut [ManagedFieldsEntry], cached: &mut [ManagedFieldsEntry]) {
    for (fresh, cached) in fresh.iter_mut().zip(cached) {
        swap_if_equal(&mut fresh.fields_v1, &mut cached.fields_v1);
    }
}

fn swap_if_equal<T: PartialEq>(fresh: &mut T, cached: &mut T) {
    if fresh == cached {
        mem::swap(fresh, cached);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use k8s_openapi::apimachinery::pkg::apis::meta::v1::FieldsV1;
    use serde_json::json;

    use super::*;

    /// A managed-fields entry; `subresource` stands for what changes between two updates.
    fn entry(manager: &str, fields: serde_json::Value, subresource: &str) -> ManagedFieldsEntry {
        ManagedFieldsEntry {
            manager: Some(manager.to_owned()),
            operation: Some("Update".to_owned()),
            fields_type: Some("FieldsV1".to_owned()),
            fields_v1: Some(FieldsV1(fields)),
            subresource: Some(subresource.to_owned()),
            ..ManagedFieldsEntry::default()
        }
    }

    fn meta(label: &str, fields: serde_json::Value, subresource: &str) -> ObjectMeta {
        ObjectMeta {
            name: Some("vm".to_owned()),
            labels: Some(BTreeMap::from([("app".to_owned(), label.to_owned())])),
            managed_fields: Some(vec![
                entry("kubectl", json!({"f:spec": {"f:cpu": {}}}), ""),
                entry("controller", fields, subresource),
            ]),
            ..ObjectMeta::default()
        }
    }

    /// Where a value's heap data lives, to tell which copy a field holds.
    fn address<T>(value: &T) -> usize {
        std::ptr::from_ref(value) as usize
    }

    #[test]
    fn equal_parts_should_come_from_the_cached_object_and_changed_ones_from_the_event() {
        let mut cached = meta("web", json!({"f:status": {"f:phase": {}}}), "");
        let mut fresh = meta("db", json!({"f:status": {"f:phase": {}}}), "status");
        let expected = fresh.clone();
        let cached_first_entry = address(
            &cached.managed_fields.as_ref().unwrap()[0]
                .fields_v1
                .as_ref()
                .unwrap()
                .0
                .as_object()
                .unwrap()["f:spec"],
        );
        let cached_labels = address(cached.labels.as_ref().unwrap().values().next().unwrap());

        keep_unchanged(&mut fresh, &mut cached);

        assert_eq!(fresh, expected, "the event's object is unchanged in every field");
        let fresh_entries = fresh.managed_fields.as_ref().unwrap();
        let taken = address(&fresh_entries[0].fields_v1.as_ref().unwrap().0.as_object().unwrap()["f:spec"]);
        assert_eq!(taken, cached_first_entry, "an unchanged field set is the cached one");
        let labels = address(fresh.labels.as_ref().unwrap().values().next().unwrap());
        assert_ne!(labels, cached_labels, "changed labels stay the event's");
        assert_eq!(
            cached.labels.unwrap()["app"],
            "web",
            "the cached object keeps its values"
        );
    }

    #[test]
    fn wholly_equal_managed_fields_should_be_taken_as_one() {
        let mut cached = meta("web", json!({"f:status": {}}), "status");
        let mut fresh = cached.clone();
        let cached_entries = cached.managed_fields.as_ref().unwrap().as_ptr() as usize;
        keep_unchanged(&mut fresh, &mut cached);
        assert_eq!(fresh.managed_fields.as_ref().unwrap().as_ptr() as usize, cached_entries);
        assert_eq!(fresh, cached);
    }
}
