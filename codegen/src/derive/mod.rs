//! The derive front end's work, in the library: one type's artifacts from the same tags the
//! command line reads. A derive sees only its type, so the group comes from the type's own
//! `+groupName=` and the version from the name of the module the type is in, checked when the
//! code compiles.

use proc_macro2::TokenStream;
use quote::quote;

mod accessors;

use crate::Config;
use crate::diag::Diagnostics;
use crate::emit::{self, VersionSource};
use crate::model::{Options, TypeDef, TypeScope, applied_whole, checked_group, derives, type_def};
use crate::symbol::{DEEPCOPY_GEN, GENCLIENT, GROUP_GO_NAME, GROUP_NAME};
use crate::tags::{Tag, tags};

/// The tokens `#[derive(Codegen)]` adds for `input`: `kube::Resource`, `Clone` when deepcopy
/// selects the type, its typed client, lister and informer — or a compile error for each problem.
pub fn derive(input: TokenStream, config: &Config) -> TokenStream {
    let item: syn::Item = match syn::parse2(input) {
        Ok(item) => item,
        Err(error) => return error.to_compile_error(),
    };
    if let syn::Item::Enum(item) = &item
        && !tags(&item.attrs).iter().any(|t| t.key == GENCLIENT)
    {
        // An enum is a value of an API type: it is applied whole, by the package's rule.
        return match with_options(&item.attrs, config, None) {
            Ok(config) if applied_whole(item) => emit::applied_whole(&item.ident, &config),
            Ok(_) => TokenStream::new(),
            Err(error) => error.to_compile_error(),
        };
    }
    let syn::Item::Struct(strukt) = &item else {
        return syn::Error::new_spanned(
            &item,
            "+genclient types are structs: an API object has metadata, a spec and a status",
        )
        .to_compile_error();
    };
    // The derive cannot see the traits derived beside it, nor anything else in the module.
    let mut options = Options {
        derive: true,
        ..Options::default()
    };
    let config = match with_options(&strukt.attrs, config, Some(&mut options)) {
        Ok(config) => config,
        Err(error) => return skeleton(error.to_compile_error(), strukt, &tags(&strukt.attrs)),
    };
    let config = &config;
    let type_tags = tags(&strukt.attrs);
    let Some(group_tag) = type_tags.iter().find(|t| t.key == GROUP_NAME) else {
        if type_tags.iter().any(|t| t.key == GENCLIENT) {
            let message = format!(
                "the derive cannot see the module's //! doc: add `/// +groupName=<group>` to {}",
                strukt.ident
            );
            let error = syn::Error::new(strukt.ident.span(), message).to_compile_error();
            return skeleton(error, strukt, &type_tags);
        }
        let not_genclient = accessors::not_genclient(&strukt.ident);
        let part = api_part(&item, &type_tags, &options, config);
        return quote!(#part #not_genclient);
    };
    // The group is the type's own tag, named by the rules a module's //! doc follows.
    let mut diagnostics = Diagnostics::default();
    let group = group_tag.value.trim();
    let go_name = type_tags
        .iter()
        .find(|t| t.key == GROUP_GO_NAME)
        .map(|t| (t.value.trim(), t.span));
    let group_go_name = checked_group((group, group_tag.span), go_name, &mut diagnostics);
    let def = match model(&item, Some(group), &options, diagnostics) {
        Ok(def) => def,
        Err(errors) => return skeleton(errors, strukt, &type_tags),
    };
    let resource = def
        .genclient
        .is_some()
        .then(|| emit::resource(group, &def, &VersionSource::ModulePath(&config.runtime)));
    let clone = def.deepcopy.then(|| emit::clone_impl(&def.item));
    // Without generated Clone the type must bring its own, perhaps derived beside Codegen,
    // where the derive cannot see it: let the compiler check.
    let needs_clone = (def.genclient.is_some() && !def.deepcopy).then(|| {
        let (rt, ty) = (&config.runtime, &def.ident);
        quote::quote_spanned!(ty.span()=> const _: () = #rt::__private::assert_clone::<#ty>();)
    });
    let apply = emit::apply_configuration(&def, config);
    let client = def.genclient.is_some().then(|| emit::typed_client(&def, config));
    let lister = emit::has_lister(&def).then(|| emit::lister(&def, config));
    let informer = emit::has_informer(&def).then(|| emit::informer(&def, config));
    // A derive sees no other type its fields could name.
    let crd = emit::crd(group, std::slice::from_ref(&def), &def, config);
    let accessors = match def.genclient {
        Some(_) => accessors::full(group, &group_go_name, &def, config),
        None => accessors::not_genclient(&def.ident),
    };
    quote!(#resource #clone #needs_clone #apply #client #lister #informer #crd #accessors)
}

/// The model of the derived struct `item`, its own `+groupName`s checked against `group`; or
/// the compile errors of every problem, with those found before (in `diagnostics`).
fn model(
    item: &syn::Item,
    group: Option<&str>,
    options: &Options,
    mut diagnostics: Diagnostics,
) -> Result<TypeDef, TokenStream> {
    let scope = TypeScope {
        group,
        deepcopy_package: false,
        siblings: std::slice::from_ref(item),
        options,
    };
    let def = type_def(item, &scope, &mut diagnostics);
    match def.filter(|_| diagnostics.is_empty()) {
        Some(def) => Ok(def),
        None => Err(diagnostics.iter().map(|d| d.to_compile_error()).collect()),
    }
}

/// `config` with the front end's options from `#[codegen(…)]` attributes: `runtime = <path>`,
/// the runtime crate's path for crates that re-export it (the CLI's `--runtime`), and where a
/// type is modelled (`options`, the derive), `min_kube_version = "1.31"` (the CLI's
/// `--min-kube-version`).
pub(crate) fn with_options(
    attrs: &[syn::Attribute],
    config: &Config,
    mut options: Option<&mut Options>,
) -> syn::Result<Config> {
    let mut config = config.clone();
    let known = match options {
        Some(_) => "the options are `runtime = <path>` and `min_kube_version = \"1.<minor>\"`",
        None => "the one option is `runtime = <path>`",
    };
    for attr in attrs.iter().filter(|a| a.path().is_ident("codegen")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("runtime") {
                config.runtime = meta.value()?.parse()?;
                Ok(())
            } else if let (true, Some(options)) = (meta.path.is_ident("min_kube_version"), options.as_deref_mut()) {
                let text: syn::LitStr = meta.value()?.parse()?;
                options.min_kube_version = text.value().parse().map_err(|e| syn::Error::new(text.span(), e))?;
                Ok(())
            } else {
                Err(meta.error(format!("unknown codegen option; {known}")))
            }
        })?;
    }
    Ok(config)
}

/// `errors`, and what a type with a tag error still gets so they are not repeated at every
/// use: the `Clone` the derive would have given (for a `+genclient` type unless deepcopy is
/// off, or with `+k8s:deepcopy-gen=true`) and an accessor macro that gives nothing.
fn skeleton(errors: TokenStream, strukt: &syn::ItemStruct, type_tags: &[Tag]) -> TokenStream {
    let deepcopy = type_tags.iter().find(|t| t.key == DEEPCOPY_GEN).map(|t| t.value.trim());
    let genclient = type_tags.iter().any(|t| t.key == GENCLIENT);
    let wants_clone = match deepcopy {
        Some("false") => false,
        Some("true") => true,
        _ => genclient,
    };
    let clone = wants_clone.then(|| emit::clone_impl(strukt));
    let resource = genclient.then(|| placeholder_resource(strukt));
    let accessors = accessors::skeleton(&strukt.ident);
    quote!(#errors #clone #resource #accessors)
}

/// A `kube::Resource` impl with placeholder values for a `+genclient` type whose tags have
/// errors: its `ApiVersion<Self>`/`Kind<Self>` fields and every use of it need one, and without
/// it each would be one more error. The build fails on `errors` anyway, so the values never run.
/// Nothing where the impl itself could not compile (no `metadata` field).
fn placeholder_resource(strukt: &syn::ItemStruct) -> Option<TokenStream> {
    let has_metadata = strukt
        .fields
        .iter()
        .any(|f| f.ident.as_ref().is_some_and(|i| i == "metadata"));
    if !has_metadata {
        return None;
    }
    let ident = &strukt.ident;
    let (impl_generics, type_generics, where_clause) = strukt.generics.split_for_impl();
    let meta = quote!(::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta);
    let placeholder = quote!(::std::borrow::Cow::Borrowed(""));
    Some(quote! {
        impl #impl_generics ::kube::Resource for #ident #type_generics #where_clause {
            type DynamicType = ();
            type Scope = ::k8s_openapi::NamespaceResourceScope;
            fn kind(_: &()) -> ::std::borrow::Cow<'_, str> { #placeholder }
            fn group(_: &()) -> ::std::borrow::Cow<'_, str> { #placeholder }
            fn version(_: &()) -> ::std::borrow::Cow<'_, str> { #placeholder }
            fn plural(_: &()) -> ::std::borrow::Cow<'_, str> { #placeholder }
            fn meta(&self) -> &#meta { &self.metadata }
            fn meta_mut(&mut self) -> &mut #meta { &mut self.metadata }
        }
    })
}

/// A type without a group: a part of an API type (a spec, a status). Deriving `Codegen` on it is
/// the opt-in deepcopy-gen's tag is in Go, so it gets its `Clone` unless
/// `+k8s:deepcopy-gen=false` says it brings its own; and its apply configuration.
fn api_part(item: &syn::Item, type_tags: &[Tag], options: &Options, config: &Config) -> TokenStream {
    match model(item, None, options, Diagnostics::default()) {
        Ok(def) => {
            let opted_out = type_tags
                .iter()
                .any(|t| t.key == DEEPCOPY_GEN && t.value.trim() == "false");
            // A `Clone` derived beside it, where the derive can see it, is kept.
            let derived = derives(&def.item.attrs, "Clone");
            let clone = (!opted_out && !derived).then(|| emit::clone_impl(&def.item));
            let apply = emit::apply_configuration(&def, config);
            quote!(#clone #apply)
        }
        Err(errors) => errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runtime_override_should_replace_every_runtime_path() {
        let input = quote! {
            /// +genclient
            /// +groupName=example.dev
            #[codegen(runtime = crate::rt)]
            #[serde(rename_all = "camelCase")]
            pub struct Thing {
                pub api_version: ApiVersion<Self>,
                pub kind: Kind<Self>,
                pub metadata: ObjectMeta,
            }
        };
        let output = derive(input, &Config::default()).to_string();
        assert!(!output.contains("compile_error"), "{output}");
        assert!(!output.contains("codegen_runtime"), "{output}");
        assert!(output.contains("crate :: rt :: cache"), "{output}");
    }
}
