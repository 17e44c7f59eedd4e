//! Rules about a type's place in its module: generated names that would collide with the API's,
//! visibility generated code needs, and whether `Clone` is already there.

use syn::spanned::Spanned;
use syn::{Fields, Ident, Item, ItemStruct};

use super::TypeDef;
use crate::diag::{Diagnostic, Diagnostics};
use crate::names;

/// Generated items live in a module that glob-imports the API module: an API item with a
/// generated item's name would be silently shadowed, so it is an error.
pub(super) fn check_collisions(
    file: &syn::File,
    group_go_name: &str,
    version: &str,
    types: &[TypeDef],
    diagnostics: &mut Diagnostics,
) {
    let mut generated = vec![
        names::GROUP_NAME_CONST.to_owned(),
        names::VERSION_CONST.to_owned(),
        names::group_version_client(group_go_name, version).to_string(),
        names::version_informers(group_go_name, version).to_string(),
    ];
    for def in types.iter().filter(|t| t.genclient.is_some()) {
        let kind = &def.ident;
        let per_type = [
            names::typed_client(kind),
            names::lister(kind),
            names::namespace_lister(kind),
            names::informer(kind),
        ];
        generated.extend(per_type.iter().map(ToString::to_string));
    }
    for item in &file.items {
        let ident = match item {
            Item::Struct(i) => &i.ident,
            Item::Enum(i) => &i.ident,
            Item::Const(i) => &i.ident,
            Item::Static(i) => &i.ident,
            Item::Type(i) => &i.ident,
            Item::Fn(i) => &i.sig.ident,
            Item::Trait(i) => &i.ident,
            Item::Union(i) => &i.ident,
            _ => continue,
        };
        if generated.iter().any(|g| ident == g) {
            diagnostics.push(
                Diagnostic::new(ident.span(), format!("{ident} is also the name of a generated item"))
                    .help("rename it: generated code would not see it"),
            );
        }
    }
}

/// Whether `items` hold a hand-written `impl Clone for <ident>`.
pub(super) fn implements_clone(items: &[Item], ident: &Ident) -> bool {
    items.iter().any(|item| match item {
        Item::Impl(imp) => {
            let is_clone = imp.trait_.as_ref().is_some_and(|(path, _)| path.segments.last().is_some_and(|s| s.ident == "Clone"));
            let for_type = matches!(&*imp.self_ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == *ident));
            is_clone && for_type
        }
        _ => false,
    })
}

/// Generated code lives in a sibling module: what it touches must be visible to the crate.
pub(super) fn check_visibility(item: &ItemStruct, client: bool, deepcopy: bool, diagnostics: &mut Diagnostics) {
    let visible = |vis: &syn::Visibility| match vis {
        syn::Visibility::Public(_) => true,
        syn::Visibility::Restricted(r) => r.in_token.is_none() && r.path.is_ident("crate"),
        syn::Visibility::Inherited => false,
    };
    if (client || deepcopy) && !visible(&item.vis) {
        diagnostics.push(
            Diagnostic::new(
                item.ident.span(),
                format!(
                    "{} must be pub or pub(crate): generated code in another module uses it",
                    item.ident
                ),
            )
            .help("make the type pub"),
        );
        return;
    }
    let Fields::Named(named) = &item.fields else { return };
    for field in &named.named {
        let name = field.ident.as_ref().map(ToString::to_string).unwrap_or_default();
        let needed = deepcopy || (client && name == "metadata");
        if needed && !visible(&field.vis) {
            diagnostics.push(
                Diagnostic::new(
                    field.span(),
                    format!(
                        "field {name} of {} must be pub or pub(crate): the generated {} reads it",
                        item.ident,
                        if deepcopy { "Clone" } else { "client" }
                    ),
                )
                .help("make the field pub"),
            );
        }
    }
}

/// Whether `#[derive(…)]` among `attrs` names `trait_name`.
pub(crate) fn derives(attrs: &[syn::Attribute], trait_name: &str) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("derive")).any(|attr| {
        let mut found = false;
        let _ = attr.parse_nested_meta(|meta| {
            found |= meta.path.segments.last().is_some_and(|s| s.ident == trait_name);
            Ok(())
        });
        found
    })
}
