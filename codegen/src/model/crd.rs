//! What a type's controller-gen markers ask of its CustomResourceDefinition (names, columns,
//! subresources, storage), checked against its `+genclient` tags, as controller-gen's `crd`
//! generator reads them: only a `+kubebuilder:object:root=true` type gets a CRD. Across
//! packages, the root types of one kind share one CRD.

use std::collections::BTreeMap;

use proc_macro2::Span;

use super::{Package, TypeDef};
use crate::diag::{Diagnostic, Diagnostics};
use crate::genclient::GenClient;
use crate::markers::{Marker, Value};
use crate::names;
use crate::symbol::{self, arg};

/// The CRD of a root type, from its markers.
#[derive(Clone, Debug, Default)]
pub struct CrdDef {
    /// `+kubebuilder:resource:singular=`.
    pub singular: Option<String>,
    /// `+kubebuilder:resource:shortName=`.
    pub short_names: Vec<String>,
    /// `+kubebuilder:resource:categories=`.
    pub categories: Vec<String>,
    /// `+kubebuilder:printcolumn`, in order.
    pub columns: Vec<Column>,
    /// `+kubebuilder:selectablefield:JSONPath=`.
    pub selectable_fields: Vec<String>,
    /// `+kubebuilder:subresource:status`.
    pub status: bool,
    /// `+kubebuilder:subresource:scale`: spec, status and selector paths.
    pub scale: Option<(String, String, Option<String>)>,
    /// `+kubebuilder:metadata:annotations=key=value`.
    pub annotations: Vec<(String, String)>,
    /// `+kubebuilder:metadata:labels=key=value`.
    pub labels: Vec<(String, String)>,
    /// `+kubebuilder:storageversion`.
    pub storage_version: bool,
    /// `+kubebuilder:skipversion`: this version is left out of the CRD.
    pub skip_version: bool,
}

/// A printer column.
#[derive(Clone, Debug)]
pub struct Column {
    /// Its header.
    pub name: String,
    /// string, integer, number, boolean or date.
    pub type_: String,
    /// The JSONPath of the value.
    pub json_path: String,
    /// What it shows.
    pub description: Option<String>,
    /// The OpenAPI format, e.g. `date-time`.
    pub format: Option<String>,
    /// 0 shows it in `kubectl get`, more only with `-o wide`.
    pub priority: Option<i64>,
}

/// Markers that only shape a CRD, and so mean nothing without `+kubebuilder:object:root=true`.
pub(crate) const CRD_MARKERS: [&str; 8] = [
    symbol::RESOURCE,
    symbol::SUBRESOURCE_STATUS,
    symbol::SUBRESOURCE_SCALE,
    symbol::PRINTCOLUMN,
    symbol::SELECTABLEFIELD,
    symbol::METADATA,
    symbol::STORAGEVERSION,
    symbol::SKIPVERSION,
];

/// The CRD of a type with these markers, or `None` when it is not a root object; problems go
/// to `diagnostics`. `resource` is the REST resource name from `+resourceName` or the plural.
pub(super) fn crd_def(
    kind: &str,
    span: Span,
    markers: &[Marker],
    genclient: Option<&GenClient>,
    resource: &str,
    diagnostics: &mut Diagnostics,
) -> Option<CrdDef> {
    let root = markers
        .iter()
        .find(|m| m.name == symbol::OBJECT_ROOT)
        .is_some_and(|m| matches!(m.value, Some(Value::Bool(true))));
    if !root {
        for marker in markers.iter().filter(|m| CRD_MARKERS.contains(&m.name)) {
            diagnostics.push(
                Diagnostic::new(marker.span, format!("+{} on {kind}, which has no CRD", marker.name))
                    .help("add +kubebuilder:object:root=true to the type (and +genclient), or remove the marker"),
            );
        }
        return None;
    }
    let Some(genclient) = genclient else {
        diagnostics.push(
            Diagnostic::new(
                span,
                format!("{kind} has +kubebuilder:object:root=true but no +genclient"),
            )
            .help("a CRD's kind is a +genclient type: add +genclient, or drop the marker"),
        );
        return None;
    };
    let mut crd = CrdDef::default();
    for marker in markers {
        let text = |name: &str| match marker.args.get(name) {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        };
        let list = |name: &str| match marker.args.get(name) {
            Some(Value::List(items)) => items.clone(),
            _ => Vec::new(),
        };
        match marker.name {
            symbol::RESOURCE => {
                if let Some(path) = text(arg::PATH).filter(|p| p != resource) {
                    diagnostics.push(
                        Diagnostic::new(
                            marker.span,
                            format!("path={path} differs from {kind}'s resource {resource}"),
                        )
                        .help(format!(
                            "set +resourceName={path} so clients use the same path, or drop path="
                        )),
                    );
                }
                if let Some(scope) = text(arg::SCOPE) {
                    let namespaced = scope == "Namespaced";
                    if namespaced != genclient.namespaced {
                        let tag = if namespaced {
                            "remove +genclient:nonNamespaced"
                        } else {
                            "add +genclient:nonNamespaced"
                        };
                        diagnostics.push(
                            Diagnostic::new(
                                marker.span,
                                format!("scope={scope} disagrees with {kind}'s +genclient tags"),
                            )
                            .help(format!("{tag}, or drop scope= (the tags decide it)")),
                        );
                    }
                }
                crd.singular = text(arg::SINGULAR).or(crd.singular);
                crd.short_names.extend(list(arg::SHORT_NAME));
                crd.categories.extend(list(arg::CATEGORIES));
            }
            symbol::SUBRESOURCE_STATUS => crd.status = true,
            symbol::SUBRESOURCE_SCALE => {
                crd.scale = Some((
                    text(arg::SPEC_PATH).unwrap_or_default(),
                    text(arg::STATUS_PATH).unwrap_or_default(),
                    text(arg::SELECTOR_PATH),
                ));
            }
            symbol::PRINTCOLUMN => crd.columns.push(Column {
                name: text(arg::NAME).unwrap_or_default(),
                type_: text(arg::TYPE).unwrap_or_default(),
                json_path: text(arg::JSON_PATH).unwrap_or_default(),
                description: text(arg::DESCRIPTION),
                format: text(arg::FORMAT),
                priority: match marker.args.get(arg::PRIORITY) {
                    Some(Value::Int(p)) => Some(*p),
                    _ => None,
                },
            }),
            symbol::SELECTABLEFIELD => crd.selectable_fields.extend(text(arg::JSON_PATH)),
            symbol::METADATA => {
                for (name, out) in [(arg::ANNOTATIONS, &mut crd.annotations), (arg::LABELS, &mut crd.labels)] {
                    for entry in list(name) {
                        match entry.split_once('=') {
                            Some((key, value)) => out.push((key.trim().to_owned(), value.trim().to_owned())),
                            None => diagnostics.push(
                                Diagnostic::new(marker.span, format!("{name} entry {entry:?} has no value"))
                                    .help(format!("write {name}=\"key=value\"")),
                            ),
                        }
                    }
                }
            }
            symbol::STORAGEVERSION => crd.storage_version = true,
            symbol::SKIPVERSION => crd.skip_version = true,
            _ => {}
        }
    }
    if genclient.status && !crd.status {
        diagnostics.push(
            Diagnostic::new(
                span,
                format!("{kind}'s client has UpdateStatus but its CRD serves no /status"),
            )
            .help("add +kubebuilder:subresource:status, or +genclient:noStatus to write status with Update"),
        );
    }
    if crd.status && !genclient.status {
        diagnostics.push(
            Diagnostic::new(
                span,
                format!("{kind}'s CRD serves /status but its client cannot write it"),
            )
            .help("remove +genclient:noStatus (and give it a status field), or drop +kubebuilder:subresource:status"),
        );
    }
    Some(crd)
}

/// A root type of some package, and the path it is named by from the generated tree's root.
pub struct RootType<'a> {
    /// Its package.
    pub package: &'a Package,
    /// The type.
    pub def: &'a TypeDef,
    /// Its path, e.g. `crate::apis::cloudnative::v1alpha1::VirtualMachine`.
    pub path: syn::Path,
    /// The index of the source it comes from, for diagnostics.
    pub source: usize,
}

/// The root types by the CRD they belong to (`<resource>.<group>`), skipped versions left out:
/// one CRD serves every version of a kind.
pub fn roots_by_crd<'r, 'a>(roots: &'r [RootType<'a>]) -> BTreeMap<String, Vec<&'r RootType<'a>>> {
    let mut kinds: BTreeMap<String, Vec<&RootType<'_>>> = BTreeMap::new();
    for root in roots
        .iter()
        .filter(|r| r.def.crd.as_ref().is_some_and(|c| !c.skip_version))
    {
        kinds
            .entry(names::crd(&root.def.resource, &root.package.group))
            .or_default()
            .push(root);
    }
    kinds
}

#[cfg(test)]
mod tests {
    use crate::model::{Options, package};

    /// The fields every `+genclient` type carries.
    const TYPE_META: &str = "pub api_version: ApiVersion<Self>, pub kind: Kind<Self>,";

    fn problems(type_lines: &str) -> Vec<String> {
        let source = format!(
            "//! +groupName=example.dev\n{type_lines}\n#[serde(rename_all = \"camelCase\")]\npub struct Thing {{ {TYPE_META} pub metadata: ObjectMeta, pub spec: Spec, pub status: Option<Status> }}"
        );
        let file: syn::File = syn::parse_str(&source).unwrap();
        match package(&file, "example", "v1", &Options::default()) {
            Ok(_) => Vec::new(),
            Err(diagnostics) => diagnostics.iter().map(|d| d.text()).collect(),
        }
    }

    #[test]
    fn a_root_type_should_read_its_crd_markers() {
        let source = r#"//! +groupName=example.dev
/// +genclient
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:shortName=th;thg,categories=all,singular=thingy
/// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=".status.phase",priority=1
/// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=unapproved, testing"
#[serde(rename_all = "camelCase")]
pub struct Thing { pub api_version: ApiVersion<Self>, pub kind: Kind<Self>, pub metadata: ObjectMeta, pub status: Option<Status> }"#;
        let file: syn::File = syn::parse_str(source).unwrap();
        let package = package(&file, "example", "v1", &Options::default()).unwrap();
        let crd = package.types[0].crd.as_ref().unwrap();
        assert_eq!(crd.short_names, ["th", "thg"]);
        assert_eq!(crd.categories, ["all"]);
        assert_eq!(crd.singular.as_deref(), Some("thingy"));
        assert!(crd.status);
        assert_eq!(crd.columns[0].json_path, ".status.phase");
        assert_eq!(crd.columns[0].priority, Some(1));
        assert_eq!(
            crd.annotations,
            [(
                "api-approved.kubernetes.io".to_owned(),
                "unapproved, testing".to_owned()
            )]
        );
    }

    #[test]
    fn crd_markers_should_agree_with_the_genclient_tags() {
        let no_root = problems("/// +genclient\n/// +genclient:noStatus\n/// +kubebuilder:resource:shortName=th");
        assert!(no_root[0].contains("which has no CRD"), "{no_root:?}");
        let no_client = problems("/// +kubebuilder:object:root=true");
        assert!(no_client[0].contains("but no +genclient"), "{no_client:?}");
        let scope = problems(
            "/// +genclient\n/// +genclient:noStatus\n/// +kubebuilder:object:root=true\n/// +kubebuilder:resource:scope=Cluster",
        );
        assert!(scope[0].contains("scope=Cluster disagrees"), "{scope:?}");
        let path = problems(
            "/// +genclient\n/// +genclient:noStatus\n/// +kubebuilder:object:root=true\n/// +kubebuilder:resource:path=stuff",
        );
        assert!(path[0].contains("path=stuff differs"), "{path:?}");
        let status = problems("/// +genclient\n/// +kubebuilder:object:root=true");
        assert!(status[0].contains("serves no /status"), "{status:?}");
        let no_status = problems(
            "/// +genclient\n/// +genclient:noStatus\n/// +kubebuilder:object:root=true\n/// +kubebuilder:subresource:status",
        );
        assert!(no_status[0].contains("cannot write it"), "{no_status:?}");
    }
}
