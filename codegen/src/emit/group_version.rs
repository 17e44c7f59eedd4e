//! The client per group version (client-gen's `<Group><Version>Client`): it holds the
//! `kube::Client` and hands out each type's typed client, namespaced or cluster-scoped.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::client::client_ident;
use crate::model::{Package, TypeDef};
use crate::names;

/// The name of a package's group-version client, e.g. `CloudnativeV1alpha1Client`.
pub fn group_version_client_ident(package: &Package) -> syn::Ident {
    format_ident!("{}{}Client", package.group_go_name, upper_first(&package.version))
}

/// The accessor of a package's group-version client, e.g. `cloudnative_v1alpha1`.
pub fn group_version_method(package: &Package) -> syn::Ident {
    format_ident!(
        "{}",
        names::method(&format!("{}{}", package.group_go_name, upper_first(&package.version)))
    )
}

/// The text with its first letter upper-cased (gengo's `IC`).
pub fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

pub(super) fn group_version_client(package: &Package) -> TokenStream {
    let getters = package
        .types
        .iter()
        .filter(|t| t.genclient.is_some())
        .map(client_getter)
        .collect();
    group_version_client_struct(package, getters)
}

/// The group-version client of `package` handing out `getters` (see [`client_getter`]).
pub fn group_version_client_struct(package: &Package, getters: Vec<TokenStream>) -> TokenStream {
    let ident = group_version_client_ident(package);
    let doc = format!(
        " Typed clients for the `{}/{}` API group version.",
        package.group, package.version
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone)]
        pub struct #ident {
            client: ::kube::Client,
        }

        impl #ident {
            /// A client over `client`, real or in-memory.
            pub fn new(client: ::kube::Client) -> Self {
                Self { client }
            }

            #(#getters)*
        }
    }
}

/// The group-version client's method handing out the typed client of `def`, e.g.
/// `virtual_machines(namespace)`.
pub fn client_getter(def: &TypeDef) -> TokenStream {
    let client = client_ident(def);
    let getter = format_ident!("{}", names::method(&def.plural));
    let namespaced = def.genclient.as_ref().is_some_and(|g| g.namespaced);
    if namespaced {
        let doc = format!(" The {} in `namespace`.", def.plural);
        quote! {
            #[doc = #doc]
            pub fn #getter(&self, namespace: &str) -> #client {
                #client::namespaced(self.client.clone(), namespace)
            }
        }
    } else {
        let doc = format!(" The {} (cluster-scoped).", def.plural);
        quote! {
            #[doc = #doc]
            pub fn #getter(&self) -> #client {
                #client::all(self.client.clone())
            }
        }
    }
}
