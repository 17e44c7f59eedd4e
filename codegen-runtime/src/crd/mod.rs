//! CustomResourceDefinitions from a type's schemars schema and its controller-gen markers: what
//! the `CustomResourceExt` impls codegen generates call, and how a group's versions of one kind
//! become one multi-version CRD.
//!
//! The schema is made as kube-derive makes it (OpenAPI v3, subschemas inlined, kube's
//! structural rewrites), then shaped like controller-gen's: `metadata` is a bare object,
//! `apiVersion` and `kind` are described, marker lines (`+…`) never reach descriptions, and the
//! markers' validations, defaults and list types are merged in at the paths the generator
//! computed.

mod schema;
mod versions;

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiext;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use schemars::JsonSchema;
use serde_json::json;

use crate::scope::ScopeKind;
use schema::{Patch, apply, object_schema};
pub use versions::merge_versions;

/// Why a CRD could not be built: the generated patches do not fit the schema schemars made
/// (e.g. a `#[schemars(rename)]` the generator could not see), or a marker's JSON is invalid.
#[derive(Debug, thiserror::Error)]
pub enum CrdError {
    /// A marker's path is not in the schema.
    #[error("the schema of {kind} has no {pointer}, where {what} applies; check serde/schemars renames on that field")]
    MissingPath {
        /// The kind whose schema it is.
        kind: String,
        /// The JSON pointer into the schema.
        pointer: String,
        /// What was to be applied, e.g. the marker.
        what: String,
    },
    /// A marker's value is not the JSON it should be.
    #[error("{what} of {kind}: {fragment:?} is not valid JSON: {error}")]
    InvalidFragment {
        /// The kind whose schema it is.
        kind: String,
        /// What was to be applied.
        what: String,
        /// The text.
        fragment: String,
        /// The parse error.
        error: serde_json::Error,
    },
    /// The finished schema is not a `JSONSchemaProps`.
    #[error("the schema of {kind} is not a valid JSONSchemaProps: {error}")]
    Schema {
        /// The kind.
        kind: String,
        /// The decode error.
        error: serde_json::Error,
    },
    /// The versions of one CRD cannot be merged.
    #[error("cannot merge the versions of {name}: {why}")]
    Merge {
        /// The CRD's name.
        name: String,
        /// What is wrong.
        why: String,
    },
}

/// Builds the CRD of a kind: start with [`CrdBuilder::for_kind`].
pub struct CrdBuilder {
    kind: String,
    group: String,
    version: String,
    plural: String,
    namespaced: bool,
    schema: serde_json::Value,
    singular: Option<String>,
    short_names: Vec<String>,
    categories: Vec<String>,
    columns: Vec<apiext::CustomResourceColumnDefinition>,
    selectable: Vec<String>,
    status: bool,
    scale: Option<apiext::CustomResourceSubresourceScale>,
    annotations: BTreeMap<String, String>,
    labels: BTreeMap<String, String>,
    storage: bool,
    patches: Vec<Patch>,
}

impl CrdBuilder {
    /// The CRD of `K`, a `kube::Resource` whose schema schemars derives: a served, stored
    /// version with no subresources, columns or names beyond the kind's.
    pub fn for_kind<K>() -> Self
    where
        K: Resource<DynamicType = ()> + CrdSchema,
        K::Scope: ScopeKind,
    {
        Self {
            kind: K::kind(&()).into_owned(),
            group: K::group(&()).into_owned(),
            version: K::version(&()).into_owned(),
            plural: K::plural(&()).into_owned(),
            namespaced: K::Scope::NAMESPACED,
            schema: object_schema::<K>(),
            singular: None,
            short_names: Vec::new(),
            categories: Vec::new(),
            columns: Vec::new(),
            selectable: Vec::new(),
            status: false,
            scale: None,
            annotations: BTreeMap::new(),
            labels: BTreeMap::new(),
            storage: true,
            patches: Vec::new(),
        }
    }

    /// The singular name (default: the lowercase kind).
    pub fn singular(mut self, singular: &str) -> Self {
        self.singular = Some(singular.to_owned());
        self
    }

    /// Short names for kubectl, e.g. `vm`.
    pub fn short_names(mut self, names: &[&str]) -> Self {
        self.short_names.extend(names.iter().map(|n| (*n).to_owned()));
        self
    }

    /// Categories for kubectl, e.g. `all`.
    pub fn categories(mut self, categories: &[&str]) -> Self {
        self.categories.extend(categories.iter().map(|c| (*c).to_owned()));
        self
    }

    /// A printer column for `kubectl get`.
    pub fn printer_column(
        mut self,
        name: &str,
        type_: &str,
        json_path: &str,
        description: Option<&str>,
        format: Option<&str>,
        priority: Option<i32>,
    ) -> Self {
        self.columns.push(apiext::CustomResourceColumnDefinition {
            name: name.to_owned(),
            type_: type_.to_owned(),
            json_path: json_path.to_owned(),
            description: description.map(str::to_owned),
            format: format.map(str::to_owned),
            priority,
        });
        self
    }

    /// A field selectable in field selectors, e.g. `.spec.deploymentName`.
    pub fn selectable_field(mut self, json_path: &str) -> Self {
        self.selectable.push(json_path.to_owned());
        self
    }

    /// Serves `/status` as a subresource.
    pub fn status_subresource(mut self) -> Self {
        self.status = true;
        self
    }

    /// Serves `/scale` from these JSON paths.
    pub fn scale_subresource(mut self, spec_replicas: &str, status_replicas: &str, selector: Option<&str>) -> Self {
        self.scale = Some(apiext::CustomResourceSubresourceScale {
            spec_replicas_path: spec_replicas.to_owned(),
            status_replicas_path: status_replicas.to_owned(),
            label_selector_path: selector.map(str::to_owned),
        });
        self
    }

    /// An annotation on the CRD object, e.g. `api-approved.kubernetes.io`.
    pub fn annotation(mut self, key: &str, value: &str) -> Self {
        self.annotations.insert(key.to_owned(), value.to_owned());
        self
    }

    /// A label on the CRD object.
    pub fn label(mut self, key: &str, value: &str) -> Self {
        self.labels.insert(key.to_owned(), value.to_owned());
        self
    }

    /// Whether this version is the storage version (default true; with several versions of a
    /// kind, exactly one is).
    pub fn storage(mut self, storage: bool) -> Self {
        self.storage = storage;
        self
    }

    /// Merges the JSON object `fragment` into the schema at `pointer` (`what` names the marker,
    /// for errors).
    pub fn merge(mut self, pointer: &str, fragment: &str, what: &str) -> Self {
        self.patches.push(Patch::Merge {
            pointer: pointer.to_owned(),
            fragment: fragment.to_owned(),
            what: what.to_owned(),
        });
        self
    }

    /// Replaces the schema at `pointer` with the JSON object `fragment`, e.g. `{}` for a
    /// schemaless field.
    pub fn replace(mut self, pointer: &str, fragment: &str, what: &str) -> Self {
        self.patches.push(Patch::Replace {
            pointer: pointer.to_owned(),
            fragment: fragment.to_owned(),
            what: what.to_owned(),
        });
        self
    }

    /// Makes `field` of the object at `pointer` required or optional.
    pub fn required(mut self, pointer: &str, field: &str, required: bool, what: &str) -> Self {
        self.patches.push(Patch::Required {
            pointer: pointer.to_owned(),
            field: field.to_owned(),
            required,
            what: what.to_owned(),
        });
        self
    }

    /// The CRD, or what is wrong with the markers' patches.
    pub fn build(self) -> Result<apiext::CustomResourceDefinition, CrdError> {
        let kind = self.kind;
        let mut schema = self.schema;
        for patch in &self.patches {
            apply(&mut schema, patch, &kind)?;
        }
        let schema: apiext::JSONSchemaProps = serde_json::from_value(schema).map_err(|error| CrdError::Schema {
            kind: kind.clone(),
            error,
        })?;
        let (group, plural) = (self.group, self.plural);
        let some = |v: Vec<String>| (!v.is_empty()).then_some(v);
        let subresources = (self.status || self.scale.is_some()).then(|| apiext::CustomResourceSubresources {
            status: self.status.then(|| apiext::CustomResourceSubresourceStatus(json!({}))),
            scale: self.scale,
        });
        Ok(apiext::CustomResourceDefinition {
            metadata: ObjectMeta {
                name: Some(format!("{plural}.{group}")),
                annotations: (!self.annotations.is_empty()).then_some(self.annotations),
                labels: (!self.labels.is_empty()).then_some(self.labels),
                ..ObjectMeta::default()
            },
            spec: apiext::CustomResourceDefinitionSpec {
                group,
                names: apiext::CustomResourceDefinitionNames {
                    kind: kind.clone(),
                    list_kind: Some(format!("{kind}List")),
                    plural,
                    singular: Some(self.singular.unwrap_or_else(|| kind.to_lowercase())),
                    short_names: some(self.short_names),
                    categories: some(self.categories),
                },
                scope: if self.namespaced { "Namespaced" } else { "Cluster" }.to_owned(),
                versions: vec![apiext::CustomResourceDefinitionVersion {
                    name: self.version,
                    served: true,
                    storage: self.storage,
                    schema: Some(apiext::CustomResourceValidation {
                        open_api_v3_schema: Some(schema),
                    }),
                    additional_printer_columns: (!self.columns.is_empty()).then_some(self.columns),
                    selectable_fields: (!self.selectable.is_empty()).then(|| {
                        self.selectable
                            .into_iter()
                            .map(|json_path| apiext::SelectableField { json_path })
                            .collect()
                    }),
                    subresources,
                    ..apiext::CustomResourceDefinitionVersion::default()
                }],
                ..apiext::CustomResourceDefinitionSpec::default()
            },
            status: None,
        })
    }
}

/// What the CRD of a type needs of it: a schema. Implemented for every `schemars::JsonSchema`
/// type; the message says what to do when it is missing.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has +kubebuilder:object:root=true but no schemars::JsonSchema",
    label = "its CRD needs a schema",
    note = "derive schemars::JsonSchema on it and on the types of its fields"
)]
pub trait CrdSchema: JsonSchema {}

impl<T: JsonSchema> CrdSchema for T {}
