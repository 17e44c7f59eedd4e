//! The model of one API version module: its group and version, and each type with what the tags
//! ask for. Built from syn nodes (kept for spans); every problem is reported, not just the first.

mod checks;
mod crd;
mod fields;

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Fields, Ident, Item, ItemStruct};

use crate::diag::{Diagnostic, Diagnostics, did_you_mean};
use crate::genclient::{GenClient, genclient};
use crate::markers::{self, Marker, Target};
use crate::names;
use crate::tags::{Tag, description, tags};
use checks::{check_collisions, check_visibility, derives, implements_clone};
pub use crd::{Column, CrdDef};
pub use fields::{FieldDef, JsonName};

/// Generator settings shared by every package.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// client-gen's `--plural-exceptions`: type name → plural, e.g. `Endpoints` → `Endpoints`.
    pub plural_exceptions: BTreeMap<String, String>,
    /// Set by the derive, which cannot see the traits derived beside it
    /// (`#[derive(Codegen, Clone)]`): checks that need them are left to the compiler.
    pub derive: bool,
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
    pub item: ItemStruct,
}

const PACKAGE_TAGS: [&str; 4] = ["groupName", "groupGoName", "k8s:deepcopy-gen", "k8s:openapi-gen"];

const TYPE_TAGS: [&str; 4] = [
    "resourceName",
    "k8s:deepcopy-gen",
    "k8s:deepcopy-gen:interfaces",
    "k8s:deepcopy-gen:nonpointer-interfaces",
];

/// code-generator tags for generators this project does not have: a clear error, not silence.
const UNSUPPORTED: [&str; 5] = [
    "k8s:defaulter-gen",
    "k8s:conversion-gen",
    "k8s:validation-gen",
    "k8s:prerelease-lifecycle-gen",
    "k8s:openapi-model-package",
];

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
            "groupName" => group = tag.value.trim().to_owned(),
            "groupGoName" => group_go_name = Some(tag.value.trim().to_owned()),
            "k8s:deepcopy-gen" => match tag.value.split(',').next().unwrap_or_default() {
                "package" => deepcopy_package = true,
                other => diagnostics.push(
                    Diagnostic::new(tag.span, format!("+k8s:deepcopy-gen={other} is not a package setting")).help(
                        "in a version module's //! doc use +k8s:deepcopy-gen=package; true and false go on types",
                    ),
                ),
            },
            "k8s:openapi-gen" => {}
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
    if group.is_empty()
        || !group
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-')
    {
        let span = package_tags
            .iter()
            .find(|t| t.key == "groupName")
            .map_or(Span::call_site(), |t| t.span);
        diagnostics.push(
            Diagnostic::new(span, format!("invalid API group {group:?}"))
                .help("set +groupName=<lowercase DNS name>, e.g. +groupName=cloudnative.tw"),
        );
    }
    // client-gen applies namer.IC to +groupGoName: upper-case the first letter.
    let group_go_name = match group_go_name {
        Some(name) => crate::emit::upper_first(&name),
        None => names::group_go_name(&group),
    };
    if syn::parse_str::<Ident>(&group_go_name).is_err() {
        let span = package_tags
            .iter()
            .find(|t| t.key == "groupGoName")
            .map_or(Span::call_site(), |t| t.span);
        diagnostics.push(
            Diagnostic::new(span, format!("group Go name {group_go_name:?} is not an identifier"))
                .help("set +groupGoName=<Name> to a letter-led alphanumeric name, e.g. +groupGoName=ExampleGroup"),
        );
    }
    let mut types = Vec::new();
    for item in &file.items {
        if let Some(def) = type_def(item, &file.items, &group, deepcopy_package, options, &mut diagnostics) {
            types.push(def);
        }
    }
    check_collisions(file, &group_go_name, version, &types, &mut diagnostics);
    if diagnostics.is_empty() {
        Ok(Package {
            group,
            group_go_name,
            version: version.to_owned(),
            markers: package_markers,
            types,
        })
    } else {
        Err(diagnostics)
    }
}

fn unknown_tag(tag: &Tag, known: &[&str], place: &str, diagnostics: &mut Diagnostics) {
    let mut diagnostic = Diagnostic::new(tag.span, format!("unknown tag +{} {place}", tag.key));
    if UNSUPPORTED.contains(&tag.key.as_str()) {
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

fn type_def(
    item: &Item,
    siblings: &[Item],
    group: &str,
    deepcopy_package: bool,
    options: &Options,
    diagnostics: &mut Diagnostics,
) -> Option<TypeDef> {
    let (attrs, is_pub) = match item {
        Item::Struct(s) => (&s.attrs, matches!(s.vis, syn::Visibility::Public(_))),
        Item::Enum(e) => (&e.attrs, matches!(e.vis, syn::Visibility::Public(_))),
        _ => return None,
    };
    let type_tags = tags(attrs);
    let mut deepcopy = deepcopy_package && is_pub;
    let mut deepcopy_opt_out = false;
    let mut resource_name = None;
    let mut type_markers = Vec::new();
    for tag in &type_tags {
        match tag.key.as_str() {
            key if key == "genclient" || key.starts_with("genclient:") => {}
            key if markers::is_marker_key(key) => type_markers.extend(markers::parse(tag, Target::Type, diagnostics)),
            "k8s:deepcopy-gen" => match tag.value.as_str() {
                "true" => deepcopy = true,
                "false" => {
                    deepcopy = false;
                    deepcopy_opt_out = true;
                }
                other => diagnostics.push(
                    Diagnostic::new(
                        tag.span,
                        format!("+k8s:deepcopy-gen={other} on a type must be true or false"),
                    )
                    .help("use +k8s:deepcopy-gen=package in the version module's //! doc to select every type"),
                ),
            },
            // Rust's Clone covers DeepCopyObject and friends; the tags are accepted as written.
            "k8s:deepcopy-gen:interfaces" | "k8s:deepcopy-gen:nonpointer-interfaces" => {}
            "resourceName" => resource_name = Some((tag.value.trim().to_owned(), tag.span)),
            // The derive cannot see the module's //! doc, so types may repeat the group; it
            // must then agree with the module's.
            "groupName" if tag.value.trim() != group => diagnostics.push(
                Diagnostic::new(
                    tag.span,
                    format!(
                        "+groupName={} differs from the module's group {group}",
                        tag.value.trim()
                    ),
                )
                .help("make them the same, or drop the type's +groupName"),
            ),
            "groupName" | "groupGoName" => {}
            _ => {
                // Suggest among everything a type may carry, not just the plain type tags.
                let mut candidates: Vec<&str> = TYPE_TAGS.to_vec();
                candidates.extend(crate::genclient::OPTIONS);
                candidates.extend(markers::type_marker_names());
                unknown_tag(tag, &candidates, "on a type", diagnostics);
            }
        }
    }
    let wants_client = type_tags.iter().any(|t| t.key == "genclient");
    let item = match item {
        Item::Struct(s) => s.clone(),
        Item::Enum(e) => {
            if wants_client {
                diagnostics.push(
                    Diagnostic::new(
                        e.ident.span(),
                        format!("+genclient on enum {}: API objects are structs", e.ident),
                    )
                    .help("put +genclient on a struct with metadata, spec and status fields"),
                );
            } else if deepcopy && !derives(attrs, "Clone") {
                diagnostics.push(
                    Diagnostic::new(
                        e.ident.span(),
                        format!("deepcopy-gen generates Clone for structs, not for enum {}", e.ident),
                    )
                    .help("add #[derive(Clone)] to the enum"),
                );
            }
            return None;
        }
        _ => unreachable!("filtered above"),
    };
    let field = |name: &str| match &item.fields {
        Fields::Named(named) => named.named.iter().any(|f| f.ident.as_ref().is_some_and(|i| i == name)),
        _ => false,
    };
    if wants_client && !field("metadata") {
        diagnostics.push(
            Diagnostic::new(
                item.ident.span(),
                format!("+genclient type {} has no metadata field", item.ident),
            )
            .help("add `pub metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta`"),
        );
    }
    if wants_client && !item.generics.params.is_empty() {
        diagnostics.push(
            Diagnostic::new(
                item.generics.span(),
                format!("+genclient type {} has generic parameters", item.ident),
            )
            .help("an API object is one concrete kind: remove the parameters, or drop +genclient"),
        );
    }
    let genclient = genclient(&type_tags, field("status"), diagnostics);
    let has_clone = derives(attrs, "Clone") || implements_clone(siblings, &item.ident);
    if wants_client && deepcopy_opt_out && !has_clone && !options.derive {
        diagnostics.push(
            Diagnostic::new(
                item.ident.span(),
                format!(
                    "+genclient type {} has +k8s:deepcopy-gen=false and no Clone",
                    item.ident
                ),
            )
            .help("kube's clients need Clone: derive or implement it, or drop +k8s:deepcopy-gen=false"),
        );
    }
    check_visibility(&item, wants_client, deepcopy || wants_client, diagnostics);
    let fields = fields::fields(&item, diagnostics);
    let kind = item.ident.to_string();
    let plural = names::plural(&kind, &options.plural_exceptions);
    let resource = match resource_name {
        Some((name, span)) => {
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            {
                diagnostics.push(
                    Diagnostic::new(span, format!("+resourceName={name} is not a valid resource name"))
                        .help("use the lowercase plural, e.g. +resourceName=virtualmachines"),
                );
            }
            name
        }
        None => names::resource(&kind, &options.plural_exceptions),
    };
    let crd = crd::crd_def(
        &kind,
        item.ident.span(),
        &type_markers,
        genclient.as_ref(),
        &resource,
        diagnostics,
    );
    Some(TypeDef {
        ident: item.ident.clone(),
        description: description(attrs),
        genclient,
        // A client's type must be Clone (Go's runtime.Object needs DeepCopyObject), so
        // +genclient selects it for deepcopy too.
        deepcopy: (deepcopy || (wants_client && !deepcopy_opt_out)) && !has_clone,
        plural,
        resource,
        markers: type_markers,
        fields,
        crd,
        item,
    })
}

impl TypeDef {
    /// The type's span, for diagnostics about it as a whole.
    pub fn span(&self) -> Span {
        self.item.span()
    }
}
