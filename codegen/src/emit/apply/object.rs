//! What a `+genclient` kind's apply configuration has beyond its fields: the constructor that
//! sets apiVersion, kind, name and namespace, getters, metadata builders, and the functions that
//! extract what one field manager applied.

use proc_macro2::TokenStream;
use quote::quote;

use crate::genclient::Verb;
use crate::model::{FieldDef, TypeDef};
use crate::names;

/// A `+genclient` type's constructor, type-meta and name getters, and metadata builders.
pub(super) fn object_methods(def: &TypeDef, fields: &[&FieldDef], rt: &syn::Path) -> TokenStream {
    let ty = &def.ident;
    let unset = fields.iter().map(|f| &f.ident);
    let namespaced = def.genclient.as_ref().is_some_and(|g| g.namespaced);
    let (params, namespace, doc) = if namespaced {
        (
            quote!(name: impl ::std::convert::Into<::std::string::String>, namespace: impl ::std::convert::Into<::std::string::String>),
            quote!(::std::option::Option::Some(namespace.into())),
            format!(" An apply configuration for the {ty} `name` in `namespace`, with its apiVersion and kind."),
        )
    } else {
        (
            quote!(name: impl ::std::convert::Into<::std::string::String>),
            quote!(::std::option::Option::None),
            format!(" An apply configuration for the {ty} `name`, with its apiVersion and kind."),
        )
    };
    quote! {
        #[doc = #doc]
        pub fn new(#params) -> Self {
            Self {
                api_version: <#ty as ::kube::Resource>::api_version(&()).into_owned(),
                kind: <#ty as ::kube::Resource>::kind(&()).into_owned(),
                metadata: #rt::apply::ObjectMetaApplyConfiguration {
                    name: ::std::option::Option::Some(name.into()),
                    namespace: #namespace,
                    ..::std::default::Default::default()
                },
                #(#unset: ::std::option::Option::None,)*
            }
        }

        /// The configuration's apiVersion, always the type's.
        pub fn api_version(&self) -> &str {
            &self.api_version
        }

        /// The configuration's kind, always the type's.
        pub fn kind(&self) -> &str {
            &self.kind
        }

        /// The name of the object it applies to.
        pub fn name(&self) -> &str {
            self.metadata.name.as_deref().unwrap_or_default()
        }

        /// Adds labels this manager sets.
        #[must_use]
        pub fn labels<K: ::std::convert::Into<::std::string::String>, V: ::std::convert::Into<::std::string::String>>(mut self, labels: impl ::std::iter::IntoIterator<Item = (K, V)>) -> Self {
            self.metadata.add_labels(labels);
            self
        }

        /// Adds annotations this manager sets.
        #[must_use]
        pub fn annotations<K: ::std::convert::Into<::std::string::String>, V: ::std::convert::Into<::std::string::String>>(mut self, annotations: impl ::std::iter::IntoIterator<Item = (K, V)>) -> Self {
            self.metadata.add_annotations(annotations);
            self
        }

        /// Adds owner references this manager sets (merged by `uid`).
        #[must_use]
        pub fn owner_references(mut self, references: impl ::std::iter::IntoIterator<Item = ::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference>) -> Self {
            self.metadata.add_owner_references(references);
            self
        }

        /// Adds finalizers this manager sets.
        #[must_use]
        pub fn finalizers<S: ::std::convert::Into<::std::string::String>>(mut self, finalizers: impl ::std::iter::IntoIterator<Item = S>) -> Self {
            self.metadata.add_finalizers(finalizers);
            self
        }
    }
}

/// `extract_<type>` (and `extract_<type>_status` for a type with a status verb), for a type
/// whose client applies.
pub(super) fn extract_functions(def: &TypeDef, rt: &syn::Path) -> TokenStream {
    let Some(genclient) = &def.genclient else {
        return TokenStream::new();
    };
    let (ty, config) = (&def.ident, names::apply_configuration(&def.ident));
    let function = |status: bool| {
        let ident = names::extract_function(ty, status);
        let (subresource, what) = if status {
            (quote!(::std::option::Option::Some("status")), "applied to its status")
        } else {
            (quote!(::std::option::Option::None), "applied")
        };
        let doc = crate::emit::doc_lines(&format!(
            "The fields of `object` that `field_manager` {what}, as an apply configuration (client-go's\n`Extract{ty}`): modify it and apply it again without taking over the fields others set.\nAn object cached by an informer that strips managed fields has none, so `field_manager`\nwould seem to own nothing: extract from an object read with a GET."
        ));
        // `#[inline]`: compiled only by crates that call it, as the typed clients' methods are.
        quote! {
            #doc
            #[inline]
            pub fn #ident(object: &#ty, field_manager: &str) -> ::std::result::Result<#config, #rt::apply::ExtractError> {
                #rt::apply::extract(object, field_manager, #subresource)
            }
        }
    };
    let apply = genclient.verbs.contains(&Verb::Apply).then(|| function(false));
    let apply_status = genclient.verbs.contains(&Verb::ApplyStatus).then(|| function(true));
    quote!(#apply #apply_status)
}
