//! Keeping the unchanged managed-fields trees of a replaced object: a watch event's object
//! takes over the cached object's copies of the field sets it has equal, and its own copies
//! are freed while still hot.
//!
//! Why: a cache frees the object an event replaces, allocated long before, so each of its
//! blocks misses the CPU caches and glibc's allocator merges each with cold neighbours. The
//! managed-fields entries' `fieldsV1` trees are most of those blocks (a `serde_json` map per
//! level), and an update seldom changes them: it changes its writer's entry's time, seldom
//! what the entry owns. So the cached trees stay, and the event's equal ones are freed right
//! after their decode, when the next decode reuses their memory. The stored object equals the
//! event's in every field. Labels and finalizers cost more to compare than their free saves,
//! and are left alone (BENCHMARKS.md). The comparison runs under the store's write lock, which
//! readers wait for: the listers suite's reads under a watch did not move with it.

use std::mem;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, ObjectMeta};

/// What an update does with the field sets the replaced object has unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unchanged {
    /// The fresh object takes the replaced one's copies over, and its own are freed with the
    /// replaced object: where that object is freed right after the update, by the thread that
    /// decoded it.
    Keep,
    /// Left where they are, freed with the replaced object: where that object is freed on
    /// another thread (a handler's task, or the engine's), which would then free the fresh
    /// copies there, at a higher cost than the cold free saved.
    Free,
}

/// Whether an object has anything to keep: without managed fields an update takes the store's
/// general path, untouched by keeping.
pub(crate) fn has_field_sets(meta: &ObjectMeta) -> bool {
    meta.managed_fields.as_ref().is_some_and(|entries| !entries.is_empty())
}

/// Swaps into `fresh`'s managed-fields entries what `cached` has equal: the whole list when
/// every entry is; else, for each entry of the same writer, the whole entry when it is equal,
/// or its field set when that is. Entries are matched by writer, not position: the API server
/// sorts them by operation and time, so a writer's entry moves when it writes. Both keep the
/// values they held, but `fresh` owns the older allocations.
pub(crate) fn keep_unchanged(fresh: &mut ObjectMeta, cached: &mut ObjectMeta) {
    let (Some(fresh), Some(cached)) = (&mut fresh.managed_fields, &mut cached.managed_fields) else {
        return;
    };
    // The small fields first: when an update changed an entry's time, its tree is compared
    // once, below.
    let pairs = || fresh.iter().zip(cached.iter());
    if fresh.len() == cached.len()
        && pairs().all(|(fresh, cached)| same_but_field_set(fresh, cached))
        && pairs().all(|(fresh, cached)| fresh.fields_v1 == cached.fields_v1)
    {
        mem::swap(fresh, cached);
        return;
    }
    for fresh in fresh.iter_mut() {
        let Some(cached) = cached.iter_mut().find(|cached| same_writer(fresh, cached)) else {
            continue;
        };
        if fresh.fields_v1 != cached.fields_v1 {
            continue;
        }
        if same_but_field_set(fresh, cached) {
            mem::swap(fresh, cached);
        } else {
            mem::swap(&mut fresh.fields_v1, &mut cached.fields_v1);
        }
    }
}

/// Whether two entries are the same writer's: its manager, operation, subresource and version.
fn same_writer(fresh: &ManagedFieldsEntry, cached: &ManagedFieldsEntry) -> bool {
    fresh.manager == cached.manager
        && fresh.operation == cached.operation
        && fresh.subresource == cached.subresource
        && fresh.api_version == cached.api_version
}

/// Whether two entries are equal but for their field sets.
fn same_but_field_set(fresh: &ManagedFieldsEntry, cached: &ManagedFieldsEntry) -> bool {
    // Every field named: one that k8s-openapi adds must be compared here before the whole
    // entry is swapped, or this fails to compile.
    let ManagedFieldsEntry {
        api_version: _,
        fields_type,
        fields_v1: _,
        manager: _,
        operation: _,
        subresource: _,
        time,
    } = fresh;
    same_writer(fresh, cached) && *time == cached.time && *fields_type == cached.fields_type
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{FieldsV1, Time};
    use k8s_openapi::jiff::Timestamp;
    use serde_json::json;

    use super::*;

    /// `manager`'s entry, owning `fields`, written at `second`.
    fn entry(manager: &str, fields: serde_json::Value, second: i64) -> ManagedFieldsEntry {
        ManagedFieldsEntry {
            manager: Some(manager.to_owned()),
            operation: Some("Update".to_owned()),
            api_version: Some("cloudnative.tw/v1alpha1".to_owned()),
            fields_type: Some("FieldsV1".to_owned()),
            fields_v1: Some(FieldsV1(fields)),
            time: Some(Time(Timestamp::from_second(second).expect("a valid second"))),
            ..ManagedFieldsEntry::default()
        }
    }

    fn meta(entries: Vec<ManagedFieldsEntry>) -> ObjectMeta {
        ObjectMeta {
            name: Some("vm".to_owned()),
            managed_fields: Some(entries),
            ..ObjectMeta::default()
        }
    }

    fn kubectl() -> ManagedFieldsEntry {
        entry("kubectl", json!({"f:spec": {"f:cpu": {}}}), 1)
    }

    fn controller(field: &str, second: i64) -> ManagedFieldsEntry {
        entry("controller", json!({"f:status": {field: {}}}), second)
    }

    /// Where `manager`'s field set keeps its first level, to tell whose tree it is.
    fn tree_of(meta: &ObjectMeta, manager: &str) -> usize {
        let entries = meta.managed_fields.as_ref().expect("managed fields");
        let entry = entries
            .iter()
            .find(|e| e.manager.as_deref() == Some(manager))
            .expect("the entry");
        let fields = &entry.fields_v1.as_ref().expect("a field set").0;
        let first = fields
            .as_object()
            .and_then(|map| map.values().next())
            .expect("a first level");
        std::ptr::from_ref(first) as usize
    }

    fn list_of(meta: &ObjectMeta) -> usize {
        meta.managed_fields.as_ref().expect("managed fields").as_ptr() as usize
    }

    #[test]
    fn an_unchanged_list_should_be_taken_whole() {
        let mut cached = meta(vec![kubectl(), controller("f:phase", 2)]);
        let mut fresh = cached.clone();
        let cached_list = list_of(&cached);
        keep_unchanged(&mut fresh, &mut cached);
        assert_eq!(list_of(&fresh), cached_list);
        assert_eq!(fresh, cached);
    }

    #[test]
    fn a_status_update_should_keep_every_field_set_and_the_untouched_entries() {
        let mut cached = meta(vec![kubectl(), controller("f:phase", 2)]);
        let mut fresh = meta(vec![kubectl(), controller("f:phase", 3)]);
        let expected = (fresh.clone(), cached.clone());
        let fresh_list = list_of(&fresh);
        let (kubectl_tree, controller_tree) = (tree_of(&cached, "kubectl"), tree_of(&cached, "controller"));
        let kubectl_manager = cached.managed_fields.as_ref().unwrap()[0]
            .manager
            .as_ref()
            .unwrap()
            .as_ptr();

        keep_unchanged(&mut fresh, &mut cached);

        assert_eq!((fresh.clone(), cached.clone()), expected, "both keep their values");
        assert_eq!(list_of(&fresh), fresh_list, "a changed entry keeps the event's list");
        let entries = fresh.managed_fields.as_ref().unwrap();
        assert_eq!(
            entries[0].manager.as_ref().unwrap().as_ptr(),
            kubectl_manager,
            "an equal entry is taken whole"
        );
        assert_eq!(tree_of(&fresh, "kubectl"), kubectl_tree);
        assert_eq!(
            tree_of(&fresh, "controller"),
            controller_tree,
            "an unchanged field set is kept"
        );
    }

    #[test]
    fn entries_should_be_matched_by_writer_wherever_the_server_sorted_them() {
        let mut cached = meta(vec![controller("f:phase", 1), kubectl()]);
        let mut fresh = meta(vec![
            kubectl(),
            controller("f:reason", 3),
            entry("new", json!({"f:x": {}}), 4),
        ]);
        let expected = fresh.clone();
        let kubectl_tree = tree_of(&cached, "kubectl");
        let controller_tree = tree_of(&fresh, "controller");

        keep_unchanged(&mut fresh, &mut cached);

        assert_eq!(fresh, expected);
        assert_eq!(tree_of(&fresh, "kubectl"), kubectl_tree, "found where it moved");
        assert_eq!(
            tree_of(&fresh, "controller"),
            controller_tree,
            "a changed field set stays the event's"
        );
        let mut none = ObjectMeta::default();
        keep_unchanged(&mut none, &mut cached);
        assert_eq!(none, ObjectMeta::default());
    }
}
