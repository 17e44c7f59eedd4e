//! Cache keys: `namespace/name`, or `name` for cluster-scoped objects (client-go's
//! `MetaNamespaceKeyFunc` and `SplitMetaNamespaceKey`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;

/// A key as the store holds it: inline up to 24 bytes on 64-bit targets (most `namespace/name`
/// keys), so a lookup compares it where the map's slot is instead of following a pointer to its
/// text, and a stored key allocates nothing.
pub(crate) type Key = compact_str::CompactString;

/// The key of an object: `namespace/name`, or `name` for cluster-scoped objects (client-go's
/// `MetaNamespaceKeyFunc`).
pub fn object_key<K: Resource>(object: &K) -> String {
    let meta = object.meta();
    key_of(meta.namespace.as_deref(), meta.name.as_deref().unwrap_or_default())
}

/// The key of `name` in `namespace`.
pub fn key_of(namespace: Option<&str>, name: &str) -> String {
    let mut key = String::with_capacity(namespace.map_or(0, |ns| ns.len() + 1) + name.len());
    push_key(&mut key, namespace, name);
    key
}

/// Overwrites `key` with the key of the object `meta` describes, reusing its buffer (the
/// store does so once per watch event).
pub(crate) fn write_key(key: &mut String, meta: &ObjectMeta) {
    key.clear();
    push_key(key, meta.namespace.as_deref(), meta.name.as_deref().unwrap_or_default());
}

// Built by hand: `format!` costs more than the copy, once per watch event.
fn push_key(key: &mut String, namespace: Option<&str>, name: &str) {
    if let Some(ns) = namespace.filter(|ns| !ns.is_empty()) {
        key.push_str(ns);
        key.push('/');
    }
    key.push_str(name);
}

/// Splits a key into namespace and name (client-go's `SplitMetaNamespaceKey`).
pub fn split_key(key: &str) -> (Option<&str>, &str) {
    match key.split_once('/') {
        Some((namespace, name)) => (Some(namespace), name),
        None => (None, key),
    }
}
