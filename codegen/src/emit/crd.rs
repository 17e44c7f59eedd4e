//! CustomResourceDefinitions: for each `+kubebuilder:object:root=true` type, a
//! `custom_resource_definition()` that builds the CRD from the type's schemars schema through the
//! runtime's `CrdBuilder`, and kube's `CustomResourceExt`. The generator's part is the markers:
//! it walks the type's fields (and the package's types they use) and turns every schema marker
//! into a patch at the JSON pointer where schemars puts that field.

use proc_macro2::TokenStream;
use quote::quote;

use crate::Config;
use crate::markers::{Marker, SchemaEffect, schema_effect};
use crate::model::{JsonName, Package, RootType, TypeDef, roots_by_crd};
use crate::names;

/// The CRD functions and `CustomResourceExt` impls of a package's root types.
pub fn crds(package: &Package, config: &Config) -> TokenStream {
    package
        .types
        .iter()
        .filter(|t| t.crd.is_some())
        .map(|t| crd(&package.group, &package.types, t, config))
        .collect()
}

/// The CRD of one root type of `group`, whose fields may use the types in `types`; nothing
/// for a type without `+kubebuilder:object:root=true`.
pub fn crd(group: &str, types: &[TypeDef], def: &TypeDef, config: &Config) -> TokenStream {
    let Some(crd) = &def.crd else {
        return TokenStream::new();
    };
    let (rt, ident) = (&config.runtime, &def.ident);
    let crd_type = crd_type();
    let name = names::crd(&def.resource, group);
    let mut calls = Vec::new();
    if let Some(singular) = &crd.singular {
        calls.push(quote!(.singular(#singular)));
    }
    let short_names = &crd.short_names;
    if !short_names.is_empty() {
        calls.push(quote!(.short_names(&[#(#short_names),*])));
    }
    let categories = &crd.categories;
    if !categories.is_empty() {
        calls.push(quote!(.categories(&[#(#categories),*])));
    }
    for column in &crd.columns {
        let (name, type_, path) = (&column.name, &column.type_, &column.json_path);
        let description = option(column.description.as_deref());
        let format = option(column.format.as_deref());
        let priority = match column.priority.and_then(|p| i32::try_from(p).ok()) {
            Some(p) => {
                let p = proc_macro2::Literal::i32_unsuffixed(p);
                quote!(::std::option::Option::Some(#p))
            }
            None => quote!(::std::option::Option::None),
        };
        calls.push(quote!(.printer_column(#name, #type_, #path, #description, #format, #priority)));
    }
    for path in &crd.selectable_fields {
        calls.push(quote!(.selectable_field(#path)));
    }
    if crd.status {
        calls.push(quote!(.status_subresource()));
    }
    if let Some((spec, status, selector)) = &crd.scale {
        let selector = option(selector.as_deref());
        calls.push(quote!(.scale_subresource(#spec, #status, #selector)));
    }
    for (key, value) in &crd.annotations {
        calls.push(quote!(.annotation(#key, #value)));
    }
    for (key, value) in &crd.labels {
        calls.push(quote!(.label(#key, #value)));
    }
    let mut walk = Walk {
        types,
        calls: Vec::new(),
        stack: Vec::new(),
    };
    walk.type_markers(def, "");
    walk.fields(def, "");
    calls.extend(walk.calls);
    let doc = format!(
        " The CustomResourceDefinition `{name}` of this version of `{ident}`: its schemars schema \
         with the markers' validations, and the columns, names and subresources they ask for."
    );
    let errors = " A marker whose path is not in the schema (a serde or schemars rename the generator \
                  could not see), or whose value is not valid JSON.";
    quote! {
        impl #ident {
            #[doc = #doc]
            #[doc = ""]
            #[doc = " # Errors"]
            #[doc = ""]
            #[doc = #errors]
            pub fn custom_resource_definition() -> ::std::result::Result<#crd_type, #rt::crd::CrdError> {
                #rt::crd::CrdBuilder::for_kind::<Self>() #(#calls)* .build()
            }
        }

        impl ::kube::core::CustomResourceExt for #ident {
            /// The CRD; panics where `custom_resource_definition` returns an error.
            fn crd() -> #crd_type {
                match Self::custom_resource_definition() {
                    ::std::result::Result::Ok(crd) => crd,
                    ::std::result::Result::Err(error) => ::std::panic!("{}", error),
                }
            }

            fn crd_name() -> &'static str {
                #name
            }

            fn api_resource() -> ::kube::core::ApiResource {
                ::kube::core::ApiResource::erase::<Self>(&())
            }

            fn shortnames() -> &'static [&'static str] {
                &[#(#short_names),*]
            }
        }
    }
}

fn crd_type() -> TokenStream {
    quote!(::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition)
}

fn option(value: Option<&str>) -> TokenStream {
    match value {
        Some(value) => quote!(::std::option::Option::Some(#value)),
        None => quote!(::std::option::Option::None),
    }
}

/// The walk over a root type's fields that turns markers into builder calls.
struct Walk<'a> {
    /// The types a field may name by its bare identifier.
    types: &'a [TypeDef],
    calls: Vec<TokenStream>,
    /// The types being walked, so a recursive type ends the walk.
    stack: Vec<&'a syn::Ident>,
}

impl<'a> Walk<'a> {
    /// The markers written on `def` itself, applied where its schema is.
    fn type_markers(&mut self, def: &'a TypeDef, pointer: &str) {
        for marker in &def.markers {
            let what = format!("+{} on {}", marker.name, def.ident);
            match schema_effect(marker) {
                // On a type, Optional/Required set the default of its fields.
                Some(SchemaEffect::Required(required)) => {
                    for field in &def.fields {
                        let own = field
                            .markers
                            .iter()
                            .any(|m| matches!(schema_effect(m), Some(SchemaEffect::Required(_))));
                        if let (JsonName::Named(name), false) = (&field.json, own) {
                            self.calls.push(quote!(.required(#pointer, #name, #required, #what)));
                        }
                    }
                }
                Some(effect) => self.effect(effect, &at(pointer, marker), &what),
                None => {}
            }
        }
    }

    /// The markers of `def`'s fields, and of the package types they use, under `pointer`.
    fn fields(&mut self, def: &'a TypeDef, pointer: &str) {
        if self.stack.contains(&&def.ident) {
            return;
        }
        self.stack.push(&def.ident);
        for field in &def.fields {
            match &field.json {
                JsonName::Skipped => {}
                // A flattened struct's fields are the parent's properties.
                JsonName::Flattened => {
                    if let Some(inner) = self.package_type(&field.ty) {
                        self.type_markers(inner, pointer);
                        self.fields(inner, pointer);
                    }
                }
                JsonName::Named(name) => {
                    let property = format!("{pointer}/properties/{}", escape(name));
                    for marker in &field.markers {
                        let what = format!("+{} on {}.{}", marker.name, def.ident, field.ident);
                        match schema_effect(marker) {
                            Some(SchemaEffect::Required(required)) => {
                                self.calls.push(quote!(.required(#pointer, #name, #required, #what)));
                            }
                            Some(effect) => self.effect(effect, &at(&property, marker), &what),
                            None => {}
                        }
                    }
                    self.nested(&field.ty, property);
                }
            }
        }
        self.stack.pop();
    }

    /// Follows a field's type to the package types in it: through `Option` and boxes to the
    /// same schema, through lists to `items`, through maps to `additionalProperties`.
    fn nested(&mut self, ty: &syn::Type, pointer: String) {
        let Some((name, args)) = last_segment(ty) else {
            return;
        };
        let first = args.first();
        match (name.as_str(), first) {
            ("Option" | "Box" | "Arc" | "Rc", Some(inner)) => self.nested(inner, pointer),
            ("Vec" | "VecDeque" | "BTreeSet" | "HashSet", Some(inner)) => self.nested(inner, pointer + "/items"),
            ("BTreeMap" | "HashMap" | "IndexMap", Some(_)) => {
                if let Some(value) = args.get(1) {
                    self.nested(value, pointer + "/additionalProperties");
                }
            }
            _ => {
                // A recursive type's schema is a reference schemars does not inline: stop.
                if let Some(def) = self.package_type(ty).filter(|d| !self.stack.contains(&&d.ident)) {
                    self.type_markers(def, &pointer);
                    self.fields(def, &pointer);
                }
            }
        }
    }

    fn package_type(&self, ty: &syn::Type) -> Option<&'a TypeDef> {
        let (name, args) = last_segment(ty)?;
        let syn::Type::Path(path) = ty else {
            return None;
        };
        // A type of this module is named by its bare identifier.
        if path.path.segments.len() != 1 || !args.is_empty() {
            return None;
        }
        self.types.iter().find(|t| t.ident == name)
    }

    fn effect(&mut self, effect: SchemaEffect, pointer: &str, what: &str) {
        match effect {
            SchemaEffect::Merge(value) => {
                let fragment = value.to_string();
                self.calls.push(quote!(.merge(#pointer, #fragment, #what)));
            }
            SchemaEffect::Replace(value) => {
                let fragment = value.to_string();
                self.calls.push(quote!(.replace(#pointer, #fragment, #what)));
            }
            SchemaEffect::Required(_) => {}
        }
    }
}

/// Where a marker applies: the schema at `pointer`, or its items for `+kubebuilder:validation:items:…`.
fn at(pointer: &str, marker: &Marker) -> String {
    if marker.items {
        format!("{pointer}/items")
    } else {
        pointer.to_owned()
    }
}

/// A JSON pointer token (RFC 6901).
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The last path segment of a type and its type arguments.
fn last_segment(ty: &syn::Type) -> Option<(String, Vec<&syn::Type>)> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let segment = path.path.segments.last()?;
    let args = match &segment.arguments {
        syn::PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((segment.ident.to_string(), args))
}

/// `custom_resource_definitions()`: every kind's CRD, its versions merged, sorted by name (what
/// `deploy/crds/` holds). Each kind's versions must name one storage version when there are
/// several (`check::storage_versions`).
pub fn crd_list(roots: &[RootType<'_>], config: &Config) -> TokenStream {
    let rt = &config.runtime;
    let crd_type = crd_type();
    let kinds = roots_by_crd(roots);
    if kinds.is_empty() {
        return TokenStream::new();
    }
    let entries = kinds.values().map(|versions| match versions.as_slice() {
        [one] => {
            let path = &one.path;
            quote!(#path::custom_resource_definition()?)
        }
        several => {
            let paths = several.iter().map(|r| &r.path);
            let storage = several
                .iter()
                .find(|r| r.def.crd.as_ref().is_some_and(|c| c.storage_version))
                .map_or_else(String::new, |r| r.package.version.clone());
            quote!(#rt::crd::merge_versions(::std::vec::Vec::from([#(#paths::custom_resource_definition()?),*]), #storage)?)
        }
    });
    quote! {
        /// The CustomResourceDefinitions of every `+kubebuilder:object:root=true` kind, one per
        /// kind with its versions merged, sorted by name: what `deploy/crds/` holds.
        ///
        /// # Errors
        ///
        /// A marker that does not fit its type's schema.
        pub fn custom_resource_definitions() -> ::std::result::Result<::std::vec::Vec<#crd_type>, #rt::crd::CrdError> {
            ::std::result::Result::Ok(::std::vec::Vec::from([#(#entries),*]))
        }
    }
}
