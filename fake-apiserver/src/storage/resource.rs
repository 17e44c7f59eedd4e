//! One entry of the resource table: what the server knows of a served resource — names, scope,
//! verbs, subresources, columns, schema and behaviours. Routing, dispatch and discovery all read it.

use std::any::TypeId;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::storage::verb::Verb;

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

/// The controller that acts on a resource's objects beyond storing them, as kube-apiserver's and
/// kube-controller-manager's controllers do (the `lifecycle` module runs them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lifecycle {
    /// Stored as written (the garbage collector still follows owner references).
    Plain,
    /// Namespaces: `Active` on create; a delete marks them `Terminating`, deletes their contents,
    /// and removes them once empty.
    Namespace,
    /// CustomResourceDefinitions: validated, served and `Established` on create; a delete
    /// removes their objects before the definition goes.
    CustomResourceDefinition,
    /// Objects of a CRD: refused while their definition terminates, and the definition's
    /// cleanup waits for the last of them.
    CustomResource,
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
    /// The resourceVersion at which `schema` took effect: objects written after it were decoded
    /// with it already, so reads need not decode them again.
    pub schema_since: u64,
    /// The `x-kubernetes-validations` of `schema`, compiled on first use.
    pub(crate) rules: crate::semantics::cel::CompiledRules,
    /// The schema of every version of the CRD that defines this resource, served or not, by
    /// version name: objects are decoded with the schema of the version they are stored in,
    /// and converted to another version with that version's.
    pub(crate) version_schemas: Arc<BTreeMap<String, Value>>,
    /// Whether this is a built-in type (strategic merge patch is accepted only for those).
    pub builtin: bool,
    /// Whether `metadata.generation` is kept (custom resources, workloads; not ConfigMaps).
    pub has_generation: bool,
    /// Whether PUT may omit `metadata.resourceVersion` (built-ins yes; custom resources no).
    pub allow_unconditional_update: bool,
    /// Whether an immediate DELETE answers with the object rather than a success `Status`.
    pub returns_deleted_object: bool,
    /// The verbs the resource itself serves (its subresources serve get, update and patch).
    pub verbs: Vec<Verb>,
    /// What happens to its objects beyond storage.
    pub lifecycle: Lifecycle,
    /// The `apiVersion` its objects are stored in, when not its own: another version of a CRD,
    /// or another group's (events.k8s.io Events are core Events in storage). The objects of
    /// every resource stored as one kind are one set, seen through each resource's version.
    pub storage_version: Option<String>,
    /// The `Warning` every request to this version gets (a CRD version marked `deprecated`).
    pub deprecation_warning: Option<String>,
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
            schema_since: 0,
            rules: Default::default(),
            version_schemas: Default::default(),
            builtin: true,
            has_generation: false,
            allow_unconditional_update: true,
            returns_deleted_object: false,
            verbs: Verb::ALL.to_vec(),
            lifecycle: Lifecycle::Plain,
            storage_version: None,
            deprecation_warning: None,
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
        info.lifecycle = Lifecycle::CustomResource;
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

    /// Serves every verb but `verb` on the resource itself (namespaces: no deletecollection).
    pub fn without_verb(mut self, verb: Verb) -> Self {
        self.verbs.retain(|v| *v != verb);
        self
    }

    /// Stores the resource's objects as `api_version`'s (e.g. events.k8s.io Events as `v1`).
    pub fn stored_as(mut self, api_version: &str) -> Self {
        self.storage_version = Some(api_version.to_owned());
        self
    }

    /// Refuses updates that carry no resourceVersion, as strategies whose
    /// `AllowUnconditionalUpdate` is false do.
    pub fn conditional_updates_only(mut self) -> Self {
        self.allow_unconditional_update = false;
        self
    }

    /// Gives the resource's objects a lifecycle beyond storage.
    pub fn with_lifecycle(mut self, lifecycle: Lifecycle) -> Self {
        self.lifecycle = lifecycle;
        self
    }

    /// The subresources served, by name, with their verbs.
    pub fn subresources(&self) -> Vec<(&'static str, &'static [Verb])> {
        let status = self.status_subresource.then_some(("status", Verb::SUBRESOURCE));
        let scale = self.scale.is_some().then_some(("scale", Verb::SUBRESOURCE));
        status
            .into_iter()
            .chain(scale)
            .chain(self.extra_subresources())
            .collect()
    }

    /// Whether `verb` is served on the resource (`subresource` `None`) or on a subresource.
    pub fn serves(&self, verb: Verb, subresource: Option<&str>) -> bool {
        match subresource {
            None => self.verbs.contains(&verb),
            Some(name) => self
                .subresources()
                .iter()
                .any(|(served, verbs)| *served == name && verbs.contains(&verb)),
        }
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

    /// The group and version its objects are stored in.
    pub(crate) fn storage_group_version(&self) -> (&str, &str) {
        match &self.storage_version {
            Some(stored) => stored.rsplit_once('/').unwrap_or(("", stored)),
            None => (&self.group, &self.version),
        }
    }

    /// Discovery's `storageVersionHash`: kube-apiserver's hash of the stored group, version and
    /// kind (the first 8 bytes of their SHA-256, base64), by which clients notice a migration.
    pub fn storage_version_hash(&self) -> String {
        use base64::Engine as _;
        let (group, version) = self.storage_group_version();
        let digest = ring::digest::digest(
            &ring::digest::SHA256,
            format!("{group}/{version}/{}", self.kind).as_bytes(),
        );
        base64::engine::general_purpose::STANDARD.encode(&digest.as_ref()[..8])
    }

    /// The key that all versions of this resource share in storage.
    pub(crate) fn storage_key(&self) -> StorageKey {
        StorageKey {
            group: self.storage_group_version().0.to_owned(),
            plural: self.plural.clone(),
        }
    }
}

/// Identifies the stored objects of a resource across all its served versions.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct StorageKey {
    pub(crate) group: String,
    pub(crate) plural: String,
}
