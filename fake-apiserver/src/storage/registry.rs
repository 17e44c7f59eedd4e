//! The set of resources the fake API server serves, by group, version and plural.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::storage::resource::{Lifecycle, ResourceInfo, StorageKey};
use crate::storage::version_priority;

/// Served resources. A built-in group's versions are in registration order, its preferred first;
/// a custom resource group's are sorted by their names (`version_priority`), as the CRD
/// discovery controller sorts them (`customresource_discovery_controller.go`).
#[derive(Default)]
pub(crate) struct Registry {
    resources: BTreeMap<(String, String, String), Arc<ResourceInfo>>,
    /// Versions of each group, the preferred first.
    versions: BTreeMap<String, Vec<String>>,
}

impl Registry {
    /// Adds or replaces a resource.
    pub(crate) fn insert(&mut self, info: ResourceInfo) {
        let versions = self.versions.entry(info.group.clone()).or_default();
        if !versions.contains(&info.version) {
            versions.push(info.version.clone());
            if info.lifecycle == Lifecycle::CustomResource {
                versions.sort_by(|a, b| version_priority::order(a, b));
            }
        }
        let key = (info.group.clone(), info.version.clone(), info.plural.clone());
        self.resources.insert(key, Arc::new(info));
    }

    /// Removes every version of a resource; groups left empty disappear from discovery.
    pub(crate) fn remove(&mut self, storage: &StorageKey) {
        self.resources
            .retain(|(group, _, plural), _| !(group == &storage.group && plural == &storage.plural));
        let remaining: Vec<(String, String)> = self.resources.keys().map(|(g, v, _)| (g.clone(), v.clone())).collect();
        for (group, versions) in &mut self.versions {
            versions.retain(|v| remaining.iter().any(|(g, rv)| g == group && rv == v));
        }
        self.versions.retain(|_, versions| !versions.is_empty());
    }

    pub(crate) fn find(&self, group: &str, version: &str, plural: &str) -> Option<&Arc<ResourceInfo>> {
        self.resources
            .get(&(group.to_owned(), version.to_owned(), plural.to_owned()))
    }

    /// The preferred-version description of a stored resource.
    pub(crate) fn preferred(&self, storage: &StorageKey) -> Option<&Arc<ResourceInfo>> {
        let version = self
            .versions
            .get(&storage.group)?
            .iter()
            .find(|v| self.find(&storage.group, v, &storage.plural).is_some())?;
        self.find(&storage.group, version, &storage.plural)
    }

    /// The description of `apiVersion`/`kind`, as named in an owner reference or a manifest.
    pub(crate) fn by_kind(&self, api_version: &str, kind: &str) -> Option<&Arc<ResourceInfo>> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        self.resources
            .values()
            .find(|i| i.group == group && i.version == version && i.kind == kind)
    }

    /// Groups (core group `""` included) with their versions, preferred first.
    pub(crate) fn groups(&self) -> impl Iterator<Item = (&String, &Vec<String>)> {
        self.versions.iter()
    }

    /// The resources served in one group-version.
    pub(crate) fn resources_in(&self, group: &str, version: &str) -> Vec<&Arc<ResourceInfo>> {
        self.resources
            .values()
            .filter(|i| i.group == group && i.version == version)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_should_forget_groups_whose_last_resource_is_removed() {
        let mut registry = Registry::default();
        registry.insert(ResourceInfo::builtin("g", "v1", "Thing", "things"));
        registry.insert(ResourceInfo::builtin("g", "v2", "Thing", "things"));
        assert_eq!(
            registry
                .preferred(&StorageKey {
                    group: "g".into(),
                    plural: "things".into()
                })
                .unwrap()
                .version,
            "v1"
        );
        assert!(registry.by_kind("g/v2", "Thing").is_some());
        registry.remove(&StorageKey {
            group: "g".into(),
            plural: "things".into(),
        });
        assert!(registry.find("g", "v1", "things").is_none());
        assert_eq!(registry.groups().count(), 0);
    }
}
