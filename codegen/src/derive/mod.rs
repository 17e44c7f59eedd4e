//! The derive front end's work, in the library: one type's artifacts from the same tags the
//! command line reads. A derive sees only its type, so the group comes from the type's own
//! `+groupName=` and the version from the name of the module the type is in, checked when the
//! code compiles.

use proc_macro2::TokenStream;
use quote::quote;

mod accessors;

pub(crate) use accessors::accessors_macro;

use crate::Config;
use crate::emit::{self, VersionSource};
use crate::model::{Options, package};
use crate::tags::tags;

/// The tokens `#[derive(Codegen)]` adds for `input`: `kube::Resource`, `Clone` when deepcopy
/// selects the type, its typed client, lister and informer — or a compile error for each problem.
pub fn derive(input: TokenStream, config: &Config) -> TokenStream {
    let item: syn::Item = match syn::parse2(input) {
        Ok(item) => item,
        Err(error) => return error.to_compile_error(),
    };
    let syn::Item::Struct(strukt) = &item else {
        return syn::Error::new_spanned(
            &item,
            "#[derive(Codegen)] works on structs: API objects and their parts",
        )
        .to_compile_error();
    };
    let config = match with_options(&strukt.attrs, config) {
        Ok(config) => config,
        Err(error) => return skeleton(error.to_compile_error(), strukt, &tags(&strukt.attrs)),
    };
    let config = &config;
    let type_tags = tags(&strukt.attrs);
    let Some(group) = type_tags.iter().find(|t| t.key == "groupName") else {
        if type_tags.iter().any(|t| t.key == "genclient") {
            let message = format!(
                "the derive cannot see the module's //! doc: add `/// +groupName=<group>` to {}",
                strukt.ident
            );
            let error = syn::Error::new(strukt.ident.span(), message).to_compile_error();
            return skeleton(error, strukt, &type_tags);
        }
        let not_genclient = accessors::not_genclient(&strukt.ident);
        let clone = deepcopy_only(&item);
        return quote!(#clone #not_genclient);
    };
    // The package tags a module would carry, taken from the type.
    let line = format!("+groupName={}", group.value.trim());
    let mut attrs: Vec<syn::Attribute> = vec![syn::parse_quote!(#![doc = #line])];
    if let Some(go_name) = type_tags.iter().find(|t| t.key == "groupGoName") {
        let line = format!("+groupGoName={}", go_name.value.trim());
        attrs.push(syn::parse_quote!(#![doc = #line]));
    }
    let file = syn::File {
        shebang: None,
        frontmatter: None,
        attrs,
        items: vec![item.clone()],
    };
    let package = match package(&file, "derive", "v1", &derive_options()) {
        Ok(package) => package,
        Err(diagnostics) => {
            let errors: TokenStream = diagnostics.iter().map(|d| d.to_compile_error()).collect();
            return skeleton(errors, strukt, &type_tags);
        }
    };
    let def = &package.types[0];
    let resource = def
        .genclient
        .is_some()
        .then(|| emit::resource(&package, def, &VersionSource::ModulePath(&config.runtime)));
    let clone = def.deepcopy.then(|| emit::clone_impl(&def.item));
    // Without generated Clone the type must bring its own, perhaps derived beside Codegen,
    // where the derive cannot see it: let the compiler check.
    let needs_clone = (def.genclient.is_some() && !def.deepcopy).then(|| {
        let (rt, ty) = (&config.runtime, &def.ident);
        quote::quote_spanned!(ty.span()=> const _: () = #rt::__private::assert_clone::<#ty>();)
    });
    let client = def.genclient.is_some().then(|| emit::typed_client(def, config));
    let lister = emit::has_lister(def).then(|| emit::lister(def, config));
    let informer = emit::has_informer(def).then(|| emit::informer(def, config));
    let crd = emit::crd(&package, def, config);
    let accessors = match def.genclient {
        Some(_) => accessors::full(&package, def, config),
        None => accessors::not_genclient(&def.ident),
    };
    quote!(#resource #clone #needs_clone #client #lister #informer #crd #accessors)
}

/// `config` with the front end's options from `#[codegen(…)]` attributes: `runtime = <path>`,
/// the runtime crate's path for crates that re-export it (the CLI's `--runtime`).
pub(crate) fn with_options(attrs: &[syn::Attribute], config: &Config) -> syn::Result<Config> {
    let mut config = config.clone();
    for attr in attrs.iter().filter(|a| a.path().is_ident("codegen")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("runtime") {
                config.runtime = meta.value()?.parse()?;
                Ok(())
            } else {
                Err(meta.error("unknown codegen option; the one option is `runtime = <path>`"))
            }
        })?;
    }
    Ok(config)
}

/// The model's options for the derive, which cannot see the traits derived beside it.
fn derive_options() -> Options {
    Options {
        derive: true,
        ..Options::default()
    }
}

/// `errors`, and what a type with a tag error still gets so they are not repeated at every
/// use: the `Clone` the derive would have given (for a `+genclient` type unless deepcopy is
/// off, or with `+k8s:deepcopy-gen=true`) and an accessor macro that gives nothing.
fn skeleton(errors: TokenStream, strukt: &syn::ItemStruct, type_tags: &[crate::tags::Tag]) -> TokenStream {
    let deepcopy = type_tags
        .iter()
        .find(|t| t.key == "k8s:deepcopy-gen")
        .map(|t| t.value.trim());
    let genclient = type_tags.iter().any(|t| t.key == "genclient");
    let wants_clone = match deepcopy {
        Some("false") => false,
        Some("true") => true,
        _ => genclient,
    };
    let clone = wants_clone.then(|| emit::clone_impl(strukt));
    let accessors = accessors::skeleton(&strukt.ident);
    quote!(#errors #clone #accessors)
}

/// A type without a group: only `+k8s:deepcopy-gen=true` can ask anything of it.
fn deepcopy_only(item: &syn::Item) -> TokenStream {
    let file = syn::File {
        shebang: None,
        frontmatter: None,
        attrs: vec![syn::parse_quote!(#![doc = "+groupName=derive.invalid"])],
        items: vec![item.clone()],
    };
    match package(&file, "derive", "v1", &derive_options()) {
        Ok(package) => package
            .types
            .first()
            .filter(|d| d.deepcopy)
            .map(|d| emit::clone_impl(&d.item))
            .unwrap_or_default(),
        Err(diagnostics) => diagnostics.iter().map(|d| d.to_compile_error()).collect(),
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
            pub struct Thing {
                pub metadata: ObjectMeta,
            }
        };
        let output = derive(input, &Config::default()).to_string();
        assert!(!output.contains("compile_error"), "{output}");
        assert!(!output.contains("codegen_runtime"), "{output}");
        assert!(output.contains("crate :: rt :: cache"), "{output}");
    }
}
