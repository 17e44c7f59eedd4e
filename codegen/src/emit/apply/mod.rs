//! Apply configurations (applyconfiguration-gen): for each struct, `<Type>ApplyConfiguration`
//! with every field optional, left out when unset, and a builder per field; for a `+genclient`
//! type, a constructor that sets apiVersion, kind, name and namespace, metadata builders, and
//! the functions that extract what one field manager applied.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Fields, GenericArgument, PathArguments, Type};

mod object;
mod wire;

use crate::Config;
use crate::genclient::{Method, Verb};
use crate::model::{FieldDef, JsonName, Package, TypeDef};
use crate::names;
use crate::symbol::APPLYCONFIGURATION_GEN;
use crate::tags::description;
use object::{extract_functions, object_methods};
use wire::wire_impls;

/// Scalars the generator applies as they are: whether they implement the runtime's
/// `ApplyField` is not this crate's to decide (k8s-openapi implements `DeepMerge` for some).
const SCALARS: [&str; 17] = [
    "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
    "f64", "String",
];

/// Fields a `+genclient` type's configuration holds itself rather than from the type.
const OBJECT_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// The apply configurations of a package's structs, and its enums applied whole.
pub fn apply_configurations(package: &Package, config: &Config) -> TokenStream {
    let structs = package.types.iter().map(|def| apply_configuration(def, config));
    let enums = package.enums.iter().map(|ident| applied_whole(ident, config));
    quote!(#(#structs)* #(#enums)*)
}

/// Whether a type gets an apply configuration: a public struct with named fields and no
/// generics (what an API type's part is); a `+genclient` type only when its client applies
/// (client-gen's `apply` and `applyStatus` verbs, or an apply extension that sends the kind
/// itself), so a read-only kind asks nothing of its parts.
pub fn has_apply_configuration(def: &TypeDef) -> bool {
    if opted_out(def) {
        return false;
    }
    let applies = def.genclient.as_ref().is_none_or(|g| {
        g.verbs.iter().any(|v| matches!(v, Verb::Apply | Verb::ApplyStatus))
            || g.methods.iter().any(Method::applies_kind)
    });
    applies
        && matches!(def.item.vis, syn::Visibility::Public(_))
        && matches!(def.item.fields, Fields::Named(_))
        && def.item.generics.params.is_empty()
}

/// `+k8s:applyconfiguration-gen=false` on the type: no configuration of its own (a part is then
/// applied whole; the model already took a kind's apply verbs away).
fn opted_out(def: &TypeDef) -> bool {
    def.markers.iter().any(|m| m.name == APPLYCONFIGURATION_GEN)
}

/// The apply configuration of an enum: the enum itself, applied whole (a value, not a set of
/// fields).
pub fn applied_whole(ty: &syn::Ident, config: &Config) -> TokenStream {
    let rt = &config.runtime;
    quote! {
        impl #rt::apply::ApplyField for #ty {
            type Configuration = #ty;
        }
    }
}

/// What one type gets: its apply configuration, or for a part the tags keep from having one,
/// the part itself, applied whole as an enum is.
pub fn apply_configuration(def: &TypeDef, config: &Config) -> TokenStream {
    match opted_out(def) {
        true if def.genclient.is_none() => applied_whole(&def.ident, config),
        true => TokenStream::new(),
        false => configuration(def, config),
    }
}

/// One type's apply configuration, its builders and its `ApplyField` impl (and for a
/// `+genclient` type, its constructor, metadata builders and extract functions).
fn configuration(def: &TypeDef, config: &Config) -> TokenStream {
    if !has_apply_configuration(def) {
        return TokenStream::new();
    }
    let rt = &config.runtime;
    let (ty, name) = (&def.ident, names::apply_configuration(&def.ident));
    let root = def.genclient.is_some();
    let fields: Vec<&FieldDef> = def
        .fields
        .iter()
        .filter(|f| match &f.json {
            JsonName::Named(json) => !(root && OBJECT_FIELDS.contains(&json.as_str())),
            JsonName::Flattened => true,
            JsonName::Skipped => false,
        })
        .collect();
    let declarations = fields.iter().map(|f| field_declaration(def, f, rt));
    let builders = fields.iter().map(|f| builder(f, rt));
    let wire = wire_impls(&name, &fields, root, rt);
    let doc = crate::emit::doc_lines(&format!(
        "The apply configuration of [`{ty}`]: what a server-side apply sends of it, every field\noptional and left out when unset."
    ));
    let (object_fields, derives, object_methods, extract) = if root {
        (
            quote! {
                api_version: ::std::string::String,
                kind: ::std::string::String,
                /// The object's metadata: its name and namespace, and what this manager sets.
                pub metadata: #rt::apply::ObjectMetaApplyConfiguration,
            },
            quote!(#[derive(::std::clone::Clone, ::std::fmt::Debug, ::std::cmp::PartialEq)]),
            object_methods(def, &fields, rt),
            extract_functions(def, rt),
        )
    } else {
        (
            quote!(),
            quote!(#[derive(::std::clone::Clone, ::std::fmt::Debug, ::std::default::Default, ::std::cmp::PartialEq)]),
            quote!(),
            quote!(),
        )
    };
    quote! {
        #doc
        #derives
        pub struct #name {
            #object_fields
            #(#declarations)*
        }

        impl #name {
            #object_methods
            #(#builders)*
        }

        #wire

        impl #rt::apply::ApplyField for #ty {
            type Configuration = #name;
        }

        #extract
    }
}

/// A field of a configuration: optional, under the type's JSON name.
fn field_declaration(def: &TypeDef, field: &FieldDef, rt: &syn::Path) -> TokenStream {
    let ident = &field.ident;
    let held = configured(&field.ty, held_whole(field), rt);
    let doc = crate::emit::doc_lines(&field_doc(def, field));
    quote! {
        #doc
        pub #ident: ::std::option::Option<#held>,
    }
}

/// The doc of the struct field a configuration field mirrors, without its tags.
fn field_doc(def: &TypeDef, field: &FieldDef) -> String {
    let attrs = def
        .item
        .fields
        .iter()
        .find(|f| f.ident.as_ref() == Some(&field.ident))
        .map(|f| f.attrs.as_slice())
        .unwrap_or_default();
    match description(attrs) {
        text if text.is_empty() => format!("`{}`.", field.ident),
        text => text,
    }
}

/// What a field of a configuration holds, by the shape of the field's type (`Option` and `Box`
/// unwrapped): a list, a map, or one value.
enum Held<'t> {
    List(&'t Type),
    Map {
        map: String,
        key: &'t Type,
        value: &'t Type,
    },
    One(&'t Type),
}

fn held(ty: &Type) -> Held<'_> {
    let Some((name, args)) = last_segment(ty) else {
        return Held::One(ty);
    };
    match (name.as_str(), args.as_slice()) {
        ("Option" | "Box", [inner]) => held(inner),
        ("Vec", [item]) => Held::List(item),
        ("BTreeMap" | "HashMap", [key, value]) => Held::Map {
            map: name.clone(),
            key,
            value,
        },
        _ => Held::One(ty),
    }
}

/// Whether a field's values are held as they are, whatever their type
/// (`+k8s:applyconfiguration-gen=false`): the way to apply a type of another crate, for which
/// neither this crate nor the user's may implement `ApplyField`.
fn held_whole(field: &FieldDef) -> bool {
    field.markers.iter().any(|m| m.name == APPLYCONFIGURATION_GEN)
}

/// What a configuration holds for a field of type `ty`: lists and maps of what their items hold,
/// scalars (and every value of a field held `whole`) as they are, and anything else what its
/// `ApplyField` impl says (a generated configuration, or the type itself for k8s-openapi's).
fn configured(ty: &Type, whole: bool, rt: &syn::Path) -> TokenStream {
    match held(ty) {
        Held::List(item) => {
            let item = configured(item, whole, rt);
            quote!(::std::vec::Vec<#item>)
        }
        Held::Map { map, key, value } => {
            let (map, value) = (format_ident!("{}", map), configured(value, whole, rt));
            quote!(::std::collections::#map<#key, #value>)
        }
        Held::One(ty) => match last_segment(ty) {
            _ if whole => quote!(#ty),
            Some((scalar, args)) if args.is_empty() && SCALARS.contains(&scalar.as_str()) => quote!(#ty),
            _ => quote!(<#ty as #rt::apply::ApplyField>::Configuration),
        },
    }
}

/// The last segment of a path type and its type arguments.
fn last_segment(ty: &Type) -> Option<(String, Vec<&Type>)> {
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last()?;
    let args = match &segment.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((segment.ident.to_string(), args))
}

/// The builder of one field: sets it, or for a list adds items and for a map adds entries, as
/// client-go's `With<Field>` does.
fn builder(field: &FieldDef, rt: &syn::Path) -> TokenStream {
    let ident = &field.ident;
    let plain = ident.to_string().trim_start_matches("r#").to_owned();
    let whole = held_whole(field);
    match held(&field.ty) {
        Held::List(item) => {
            let item = configured(item, whole, rt);
            let doc = format!(" Adds items to `{plain}`.");
            quote! {
                #[doc = #doc]
                #[must_use]
                pub fn #ident(mut self, items: impl ::std::iter::IntoIterator<Item = #item>) -> Self {
                    self.#ident.get_or_insert_with(::std::default::Default::default).extend(items);
                    self
                }
            }
        }
        Held::Map { key, value, .. } => {
            let value = configured(value, whole, rt);
            let doc = format!(" Adds entries to `{plain}` (a later value for the same key wins).");
            quote! {
                #[doc = #doc]
                #[must_use]
                pub fn #ident(mut self, entries: impl ::std::iter::IntoIterator<Item = (#key, #value)>) -> Self {
                    self.#ident.get_or_insert_with(::std::default::Default::default).extend(entries);
                    self
                }
            }
        }
        Held::One(_) => {
            let held = configured(&field.ty, whole, rt);
            let doc = format!(" Sets `{plain}`.");
            quote! {
                #[doc = #doc]
                #[must_use]
                pub fn #ident(mut self, value: impl ::std::convert::Into<#held>) -> Self {
                    self.#ident = ::std::option::Option::Some(value.into());
                    self
                }
            }
        }
    }
}
