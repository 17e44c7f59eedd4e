//! CustomResourceDefinition objects: serving the resources they define and reporting them
//! Established, as kube-apiserver's apiextensions controllers do.

use std::sync::Arc;

use serde_json::{Value, json};

use super::core::Core;
use super::object;
use super::resource::ResourceInfo;

impl Core {
    /// Serves the resources of a CRD that was just created, then writes its status the way the
    /// naming and establishing controllers do (a second change, as on a real server).
    pub(crate) fn establish_crd(&mut self, stored: &Arc<Value>, infos: Vec<ResourceInfo>) -> Arc<Value> {
        self.register_crd(infos);
        let mut established = (**stored).clone();
        let names = stored.pointer("/spec/names").cloned().unwrap_or_else(|| json!({}));
        let versions: Vec<Value> = stored
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
            .filter_map(|v| v.get("name").cloned())
            .collect();
        let now = object::now();
        let condition = |type_: &str, reason: &str, message: &str| json!({ "type": type_, "status": "True", "lastTransitionTime": now, "reason": reason, "message": message });
        established["status"] = json!({
            "acceptedNames": names,
            "storedVersions": versions,
            "conditions": [
                condition("NamesAccepted", "NoConflicts", "no conflicts found"),
                condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
            ],
        });
        let storage = self
            .info("apiextensions.k8s.io", "v1", "customresourcedefinitions")
            .storage_key();
        self.store.put(&storage, established)
    }

    /// Serves exactly the versions a CRD now lists.
    pub(crate) fn register_crd(&mut self, infos: Vec<ResourceInfo>) {
        if let Some(first) = infos.first() {
            self.registry.remove(&first.storage_key());
        }
        for info in infos {
            self.registry.insert(info);
        }
    }
}
