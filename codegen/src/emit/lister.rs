//! Listers: typed reads of an informer's cache (lister-gen's `XLister`, `XNamespaceLister`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::Config;
use crate::genclient::Verb;
use crate::model::{Package, TypeDef};
use crate::names;

/// lister-gen's rule: `+genclient` types whose tags select `list` and `get` (`noVerbs` or not).
pub fn has_lister(def: &TypeDef) -> bool {
    // lister-gen ignores noVerbs and reads the verbs the tags select.
    def.genclient
        .as_ref()
        .is_some_and(|g| g.declared_verbs.contains(&Verb::List) && g.declared_verbs.contains(&Verb::Get))
}

/// The listers of a package.
pub fn listers(package: &Package, config: &Config) -> TokenStream {
    let listers = package
        .types
        .iter()
        .filter(|t| has_lister(t))
        .map(|t| lister(t, config));
    quote!(#(#listers)*)
}

/// The lister of one type (see [`has_lister`]).
pub fn lister(def: &TypeDef, config: &Config) -> TokenStream {
    let rt = &config.runtime;
    let ty = &def.ident;
    let ident = names::lister(ty);
    let arc = quote!(::std::sync::Arc<#ty>);
    let selector = quote!(::kube::core::Selector);
    let doc = format!(
        " Lists {} from an informer's cache. The objects are shared: treat them as read-only.",
        def.plural
    );
    let list_doc = format!(" The cached {} the selector selects, in all namespaces.", def.plural);
    let namespaced = def.genclient.as_ref().is_some_and(|g| g.namespaced);
    let scoped = if namespaced {
        let namespace_lister = names::namespace_lister(ty);
        let getter = names::resource_method(&def.plural);
        let getter_doc = format!(" The cached {} of `namespace`.", def.plural);
        let namespace_doc = format!(" Lists {} of one namespace from an informer's cache.", def.plural);
        let get_doc = format!(" The cached {} `name`, or NotFound.", def.ident);
        let ns_list_doc = format!(
            " The namespace's cached {} the selector selects (through the namespace index).",
            def.plural
        );
        quote! {
            impl #ident {
                #[doc = #getter_doc]
                #[inline]
                pub fn #getter(&self, namespace: &str) -> #namespace_lister {
                    #namespace_lister { lister: self.lister.namespaced(namespace) }
                }
            }

            #[doc = #namespace_doc]
            pub struct #namespace_lister {
                lister: #rt::cache::NamespaceLister<#ty>,
            }

            impl #namespace_lister {
                #[doc = #ns_list_doc]
                #[inline]
                pub fn list(&self, selector: &#selector) -> ::std::vec::Vec<#arc> {
                    self.lister.list(selector)
                }

                #[doc = #get_doc]
                #[inline]
                pub fn get(&self, name: &str) -> ::std::result::Result<#arc, #rt::cache::NotFound> {
                    self.lister.get(name)
                }
            }
        }
    } else {
        let get_doc = format!(" The cached {} `name`, or NotFound.", def.ident);
        quote! {
            impl #ident {
                #[doc = #get_doc]
                #[inline]
                pub fn get(&self, name: &str) -> ::std::result::Result<#arc, #rt::cache::NotFound> {
                    self.lister.get(name)
                }
            }
        }
    };
    quote! {
        #[doc = #doc]
        #[derive(Clone)]
        pub struct #ident {
            lister: #rt::cache::Lister<#ty>,
        }

        impl #ident {
            /// A lister over a cache, usually an informer's.
            #[inline]
            pub fn new(lister: #rt::cache::Lister<#ty>) -> Self {
                Self { lister }
            }

            #[doc = #list_doc]
            #[inline]
            pub fn list(&self, selector: &#selector) -> ::std::vec::Vec<#arc> {
                self.lister.list(selector)
            }
        }

        #scoped
    }
}
