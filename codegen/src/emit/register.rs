//! Registration: the group and version constants of a version module and `kube::Resource` for
//! each `+genclient` type (what register-gen and `Resource()` give Go types).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::{Package, TypeDef};
use crate::names;

/// Where generated code gets the API version from.
pub enum VersionSource<'a> {
    /// Known when generating: the version module's name.
    Literal(&'a str),
    /// Known only where the code is compiled: the last segment of `module_path!()`, checked at
    /// compile time (the derive's case), through the runtime at this path.
    ModulePath(&'a syn::Path),
}

/// The constants and `kube::Resource` impls of a package.
pub fn registration(package: &Package) -> TokenStream {
    let (group, version) = (&package.group, &package.version);
    let group_doc = format!(" The API group of the types in this module: `{group}`.");
    let version_doc = format!(" The API version of the types in this module: `{version}`.");
    let resources = package
        .types
        .iter()
        .filter(|t| t.genclient.is_some())
        .map(|t| resource(group, t, &VersionSource::Literal(version)));
    let (group_const, version_const) = (
        format_ident!("{}", names::GROUP_NAME_CONST),
        format_ident!("{}", names::VERSION_CONST),
    );
    quote! {
        #[doc = #group_doc]
        pub const #group_const: &str = #group;
        #[doc = #version_doc]
        pub const #version_const: &str = #version;
        #(#resources)*
    }
}

/// The `kube::Resource` impl of one `+genclient` type of `group`.
pub fn resource(group: &str, def: &TypeDef, version_source: &VersionSource<'_>) -> TokenStream {
    let ident = &def.ident;
    let kind = ident.to_string();
    let plural = &def.resource;
    let (version_body, api_version_body, check) = match version_source {
        VersionSource::Literal(version) => {
            let api_version = if group.is_empty() {
                (*version).to_owned()
            } else {
                format!("{group}/{version}")
            };
            (
                quote!(::std::borrow::Cow::Borrowed(#version)),
                quote!(::std::borrow::Cow::Borrowed(#api_version)),
                quote!(),
            )
        }
        VersionSource::ModulePath(rt) => {
            let version = quote!(#rt::__private::module_version(::core::module_path!()));
            let api_version = if group.is_empty() {
                quote!(::std::borrow::Cow::Borrowed(#version))
            } else {
                quote!(::std::borrow::Cow::Owned(::std::format!("{}/{}", #group, #version)))
            };
            // The version is the module's name: refuse to compile where it is not one.
            let check = quote!(const _: () = #rt::__private::check_version(::core::module_path!()););
            (quote!(::std::borrow::Cow::Borrowed(#version)), api_version, check)
        }
    };
    let namespaced = def.genclient.as_ref().is_some_and(|g| g.namespaced);
    let scope = if namespaced {
        quote!(::k8s_openapi::NamespaceResourceScope)
    } else {
        quote!(::k8s_openapi::ClusterResourceScope)
    };
    let meta = quote!(::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta);
    let cow = quote!(::std::borrow::Cow<'_, str>);
    quote! {
        #check

        impl ::kube::Resource for #ident {
            type DynamicType = ();
            type Scope = #scope;

            fn kind(_: &()) -> #cow {
                ::std::borrow::Cow::Borrowed(#kind)
            }

            fn group(_: &()) -> #cow {
                ::std::borrow::Cow::Borrowed(#group)
            }

            fn version(_: &()) -> #cow {
                #version_body
            }

            fn api_version(_: &()) -> #cow {
                #api_version_body
            }

            fn plural(_: &()) -> #cow {
                ::std::borrow::Cow::Borrowed(#plural)
            }

            fn meta(&self) -> &#meta {
                &self.metadata
            }

            fn meta_mut(&mut self) -> &mut #meta {
                &mut self.metadata
            }
        }
    }
}
