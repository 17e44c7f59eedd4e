//! `#[derive(Codegen)]`: the compile-time front end of kube-codegen. It reads the same doc
//! tags as `codegen-cli` and emits the same per-type items — `kube::Resource`, `Clone` when
//! deepcopy selects the type, the typed client, lister and informer — so a crate needs no
//! command line and writes no files.
//!
//! A derive sees only its type: write the group on the type (`/// +groupName=cloudnative.tw`);
//! the version is the name of the module the type is in (`v1alpha1`), checked at compile time.

use proc_macro::TokenStream;

/// Generates a tagged API type's registration, `Clone`, typed client, lister and informer.
#[proc_macro_derive(Codegen)]
pub fn derive_codegen(input: TokenStream) -> TokenStream {
    codegen::derive(input.into(), &codegen::Config::default()).into()
}
