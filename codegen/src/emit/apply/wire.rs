//! The `Serialize` and `Deserialize` impls of apply configurations, over the runtime's
//! `apply::wire` helpers.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{FieldDef, JsonName};

/// `Serialize` and `Deserialize` of a configuration: the fields that are set, under the type's
/// JSON names (flattened fields' own fields in the same map). Written out with the runtime's
/// helpers rather than derived: serde's derives for every configuration of a crate of many
/// kinds cost more to compile than everything else generated for them.
pub(super) fn wire_impls(name: &syn::Ident, fields: &[&FieldDef], root: bool, rt: &syn::Path) -> TokenStream {
    let wire = quote!(#rt::apply::wire);
    let named: Vec<(&syn::Ident, &str)> = fields
        .iter()
        .filter_map(|f| match &f.json {
            JsonName::Named(json) => Some((&f.ident, json.as_str())),
            _ => None,
        })
        .collect();
    let flattened: Vec<&syn::Ident> = fields
        .iter()
        .filter(|f| f.json == JsonName::Flattened)
        .map(|f| &f.ident)
        .collect();
    let write_named = named.iter().map(|(ident, json)| {
        quote!(if let ::std::option::Option::Some(value) = &self.#ident { __map.serialize_entry(#json, value)?; })
    });
    let write_flattened = flattened.iter().map(|ident| {
        quote!(if let ::std::option::Option::Some(value) = &self.#ident { #wire::flatten(&mut __map, value)?; })
    });
    let read_named = named
        .iter()
        .map(|(ident, json)| quote!(let #ident = #wire::field(&mut __map, #json)?;));
    let read_flattened = flattened.iter().map(|ident| quote!(let #ident = #wire::rest(&__map)?;));
    let (write_object, read_object, object_fields) = if root {
        (
            quote! {
                __map.serialize_entry("apiVersion", &self.api_version)?;
                __map.serialize_entry("kind", &self.kind)?;
                __map.serialize_entry("metadata", &self.metadata)?;
            },
            quote! {
                let api_version = #wire::field(&mut __map, "apiVersion")?.unwrap_or_default();
                let kind = #wire::field(&mut __map, "kind")?.unwrap_or_default();
                let metadata = #wire::field(&mut __map, "metadata")?.unwrap_or_default();
            },
            quote!(api_version, kind, metadata,),
        )
    } else {
        (quote!(), quote!(), quote!())
    };
    // `__map`: no field of an API type is named so, while `map` could be.
    let all = named.iter().map(|(ident, _)| *ident).chain(flattened.iter().copied());
    quote! {
        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeMap as _;
                let mut __map = serializer.serialize_map(::std::option::Option::None)?;
                #write_object
                #(#write_named)*
                #(#write_flattened)*
                __map.end()
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let mut __map = #wire::object(deserializer)?;
                #read_object
                #(#read_named)*
                #(#read_flattened)*
                ::std::result::Result::Ok(Self { #object_fields #(#all),* })
            }
        }
    }
}
