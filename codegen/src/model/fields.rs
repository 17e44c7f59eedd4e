//! The fields of a type as its JSON shows them: serde's names (`rename`, the container's
//! `rename_all` with serde's own rules, `skip`, `flatten`, and schemars' `rename` over both),
//! each field's type and its markers — what the properties of a CRD schema are.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, Fields, Ident, ItemStruct, LitStr};

use crate::diag::{Diagnostic, Diagnostics, did_you_mean};
use crate::markers::{self, Marker, Target};
use crate::tags::tags;

/// A named field of a struct.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// The Rust name.
    pub ident: Ident,
    /// Its name in JSON.
    pub json: JsonName,
    /// Its type.
    pub ty: syn::Type,
    /// Its markers (validation, defaults, list types, requiredness).
    pub markers: Vec<Marker>,
}

/// How a field appears in JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonName {
    /// As a property of this name.
    Named(String),
    /// `#[serde(flatten)]`: its own fields appear in the parent.
    Flattened,
    /// `#[serde(skip)]` or `skip_serializing`: not at all.
    Skipped,
}

/// serde's `rename_all` rules, as serde applies them to field names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// serde's `RenameRule::apply_to_field`.
    fn apply(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Self::Camel => {
                let pascal = Self::Pascal.apply(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => pascal,
                }
            }
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => Self::ScreamingSnake.apply(field).replace('_', "-"),
        }
    }
}

/// The named fields of `item` with their JSON names and markers; any tag on a field that is not
/// a marker is reported.
pub(super) fn fields(item: &ItemStruct, diagnostics: &mut Diagnostics) -> Vec<FieldDef> {
    let Fields::Named(named) = &item.fields else {
        return Vec::new();
    };
    let rule = container_rule(&item.attrs);
    named
        .named
        .iter()
        .filter_map(|field| {
            let ident = field.ident.clone()?;
            Some(FieldDef {
                json: json_name(&ident, &field.attrs, rule),
                markers: field_markers(&ident, &field.attrs, diagnostics),
                ty: field.ty.clone(),
                ident,
            })
        })
        .collect()
}

fn field_markers(ident: &Ident, attrs: &[Attribute], diagnostics: &mut Diagnostics) -> Vec<Marker> {
    let mut found = Vec::new();
    for tag in tags(attrs) {
        if markers::is_marker_key(&tag.key) {
            found.extend(markers::parse(&tag, Target::Field, diagnostics));
        } else {
            let diagnostic = Diagnostic::new(tag.span, format!("unknown tag +{} on field {ident}", tag.key));
            diagnostics.push(match did_you_mean(&tag.key, markers::field_marker_names()) {
                Some(close) => diagnostic.help(format!("did you mean +{close}?")),
                None => diagnostic.help(
                    "fields take +optional, +required, +nullable, +default=, +listType= and +kubebuilder:validation:… markers",
                ),
            });
        }
    }
    found
}

/// The serialized name given by `#[serde(rename_all = …)]` on the container, if any.
fn container_rule(attrs: &[Attribute]) -> Option<RenameRule> {
    let mut rule = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        // Malformed serde attributes are serde's to report; here they mean nothing.
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                if let Some(name) = serialize_name(&meta)? {
                    rule = RenameRule::parse(&name);
                }
                Ok(())
            } else {
                skip(&meta)
            }
        });
    }
    rule
}

fn json_name(ident: &Ident, attrs: &[Attribute], rule: Option<RenameRule>) -> JsonName {
    let rust_name = ident.to_string();
    let rust_name = rust_name.strip_prefix("r#").unwrap_or(&rust_name);
    let mut name = rule.map_or_else(|| rust_name.to_owned(), |r| r.apply(rust_name));
    let mut shape = None;
    // serde's attributes first, then schemars' own, which win for the schema.
    for key in ["serde", "schemars"] {
        for attr in attrs.iter().filter(|a| a.path().is_ident(key)) {
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    if let Some(renamed) = serialize_name(&meta)? {
                        name = renamed;
                    }
                } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_serializing") {
                    shape = Some(JsonName::Skipped);
                } else if meta.path.is_ident("flatten") {
                    shape = Some(JsonName::Flattened);
                } else {
                    skip(&meta)?;
                }
                Ok(())
            });
        }
    }
    shape.unwrap_or(JsonName::Named(name))
}

/// The serialize-side value of `key = "x"` or `key(serialize = "x", deserialize = "y")`.
fn serialize_name(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(Some(meta.value()?.parse::<LitStr>()?.value()));
    }
    let mut name = None;
    meta.parse_nested_meta(|inner| {
        let value = inner.value()?.parse::<LitStr>()?.value();
        if inner.path.is_ident("serialize") {
            name = Some(value);
        }
        Ok(())
    })?;
    Ok(name)
}

/// Consumes an attribute argument this module has no use for, whatever its form.
fn skip(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip(&inner))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(item: ItemStruct) -> Vec<JsonName> {
        let mut diagnostics = Diagnostics::default();
        let found = fields(&item, &mut diagnostics);
        assert!(diagnostics.is_empty());
        found.into_iter().map(|f| f.json).collect()
    }

    fn named(name: &str) -> JsonName {
        JsonName::Named(name.to_owned())
    }

    #[test]
    fn json_names_should_follow_serde() {
        let item: ItemStruct = syn::parse_quote! {
            #[derive(Serialize)]
            #[serde(deny_unknown_fields, rename_all = "camelCase")]
            struct Spec {
                deployment_name: String,
                #[serde(rename = "ROOT")]
                root_disk: String,
                #[serde(default, skip_serializing_if = "Option::is_none")]
                a_b1_c: Option<i32>,
                #[serde(skip)]
                cache: u8,
                #[serde(flatten)]
                extra: Extra,
                #[serde(rename(serialize = "out", deserialize = "in"))]
                both: u8,
                #[schemars(rename = "schemaName")]
                r#type: String,
            }
        };
        assert_eq!(
            names(item),
            [
                named("deploymentName"),
                named("ROOT"),
                named("aB1C"),
                JsonName::Skipped,
                JsonName::Flattened,
                named("out"),
                named("schemaName"),
            ]
        );
    }

    #[test]
    fn every_rename_rule_should_match_serde() {
        let cases = [
            ("lowercase", "very_tasty"),
            ("UPPERCASE", "VERY_TASTY"),
            ("PascalCase", "VeryTasty"),
            ("camelCase", "veryTasty"),
            ("snake_case", "very_tasty"),
            ("SCREAMING_SNAKE_CASE", "VERY_TASTY"),
            ("kebab-case", "very-tasty"),
            ("SCREAMING-KEBAB-CASE", "VERY-TASTY"),
        ];
        for (rule, expected) in cases {
            assert_eq!(RenameRule::parse(rule).unwrap().apply("very_tasty"), expected, "{rule}");
        }
        assert_eq!(RenameRule::parse("Title Case"), None);
    }
}
