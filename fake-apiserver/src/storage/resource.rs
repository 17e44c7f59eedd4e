//! What the fake API server knows of one served resource: names, scope, subresources, columns, schema.

use std::any::TypeId;

use serde_json::Value;

/// Where a scale subresource reads and writes replicas, as in a CRD's `subresources.scale`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalePaths {
    /// JSON path of the desired replicas, e.g. `.spec.replicas`.
    pub spec_replicas: String,
    /// JSON path of the observed replicas, e.g. `.status.replicas`.
    pub status_replicas: String,
    /// JSON path of the label selector string or object, e.g. `.status.selector`.
    pub label_selector: Option<String>,
}

/// One column of `kubectl get` output, as in a CRD's `additionalPrinterColumns`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrinterColumn {
    /// Column header.
    pub name: String,
    /// OpenAPI type: `string`, `integer`, `number`, `boolean` or `date`.
    pub type_: String,
    /// Optional OpenAPI format.
    pub format: String,
    /// Column description.
    pub description: String,
    /// 0 shows in plain `get`, higher only with `-o wide`.
    pub priority: i64,
    /// Simple JSON path evaluated against each object, e.g. `.status.phase`.
    pub json_path: String,
}

/// A resource the fake API server serves: one group, version and plural.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceInfo {
    /// API group, empty for the core group.
    pub group: String,
    /// API version, e.g. `v1alpha1`.
    pub version: String,
    /// Kind, e.g. `VirtualMachine`.
    pub kind: String,
    /// Plural resource name used in URLs, e.g. `virtualmachines`.
    pub plural: String,
    /// Singular name, e.g. `virtualmachine`.
    pub singular: String,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
    /// Short names for kubectl, e.g. `vm`.
    pub short_names: Vec<String>,
    /// Categories for kubectl, e.g. `all`.
    pub categories: Vec<String>,
    /// Whether `/status` is a subresource (the main resource then ignores status changes).
    pub status_subresource: bool,
    /// The `/scale` subresource, when served.
    pub scale: Option<ScalePaths>,
    /// Extra `kubectl get` columns beyond Name and Age.
    pub printer_columns: Vec<PrinterColumn>,
    /// Field paths usable in field selectors besides `metadata.name` and `metadata.namespace`.
    pub selectable_fields: Vec<String>,
    /// The structural OpenAPI v3 schema of custom resources, used to prune, default and validate.
    pub schema: Option<Value>,
    /// Whether this is a built-in type (strategic merge patch is accepted only for those).
    pub builtin: bool,
    /// Whether `metadata.generation` is kept (custom resources, workloads; not ConfigMaps).
    pub has_generation: bool,
    /// Whether PUT may omit `metadata.resourceVersion` (built-ins yes; custom resources no).
    pub allow_unconditional_update: bool,
    /// Whether an immediate DELETE answers with the object rather than a success `Status`.
    pub returns_deleted_object: bool,
}

impl ResourceInfo {
    /// A built-in, namespaced resource without subresources; refine it with the other builders.
    pub fn builtin(group: &str, version: &str, kind: &str, plural: &str) -> Self {
        Self {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            plural: plural.to_owned(),
            singular: kind.to_ascii_lowercase(),
            namespaced: true,
            short_names: Vec::new(),
            categories: Vec::new(),
            status_subresource: false,
            scale: None,
            printer_columns: Vec::new(),
            selectable_fields: Vec::new(),
            schema: None,
            builtin: true,
            has_generation: false,
            allow_unconditional_update: true,
            returns_deleted_object: false,
        }
    }

    /// The description of a Rust type implementing `kube::Resource` (a k8s-openapi type or a
    /// custom resource), treated as a custom resource without subresources or schema.
    pub fn of<K>() -> Self
    where
        K: kube::Resource<DynamicType = ()>,
        K::Scope: 'static,
    {
        let mut info = Self::builtin(&K::group(&()), &K::version(&()), &K::kind(&()), &K::plural(&()));
        // kube's scopes are marker types: a namespaced resource is one whose scope is
        // k8s-openapi's `NamespaceResourceScope` (the runtime's `ScopeKind` says the same, but
        // this crate does not depend on the runtime).
        info.namespaced = TypeId::of::<K::Scope>() == TypeId::of::<k8s_openapi::NamespaceResourceScope>();
        info.builtin = false;
        info.has_generation = true;
        info.allow_unconditional_update = false;
        info
    }

    /// Marks the resource cluster-scoped.
    pub fn cluster_scoped(mut self) -> Self {
        self.namespaced = false;
        self
    }

    /// Serves the `/status` subresource.
    pub fn with_status(mut self) -> Self {
        self.status_subresource = true;
        self
    }

    /// Serves the `/scale` subresource reading `.spec.replicas`, `.status.replicas` and the given
    /// selector path.
    pub fn with_scale(mut self, label_selector: Option<&str>) -> Self {
        self.scale = Some(ScalePaths {
            spec_replicas: ".spec.replicas".to_owned(),
            status_replicas: ".status.replicas".to_owned(),
            label_selector: label_selector.map(str::to_owned),
        });
        self
    }

    /// Keeps `metadata.generation`, as workloads and CRDs do.
    pub fn with_generation(mut self) -> Self {
        self.has_generation = true;
        self
    }

    /// Answers an immediate DELETE with the deleted object, as pods and services do.
    pub fn returning_deleted_object(mut self) -> Self {
        self.returns_deleted_object = true;
        self
    }

    /// Sets kubectl short names.
    pub fn with_short_names(mut self, names: &[&str]) -> Self {
        self.short_names = names.iter().map(|n| (*n).to_owned()).collect();
        self
    }

    /// Sets extra printer columns.
    pub fn with_printer_columns(mut self, columns: Vec<PrinterColumn>) -> Self {
        self.printer_columns = columns;
        self
    }

    /// `apiVersion` of objects of this resource, e.g. `apps/v1` or `v1`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `plural.group` as kube-apiserver writes it in messages, e.g. `deployments.apps`.
    pub fn group_resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// The key that all versions of this resource share in storage.
    pub(crate) fn storage_key(&self) -> StorageKey {
        StorageKey {
            group: self.group.clone(),
            plural: self.plural.clone(),
        }
    }

    /// All `ResourceInfo`s a `CustomResourceDefinition` object (as JSON) describes, one per
    /// served version, or why it cannot be served.
    pub fn from_crd(crd: &Value) -> Result<Vec<Self>, String> {
        let spec = crd.get("spec").ok_or("spec is missing")?;
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let list = |v: &Value, key: &str| -> Vec<String> {
            v.get(key)
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default()
        };
        let group = text(spec, "group").ok_or("spec.group is missing")?;
        let names = spec.get("names").ok_or("spec.names is missing")?;
        let kind = text(names, "kind").ok_or("spec.names.kind is missing")?;
        let plural = text(names, "plural").ok_or("spec.names.plural is missing")?;
        let singular = text(names, "singular").unwrap_or_else(|| kind.to_ascii_lowercase());
        let namespaced = match text(spec, "scope").as_deref() {
            Some("Namespaced") => true,
            Some("Cluster") => false,
            other => return Err(format!("spec.scope must be Namespaced or Cluster, not {other:?}")),
        };
        let versions = spec
            .get("versions")
            .and_then(Value::as_array)
            .ok_or("spec.versions is missing")?;
        let mut infos = Vec::new();
        for version in versions {
            if version.get("served").and_then(Value::as_bool) == Some(false) {
                continue;
            }
            let name = text(version, "name").ok_or("spec.versions[].name is missing")?;
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
                builtin: false,
                has_generation: true,
                allow_unconditional_update: false,
                returns_deleted_object: false,
            });
        }
        if infos.is_empty() {
            return Err("spec.versions has no served version".to_owned());
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

/// Identifies the stored objects of a resource across all its served versions.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct StorageKey {
    pub(crate) group: String,
    pub(crate) plural: String,
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
        assert!(ResourceInfo::from_crd(&crd).unwrap_err().contains("spec.scope"));
    }
}
