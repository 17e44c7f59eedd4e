//! Informers: per type, access to the factory's shared informer and its lister; per group
//! version, the accessors (informer-gen's `XInformer` and version interface).
//!
//! Every generated method is `#[inline]`: it instantiates the generic informer machinery for its
//! type, and inlining defers that code generation to the crates that call it.

use proc_macro2::TokenStream;
use quote::quote;

use super::lister::has_lister;
use crate::Config;
use crate::genclient::Verb;
use crate::model::{Package, TypeDef};
use crate::names;

/// informer-gen's rule: `+genclient` types with `list` and `watch`, not `noVerbs`.
pub fn has_informer(def: &TypeDef) -> bool {
    def.genclient
        .as_ref()
        .is_some_and(|g| !g.no_verbs && g.verbs.contains(&Verb::List) && g.verbs.contains(&Verb::Watch))
}

/// The informers of a package and its version accessor.
pub fn informers(package: &Package, config: &Config) -> TokenStream {
    let informers = package.types.iter().filter(|t| has_informer(t));
    let per_type = informers.clone().map(|t| informer(t, config));
    let accessors = informers.map(informer_getter).collect();
    let version = version_informers_struct(package, accessors, config);
    quote!(#(#per_type)* #version)
}

/// The version accessor of `package` handing out `accessors` (see [`informer_getter`]).
pub fn version_informers_struct(package: &Package, accessors: Vec<TokenStream>, config: &Config) -> TokenStream {
    let rt = &config.runtime;
    let ident = names::version_informers(&package.group_go_name, &package.version);
    let doc = format!(
        " The shared informers of the `{}/{}` API group version.",
        package.group, package.version
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone)]
        pub struct #ident {
            factory: #rt::cache::SharedInformerFactory,
        }

        impl #ident {
            /// The accessors over `factory`.
            #[inline]
            pub fn new(factory: #rt::cache::SharedInformerFactory) -> Self {
                Self { factory }
            }

            /// The factory the informers come from.
            #[inline]
            pub fn factory(&self) -> &#rt::cache::SharedInformerFactory {
                &self.factory
            }

            #(#accessors)*
        }
    }
}

/// The version accessor's method handing out the informer of `def`, e.g. `virtual_machines()`.
pub fn informer_getter(def: &TypeDef) -> TokenStream {
    let informer = names::informer(&def.ident);
    let getter = names::resource_method(&def.plural);
    let doc = format!(" The shared informer and lister of {}.", def.plural);
    quote! {
        #[doc = #doc]
        #[inline]
        pub fn #getter(&self) -> #informer {
            #informer::new(self.factory.clone())
        }
    }
}

/// The informer of one type (see [`has_informer`]).
pub fn informer(def: &TypeDef, config: &Config) -> TokenStream {
    let rt = &config.runtime;
    let ty = &def.ident;
    let ident = names::informer(ty);
    let doc = format!(
        " The shared informer of {}: one watch for every consumer of the factory.",
        def.plural
    );
    let lister = has_lister(def).then(|| {
        let lister = names::lister(ty);
        quote! {
            /// A lister over the informer's cache.
            #[inline]
            pub fn lister(&self) -> #lister {
                #lister::new(self.informer().lister())
            }
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(Clone)]
        pub struct #ident {
            factory: #rt::cache::SharedInformerFactory,
        }

        impl #ident {
            /// Access through `factory`.
            #[inline]
            pub fn new(factory: #rt::cache::SharedInformerFactory) -> Self {
                Self { factory }
            }

            /// The shared informer; it runs once the factory is started.
            #[inline]
            pub fn informer(&self) -> #rt::cache::SharedIndexInformer<#ty> {
                self.factory.informer::<#ty>()
            }

            #lister
        }
    }
}
