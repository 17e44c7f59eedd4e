//! The `clientset!` front end's work: the aggregate `Clientset` and `SharedInformerFactory`
//! over derived types, from the groups, modules and types it names — what `codegen-cli` writes
//! in the generated tree's `mod.rs`, `<group>/mod.rs` and each version's accessors.

use std::collections::BTreeMap;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, LitStr, Token};

use crate::derive::with_options;
use crate::emit::{self, PackageModule};
use crate::model::Package;
use crate::{Config, check, names};

/// One entry: `"cloudnative.tw" => crate::apis::cloudnative::v1alpha1 { VirtualMachine }`,
/// optionally `"group" as GoName => …` for client-gen's `+groupGoName`.
struct Entry {
    group: LitStr,
    go_name: Option<Ident>,
    module: syn::Path,
    types: Vec<Ident>,
}

impl Parse for Entry {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let group = input.parse()?;
        let go_name = if input.peek(Token![as]) {
            input.parse::<Token![as]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        input.parse::<Token![=>]>()?;
        let module = input.call(syn::Path::parse_mod_style)?;
        let content;
        syn::braced!(content in input);
        let types = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
        Ok(Self {
            group,
            go_name,
            module,
            types: types.into_iter().collect(),
        })
    }
}

/// `#![codegen(runtime = …)]`, then the entries.
struct Entries {
    attrs: Vec<syn::Attribute>,
    entries: Punctuated<Entry, Token![,]>,
}

impl Parse for Entries {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        Ok(Self {
            attrs: input.call(syn::Attribute::parse_inner)?,
            entries: Punctuated::parse_terminated(input)?,
        })
    }
}

/// The tokens `clientset! { … }` expands to, or a compile error for each problem.
pub fn clientset(input: TokenStream, config: &Config) -> TokenStream {
    let (entries, config) = match syn::parse2::<Entries>(input)
        .and_then(|parsed| Ok((parsed.entries, with_options(&parsed.attrs, config, None)?)))
    {
        Ok(parsed) => parsed,
        Err(error) => return error.to_compile_error(),
    };
    let config = &config;
    // Every entry's package first, so the groups' Go names are checked across all of them.
    let parsed: Vec<syn::Result<(Ident, Package)>> = entries.iter().map(package).collect();
    let valid = parsed
        .iter()
        .enumerate()
        .filter_map(|(index, p)| Some((index, &p.as_ref().ok()?.1)));
    let clashes = check::go_name_clashes(valid);
    let mut errors = Vec::new();
    let mut packages = Vec::new();
    // Both the generated module (`<dir>::<version>`) and the accessors (`<go_name>_<version>`)
    // must be unique.
    let mut seen_modules: BTreeMap<(String, String), &syn::Path> = BTreeMap::new();
    let mut seen_versions: BTreeMap<(String, String), &syn::Path> = BTreeMap::new();
    for (index, (entry, parsed)) in entries.iter().zip(&parsed).enumerate() {
        let (dir, package) = match parsed {
            Ok(parsed) => parsed,
            Err(error) => {
                errors.push(error.clone());
                continue;
            }
        };
        for clash in clashes.iter().filter(|c| c.index == index) {
            let message = format!("{}; write `\"{}\" as <GoName> => …`", clash.message(), package.group);
            errors.push(syn::Error::new(entry.group.span(), message));
        }
        let version = package.version.clone();
        if let Some(first) = seen_modules.insert((dir.to_string(), version.clone()), &entry.module) {
            let message = format!(
                "{} and {} would both generate module {dir}::{version}: list all of a module's types in one entry, and give different modules different group folders",
                path_text(first),
                path_text(&entry.module)
            );
            errors.push(syn::Error::new_spanned(&entry.module, message));
        } else if seen_versions
            .insert((package.group.clone(), version.clone()), &entry.module)
            .is_some()
        {
            let message = format!("group {} version {version} is listed twice", package.group);
            errors.push(syn::Error::new_spanned(&entry.module, message));
        }
        let mut names = std::collections::BTreeSet::new();
        for ty in entry.types.iter().filter(|ty| !names.insert(ty.to_string())) {
            errors.push(syn::Error::new(ty.span(), format!("{ty} is listed twice")));
        }
        packages.push((entry, dir, package));
    }
    if !errors.is_empty() {
        return errors.iter().map(syn::Error::to_compile_error).collect();
    }
    let mut groups: BTreeMap<String, Vec<TokenStream>> = BTreeMap::new();
    let mut checks = Vec::new();
    for (entry, dir, package) in &packages {
        let module = &entry.module;
        let via = |ty: &Ident| {
            let name = names::accessors_macro(ty);
            quote!(#module::#name)
        };
        let clients = entry.types.iter().map(|ty| {
            let via = via(ty);
            quote!(#via!(client);)
        });
        let informers = entry.types.iter().map(|ty| {
            let via = via(ty);
            quote!(#via!(informer);)
        });
        let client = emit::group_version_client_struct(package, clients.collect());
        let informers = emit::version_informers_struct(package, informers.collect(), config);
        let (version, group) = (format_ident!("{}", package.version), &package.group);
        let doc = format!(" The clients and informers of `{group}/{}`.", package.version);
        groups.entry(dir.to_string()).or_default().push(quote! {
            #[doc = #doc]
            pub mod #version {
                #[allow(unused_imports)]
                use #module::*;
                #client
                #informers
            }
        });
        // A type's group is in its derive: the one named here must be the same. Spanned by the
        // type, so the error points at the entry to fix.
        let go_name = &package.group_go_name;
        for ty in &entry.types {
            let via = via(ty);
            checks.push(quote_spanned!(ty.span()=> #via!(check #group, #go_name);));
        }
    }
    let modules = groups.iter().map(|(dir, versions)| {
        let ident = format_ident!("{dir}");
        let doc = format!(" The `{dir}` API types' clients and informers, by version.");
        quote!(#[doc = #doc] pub mod #ident { #(#versions)* })
    });
    let aggregate_modules: Vec<PackageModule<'_>> = packages
        .iter()
        .map(|(entry, dir, package)| {
            let version = format_ident!("{}", package.version);
            PackageModule {
                package,
                module: syn::parse_quote!(#dir::#version),
                clients: !entry.types.is_empty(),
                informers: !entry.types.is_empty(),
            }
        })
        .collect();
    let aggregate = emit::aggregate(&aggregate_modules, config);
    quote!(#(#modules)* #(#checks)* #aggregate)
}

/// An entry's group directory (the module's parent) and package, checked.
fn package(entry: &Entry) -> syn::Result<(Ident, Package)> {
    let segments: Vec<&syn::PathSegment> = entry.module.segments.iter().collect();
    let absolute = entry.module.leading_colon.is_none() && segments.first().is_some_and(|s| s.ident == "crate");
    if !absolute || segments.len() < 3 {
        let message = "name the version module from the crate root, e.g. crate::apis::cloudnative::v1alpha1";
        return Err(syn::Error::new_spanned(&entry.module, message));
    }
    let (dir, version) = (&segments[segments.len() - 2].ident, &segments[segments.len() - 1].ident);
    if !names::is_version(&version.to_string()) {
        let message = format!("{version} is not an API version module: name it like v1, v1alpha1 or v2beta3");
        return Err(syn::Error::new(version.span(), message));
    }
    let group = entry.group.value();
    let go_name = entry.go_name.as_ref().map(ToString::to_string);
    let group_go_name = names::resolved_group_go_name(&group, go_name.as_deref());
    if syn::parse_str::<Ident>(&group_go_name).is_err() {
        let message =
            format!("the group's Go name {group_go_name:?} is not an identifier: write `\"{group}\" as <GoName> => …`");
        return Err(syn::Error::new(entry.group.span(), message));
    }
    if entry.types.is_empty() {
        let span = entry
            .module
            .segments
            .last()
            .map_or(Span::call_site(), |s| s.ident.span());
        return Err(syn::Error::new(
            span,
            "name the module's #[derive(Codegen)] +genclient types in braces",
        ));
    }
    let package = Package {
        group,
        group_go_name,
        version: version.to_string(),
        markers: Vec::new(),
        types: Vec::new(),
        enums: Vec::new(),
    };
    Ok((dir.clone(), package))
}

/// A path as written, without the spaces of token printing.
fn path_text(path: &syn::Path) -> String {
    quote!(#path).to_string().replace(' ', "")
}
