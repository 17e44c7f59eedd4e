//! The client per group version (client-gen's `<Group><Version>Client`): it holds the
//! `kube::Client` and hands out each type's typed client, namespaced or cluster-scoped.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Package, TypeDef};
use crate::names;

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
    let ident = names::group_version_client(&package.group_go_name, &package.version);
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
    let client = names::typed_client(&def.ident);
    let getter = names::resource_method(&def.plural);
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
