//! The object metadata an apply may carry (client-go's `ObjectMetaApplyConfiguration`).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use serde::{Deserialize, Serialize};

/// Object metadata in an apply configuration: every field optional and left out when unset.
/// The server owns the rest of `metadata` (uid, resourceVersion, timestamps, managed fields).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetaApplyConfiguration {
    /// The object's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The object's namespace (namespaced kinds only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Labels this manager sets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    /// Annotations this manager sets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
    /// Owner references this manager sets, merged by `uid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_references: Option<Vec<OwnerReference>>,
    /// Finalizers this manager sets, merged as a set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finalizers: Option<Vec<String>>,
}

impl ObjectMetaApplyConfiguration {
    /// Adds labels (a later value for the same key wins).
    pub fn add_labels<K: Into<String>, V: Into<String>>(&mut self, labels: impl IntoIterator<Item = (K, V)>) {
        let map = self.labels.get_or_insert_with(BTreeMap::new);
        map.extend(labels.into_iter().map(|(k, v)| (k.into(), v.into())));
    }

    /// Adds annotations (a later value for the same key wins).
    pub fn add_annotations<K: Into<String>, V: Into<String>>(&mut self, annotations: impl IntoIterator<Item = (K, V)>) {
        let map = self.annotations.get_or_insert_with(BTreeMap::new);
        map.extend(annotations.into_iter().map(|(k, v)| (k.into(), v.into())));
    }

    /// Adds owner references.
    pub fn add_owner_references(&mut self, references: impl IntoIterator<Item = OwnerReference>) {
        self.owner_references.get_or_insert_with(Vec::new).extend(references);
    }

    /// Adds finalizers.
    pub fn add_finalizers<S: Into<String>>(&mut self, finalizers: impl IntoIterator<Item = S>) {
        let list = self.finalizers.get_or_insert_with(Vec::new);
        list.extend(finalizers.into_iter().map(Into::into));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_fields_should_be_left_out() {
        let mut meta = ObjectMetaApplyConfiguration {
            name: Some("a".into()),
            ..Default::default()
        };
        assert_eq!(serde_json::to_value(&meta).unwrap(), serde_json::json!({"name": "a"}));
        meta.add_labels([("app", "web")]);
        meta.add_labels([("app", "api"), ("tier", "front")]);
        meta.add_finalizers(["x"]);
        assert_eq!(
            serde_json::to_value(&meta).unwrap(),
            serde_json::json!({"name": "a", "labels": {"app": "api", "tier": "front"}, "finalizers": ["x"]})
        );
    }
}
