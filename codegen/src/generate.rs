//! The whole pipeline as one pure function, and `targets`, the one place that decides which
//! file holds what: `<group>/<version>.rs` per package, `<group>/mod.rs`, and `mod.rs` with the
//! clientset and the informer factory.

use std::collections::BTreeMap;
use std::path::PathBuf;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::diag::Diagnostic;
use crate::emit::{self, PackageModule};
use crate::model::{Options, Package, RootType, package};
use crate::source::{Source, SourceDiagnostic};
use crate::{Config, check};

/// Generates every file for `sources`: relative path → tokens. `api_module` is the Rust path
/// of the input tree (e.g. `crate::apis`), so generated code can name the API types. Nothing
/// is generated when any source has a problem; all problems are returned.
pub fn generate(
    sources: &[Source],
    api_module: &syn::Path,
    options: &Options,
    config: &Config,
) -> Result<BTreeMap<PathBuf, TokenStream>, Vec<SourceDiagnostic>> {
    let mut packages = Vec::new();
    let mut problems = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        match package(&source.file, &source.group_dir, &source.version, options) {
            Ok(package) => packages.push((index, source, package)),
            Err(diagnostics) => problems.extend(diagnostics.into_vec().into_iter().map(|d| (index, d))),
        }
    }
    problems.extend(check::group_dirs(sources));
    let clashes = check::go_name_clashes(packages.iter().map(|(index, _, package)| (*index, package)));
    problems.extend(clashes.iter().map(|clash| {
        let diagnostic = Diagnostic::new(proc_macro2::Span::call_site(), clash.message());
        (clash.index, diagnostic.help("set +groupGoName=<Name> on one of them"))
    }));
    if !problems.is_empty() {
        return Err(problems);
    }
    let packages: Vec<(&Source, Package)> = packages
        .into_iter()
        .map(|(_, source, package)| (source, package))
        .collect();
    let problems = check::storage_versions(&root_types(&packages, api_module));
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(targets(&packages, api_module, config))
}

fn targets(packages: &[(&Source, Package)], api_module: &syn::Path, config: &Config) -> BTreeMap<PathBuf, TokenStream> {
    let mut files = BTreeMap::new();
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (source, package) in packages {
        groups.entry(&source.group_dir).or_default().push(&source.version);
        let (group, version) = (
            format_ident!("{}", source.group_dir),
            format_ident!("{}", source.version),
        );
        let doc = format!(
            " Generated code for the `{}/{}` API types.",
            package.group, package.version
        );
        let artifacts = [
            emit::registration(package),
            emit::deepcopy(package),
            emit::apply_configurations(package, config),
            emit::clients(package, config),
            emit::listers(package, config),
            emit::informers(package, config),
            emit::crds(package, config),
        ];
        let imports = source_imports(&source.file, api_module, &group, &version);
        files.insert(
            PathBuf::from(&source.group_dir).join(format!("{}.rs", source.version)),
            quote! {
                #![doc = #doc]
                #![allow(unused_imports)]
                use #api_module::#group::#version::*;
                #(#imports)*
                #(#artifacts)*
            },
        );
    }
    for (group, versions) in &groups {
        let declarations = versions.iter().map(|version| {
            let (ident, doc) = (format_ident!("{version}"), format!(" Version `{version}`."));
            quote!(#[doc = #doc] pub mod #ident;)
        });
        let doc = format!(" Generated code for the `{group}` API types, by version.");
        files.insert(
            PathBuf::from(group).join("mod.rs"),
            quote!(#![doc = #doc] #(#declarations)*),
        );
    }
    let declarations = groups.keys().map(|group| {
        let (ident, doc) = (format_ident!("{group}"), format!(" The `{group}` API types."));
        quote!(#[doc = #doc] pub mod #ident;)
    });
    let modules: Vec<PackageModule<'_>> = packages
        .iter()
        .map(|(source, package)| {
            let (group, version) = (
                format_ident!("{}", source.group_dir),
                format_ident!("{}", source.version),
            );
            PackageModule::new(package, syn::parse_quote!(#group::#version))
        })
        .collect();
    let aggregate = emit::aggregate(&modules, config);
    let crd_list = emit::crd_list(&root_types(packages, api_module), config);
    files.insert(
        PathBuf::from("mod.rs"),
        quote! {
            #![doc = " Generated clientset, informers and listers. Regenerate with `hack/update-codegen.sh`."]
            #(#declarations)*
            #aggregate
            #crd_list
        },
    );
    files
}

/// The `use` items of an API module, to be repeated where its generated code lives: apply
/// configurations name its field types as the module does (`Quantity`, not a full path), as the
/// derive's code, which sits in the module itself, does. `self::` and `super::` are rebased on
/// the module's path; other paths already name the same items from anywhere in the crate.
fn source_imports(
    file: &syn::File,
    api_module: &syn::Path,
    group: &syn::Ident,
    version: &syn::Ident,
) -> Vec<TokenStream> {
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Use(import) => Some(import),
            _ => None,
        })
        .map(|import| {
            let tree = &import.tree;
            match tree {
                syn::UseTree::Path(path) if path.ident == "self" => {
                    let rest = &path.tree;
                    quote!(use #api_module::#group::#version::#rest;)
                }
                syn::UseTree::Path(path) if path.ident == "super" => {
                    let rest = &path.tree;
                    quote!(use #api_module::#group::#rest;)
                }
                _ => {
                    let colon = &import.leading_colon;
                    quote!(use #colon #tree;)
                }
            }
        })
        .collect()
}

/// The CRD root types of `packages`, named from anywhere by their path under `api_module`.
/// Generation only gets here when every source made a package, so package and source indices
/// agree.
fn root_types<'a>(packages: &'a [(&Source, Package)], api_module: &syn::Path) -> Vec<RootType<'a>> {
    packages
        .iter()
        .enumerate()
        .flat_map(|(index, (source, package))| {
            let (group, version) = (
                format_ident!("{}", source.group_dir),
                format_ident!("{}", source.version),
            );
            package.types.iter().filter(|t| t.crd.is_some()).map(move |def| {
                let ident = &def.ident;
                RootType {
                    package,
                    def,
                    path: syn::parse_quote!(#api_module::#group::#version::#ident),
                    source: index,
                }
            })
        })
        .collect()
}
