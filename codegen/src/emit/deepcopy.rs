//! deepcopy: `impl Clone` for the types deepcopy tags select and that do not derive it. Rust's
//! `Clone` of owned data is already deep; this is what deepcopy-gen's `DeepCopy` becomes.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Fields, ItemStruct, parse_quote};

use crate::model::Package;

/// The `Clone` impls of a package's selected types.
pub fn deepcopy(package: &Package) -> TokenStream {
    let impls = package.types.iter().filter(|t| t.deepcopy).map(|t| clone_impl(&t.item));
    quote!(#(#impls)*)
}

/// One `Clone` impl, field by field; type parameters must be `Clone` themselves.
pub fn clone_impl(item: &ItemStruct) -> TokenStream {
    let ident = &item.ident;
    let mut generics = item.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(parse_quote!(::core::clone::Clone));
    }
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let body = match &item.fields {
        Fields::Named(named) => {
            let fields = named.named.iter().map(|f| {
                let name = f.ident.as_ref().expect("named fields have names");
                quote!(#name: ::core::clone::Clone::clone(&self.#name))
            });
            quote!(Self { #(#fields),* })
        }
        Fields::Unnamed(unnamed) => {
            let fields = (0..unnamed.unnamed.len()).map(|i| {
                let index = syn::Index::from(i);
                quote!(::core::clone::Clone::clone(&self.#index))
            });
            quote!(Self(#(#fields),*))
        }
        Fields::Unit => quote!(Self),
    };
    quote! {
        impl #impl_generics ::core::clone::Clone for #ident #type_generics #where_clause {
            fn clone(&self) -> Self {
                #body
            }
        }
    }
}
