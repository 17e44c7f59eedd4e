//! Typed read access to an informer's cache, as client-go's generated listers give it:
//! `list(selector)`, `namespaced(ns).get(name)` with a typed NotFound, namespace lists through
//! the namespace index.

use std::sync::Arc;

use kube::core::{Selector, SelectorExt};
use kube::{Resource, ResourceExt};

use super::store::{NAMESPACE_INDEX, Store};

/// An object is not in the cache.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{resource} \"{name}\" not found")]
pub struct NotFound {
    /// `plural.group`, as kube-apiserver names the resource in its NotFound messages.
    pub resource: String,
    /// The name looked up.
    pub name: String,
}

/// Reads objects of one type from a cache. Objects are shared: treat them as read-only.
pub struct Lister<K> {
    store: Store<K>,
    resource: Arc<str>,
}

impl<K> Clone for Lister<K> {
    fn clone(&self) -> Self {
        Self {
            store: self.store.clone(),
            resource: self.resource.clone(),
        }
    }
}

fn matching<K: Resource>(objects: impl IntoIterator<Item = Arc<K>>, selector: &Selector) -> Vec<Arc<K>> {
    if selector.selects_all() {
        return objects.into_iter().collect();
    }
    objects.into_iter().filter(|o| selector.matches(o.labels())).collect()
}

impl<K> Lister<K>
where
    K: Resource + Send + Sync + 'static,
    K::DynamicType: Default,
{
    /// A lister over `store`.
    pub fn new(store: Store<K>) -> Self {
        let dynamic = K::DynamicType::default();
        let (plural, group) = (K::plural(&dynamic), K::group(&dynamic));
        let resource = if group.is_empty() {
            plural.into_owned()
        } else {
            format!("{plural}.{group}")
        };
        Self {
            store,
            resource: resource.into(),
        }
    }

    /// Every cached object the selector selects, in all namespaces.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        matching(self.store.list(), selector)
    }

    /// A cluster-scoped object by name.
    pub fn get(&self, name: &str) -> Result<Arc<K>, NotFound> {
        self.store.get(name).ok_or_else(|| self.not_found(name))
    }

    /// Access to one namespace.
    pub fn namespaced(&self, namespace: &str) -> NamespaceLister<K> {
        NamespaceLister {
            lister: self.clone(),
            namespace: namespace.to_owned(),
        }
    }

    /// The underlying cache, for index queries.
    pub fn store(&self) -> &Store<K> {
        &self.store
    }

    fn not_found(&self, name: &str) -> NotFound {
        NotFound {
            resource: self.resource.to_string(),
            name: name.to_owned(),
        }
    }
}

/// Reads objects of one type in one namespace.
pub struct NamespaceLister<K> {
    lister: Lister<K>,
    namespace: String,
}

impl<K> Clone for NamespaceLister<K> {
    fn clone(&self) -> Self {
        Self {
            lister: self.lister.clone(),
            namespace: self.namespace.clone(),
        }
    }
}

impl<K> NamespaceLister<K>
where
    K: Resource + Send + Sync + 'static,
    K::DynamicType: Default,
{
    /// An object by name.
    pub fn get(&self, name: &str) -> Result<Arc<K>, NotFound> {
        self.lister
            .store
            .get_in(&self.namespace, name)
            .ok_or_else(|| self.lister.not_found(name))
    }

    /// The namespace's objects the selector selects, found through the namespace index (all
    /// namespaces for `""`, client-go's `NamespaceAll`).
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        if self.namespace.is_empty() {
            return self.lister.list(selector);
        }
        let objects = self
            .lister
            .store
            .by_index(NAMESPACE_INDEX, &self.namespace)
            .expect("the namespace index is built in");
        matching(objects, selector)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::field_sets::Fingerprint;
    use crate::cache::reuse::Unchanged;
    use k8s_openapi::api::apps::v1::Deployment;
    use kube::api::ObjectMeta;

    fn deployment(namespace: &str, name: &str, app: &str) -> Arc<Deployment> {
        Arc::new(Deployment {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some(namespace.into()),
                labels: Some([("app".to_owned(), app.to_owned())].into()),
                ..ObjectMeta::default()
            },
            ..Deployment::default()
        })
    }

    #[test]
    fn lister_should_get_and_list_by_namespace_and_selector() {
        let store = Store::new();
        store.apply(deployment("a", "web", "web"), Fingerprint::NONE, Unchanged::Keep);
        store.apply(deployment("a", "db", "db"), Fingerprint::NONE, Unchanged::Keep);
        store.apply(deployment("b", "web", "web"), Fingerprint::NONE, Unchanged::Keep);
        let lister = Lister::new(store);
        let web: Selector = [("app", "web")].into_iter().collect();
        assert_eq!(lister.list(&web).len(), 2);
        assert_eq!(lister.namespaced("a").list(&Selector::default()).len(), 2);
        assert_eq!(lister.namespaced("a").list(&web).len(), 1);
        assert_eq!(
            lister.namespaced("b").get("web").unwrap().metadata.namespace.as_deref(),
            Some("b")
        );
        let missing = lister.namespaced("b").get("db").unwrap_err();
        assert_eq!(missing.to_string(), "deployments.apps \"db\" not found");
    }
}
