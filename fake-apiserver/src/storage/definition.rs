//! Table entries from `CustomResourceDefinition` objects: one served resource per served version.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::storage::resource::{Lifecycle, PrinterColumn, ResourceInfo, ScalePaths};
use crate::storage::verb::Verb;

/// Why a `CustomResourceDefinition` cannot be served; the server answers 422 Invalid with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    /// A required field is absent.
    #[error("{0} is missing")]
    Missing(&'static str),
    /// `spec.scope` is neither `Namespaced` nor `Cluster`.
    #[error("spec.scope must be Namespaced or Cluster, not {0:?}")]
    Scope(Option<String>),
    /// Every version has `served: false`.
    #[error("spec.versions has no served version")]
    NoServedVersion,
}

impl ResourceInfo {
    /// All `ResourceInfo`s a `CustomResourceDefinition` object (as JSON) describes, one per
    /// served version, or why it cannot be served.
    pub fn from_crd(crd: &Value) -> Result<Vec<Self>, DefinitionError> {
        let spec = crd.get("spec").ok_or(DefinitionError::Missing("spec"))?;
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let list = |v: &Value, key: &str| -> Vec<String> {
            v.get(key)
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default()
        };
        let group = text(spec, "group").ok_or(DefinitionError::Missing("spec.group"))?;
        let names = spec.get("names").ok_or(DefinitionError::Missing("spec.names"))?;
        let kind = text(names, "kind").ok_or(DefinitionError::Missing("spec.names.kind"))?;
        let plural = text(names, "plural").ok_or(DefinitionError::Missing("spec.names.plural"))?;
        let singular = text(names, "singular").unwrap_or_else(|| kind.to_ascii_lowercase());
        let namespaced = match text(spec, "scope").as_deref() {
            Some("Namespaced") => true,
            Some("Cluster") => false,
            other => return Err(DefinitionError::Scope(other.map(str::to_owned))),
        };
        let versions = spec
            .get("versions")
            .and_then(Value::as_array)
            .ok_or(DefinitionError::Missing("spec.versions"))?;
        let stored = versions
            .iter()
            .find(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
            .and_then(|v| text(v, "name"))
            .map(|v| format!("{group}/{v}"));
        let version_schemas: Arc<BTreeMap<String, Value>> = Arc::new(
            versions
                .iter()
                .filter_map(|v| Some((text(v, "name")?, v.pointer("/schema/openAPIV3Schema")?.clone())))
                .collect(),
        );
        let mut infos = Vec::new();
        for version in versions {
            if version.get("served").and_then(Value::as_bool) == Some(false) {
                continue;
            }
            let name = text(version, "name").ok_or(DefinitionError::Missing("spec.versions[].name"))?;
            let storage_version = stored.clone().filter(|s| *s != format!("{group}/{name}"));
            // apiextensions' default wording when the version gives none.
            let deprecation_warning = (version.get("deprecated").and_then(Value::as_bool) == Some(true)).then(|| {
                text(version, "deprecationWarning").unwrap_or_else(|| format!("{group}/{name} {kind} is deprecated"))
            });
            let subresources = version.get("subresources");
            let scale = subresources.and_then(|s| s.get("scale")).map(|scale| ScalePaths {
                spec_replicas: text(scale, "specReplicasPath").unwrap_or_default(),
                status_replicas: text(scale, "statusReplicasPath").unwrap_or_default(),
                label_selector: text(scale, "labelSelectorPath"),
            });
            let printer_columns = version
                .get("additionalPrinterColumns")
                .and_then(Value::as_array)
                .map(|columns| columns.iter().filter_map(printer_column).collect())
                .unwrap_or_default();
            let selectable_fields = version
                .get("selectableFields")
                .and_then(Value::as_array)
                .map(|f| {
                    f.iter()
                        .filter_map(|f| text(f, "jsonPath"))
                        .map(|p| p.trim_start_matches('.').to_owned())
                        .collect()
                })
                .unwrap_or_default();
            infos.push(Self {
                group: group.clone(),
                version: name,
                kind: kind.clone(),
                plural: plural.clone(),
                singular: singular.clone(),
                namespaced,
                short_names: list(names, "shortNames"),
                categories: list(names, "categories"),
                status_subresource: subresources.and_then(|s| s.get("status")).is_some(),
                scale,
                printer_columns,
                selectable_fields,
                schema: version.pointer("/schema/openAPIV3Schema").cloned(),
                schema_since: 0,
                rules: Default::default(),
                version_schemas: version_schemas.clone(),
                builtin: false,
                has_generation: true,
                allow_unconditional_update: false,
                returns_deleted_object: false,
                verbs: Verb::ALL.to_vec(),
                lifecycle: Lifecycle::CustomResource,
                storage_version,
                deprecation_warning,
            });
        }
        if infos.is_empty() {
            return Err(DefinitionError::NoServedVersion);
        }
        Ok(infos)
    }
}

fn printer_column(column: &Value) -> Option<PrinterColumn> {
    let text = |key: &str| column.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    Some(PrinterColumn {
        name: column.get("name")?.as_str()?.to_owned(),
        type_: text("type"),
        format: text("format"),
        description: text("description"),
        priority: column.get("priority").and_then(Value::as_i64).unwrap_or(0),
        json_path: column.get("jsonPath")?.as_str()?.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn crd_should_describe_each_served_version() {
        let crd = json!({
            "spec": {
                "group": "cloudnative.tw",
                "scope": "Namespaced",
                "names": { "kind": "VirtualMachine", "plural": "virtualmachines", "shortNames": ["vm"] },
                "versions": [
                    { "name": "v1alpha1", "served": true, "storage": true,
                      "subresources": { "status": {} },
                      "additionalPrinterColumns": [{ "name": "Status", "type": "string", "jsonPath": ".status.phase" }] },
                    { "name": "v1alpha0", "served": false, "storage": false }
                ]
            }
        });
        let infos = ResourceInfo::from_crd(&crd).unwrap();
        assert_eq!(infos.len(), 1);
        assert_eq!(infos[0].api_version(), "cloudnative.tw/v1alpha1");
        assert!(infos[0].status_subresource);
        assert_eq!(infos[0].short_names, ["vm"]);
        assert_eq!(infos[0].printer_columns[0].json_path, ".status.phase");
    }

    #[test]
    fn crd_should_be_refused_without_scope() {
        let crd = json!({ "spec": { "group": "g", "names": { "kind": "K", "plural": "ks" }, "versions": [] } });
        assert!(
            ResourceInfo::from_crd(&crd)
                .unwrap_err()
                .to_string()
                .contains("spec.scope")
        );
    }
}
