//! One type's model: the entry point both the package model (for each of a module's types) and
//! the derive (for its one type) build a [`TypeDef`] with.

use syn::spanned::Spanned;
use syn::{Fields, Item};

use super::checks::{check_visibility, derives, implements_clone};
use super::type_meta::check_type_meta;
use super::{Options, TypeDef, crd, fields, unknown_tag};
use crate::diag::{Diagnostic, Diagnostics};
use crate::genclient::{self, genclient};
use crate::markers::{self, Target};
use crate::names;
use crate::symbol::{
    APPLYCONFIGURATION_GEN, DEEPCOPY_GEN, DEEPCOPY_GEN_INTERFACES, DEEPCOPY_GEN_NONPOINTER_INTERFACES, GENCLIENT,
    GROUP_GO_NAME, GROUP_NAME, RESOURCE_NAME,
};
use crate::tags::{description, tags};

/// The tags a type may carry besides `+genclient` and markers, as suggestions offer them;
/// [`type_def`] handles each (and accepts a repeated `+groupName`/`+groupGoName`).
const TYPE_TAGS: [&str; 4] = [
    RESOURCE_NAME,
    DEEPCOPY_GEN,
    DEEPCOPY_GEN_INTERFACES,
    DEEPCOPY_GEN_NONPOINTER_INTERFACES,
];

/// What a type's model needs from where it is declared.
pub struct TypeScope<'a> {
    /// The group a type's own `+groupName` must repeat: the module's, or for the derive its
    /// first `+groupName`; `None` where there is no group to agree with.
    pub group: Option<&'a str>,
    /// `+k8s:deepcopy-gen=package` selects every public type.
    pub deepcopy_package: bool,
    /// The items beside the type, where a hand-written `impl Clone` may be.
    pub siblings: &'a [Item],
    /// The generator's settings.
    pub options: &'a Options,
}

/// The model of one struct (`None` for other items; an enum is checked and then left out),
/// every problem reported to `diagnostics`.
pub fn type_def(item: &Item, scope: &TypeScope<'_>, diagnostics: &mut Diagnostics) -> Option<TypeDef> {
    let (attrs, is_pub) = match item {
        Item::Struct(s) => (&s.attrs, matches!(s.vis, syn::Visibility::Public(_))),
        Item::Enum(e) => (&e.attrs, matches!(e.vis, syn::Visibility::Public(_))),
        _ => return None,
    };
    let type_tags = tags(attrs);
    let mut deepcopy = scope.deepcopy_package && is_pub;
    let mut deepcopy_opt_out = false;
    let mut resource_name = None;
    let mut type_markers = Vec::new();
    for tag in &type_tags {
        match tag.key.as_str() {
            key if genclient::is_genclient_key(key) => {}
            key if markers::is_marker_key(key) => type_markers.extend(markers::parse(tag, Target::Type, diagnostics)),
            DEEPCOPY_GEN => match tag.value.as_str() {
                "true" => deepcopy = true,
                "false" => {
                    deepcopy = false;
                    deepcopy_opt_out = true;
                }
                other => diagnostics.push(
                    Diagnostic::new(
                        tag.span,
                        format!("+{DEEPCOPY_GEN}={other} on a type must be true or false"),
                    )
                    .help("use +k8s:deepcopy-gen=package in the version module's //! doc to select every type"),
                ),
            },
            // Rust's Clone covers DeepCopyObject and friends; the tags are accepted as written.
            DEEPCOPY_GEN_INTERFACES | DEEPCOPY_GEN_NONPOINTER_INTERFACES => {}
            RESOURCE_NAME => resource_name = Some((tag.value.trim().to_owned(), tag.span)),
            // The derive cannot see the module's //! doc, so types may repeat the group; it
            // must then agree with the module's.
            GROUP_NAME => match scope.group {
                Some(group) if tag.value.trim() != group => diagnostics.push(
                    Diagnostic::new(
                        tag.span,
                        format!(
                            "+groupName={} differs from the module's group {group}",
                            tag.value.trim()
                        ),
                    )
                    .help("make them the same, or drop the type's +groupName"),
                ),
                _ => {}
            },
            GROUP_GO_NAME => {}
            _ => {
                // Suggest among everything a type may carry, not just the plain type tags.
                let mut candidates: Vec<&str> = TYPE_TAGS.to_vec();
                candidates.extend(genclient::OPTIONS);
                candidates.extend(markers::type_marker_names());
                unknown_tag(tag, &candidates, "on a type", diagnostics);
            }
        }
    }
    let wants_client = type_tags.iter().any(|t| t.key == GENCLIENT);
    let item = match item {
        Item::Struct(s) => s.clone(),
        Item::Enum(e) => {
            if wants_client {
                diagnostics.push(
                    Diagnostic::new(
                        e.ident.span(),
                        format!("+genclient on enum {}: API objects are structs", e.ident),
                    )
                    .help("put +genclient on a struct with metadata, spec and status fields"),
                );
            } else if deepcopy && !derives(attrs, "Clone") {
                diagnostics.push(
                    Diagnostic::new(
                        e.ident.span(),
                        format!("deepcopy-gen generates Clone for structs, not for enum {}", e.ident),
                    )
                    .help("add #[derive(Clone)] to the enum"),
                );
            }
            return None;
        }
        _ => unreachable!("filtered above"),
    };
    let field = |name: &str| match &item.fields {
        Fields::Named(named) => named.named.iter().any(|f| f.ident.as_ref().is_some_and(|i| i == name)),
        _ => false,
    };
    if wants_client && !field("metadata") {
        diagnostics.push(
            Diagnostic::new(
                item.ident.span(),
                format!("+genclient type {} has no metadata field", item.ident),
            )
            .help("add `pub metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta`"),
        );
    }
    if wants_client && !item.generics.params.is_empty() {
        diagnostics.push(
            Diagnostic::new(
                item.generics.span(),
                format!("+genclient type {} has generic parameters", item.ident),
            )
            .help("an API object is one concrete kind: remove the parameters, or drop +genclient"),
        );
    }
    let mut genclient = genclient(&type_tags, field("status"), diagnostics);
    if type_markers.iter().any(|m| m.name == APPLYCONFIGURATION_GEN)
        && let Some(client) = genclient.as_mut()
    {
        client.without_apply();
    }
    let has_clone = derives(attrs, "Clone") || implements_clone(scope.siblings, &item.ident);
    if wants_client && deepcopy_opt_out && !has_clone && !scope.options.derive {
        diagnostics.push(
            Diagnostic::new(
                item.ident.span(),
                format!(
                    "+genclient type {} has +k8s:deepcopy-gen=false and no Clone",
                    item.ident
                ),
            )
            .help("kube's clients need Clone: derive or implement it, or drop +k8s:deepcopy-gen=false"),
        );
    }
    check_visibility(&item, wants_client, deepcopy || wants_client, diagnostics);
    let fields = fields::fields(&item, diagnostics);
    // A `+genclient=…` or a tuple struct already has its error: one mistake, one error.
    let plain_genclient = type_tags
        .iter()
        .any(|t| t.key == GENCLIENT && t.value.trim().is_empty());
    let named = matches!(item.fields, Fields::Named(_));
    if genclient.is_some() && plain_genclient && named {
        check_type_meta(&item, &fields, diagnostics);
    }
    let field_markers = fields.iter().flat_map(|f| &f.markers);
    markers::check_min_version(
        type_markers.iter().chain(field_markers),
        scope.options.min_kube_version,
        diagnostics,
    );
    let kind = item.ident.to_string();
    let plural = names::plural(&kind, &scope.options.plural_exceptions);
    let resource = match resource_name {
        Some((name, span)) => {
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            {
                diagnostics.push(
                    Diagnostic::new(span, format!("+resourceName={name} is not a valid resource name"))
                        .help("use the lowercase plural, e.g. +resourceName=virtualmachines"),
                );
            }
            name
        }
        None => names::resource(&kind, &scope.options.plural_exceptions),
    };
    let crd = crd::crd_def(
        &kind,
        item.ident.span(),
        &type_markers,
        genclient.as_ref(),
        &resource,
        diagnostics,
    );
    Some(TypeDef {
        ident: item.ident.clone(),
        description: description(attrs),
        genclient,
        // A client's type must be Clone (Go's runtime.Object needs DeepCopyObject), so
        // +genclient selects it for deepcopy too.
        deepcopy: (deepcopy || (wants_client && !deepcopy_opt_out)) && !has_clone,
        plural,
        resource,
        markers: type_markers,
        fields,
        crd,
        item,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_tag_should_be_handled() {
        let options = Options::default();
        let scope = TypeScope {
            group: None,
            deepcopy_package: false,
            siblings: &[],
            options: &options,
        };
        for key in TYPE_TAGS {
            let item: Item = syn::parse_str(&format!("/// +{key}=\npub struct Thing {{ pub spec: u8 }}")).unwrap();
            let mut diagnostics = Diagnostics::default();
            type_def(&item, &scope, &mut diagnostics);
            assert!(
                !diagnostics.iter().any(|d| d.message.starts_with("unknown tag")),
                "+{key} is offered but not handled"
            );
        }
    }
}
