//! The store's tests: keys, indexes, replace and apply.
use super::*;
use crate::cache::split_key;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;

fn cm(namespace: &str, name: &str, team: &str) -> Arc<ConfigMap> {
    Arc::new(ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some(namespace.into()),
            labels: Some([("team".to_owned(), team.to_owned())].into()),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    })
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
    store.apply(cm("a", "one", "red"));
    store.apply(cm("a", "two", "blue"));
    store.apply(cm("b", "one", "red"));
    store.add_indexer("team", team).unwrap();
    assert_eq!(store.index_keys(NAMESPACE_INDEX, "a").unwrap(), ["a/one", "a/two"]);
    assert_eq!(store.index_keys("team", "red").unwrap(), ["a/one", "b/one"]);
    store.apply(cm("a", "one", "blue"));
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
    store.apply(cm("a", "one", "red"));
    let mut newer = (*cm("a", "one", "red")).clone();
    newer.data = Some([("k".to_owned(), "v".to_owned())].into());
    store.apply(Arc::new(newer));
    assert!(store.by_index(NAMESPACE_INDEX, "a").unwrap()[0].data.is_some());
    assert!(store.by_index("team", "red").unwrap()[0].data.is_some());
    assert!(store.get_in("a", "one").unwrap().data.is_some());
    assert!(store.get_in("b", "one").is_none());
    let long = "n".repeat(200);
    store.apply(cm(&long, "x", "red"));
    assert!(store.get_in(&long, "x").is_some(), "keys longer than the buffer");
}

#[test]
fn replace_should_swap_contents_and_keep_indexes() {
    let store = Store::new();
    store.add_indexer("team", team).unwrap();
    store.apply(cm("a", "gone", "red"));
    let previous = store.replace(vec![cm("a", "kept", "red"), cm("c", "new", "green")]);
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
    store.replace(vec![cm("a", "one", "red"), cm("a", "one", "blue")]);
    assert_eq!(store.get("a/one").map(|o| team(&o)), Some(vec!["blue".to_owned()]));
    assert!(store.index_keys("team", "red").unwrap().is_empty());
    assert_eq!(store.index_keys("team", "blue").unwrap(), ["a/one"]);
}
