//! `#[derive(Codegen)]`: the compile-time front end of kube-codegen. It reads the same doc
//! tags as `codegen-cli` and emits the same per-type items — `kube::Resource`, `Clone` when
//! deepcopy selects the type, the typed client, lister and informer — so a crate needs no
//! command line and writes no files.
//!
//! A derive sees only its type: write the group on the type (`/// +groupName=cloudnative.tw`);
//! the version is the name of the module the type is in (`v1alpha1`), checked at compile time.
//!
//! [`clientset!`] names the derived types by group and module and gives what the CLI writes in
//! the generated tree's root: the `Clientset`, the `SharedInformerFactory` and their accessors.

use proc_macro::TokenStream;

/// Generates a tagged API type's registration, `Clone`, typed client, lister and informer.
///
/// `#[codegen(runtime = path::to::runtime)]` names the runtime crate for crates that re-export
/// it (default `::codegen_runtime`), like the CLI's `--runtime`.
#[proc_macro_derive(Codegen, attributes(codegen))]
pub fn derive_codegen(input: TokenStream) -> TokenStream {
    codegen::derive(input.into(), &codegen::Config::default()).into()
}

/// The aggregate `Clientset` and `SharedInformerFactory` over `#[derive(Codegen)]` types, named
/// by group and version module (from the crate root), in the crate that derives them:
///
/// ```ignore
/// codegen_macros::clientset! {
///     "cloudnative.tw" => crate::apis::cloudnative::v1alpha1 { VirtualMachine },
///     "example-group.dev" as ExampleGroup => crate::apis::example::v1 { Cluster, Widget },
/// }
/// ```
///
/// Each group's types get a module (`cloudnative::v1alpha1`) with the group-version client and
/// version informers; the group must be the one on each type, checked at compile time. A leading
/// `#![codegen(runtime = path::to::runtime)]` names a re-exported runtime crate.
#[proc_macro]
pub fn clientset(input: TokenStream) -> TokenStream {
    codegen::clientset(input.into(), &codegen::Config::default()).into()
}
