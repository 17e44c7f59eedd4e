//! The model of one API version module: its group and version, and each type with what the tags
//! ask for. Built from syn nodes (kept for spans); every problem is reported, not just the first.
//! A type is modelled by [`type_def`] alone, so the derive, which sees one type, builds the same
//! model the package does.

mod checks;
mod crd;
mod fields;
mod type_meta;
mod types;

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::Ident;
use syn::spanned::Spanned;

use crate::diag::{Diagnostic, Diagnostics, did_you_mean};
use crate::genclient::GenClient;
use crate::kube_version::KubeVersion;
use crate::markers::{self, Marker, Target};
use crate::names;
use crate::symbol::{DEEPCOPY_GEN, GROUP_GO_NAME, GROUP_NAME, OPENAPI_GEN, UNSUPPORTED_GENERATORS};
use crate::tags::{Tag, tags};
use checks::check_collisions;
pub(crate) use checks::derives;
#[cfg(test)]
pub(crate) use crd::CRD_MARKERS;
pub use crd::{Column, CrdDef, RootType, roots_by_crd};
pub use fields::{FieldDef, JsonName};
pub use types::{TypeScope, type_def};

/// Generator settings shared by every package.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// client-gen's `--plural-exceptions`: type name → plural, e.g. `Endpoints` → `Endpoints`.
    pub plural_exceptions: BTreeMap<String, String>,
    /// Set by the derive, which cannot see the traits derived beside it
    /// (`#[derive(Codegen, Clone)]`): checks that need them are left to the compiler.
    pub derive: bool,
    /// The oldest Kubernetes the generated CRDs must install on: markers whose CRD feature
    /// needs a newer one are refused (`--min-kube-version`, the derive's `min_kube_version`).
    pub min_kube_version: KubeVersion,
}

/// One API group version, e.g. `cloudnative.tw/v1alpha1`.
#[derive(Clone, Debug)]
pub struct Package {
    /// API group, from `+groupName` or the parent module's name.
    pub group: String,
    /// Go-style group name (`+groupGoName`, or derived), e.g. `Cloudnative`.
    pub group_go_name: String,
    /// API version, the module's name, e.g. `v1alpha1`.
    pub version: String,
    /// Markers in the module's `//!` doc (`+kubebuilder:rbac:…`, defaults for the package).
    pub markers: Vec<Marker>,
    /// Types in declaration order.
    pub types: Vec<TypeDef>,
    /// The public enums without generics: values an apply configuration holds whole.
    pub enums: Vec<Ident>,
}

/// A type of the package and what its tags ask for.
#[derive(Clone, Debug)]
pub struct TypeDef {
    /// The type's name, which is also its kind.
    pub ident: Ident,
    /// The doc comment without tags.
    pub description: String,
    /// `+genclient` options, when the type gets a client.
    pub genclient: Option<GenClient>,
    /// Whether an `impl Clone` is generated (selected by deepcopy tags and not derived).
    pub deepcopy: bool,
    /// Go-style plural, e.g. `VirtualMachines`.
    pub plural: String,
    /// REST resource name, e.g. `virtualmachines` (`+resourceName` overrides).
    pub resource: String,
    /// controller-gen markers on the type (`+kubebuilder:resource:…`, printer columns, …).
    pub markers: Vec<Marker>,
    /// The named fields in order, with their JSON names and markers.
    pub fields: Vec<FieldDef>,
    /// Its CustomResourceDefinition, for a `+kubebuilder:object:root=true` type.
    pub crd: Option<CrdDef>,
    /// The struct, for its fields and spans.
    pub item: syn::ItemStruct,
}

impl TypeDef {
    /// The type's span, for diagnostics about it as a whole.
    pub fn span(&self) -> Span {
        self.item.span()
    }
}

/// The tags a version module's `//!` doc may carry; [`package`] handles each.
const PACKAGE_TAGS: [&str; 4] = [GROUP_NAME, GROUP_GO_NAME, DEEPCOPY_GEN, OPENAPI_GEN];

/// Builds the model of a version module: `file` holds its items and inner doc (`//!`) tags,
/// `default_group` is the parent module's name, `version` the module's own.
pub fn package(
    file: &syn::File,
    default_group: &str,
    version: &str,
    options: &Options,
) -> Result<Package, Diagnostics> {
    let mut diagnostics = Diagnostics::default();
    let package_tags = tags(&file.attrs);
    let mut group = default_group.to_owned();
    let mut group_go_name = None;
    let mut deepcopy_package = false;
    let mut package_markers = Vec::new();
    for tag in &package_tags {
        match tag.key.as_str() {
            GROUP_NAME => group = tag.value.trim().to_owned(),
            GROUP_GO_NAME => group_go_name = Some(tag.value.trim().to_owned()),
            DEEPCOPY_GEN => match tag.value.split(',').next().unwrap_or_default() {
                "package" => deepcopy_package = true,
                other => diagnostics.push(
                    Diagnostic::new(tag.span, format!("+{DEEPCOPY_GEN}={other} is not a package setting")).help(
                        "in a version module's //! doc use +k8s:deepcopy-gen=package; true and false go on types",
                    ),
                ),
            },
            OPENAPI_GEN => {}
            key if markers::is_marker_key(key) => {
                package_markers.extend(markers::parse(tag, Target::Package, &mut diagnostics));
            }
            _ => unknown_tag(tag, &PACKAGE_TAGS, "in a version module's //! doc", &mut diagnostics),
        }
    }
    if !names::is_version(version) {
        diagnostics.push(
            Diagnostic::new(Span::call_site(), format!("{version:?} is not an API version"))
                .help("name version modules like v1, v1alpha1 or v2beta3"),
        );
    }
    let span_of = |key: &str| {
        package_tags
            .iter()
            .find(|t| t.key == key)
            .map_or(Span::call_site(), |t| t.span)
    };
    let group_go_name = checked_group(
        (&group, span_of(GROUP_NAME)),
        group_go_name.as_deref().map(|name| (name, span_of(GROUP_GO_NAME))),
        &mut diagnostics,
    );
    let scope = TypeScope {
        group: Some(&group),
        deepcopy_package,
        siblings: &file.items,
        options,
    };
    let types: Vec<TypeDef> = file
        .items
        .iter()
        .filter_map(|item| type_def(item, &scope, &mut diagnostics))
        .collect();
    check_collisions(file, &group_go_name, version, &types, &mut diagnostics);
    if diagnostics.is_empty() {
        Ok(Package {
            group,
            group_go_name,
            version: version.to_owned(),
            markers: package_markers,
            types,
            enums: whole_values(file),
        })
    } else {
        Err(diagnostics)
    }
}

/// The enums of a module that apply configurations hold whole.
fn whole_values(file: &syn::File) -> Vec<Ident> {
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Enum(item) if applied_whole(item) => Some(item.ident.clone()),
            _ => None,
        })
        .collect()
}

/// Whether an enum is a value apply configurations hold whole: public and without generics.
pub(crate) fn applied_whole(item: &syn::ItemEnum) -> bool {
    matches!(item.vis, syn::Visibility::Public(_)) && item.generics.params.is_empty()
}

/// Checks an API group and its Go name (`+groupGoName`, when given), each with the span of the
/// tag that sets it, and returns the Go name: the package and the derive (which reads the group
/// from the type) name groups by the same rules.
pub fn checked_group(group: (&str, Span), go_name: Option<(&str, Span)>, diagnostics: &mut Diagnostics) -> String {
    let (group, group_span) = group;
    let valid = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-';
    if group.is_empty() || !group.chars().all(valid) {
        diagnostics.push(
            Diagnostic::new(group_span, format!("invalid API group {group:?}"))
                .help("set +groupName=<lowercase DNS name>, e.g. +groupName=cloudnative.tw"),
        );
    }
    let group_go_name = names::resolved_group_go_name(group, go_name.map(|(name, _)| name));
    if syn::parse_str::<Ident>(&group_go_name).is_err() {
        let span = go_name.map_or(Span::call_site(), |(_, span)| span);
        diagnostics.push(
            Diagnostic::new(span, format!("group Go name {group_go_name:?} is not an identifier"))
                .help("set +groupGoName=<Name> to a letter-led alphanumeric name, e.g. +groupGoName=ExampleGroup"),
        );
    }
    group_go_name
}

/// Reports a tag no rule of this place reads, with the closest of `known` as a suggestion.
fn unknown_tag(tag: &Tag, known: &[&str], place: &str, diagnostics: &mut Diagnostics) {
    let mut diagnostic = Diagnostic::new(tag.span, format!("unknown tag +{} {place}", tag.key));
    if UNSUPPORTED_GENERATORS.contains(&tag.key.as_str()) {
        diagnostic = diagnostic.help(format!(
            "+{} drives a code-generator tool this project does not have; remove it",
            tag.key
        ));
    } else if let Some(close) = did_you_mean(&tag.key, known.iter().copied()) {
        diagnostic = diagnostic.help(format!("did you mean +{close}?"));
    } else {
        diagnostic = diagnostic.help(format!(
            "known tags here: {}",
            known.iter().map(|k| format!("+{k}")).collect::<Vec<_>>().join(", ")
        ));
    }
    diagnostics.push(diagnostic);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_package_tag_should_be_handled() {
        for key in PACKAGE_TAGS {
            let file: syn::File = syn::parse_str(&format!("//! +{key}=\n")).unwrap();
            let problems = package(&file, "example", "v1", &Options::default())
                .err()
                .unwrap_or_default();
            assert!(
                !problems.iter().any(|d| d.message.starts_with("unknown tag")),
                "+{key} is offered but not handled"
            );
        }
    }
}
