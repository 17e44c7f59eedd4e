//! Tags in doc comments, read the way gengo's `ExtractCommentTags("+", lines)` reads Go
//! comments: trimmed lines starting with `+`, split once on `=`, a bare `+key` meaning `""`.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// One `+key=value` line.
#[derive(Clone, Debug)]
pub struct Tag {
    /// Everything between `+` and the first `=`, e.g. `genclient:method`.
    pub key: String,
    /// Everything after the first `=`, or `""` for a bare tag.
    pub value: String,
    /// The doc attribute the tag came from, for diagnostics.
    pub span: Span,
}

/// The tags among `attrs` (`///` or `//!` doc comments, and `#[doc = "…"]`), in order.
pub fn tags(attrs: &[Attribute]) -> Vec<Tag> {
    let mut tags = Vec::new();
    for attr in attrs {
        let Some(text) = doc_text(attr) else { continue };
        // A `#[doc = "…"]` may hold several lines; `///` holds one.
        for line in text.lines() {
            let line = line.trim();
            let Some(rest) = line.strip_prefix('+') else { continue };
            let (key, value) = rest.split_once('=').unwrap_or((rest, ""));
            tags.push(Tag {
                key: key.to_owned(),
                value: value.to_owned(),
                span: attr.span(),
            });
        }
    }
    tags
}

fn doc_text(attr: &Attribute) -> Option<String> {
    if !attr.path().is_ident("doc") {
        return None;
    }
    match &attr.meta {
        Meta::NameValue(name_value) => match &name_value.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(text), ..
            }) => Some(text.value()),
            _ => None,
        },
        _ => None,
    }
}

/// The doc comment lines that are not tags, joined: the type's own documentation.
pub fn description(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter_map(doc_text)
        .flat_map(|text| text.lines().map(str::to_owned).collect::<Vec<_>>())
        .filter(|line| !line.trim().starts_with('+'))
        .collect();
    lines.join("\n").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_should_split_once_on_the_first_equals() {
        let item: syn::ItemStruct = syn::parse_quote! {
            /// VirtualMachine is a specification for a VirtualMachine resource.
            ///
            /// +genclient
            ///   +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
            /// + not a key
            #[doc = "+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object"]
            pub struct VirtualMachine;
        };
        let found: Vec<(String, String)> = tags(&item.attrs).into_iter().map(|t| (t.key, t.value)).collect();
        assert_eq!(
            found,
            [
                ("genclient".to_owned(), String::new()),
                (
                    "genclient:method".to_owned(),
                    "GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale".to_owned()
                ),
                (" not a key".to_owned(), String::new()),
                (
                    "k8s:deepcopy-gen:interfaces".to_owned(),
                    "k8s.io/apimachinery/pkg/runtime.Object".to_owned()
                ),
            ]
        );
        assert_eq!(
            description(&item.attrs),
            "VirtualMachine is a specification for a VirtualMachine resource."
        );
    }
}
