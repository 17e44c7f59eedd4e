//! Cache keys: `namespace/name`, or `name` for cluster-scoped objects (client-go's
//! `MetaNamespaceKeyFunc` and `SplitMetaNamespaceKey`).

use kube::Resource;

/// The key of an object: `namespace/name`, or `name` for cluster-scoped objects (client-go's
/// `MetaNamespaceKeyFunc`).
pub fn object_key<K: Resource>(object: &K) -> String {
    let meta = object.meta();
    key_of(meta.namespace.as_deref(), meta.name.as_deref().unwrap_or_default())
}

/// The key of `name` in `namespace`.
pub fn key_of(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        // Built by hand: `format!` costs more than the copy, once per watch event.
        Some(ns) if !ns.is_empty() => {
            let mut key = String::with_capacity(ns.len() + 1 + name.len());
            key.push_str(ns);
            key.push('/');
            key.push_str(name);
            key
        }
        _ => name.to_owned(),
    }
}

/// Splits a key into namespace and name (client-go's `SplitMetaNamespaceKey`).
pub fn split_key(key: &str) -> (Option<&str>, &str) {
    match key.split_once('/') {
        Some((namespace, name)) => (Some(namespace), name),
        None => (None, key),
    }
}
