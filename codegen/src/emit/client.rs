//! Typed clients: per resource, only the verbs its tags allow (plus `+genclient:method`
//! extensions) — client-gen's typed package, over `kube::Api`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::group_version::group_version_client;
use crate::Config;
use crate::genclient::{Method, Verb};
use crate::model::{Package, TypeDef};
use crate::names;

/// The typed clients of a package and its group-version client.
pub fn clients(package: &Package, config: &Config) -> TokenStream {
    let typed = package
        .types
        .iter()
        .filter(|t| t.genclient.is_some())
        .map(|t| typed_client(t, config));
    let group_version = group_version_client(package);
    quote!(#(#typed)* #group_version)
}

/// The typed client of one `+genclient` type.
pub fn typed_client(def: &TypeDef, config: &Config) -> TokenStream {
    let genclient = def.genclient.as_ref().expect("filtered to +genclient types");
    let ty = &def.ident;
    let client = names::typed_client(&def.ident);
    let scope = if genclient.namespaced {
        "in one namespace"
    } else {
        "cluster-scoped"
    };
    let doc = format!(
        " A typed client for {} ({scope}), with the verbs its tags allow.",
        def.plural
    );
    let constructor = if genclient.namespaced {
        let doc = format!(" A client for the {} in `namespace`.", def.plural);
        quote! {
            #[doc = #doc]
            pub fn namespaced(client: ::kube::Client, namespace: &str) -> Self {
                Self {
                    api: ::kube::Api::<#ty>::namespaced(client.clone(), namespace),
                    client,
                    namespace: ::std::option::Option::Some(::std::string::String::from(namespace)),
                }
            }
        }
    } else {
        let doc = format!(" A client for the {} (cluster-scoped).", def.plural);
        quote! {
            #[doc = #doc]
            pub fn all(client: ::kube::Client) -> Self {
                Self { api: ::kube::Api::<#ty>::all(client.clone()), client, namespace: ::std::option::Option::None }
            }
        }
    };
    let api = format_ident!("{}", names::API_METHOD);
    let verbs = genclient.verbs.iter().map(|verb| verb_method(def, *verb, config));
    let methods = genclient
        .methods
        .iter()
        .map(|method| custom_method(def, method, config));
    quote! {
        #[doc = #doc]
        #[derive(Clone)]
        pub struct #client {
            api: ::kube::Api<#ty>,
            #[allow(dead_code)]
            client: ::kube::Client,
            #[allow(dead_code)]
            namespace: ::std::option::Option<::std::string::String>,
        }

        impl #client {
            #constructor

            /// The underlying `kube::Api`, for anything the typed methods do not cover.
            pub fn #api(&self) -> &::kube::Api<#ty> {
                &self.api
            }

            #(#verbs)*
            #(#methods)*
        }
    }
}

/// One verb of a typed client: a thin wrapper over `kube::Api`. Every method is `#[inline]`,
/// which also makes it compiled only by the crates that call it (like a generic): a crate of
/// many kinds does not pay for the futures of every verb of every kind it never uses.
fn verb_method(def: &TypeDef, verb: Verb, config: &Config) -> TokenStream {
    let rt = &config.runtime;
    let ty = &def.ident;
    let kind = ty.to_string();
    let method = names::verb_method(verb);
    let result = quote!(::std::result::Result);
    let error = quote!(::kube::Error);
    let name_of = quote! {
        ::kube::ResourceExt::name_any(object)
    };
    match verb {
        Verb::Create => {
            let doc = format!(" Creates a {kind} and returns the server's representation of it.");
            quote! {
                #[doc = #doc]
                #[inline]
                pub async fn #method(&self, object: &#ty, params: &::kube::api::PostParams) -> #result<#ty, #error> {
                    self.api.create(params, object).await
                }
            }
        }
        Verb::Update => {
            let doc =
                format!(" Replaces a {kind} (named by its metadata) and returns the server's representation of it.");
            quote! {
                #[doc = #doc]
                #[inline]
                pub async fn #method(&self, object: &#ty, params: &::kube::api::PostParams) -> #result<#ty, #error> {
                    self.api.replace(&#name_of, params, object).await
                }
            }
        }
        Verb::UpdateStatus => {
            let doc = format!(" Replaces the status of a {kind} through its `/status` subresource.");
            quote! {
                #[doc = #doc]
                #[inline]
                pub async fn #method(&self, object: &#ty, params: &::kube::api::PostParams) -> #result<#ty, #error> {
                    self.api.replace_status(&#name_of, params, object).await
                }
            }
        }
        Verb::Delete => {
            let doc =
                format!(" Deletes the {kind} `name`: the object while finalizers hold it, else the server's Status.");
            quote! {
                #[doc = #doc]
                #[inline]
                pub async fn #method(&self, name: &str, params: &::kube::api::DeleteParams) -> #result<#rt::__private::Either<#ty, ::kube::core::Status>, #error> {
                    self.api.delete(name, params).await
                }
            }
        }
        Verb::DeleteCollection => {
            let doc = format!(" Deletes the {} the list parameters select.", def.plural);
            quote! {
                #[doc = #doc]
                #[inline]
                pub async fn #method(&self, params: &::kube::api::DeleteParams, list: &::kube::api::ListParams) -> #result<#rt::__private::Either<::kube::core::ObjectList<#ty>, ::kube::core::Status>, #error> {
                    self.api.delete_collection(params, list).await
                }
            }
        }
        Verb::Get => {
            let doc = format!(" Gets the {kind} `name`.");
            quote! {
                #[doc = #doc]
                #[inline]
                pub async fn #method(&self, name: &str) -> #result<#ty, #error> {
                    self.api.get(name).await
                }
            }
        }
        Verb::List => {
            let doc = format!(" Lists the {} the parameters select.", def.plural);
            quote! {
                #[doc = #doc]
                #[inline]
                pub async fn #method(&self, params: &::kube::api::ListParams) -> #result<::kube::core::ObjectList<#ty>, #error> {
                    self.api.list(params).await
                }
            }
        }
        Verb::Watch => {
            let doc = format!(" Watches {} from `resource_version` on.", def.plural);
            quote! {
                #[doc = #doc]
                #[inline]
                pub async fn #method(
                    &self,
                    params: &::kube::api::WatchParams,
                    resource_version: &str,
                ) -> #result<impl #rt::__private::Stream<Item = #result<::kube::api::WatchEvent<#ty>, #error>> + use<>, #error> {
                    self.api.watch(params, resource_version).await
                }
            }
        }
        Verb::Patch => {
            let doc = format!(" Patches the {kind} `name` and returns the server's representation of it.");
            let status = def.genclient.as_ref().is_some_and(|g| g.status).then(|| {
                let patch_status = format_ident!("{}", names::PATCH_STATUS_METHOD);
                quote! {
                /// Patches the status of `name` through its `/status` subresource.
                    #[inline]
                    pub async fn #patch_status<P: ::serde::Serialize + ::std::fmt::Debug>(&self, name: &str, params: &::kube::api::PatchParams, patch: &::kube::api::Patch<P>) -> #result<#ty, #error> {
                        self.api.patch_status(name, params, patch).await
                    }
                    }
            });
            quote! {
                #[doc = #doc]
                #[inline]
                pub async fn #method<P: ::serde::Serialize + ::std::fmt::Debug>(&self, name: &str, params: &::kube::api::PatchParams, patch: &::kube::api::Patch<P>) -> #result<#ty, #error> {
                    self.api.patch(name, params, patch).await
                }

                #status

            }
        }
        Verb::Apply | Verb::ApplyStatus => {
            let config = names::apply_configuration(ty);
            let (doc, call) = if verb == Verb::Apply {
                (
                    format!(
                        " Server-side applies `config` to the {kind} it names, as `options.field_manager`, and returns
 the server's representation of the {kind}: the fields it sets become that manager's."
                    ),
                    quote!(patch),
                )
            } else {
                (
                    format!(
                        " Server-side applies the status in `config` to the {kind} it names, through its `/status`
 subresource, as `options.field_manager`."
                    ),
                    quote!(patch_status),
                )
            };
            let doc = super::doc_lines(&doc);
            quote! {
                #doc
                #[inline]
                pub async fn #method(&self, config: &#config, options: &#rt::apply::ApplyOptions) -> #result<#ty, #error> {
                    let name = config.name();
                    if name.is_empty() {
                        return ::std::result::Result::Err(#rt::apply::missing_name(#kind));
                    }
                    // The configuration carries its apiVersion and kind itself.
                    self.api.#call(name, &options.patch_params(), &::kube::api::Patch::Apply(config)).await
                }
            }
        }
    }
}

/// What an apply extension sends (client-gen's `Input` apply configuration): a k8s-openapi
/// type, whose optional fields are already `Option`s, as it is; this module's type (the kind
/// itself without `input=`) as its generated apply configuration.
fn method_apply_configuration(def: &TypeDef, method: &Method) -> TokenStream {
    match method.input.as_deref() {
        Some(go) if go.contains('.') || go.contains('/') => rust_type(go),
        Some(local) => {
            let config = names::apply_configuration(&format_ident!("{}", local));
            quote!(#config)
        }
        None => {
            let config = names::apply_configuration(&def.ident);
            quote!(#config)
        }
    }
}

/// A Go type named in `input=`/`result=` as a Rust path: `k8s.io/api/<group>/<version>.<Type>`
/// and apimachinery's meta types map into k8s-openapi; a bare name is a type of this module.
pub fn rust_type(go: &str) -> TokenStream {
    let (package, name) = go.rsplit_once('.').unwrap_or(("", go));
    let name = format_ident!("{}", name);
    if let Some(rest) = package.strip_prefix("k8s.io/api/") {
        let segments = rest.split('/').map(|s| format_ident!("{}", s.replace('-', "_")));
        return quote!(::k8s_openapi::api::#(#segments)::*::#name);
    }
    if let Some(rest) = package.strip_prefix("k8s.io/apimachinery/pkg/") {
        let segments = rest.split('/').map(|s| format_ident!("{}", s));
        return quote!(::k8s_openapi::apimachinery::pkg::#(#segments)::*::#name);
    }
    quote!(#name)
}

/// A `+genclient:method`: a request on the resource or its subresource, typed as the tag says,
/// built with `kube::core::Request` and sent with the client.
fn custom_method(def: &TypeDef, method: &Method, config: &Config) -> TokenStream {
    let rt = &config.runtime;
    let ty = &def.ident;
    let ident = format_ident!("{}", names::method(&method.name));
    let single = method.result.as_deref().map(rust_type).unwrap_or_else(|| quote!(#ty));
    let result = if method.verb == Verb::List {
        quote!(::kube::core::ObjectList<#single>)
    } else {
        single
    };
    let input = method.input.as_deref().map(rust_type).unwrap_or_else(|| quote!(#ty));
    let sub = method.subresource.as_deref().unwrap_or("");
    let doc = format!(
        " `{}`: {} on {}{}.",
        method.name,
        method.verb.tag_name(),
        def.plural,
        if sub.is_empty() {
            String::new()
        } else {
            format!("/{sub}")
        }
    );
    let post = quote!(params: &::kube::api::PostParams);
    let serialize = quote!(let body = #rt::__private::serde_json::to_vec(input).map_err(::kube::Error::SerdeError)?;);
    let (args, prelude, build) = match (method.verb, sub) {
        (Verb::Get, "") => (
            quote!(name: &str),
            quote!(),
            quote!(get(name, &::kube::api::GetParams::default())),
        ),
        (Verb::Get, sub) => (quote!(name: &str), quote!(), quote!(get_subresource(#sub, name))),
        (Verb::List, "") => (quote!(params: &::kube::api::ListParams), quote!(), quote!(list(params))),
        // client-gen's listSubresourceTemplate: GET <name>/<subresource>, a list of results.
        (Verb::List, sub) => (quote!(name: &str), quote!(), quote!(get_subresource(#sub, name))),
        (Verb::Create, "") => (quote!(input: &#input, #post), serialize, quote!(create(params, body))),
        (Verb::Create, sub) => (
            quote!(name: &str, input: &#input, #post),
            serialize,
            quote!(create_subresource(#sub, name, params, body)),
        ),
        (Verb::Update, "") => (
            quote!(name: &str, input: &#input, #post),
            serialize,
            quote!(replace(name, params, body)),
        ),
        (Verb::Update, sub) => (
            quote!(name: &str, input: &#input, #post),
            serialize,
            quote!(replace_subresource(#sub, name, params, body)),
        ),
        (Verb::Apply, sub) => {
            let config = method_apply_configuration(def, method);
            let args = quote!(name: &str, config: &#config, options: &#rt::apply::ApplyOptions);
            let prelude = quote!(let params = options.patch_params(););
            let patch = quote!(&::kube::api::Patch::Apply(config));
            match sub {
                "" => (args, prelude, quote!(patch(name, &params, #patch))),
                sub => (args, prelude, quote!(patch_subresource(#sub, name, &params, #patch))),
            }
        }
        (Verb::Patch, "") => (
            quote!(name: &str, params: &::kube::api::PatchParams, patch: &::kube::api::Patch<#input>),
            quote!(),
            quote!(patch(name, params, patch)),
        ),
        (Verb::Patch, sub) => (
            quote!(name: &str, params: &::kube::api::PatchParams, patch: &::kube::api::Patch<#input>),
            quote!(),
            quote!(patch_subresource(#sub, name, params, patch)),
        ),
        (other, _) => unreachable!("the model accepts only extension verbs, not {other:?}"),
    };
    quote! {
        #[doc = #doc]
        #[inline]
        pub async fn #ident(&self, #args) -> ::std::result::Result<#result, ::kube::Error> {
            #prelude
            let request = ::kube::core::Request::new(<#ty as ::kube::Resource>::url_path(&(), self.namespace.as_deref()))
                .#build
                .map_err(::kube::Error::BuildRequest)?;
            self.client.request::<#result>(request).await
        }
    }
}
