//! The derive front end's work, in the library: one type's artifacts from the same tags the
//! command line reads. A derive sees only its type, so the group comes from the type's own
//! `+groupName=` and the version from the name of the module the type is in, checked when the
//! code compiles.

use proc_macro2::TokenStream;
use quote::quote;

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
    let type_tags = tags(&strukt.attrs);
    let Some(group) = type_tags.iter().find(|t| t.key == "groupName") else {
        if type_tags.iter().any(|t| t.key == "genclient") {
            let message = format!(
                "the derive cannot see the module's //! doc: add `/// +groupName=<group>` to {}",
                strukt.ident
            );
            return syn::Error::new(strukt.ident.span(), message).to_compile_error();
        }
        return deepcopy_only(&item, config);
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
    let package = match package(&file, "derive", "v1", &Options::default()) {
        Ok(package) => package,
        Err(diagnostics) => return diagnostics.iter().map(|d| d.to_compile_error()).collect(),
    };
    let def = &package.types[0];
    let resource = def
        .genclient
        .is_some()
        .then(|| emit::resource(&package, def, &VersionSource::ModulePath(&config.runtime)));
    let clone = def.deepcopy.then(|| emit::clone_impl(def));
    let client = def.genclient.is_some().then(|| emit::typed_client(def, config));
    let lister = emit::has_lister(def).then(|| emit::lister(def, config));
    let informer = emit::has_informer(def).then(|| emit::informer(def, config));
    quote!(#resource #clone #client #lister #informer)
}

/// A type without a group: only `+k8s:deepcopy-gen=true` can ask anything of it.
fn deepcopy_only(item: &syn::Item, _config: &Config) -> TokenStream {
    let file = syn::File {
        shebang: None,
        frontmatter: None,
        attrs: vec![syn::parse_quote!(#![doc = "+groupName=derive.invalid"])],
        items: vec![item.clone()],
    };
    match package(&file, "derive", "v1", &Options::default()) {
        Ok(package) => package
            .types
            .first()
            .filter(|d| d.deepcopy)
            .map(emit::clone_impl)
            .unwrap_or_default(),
        Err(diagnostics) => diagnostics.iter().map(|d| d.to_compile_error()).collect(),
    }
}
