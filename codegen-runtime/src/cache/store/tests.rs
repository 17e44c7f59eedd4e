//! The store's tests: keys, indexes, replace, apply, and updates that keep or take field sets.
use super::*;
use crate::cache::field_sets::Fingerprint;
use crate::cache::wire::pending;
use crate::cache::{object_key, split_key};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{FieldsV1, ManagedFieldsEntry};
use kube::api::ObjectMeta;

fn cm(namespace: &str, name: &str, team: &str) -> Arc<ConfigMap> {
    Arc::new(ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some(namespace.into()),
            labels: Some([("team".to_owned(), team.to_owned())].into()),
            managed_fields: Some(vec![ManagedFieldsEntry {
                fields_v1: Some(FieldsV1(serde_json::json!({"f:data": {".": {}}}))),
                ..ManagedFieldsEntry::default()
            }]),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    })
}

/// Replaces everything with `objects`, as a relist does; returns the previous contents.
fn replace(store: &Store<ConfigMap>, objects: Vec<Arc<ConfigMap>>) -> HashMap<Key, Arc<ConfigMap>> {
    let mut relist = store.relist(false);
    for object in objects {
        relist.add(object);
    }
    store.swap_in(relist).1
}

fn team(object: &ConfigMap) -> Vec<String> {
    object
        .metadata
        .labels
        .iter()
        .flatten()
        .filter(|(k, _)| *k == "team")
        .map(|(_, v)| v.clone())
        .collect()
}

#[test]
fn store_should_index_by_namespace_and_custom_indexers() {
    let store = Store::new();
    store.apply(cm("a", "one", "red"), Fingerprint::NONE, Unchanged::Keep);
    store.apply(cm("a", "two", "blue"), Fingerprint::NONE, Unchanged::Keep);
    store.apply(cm("b", "one", "red"), Fingerprint::NONE, Unchanged::Keep);
    store.add_indexer("team", team).unwrap();
    assert_eq!(store.index_keys(NAMESPACE_INDEX, "a").unwrap(), ["a/one", "a/two"]);
    assert_eq!(store.index_keys("team", "red").unwrap(), ["a/one", "b/one"]);
    store.apply(cm("a", "one", "blue"), Fingerprint::NONE, Unchanged::Keep);
    assert_eq!(store.index_keys("team", "red").unwrap(), ["b/one"]);
    assert_eq!(store.by_index("team", "blue").unwrap().len(), 2);
    store.delete("a/two");
    assert_eq!(store.index_keys("team", "blue").unwrap(), ["a/one"]);
    assert_eq!(store.index_values("team").unwrap(), ["blue", "red"]);
    assert_eq!(
        store.by_index("colour", "x").unwrap_err(),
        StoreError::NoSuchIndex("colour".into())
    );
    assert_eq!(
        store.add_indexer("team", team).unwrap_err(),
        StoreError::IndexExists("team".into())
    );
}

#[test]
fn an_update_should_reach_index_lists_and_lookups_by_namespace() {
    let store = Store::new();
    store.add_indexer("team", team).unwrap();
    store.apply(cm("a", "one", "red"), Fingerprint::NONE, Unchanged::Keep);
    let mut newer = (*cm("a", "one", "red")).clone();
    newer.data = Some([("k".to_owned(), "v".to_owned())].into());
    store.apply(Arc::new(newer), Fingerprint::NONE, Unchanged::Keep);
    assert!(store.by_index(NAMESPACE_INDEX, "a").unwrap()[0].data.is_some());
    assert!(store.by_index("team", "red").unwrap()[0].data.is_some());
    assert!(store.get_in("a", "one").unwrap().data.is_some());
    assert!(store.get_in("b", "one").is_none());
    let long = "n".repeat(200);
    store.apply(cm(&long, "x", "red"), Fingerprint::NONE, Unchanged::Keep);
    assert!(store.get_in(&long, "x").is_some(), "keys longer than the buffer");
    // Keys over 24 bytes are not held inline: they must work the same.
    assert_eq!(store.index_keys(NAMESPACE_INDEX, &long).unwrap(), [format!("{long}/x")]);
    assert!(store.delete(&format!("{long}/x")).is_some());
    assert!(store.index_keys(NAMESPACE_INDEX, &long).unwrap().is_empty());
}

#[test]
fn keys_that_fit_inline_and_keys_that_do_not_should_work_alike() {
    // 24 bytes are held inline, 25 are allocated: both through a relist, the indexes and updates.
    let name = "abcdefghijkl";
    let (inline, spilled) = ("n".repeat(11), "n".repeat(12));
    assert_eq!(key_of(Some(&inline), name).len(), 24);
    assert_eq!(key_of(Some(&spilled), name).len(), 25);
    let store = Store::new();
    store.add_indexer("team", team).unwrap();
    replace(&store, vec![cm(&inline, name, "red"), cm(&spilled, name, "red")]);
    let previous = replace(&store, vec![cm(&inline, name, "blue"), cm(&spilled, name, "blue")]);
    for namespace in [&inline, &spilled] {
        let key = key_of(Some(namespace), name);
        assert!(previous.contains_key(key.as_str()), "{key}");
        assert_eq!(
            store.get(&key).unwrap().metadata.labels.as_ref().unwrap()["team"],
            "blue"
        );
        assert_eq!(
            store.index_keys(NAMESPACE_INDEX, namespace).unwrap(),
            std::slice::from_ref(&key)
        );
        store.apply(cm(namespace, name, "red"), Fingerprint::NONE, Unchanged::Keep);
    }
    let mut red = store.index_keys("team", "red").unwrap();
    red.sort();
    assert_eq!(red, [key_of(Some(&inline), name), key_of(Some(&spilled), name)]);
    assert!(store.index_keys("team", "blue").unwrap().is_empty());
    assert_eq!(store.list_keys().len(), 2);
}

#[test]
fn replace_should_swap_contents_and_keep_indexes() {
    let store = Store::new();
    store.add_indexer("team", team).unwrap();
    store.apply(cm("a", "gone", "red"), Fingerprint::NONE, Unchanged::Keep);
    let previous = replace(&store, vec![cm("a", "kept", "red"), cm("c", "new", "green")]);
    assert!(previous.contains_key("a/gone"));
    assert_eq!(store.index_keys("team", "red").unwrap(), ["a/kept"]);
    assert_eq!(store.index_keys(NAMESPACE_INDEX, "c").unwrap(), ["c/new"]);
    assert!(store.get("a/gone").is_none());
    assert_eq!(split_key("a/kept"), (Some("a"), "kept"));
    assert_eq!(split_key("node-1"), (None, "node-1"));
}

#[test]
fn a_key_listed_twice_should_keep_only_its_last_index_values() {
    let store = Store::new();
    store.add_indexer("team", team).unwrap();
    replace(&store, vec![cm("a", "one", "red"), cm("a", "one", "blue")]);
    assert_eq!(store.get("a/one").map(|o| team(&o)), Some(vec!["blue".to_owned()]));
    assert!(store.index_keys("team", "red").unwrap().is_empty());
    assert_eq!(store.index_keys("team", "blue").unwrap(), ["a/one"]);
}

#[test]
fn a_relist_in_any_order_should_index_every_object_by_key_and_take_later_writes() {
    // Enough objects for B-trees of several levels, built in one pass at the swap.
    let names: Vec<String> = (0..300).rev().map(|i| format!("cm-{:03}", (i * 7) % 300)).collect();
    let store = Store::new();
    store.add_indexer("team", team).unwrap();
    let listed = names.iter().enumerate().map(|(i, name)| {
        let colour = if i % 3 == 0 { "red" } else { "blue" };
        cm(if i % 2 == 0 { "a" } else { "b" }, name, colour)
    });
    replace(&store, listed.collect());
    let mut expected: Vec<String> = store.list_keys().into_iter().filter(|k| k.starts_with("a/")).collect();
    expected.sort();
    assert_eq!(expected.len(), 150);
    assert_eq!(store.index_keys(NAMESPACE_INDEX, "a").unwrap(), expected);
    let in_a = store.by_index(NAMESPACE_INDEX, "a").unwrap();
    assert!(
        in_a.iter()
            .all(|o| Arc::ptr_eq(o, &store.get(&object_key(&**o)).unwrap()))
    );
    assert_eq!(store.index_keys("team", "red").unwrap().len(), 100);
    // Writes after the relist move entries in and out of the packed trees.
    let deleted_red = team(&store.get(&expected[75]).unwrap()) == ["red"];
    store.delete(&expected[75]);
    store.apply(cm("a", "cm-999", "red"), Fingerprint::NONE, Unchanged::Keep);
    let keys = store.index_keys(NAMESPACE_INDEX, "a").unwrap();
    assert_eq!(keys.len(), 150);
    assert!(!keys.contains(&expected[75]));
    assert_eq!(keys.last().map(String::as_str), Some("a/cm-999"));
    assert!(keys.is_sorted());
    assert_eq!(
        store.index_keys("team", "red").unwrap().len(),
        101 - usize::from(deleted_red)
    );
}

/// Where `object`'s managed-fields tree keeps its first level, to tell whose copy it holds.
fn fields_at(object: &ConfigMap) -> *const serde_json::Value {
    let entries = object.metadata.managed_fields.as_ref().expect("managed fields");
    let fields = entries[0].fields_v1.as_ref().expect("a field set");
    fields.0.get("f:data").expect("a first level")
}

fn with_data(object: &Arc<ConfigMap>, value: &str) -> Arc<ConfigMap> {
    let mut changed = (**object).clone();
    changed.data = Some([("k".to_owned(), value.to_owned())].into());
    Arc::new(changed)
}

#[test]
fn an_update_should_take_over_the_unchanged_field_sets_of_the_object_it_replaces() {
    let store = Store::new();
    let first = cm("a", "one", "red");
    let cached_fields = fields_at(&first);
    store.apply(first, Fingerprint::NONE, Unchanged::Keep);
    let fresh = with_data(&store.get("a/one").unwrap(), "v2");
    let fresh_fields = fields_at(&fresh);

    let (stored, old) = store.apply(fresh, Fingerprint::NONE, Unchanged::Keep);

    assert_eq!(fields_at(&stored), cached_fields, "the cached field set is kept");
    let old = old.expect("an update replaces");
    assert_eq!(
        fields_at(&old),
        fresh_fields,
        "the fresh copy goes with the replaced object"
    );
    assert_eq!(old.metadata.managed_fields, stored.metadata.managed_fields);
    assert_eq!(old.data, None, "the replaced object keeps its own values");
    assert_eq!(stored.data.as_ref().unwrap()["k"], "v2");
    let listed = store.by_index(NAMESPACE_INDEX, "a").unwrap();
    assert!(
        Arc::ptr_eq(&listed[0], &stored),
        "the namespace index holds the stored object"
    );
    assert!(Arc::ptr_eq(&store.get("a/one").unwrap(), &stored));
}

#[test]
fn an_update_should_leave_a_replaced_object_alone_while_anything_else_holds_it() {
    let held = Store::new();
    held.apply(cm("a", "one", "red"), Fingerprint::NONE, Unchanged::Keep);
    let reader = held.get("a/one").unwrap();
    let indexed = Store::new();
    indexed.add_indexer("team", team).unwrap();
    indexed.apply(cm("a", "one", "red"), Fingerprint::NONE, Unchanged::Keep);
    let freeing = Store::new();
    freeing.apply(cm("a", "one", "red"), Fingerprint::NONE, Unchanged::Free);
    for (store, unchanged) in [
        (&held, Unchanged::Keep),
        (&indexed, Unchanged::Keep),
        (&freeing, Unchanged::Free),
    ] {
        let cached = store.get("a/one").unwrap();
        let cached_fields = fields_at(&cached);
        drop(cached);
        let fresh = with_data(&store.get("a/one").unwrap(), "v2");
        let fresh_fields = fields_at(&fresh);
        let (stored, old) = store.apply(fresh, Fingerprint::NONE, unchanged);
        assert_eq!(fields_at(&stored), fresh_fields, "{unchanged:?}");
        assert_eq!(fields_at(&old.unwrap()), cached_fields, "{unchanged:?}");
        assert_eq!(store.by_index(NAMESPACE_INDEX, "a").unwrap()[0].data, stored.data);
    }
    assert_eq!(reader.data, None);
    assert_eq!(indexed.index_keys("team", "red").unwrap(), ["a/one"]);
    let stored = indexed.get("a/one").unwrap();
    assert!(Arc::ptr_eq(&indexed.by_index("team", "red").unwrap()[0], &stored));
}

#[test]
fn an_update_of_a_cluster_scoped_object_should_keep_its_unchanged_field_sets_too() {
    let store = Store::new();
    let mut first = (*cm("a", "node", "red")).clone();
    first.metadata.namespace = None;
    let first = Arc::new(first);
    let cached_fields = fields_at(&first);
    store.apply(first, Fingerprint::NONE, Unchanged::Keep);
    let fresh = with_data(&store.get("node").unwrap(), "v2");
    let (stored, _) = store.apply(fresh, Fingerprint::NONE, Unchanged::Keep);
    assert_eq!(fields_at(&stored), cached_fields);
    assert_eq!(store.get("node").unwrap().data, stored.data);
}

#[test]
fn an_update_that_moves_an_object_out_of_the_empty_namespace_should_leave_no_index_entry() {
    let store = Store::new();
    store.apply(cm("", "x", "red"), Fingerprint::NONE, Unchanged::Keep);
    assert_eq!(store.index_values(NAMESPACE_INDEX).unwrap(), [""]);
    let mut cluster_scoped = (*cm("", "x", "red")).clone();
    cluster_scoped.metadata.namespace = None;
    store.apply(Arc::new(cluster_scoped), Fingerprint::NONE, Unchanged::Keep);
    assert!(store.index_values(NAMESPACE_INDEX).unwrap().is_empty());
    store.delete("x");
    assert!(store.index_values(NAMESPACE_INDEX).unwrap().is_empty());
}

/// A store holding `cm("a", "one", "red")` as listed, its field sets fingerprinted.
fn listed() -> Store<ConfigMap> {
    let store = Store::new();
    let mut relist = store.relist(true);
    relist.add(cm("a", "one", "red"));
    store.swap_in(relist);
    store
}

#[test]
fn an_update_should_take_the_field_sets_of_the_object_it_replaces_when_its_texts_are_theirs() {
    let store = listed();
    for value in ["v2", "v3"] {
        let cached_fields = fields_at(&store.get("a/one").unwrap());
        let expected = with_data(&store.get("a/one").unwrap(), value);
        let (fresh, texts) = pending(&*expected);
        let (stored, old) = store.apply_taking(fresh, &texts).expect("taken");
        assert_eq!(*stored, *expected, "the stored object is the update, whole");
        assert_eq!(fields_at(&stored), cached_fields, "the cached trees, moved");
        let old = old.expect("an update replaces");
        let entries = old.metadata.managed_fields.as_ref().unwrap();
        assert_eq!(
            entries[0].fields_v1,
            Some(FieldsV1(serde_json::Value::Null)),
            "given away"
        );
        assert!(Arc::ptr_eq(&store.by_index(NAMESPACE_INDEX, "a").unwrap()[0], &stored));
        assert!(Arc::ptr_eq(&store.get("a/one").unwrap(), &stored));
    }
}

#[test]
fn an_update_should_be_handed_back_with_nothing_changed_when_the_replaced_object_cannot_give_its_field_sets() {
    let unknown = Store::new();
    unknown.apply(cm("a", "one", "red"), Fingerprint::NONE, Unchanged::Keep);
    let held = listed();
    let reader = held.get("a/one").unwrap();
    let indexed = listed();
    indexed.add_indexer("team", team).unwrap();
    let changed = listed();
    let mut other = (*changed.get("a/one").unwrap()).clone();
    other.metadata.managed_fields.as_mut().unwrap()[0].fields_v1 = Some(FieldsV1(serde_json::json!({"f:data": {}})));
    changed.apply(Arc::new(other), Fingerprint::NONE, Unchanged::Free);
    for (case, store) in [
        ("unknown", &unknown),
        ("held", &held),
        ("indexed", &indexed),
        ("changed", &changed),
    ] {
        // Only the address: a reference held here would be one more holder.
        let cached = Arc::as_ptr(&store.get("a/one").unwrap());
        let (fresh, texts) = pending(&*with_data(&cm("a", "one", "red"), "v2"));
        let fresh = store.apply_taking(fresh, &texts).expect_err(case);
        let stored = store.get("a/one").unwrap();
        assert_eq!(Arc::as_ptr(&stored), cached, "{case}");
        assert!(
            Arc::ptr_eq(&store.by_index(NAMESPACE_INDEX, "a").unwrap()[0], &stored),
            "{case}"
        );
        assert_eq!(stored.data, None, "{case}");
        assert_ne!(
            fresh.metadata.managed_fields, stored.metadata.managed_fields,
            "{case}: still to decode"
        );
        assert_eq!(Arc::strong_count(&fresh), 1, "{case}");
    }
    assert_eq!(reader.data, None);
}
