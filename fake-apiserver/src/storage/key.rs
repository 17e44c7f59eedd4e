//! Where an object is stored within its resource, in the order kube-apiserver lists objects.

use std::cmp::Ordering;

use serde_json::Value;

use crate::storage::object;
use crate::storage::resource::{Lifecycle, ResourceInfo};

/// An object's namespace (empty for cluster-scoped objects) and name.
///
/// Ordered as etcd orders kube-apiserver's keys, `…/<namespace>/<name>` compared as one string:
/// that is the order of lists, continue tokens and a watch's initial events. It differs from
/// ordering by namespace, then name, where one namespace begins another: `team-a/x` comes before
/// `team/y`, since `-` sorts before `/`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ObjectKey {
    pub(crate) namespace: String,
    pub(crate) name: String,
}

impl ObjectKey {
    pub(crate) fn new(namespace: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// Where `object` is stored.
    pub(crate) fn of(object: &Value) -> Self {
        Self::new(object::namespace(object), object::name(object))
    }
}

impl Ord for ObjectKey {
    fn cmp(&self, other: &Self) -> Ordering {
        if self.namespace == other.namespace {
            return self.name.cmp(&other.name);
        }
        // Two namespaces followed by `/` differ within the shorter one and the byte after it
        // (names hold no `/`): the names never count. Cluster-scoped keys (`/<name>`) share
        // their empty namespace, so they compare by name.
        let (ours, theirs) = (self.namespace.as_bytes(), other.namespace.as_bytes());
        let common = ours.len().min(theirs.len());
        let after = |namespace: &[u8]| namespace.get(common).copied().unwrap_or(b'/');
        ours[..common]
            .cmp(&theirs[..common])
            .then_with(|| after(ours).cmp(&after(theirs)))
    }
}

impl PartialOrd for ObjectKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The etcd key kube-apiserver keeps an object under, which its storage errors quote:
/// `/registry/<prefix>[/<namespace>]/<name>`. The prefix of a built-in resource is its name, or
/// the one compiled in (`SpecialDefaultResourcePrefixes`, pkg/kubeapiserver/default_storage_factory_builder.go);
/// the apiextensions and aggregator servers, and custom resources, prefix the group.
pub(crate) fn etcd_key(info: &ResourceInfo, namespace: Option<&str>, name: &str) -> String {
    let own_server = matches!(info.group.as_str(), "apiextensions.k8s.io" | "apiregistration.k8s.io");
    let prefix = match (info.group.as_str(), info.plural.as_str()) {
        _ if info.lifecycle == Lifecycle::CustomResource || own_server => format!("{}/{}", info.group, info.plural),
        ("", "replicationcontrollers") => "controllers".to_owned(),
        ("", "endpoints") => "services/endpoints".to_owned(),
        ("", "nodes") => "minions".to_owned(),
        ("", "services") => "services/specs".to_owned(),
        ("networking.k8s.io", "ingresses") => "ingress".to_owned(),
        (_, plural) => plural.to_owned(),
    };
    match namespace {
        Some(namespace) => format!("/registry/{prefix}/{namespace}/{name}"),
        None => format!("/registry/{prefix}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_should_sort_as_etcd_sorts_namespace_slash_name() {
        let mut keys = [
            ObjectKey::new("team", "y"),
            ObjectKey::new("team-a", "x"),
            ObjectKey::new("team", "a"),
            ObjectKey::new("default", "z"),
        ];
        keys.sort();
        let order: Vec<String> = keys.iter().map(|k| format!("{}/{}", k.namespace, k.name)).collect();
        assert_eq!(order, ["default/z", "team-a/x", "team/a", "team/y"]);
    }
}
