//! Keeping the unchanged managed-fields trees of a replaced object: a watch event's object
//! takes over the cached object's copies of the field sets it has equal, and its own copies
//! are freed while still hot.
//!
//! Why: a cache frees the object an event replaces, allocated long before, so each of its
//! blocks misses the CPU caches and glibc's allocator merges each with cold neighbours. The
//! managed-fields entries' `fieldsV1` trees are most of those blocks (a `serde_json` map per
//! level), and an update leaves them as they were: it changes an entry's time, seldom what the
//! entry owns. So the cached trees stay, and the event's equal ones are freed right after their
//! decode, when the next decode reuses their memory. The stored object equals the event's in
//! every field. Smaller parts (labels, finalizers) cost more to compare than their free saves
//! (measured in BENCHMARKS.md), so they are left alone.

use std::mem;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, ObjectMeta};

/// What an update does with the field sets the replaced object has unchanged (see `reuse`).
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

/// Swaps into `fresh`'s managed-fields entries what `cached`'s entry in the same position (the
/// API server keeps their order) has equal: the whole list when every entry is, else each
/// entry that is, else each field set that is. Both keep the values they held, but `fresh`
/// owns the older allocations.
pub(crate) fn keep_unchanged(fresh: &mut ObjectMeta, cached: &mut ObjectMeta) {
    let (Some(fresh), Some(cached)) = (&mut fresh.managed_fields, &mut cached.managed_fields) else {
        return;
    };
    // The small fields first: an update usually changes one entry's time, and then the trees
    // are compared once, entry by entry, below.
    let pairs = || fresh.iter().zip(cached.iter());
    if fresh.len() == cached.len()
        && pairs().all(|(fresh, cached)| same_but_fields(fresh, cached))
        && pairs().all(|(fresh, cached)| fresh.fields_v1 == cached.fields_v1)
    {
        mem::swap(fresh, cached);
        return;
    }
    for (fresh, cached) in fresh.iter_mut().zip(cached) {
        if fresh.fields_v1 != cached.fields_v1 {
            continue;
        }
        if same_but_fields(fresh, cached) {
            mem::swap(fresh, cached);
        } else {
            mem::swap(&mut fresh.fields_v1, &mut cached.fields_v1);
        }
    }
}

/// Whether two entries are equal but for their field sets.
fn same_but_fields(fresh: &ManagedFieldsEntry, cached: &ManagedFieldsEntry) -> bool {
    fresh.time == cached.time
        && fresh.manager == cached.manager
        && fresh.operation == cached.operation
        && fresh.subresource == cached.subresource
        && fresh.api_version == cached.api_version
        && fresh.fields_type == cached.fields_type
}

#[cfg(test)]
mod tests {
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

    fn meta(status_fields: serde_json::Value, subresource: &str) -> ObjectMeta {
        ObjectMeta {
            name: Some("vm".to_owned()),
            managed_fields: Some(vec![
                entry("kubectl", json!({"f:spec": {"f:cpu": {}}}), ""),
                entry("controller", status_fields, subresource),
            ]),
            ..ObjectMeta::default()
        }
    }

    /// Where entry `i`'s field set keeps its first level, to tell whose tree it is.
    fn tree_of(meta: &ObjectMeta, i: usize) -> usize {
        let entries = meta.managed_fields.as_ref().expect("managed fields");
        let fields = &entries[i].fields_v1.as_ref().expect("a field set").0;
        let first = fields
            .as_object()
            .and_then(|map| map.values().next())
            .expect("a first level");
        std::ptr::from_ref(first) as usize
    }

    #[test]
    fn equal_field_sets_should_be_the_cached_ones_and_changed_ones_the_events() {
        let mut cached = meta(json!({"f:status": {"f:phase": {}}}), "");
        let mut fresh = meta(json!({"f:status": {"f:reason": {}}}), "status");
        let expected = (fresh.clone(), cached.clone());
        let (cached_first, fresh_second) = (tree_of(&cached, 0), tree_of(&fresh, 1));

        keep_unchanged(&mut fresh, &mut cached);

        assert_eq!((fresh.clone(), cached.clone()), expected, "both keep their values");
        assert_eq!(
            tree_of(&fresh, 0),
            cached_first,
            "an unchanged field set is the cached one"
        );
        assert_eq!(tree_of(&fresh, 1), fresh_second, "a changed one stays the event's");
    }

    #[test]
    fn an_entry_added_or_missing_should_leave_the_rest_matched_by_position() {
        let mut cached = meta(json!({"f:status": {}}), "");
        let mut fresh = cached.clone();
        fresh.managed_fields.as_mut().unwrap().pop();
        let cached_first = tree_of(&cached, 0);
        keep_unchanged(&mut fresh, &mut cached);
        assert_eq!(tree_of(&fresh, 0), cached_first);
        assert_eq!(cached.managed_fields.as_ref().unwrap().len(), 2);
        let mut none = ObjectMeta::default();
        keep_unchanged(&mut none, &mut cached);
        assert_eq!(none, ObjectMeta::default());
    }

    #[test]
    fn equal_lists_should_be_taken_whole_and_equal_entries_one_by_one() {
        let mut cached = meta(json!({"f:status": {}}), "status");
        let mut fresh = cached.clone();
        let cached_list = cached.managed_fields.as_ref().unwrap().as_ptr() as usize;
        keep_unchanged(&mut fresh, &mut cached);
        assert_eq!(fresh.managed_fields.as_ref().unwrap().as_ptr() as usize, cached_list);
        assert_eq!(fresh, cached);

        let mut fresh = cached.clone();
        fresh.managed_fields.as_mut().unwrap()[1].operation = Some("Apply".to_owned());
        let cached_manager = cached.managed_fields.as_ref().unwrap()[0]
            .manager
            .as_ref()
            .unwrap()
            .as_ptr();
        let fresh_list = fresh.managed_fields.as_ref().unwrap().as_ptr() as usize;
        let cached_second = tree_of(&cached, 1);
        keep_unchanged(&mut fresh, &mut cached);
        let entries = fresh.managed_fields.as_ref().unwrap();
        assert_eq!(
            entries.as_ptr() as usize,
            fresh_list,
            "a changed entry keeps the event's list"
        );
        assert_eq!(
            entries[0].manager.as_ref().unwrap().as_ptr(),
            cached_manager,
            "an equal entry is taken whole"
        );
        assert_eq!(
            tree_of(&fresh, 1),
            cached_second,
            "a changed entry's equal field set is taken"
        );
        assert_eq!(entries[1].operation.as_deref(), Some("Apply"));
    }
}
