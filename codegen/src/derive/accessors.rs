//! The hidden macro each derived type carries for `clientset!`: what the aggregate cannot know
//! when it expands — the type's group-version client and version informer accessors (they
//! depend on scope and verbs) and a compile-time check of the group it is listed under.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::TypeDef;
use crate::{Config, emit, names};

/// The macro of a `+genclient` type of `group` (Go name `go`): `(check "group", "GoName")`
/// fails compilation unless the group and Go name match the type's, `(client)` and `(informer)` give the accessors. Item
/// paths in a `macro_rules!` body resolve where it is invoked, and `clientset!` invokes it next
/// to a glob import of the type's module.
pub(crate) fn full(group: &str, go: &str, def: &TypeDef, config: &Config) -> TokenStream {
    let (rt, ty) = (&config.runtime, def.ident.to_string());
    let group_before = format!("{ty} has `/// +groupName={group}`, not ");
    let group_after = ": fix the group in clientset! or on the type";
    let go_before = format!("the group of {ty} has the Go name {go}, not ");
    let go_after = format!(": write `\"{group}\" as {go} => …` in clientset!, or change +groupGoName");
    let check = quote! {
        const _: () = {
            if !#rt::__private::str_eq($group, #group) {
                ::core::panic!("{}", ::core::concat!(#group_before, $group, #group_after));
            }
            if !#rt::__private::str_eq($go, #go) {
                ::core::panic!("{}", ::core::concat!(#go_before, $go, #go_after));
            }
        };
    };
    let client = emit::client_getter(def);
    let informer = emit::has_informer(def).then(|| emit::informer_getter(def));
    accessor_macro(&def.ident, check, client, informer.unwrap_or_default())
}

/// The macro of a type with a tag error: it checks and gives nothing, so the one error on the
/// tag is not repeated in `clientset!`.
pub(crate) fn skeleton(ty: &syn::Ident) -> TokenStream {
    accessor_macro(ty, TokenStream::new(), TokenStream::new(), TokenStream::new())
}

/// The macro of a derived type without `+genclient`: listing it in `clientset!` is an error
/// that says so.
pub(crate) fn not_genclient(ty: &syn::Ident) -> TokenStream {
    let message = format!("{ty} is not +genclient: clientset! lists the types that have clients");
    accessor_macro(
        ty,
        quote!(::core::compile_error!(#message);),
        TokenStream::new(),
        TokenStream::new(),
    )
}

fn accessor_macro(ty: &syn::Ident, check: TokenStream, client: TokenStream, informer: TokenStream) -> TokenStream {
    let name = names::accessors_macro(ty);
    quote! {
        #[doc(hidden)]
        #[allow(unused_macros)]
        macro_rules! #name {
            (check $group:literal, $go:literal) => { #check };
            (client) => { #client };
            (informer) => { #informer };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #name;
    }
}
