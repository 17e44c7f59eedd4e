//! The derive and the command line emit the same items for the same tagged type: the same
//! structs, trait impls and methods (bodies differ only where the derive reads the version from
//! the module path at compile time).

use std::collections::BTreeSet;

use codegen::kube_version::KubeVersion;
use codegen::model::Options;
use codegen::{Config, Source, derive, generate};
use quote::ToTokens;

const FIXTURES: [(&str, &str); 3] = [
    ("cloudnative", "v1alpha1"),
    ("samplecontroller", "v1alpha1"),
    ("edge", "v1"),
];

fn parse(group: &str, version: &str) -> syn::File {
    let path = format!("{}/tests/fixtures/{group}/{version}.rs", env!("CARGO_MANIFEST_DIR"));
    syn::parse_file(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `struct X`, `impl Trait for X`, `fn X::method` (and a client type's `fn extract_x`): what a
/// user can name, per item.
fn signatures(items: &[syn::Item], owner: &str, root: bool) -> BTreeSet<String> {
    let ours = |name: &str| {
        name == owner
            || ["Client", "Lister", "NamespaceLister", "Informer", "ApplyConfiguration"]
                .iter()
                .any(|s| name == format!("{owner}{s}"))
    };
    let extract = format!("extract_{}", heck::ToSnakeCase::to_snake_case(owner));
    let mut out = BTreeSet::new();
    for item in items {
        match item {
            syn::Item::Struct(s) if ours(&s.ident.to_string()) => {
                out.insert(format!("struct {}", s.ident));
            }
            syn::Item::Fn(f)
                if root && [extract.clone(), format!("{extract}_status")].contains(&f.sig.ident.to_string()) =>
            {
                out.insert(format!("fn {}/{}", f.sig.ident, f.sig.inputs.len()));
            }
            syn::Item::Impl(imp) => {
                let self_ty = imp.self_ty.to_token_stream().to_string();
                if !ours(&self_ty) {
                    continue;
                }
                match &imp.trait_ {
                    Some((path, _)) => {
                        out.insert(format!("impl {} for {self_ty}", path.segments.last().unwrap().ident));
                    }
                    None => {
                        for inner in &imp.items {
                            if let syn::ImplItem::Fn(f) = inner {
                                out.insert(format!("fn {self_ty}::{}/{}", f.sig.ident, f.sig.inputs.len()));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn derive_and_cli_should_emit_the_same_items() {
    let config = Config::default();
    let mut compared = 0;
    for (group, version) in FIXTURES {
        let file = parse(group, version);
        let source = Source {
            group_dir: group.to_owned(),
            version: version.to_owned(),
            file: file.clone(),
        };
        let api: syn::Path = syn::parse_quote!(crate::apis);
        let generated = generate(&[source], &api, &fixture_options(), &config)
            .unwrap_or_else(|_| panic!("{group}/{version} is valid"));
        let cli: syn::File =
            syn::parse2(generated[&std::path::PathBuf::from(format!("{group}/{version}.rs"))].clone()).unwrap();
        let package = codegen::model::package(&file, group, version, &fixture_options()).unwrap();
        for item in &file.items {
            let syn::Item::Struct(strukt) = item else { continue };
            let root = package
                .types
                .iter()
                .any(|t| t.ident == strukt.ident && t.genclient.is_some());
            // The derive reads a client type's group from the type itself; a part of an API type
            // (a spec, a status) has none.
            let mut derived = strukt.clone();
            if root {
                let line = format!("+groupName={}", package.group);
                derived.attrs.push(syn::parse_quote!(#[doc = #line]));
            }
            let derived: syn::File = syn::parse2(derive(derived.to_token_stream(), &config)).unwrap();
            let owner = strukt.ident.to_string();
            let (mut from_cli, mut from_derive) = (
                signatures(&cli.items, &owner, root),
                signatures(&derived.items, &owner, root),
            );
            // (A generic type's impls name it with its parameters, which `signatures` skips.)
            if !root && strukt.generics.params.is_empty() {
                // Deriving Codegen on a part is the opt-in the command line's deepcopy tags are:
                // the derive gives it Clone unless it brings its own.
                let clone = format!("impl Clone for {owner}");
                let text = |a: &syn::Attribute| a.to_token_stream().to_string();
                let brings_own = strukt.attrs.iter().any(|a| {
                    (a.path().is_ident("derive") && text(a).contains("Clone"))
                        || text(a).contains("+k8s:deepcopy-gen=false")
                });
                assert_eq!(
                    from_derive.contains(&clone),
                    !brings_own,
                    "{group}/{version} {owner}: Clone"
                );
                from_derive.remove(&clone);
                from_cli.remove(&clone);
            }
            assert!(
                !from_cli.is_empty() || !root,
                "{group}/{version} {owner}: nothing from the CLI"
            );
            assert_eq!(from_derive, from_cli, "{group}/{version} {owner}");
            // A private part, or one without named fields, gets nothing from either: it proves
            // nothing, so it is not counted.
            if !from_cli.is_empty() {
                compared += 1;
            }
        }
    }
    // Every fixture has a client type and its parts: an empty loop would prove nothing.
    assert!(compared >= 2 * FIXTURES.len(), "compared only {compared} types");
}

/// The fixtures' settings: the edge fixture's Gadget has a selectable field, which needs
/// Kubernetes 1.31 (its derive says so with `#[codegen(min_kube_version = "1.31")]`).
fn fixture_options() -> Options {
    Options {
        min_kube_version: KubeVersion::new(31),
        ..Options::default()
    }
}
