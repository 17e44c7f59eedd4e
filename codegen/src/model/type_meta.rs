//! The rule that puts `apiVersion` and `kind` on the wire: a `+genclient` type carries the
//! runtime's zero-sized `ApiVersion<Self>` and `Kind<Self>` fields under those JSON names (Go's
//! types embed `metav1.TypeMeta`), because kube-apiserver refuses a custom resource without them
//! and kube's `Api<K>` sends the type exactly as it serializes.

use syn::spanned::Spanned;
use syn::{Ident, ItemStruct};

use super::fields::{FieldDef, JsonName};
use crate::diag::{Diagnostic, Diagnostics};

/// The two fields: their JSON name, the runtime's type for them and the Rust field to suggest.
const FIELDS: [(&str, &str, &str); 2] = [("apiVersion", "ApiVersion", "api_version"), ("kind", "Kind", "kind")];

/// Checks that the `+genclient` struct `item` carries both fields, each of the runtime's type
/// for this very struct and serialized under its JSON name; every problem says the fix.
pub(super) fn check_type_meta(item: &ItemStruct, fields: &[FieldDef], diagnostics: &mut Diagnostics) {
    let ident = &item.ident;
    let mut missing = Vec::new();
    for (json, runtime_type, rust_name) in FIELDS {
        let typed = fields
            .iter()
            .find_map(|f| type_meta_arg(&f.ty, runtime_type).map(|arg| (f, arg)));
        let named = fields.iter().find(|f| f.json == JsonName::Named(json.to_owned()));
        match (typed, named) {
            (Some((field, arg)), _) => check_field(ident, field, arg, json, runtime_type, diagnostics),
            (None, Some(field)) => diagnostics.push(
                Diagnostic::new(
                    field.ty.span(),
                    format!(
                        "{ident}.{} is sent as `{json}` but is not the runtime's {runtime_type}: \
                         an object built without setting it reaches the API server without `{json}`",
                        field.ident
                    ),
                )
                .help(format!(
                    "declare it as `pub {}: codegen_runtime::{runtime_type}<Self>`",
                    field.ident
                )),
            ),
            (None, None) => missing.push((json, runtime_type, rust_name)),
        }
    }
    if missing.is_empty() {
        return;
    }
    let jsons: Vec<String> = missing.iter().map(|(json, ..)| format!("`{json}`")).collect();
    let declarations: Vec<String> = missing
        .iter()
        .map(|(_, runtime_type, rust_name)| format!("`pub {rust_name}: codegen_runtime::{runtime_type}<Self>,`"))
        .collect();
    let rename = if missing.iter().any(|(json, ..)| *json == "apiVersion") {
        ", with #[serde(rename_all = \"camelCase\")] on the struct so that `api_version` is sent as `apiVersion`"
    } else {
        ""
    };
    diagnostics.push(
        Diagnostic::new(
            ident.span(),
            format!(
                "+genclient type {ident} does not carry {}, which kube-apiserver needs in every custom \
                 resource (and server-side apply in every object)",
                jsons.join(" and ")
            ),
        )
        .help(format!(
            "add {} before `metadata`, as Go types embed metav1.TypeMeta{rename}; they are zero-sized \
             and always written with {ident}'s values",
            declarations.join(" and "),
        )),
    );
}

/// Checks one field of the runtime's type (`arg` its type argument): its JSON name, and that it
/// names this struct.
fn check_field(
    ident: &Ident,
    field: &FieldDef,
    arg: &syn::Type,
    json: &str,
    runtime_type: &str,
    diagnostics: &mut Diagnostics,
) {
    let name = &field.ident;
    match &field.json {
        JsonName::Named(actual) if actual == json => {}
        JsonName::Named(actual) => diagnostics.push(
            Diagnostic::new(
                name.span(),
                format!("{ident}.{name} is serialized as `{actual}`; the API server reads `{json}`"),
            )
            .help(format!(
                "add #[serde(rename = \"{json}\")] to the field, or #[serde(rename_all = \"camelCase\")] to {ident}"
            )),
        ),
        JsonName::Flattened | JsonName::Skipped => diagnostics.push(
            Diagnostic::new(
                name.span(),
                format!("{ident}.{name} must be serialized as the property `{json}`, not flattened or skipped"),
            )
            .help("remove #[serde(flatten)] / #[serde(skip…)] from it"),
        ),
    }
    let names_self = match arg {
        syn::Type::Path(path) => path.qself.is_none() && (path.path.is_ident("Self") || path.path.is_ident(ident)),
        _ => false,
    };
    if !names_self {
        diagnostics.push(
            Diagnostic::new(
                field.ty.span(),
                format!("{ident}.{name} must write {ident}'s own `{json}`"),
            )
            .help(format!(
                "declare it as `{runtime_type}<Self>` (or `{runtime_type}<{ident}>`)"
            )),
        );
    }
}

/// The type argument of `ty` when it is `…::<runtime_type><Arg>`.
fn type_meta_arg<'a>(ty: &'a syn::Type, runtime_type: &str) -> Option<&'a syn::Type> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != runtime_type {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(arg) if args.args.len() == 1 => Some(arg),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fields::fields;

    fn problems(source: &str) -> Vec<String> {
        let item: ItemStruct = syn::parse_str(source).unwrap();
        let mut diagnostics = Diagnostics::default();
        let fields = fields(&item, &mut diagnostics);
        check_type_meta(&item, &fields, &mut diagnostics);
        diagnostics.iter().map(|d| d.message.clone()).collect()
    }

    #[test]
    fn a_type_with_both_fields_passes() {
        let ok = r#"#[serde(rename_all = "camelCase")]
            pub struct Vm { pub api_version: codegen_runtime::ApiVersion<Self>, pub kind: Kind<Vm>, pub metadata: ObjectMeta }"#;
        assert_eq!(problems(ok), Vec::<String>::new());
        let renamed =
            r#"pub struct Vm { #[serde(rename = "apiVersion")] pub v: ApiVersion<Self>, pub kind: Kind<Self> }"#;
        assert_eq!(problems(renamed), Vec::<String>::new());
    }

    #[test]
    fn missing_fields_are_named_with_the_declarations_to_add() {
        let item: ItemStruct = syn::parse_str("pub struct Vm { pub metadata: ObjectMeta }").unwrap();
        let mut diagnostics = Diagnostics::default();
        check_type_meta(&item, &fields(&item, &mut Diagnostics::default()), &mut diagnostics);
        let diagnostic = diagnostics.iter().next().unwrap();
        assert!(
            diagnostic
                .message
                .contains("does not carry `apiVersion` and `kind`, which"),
            "{}",
            diagnostic.message
        );
        let help = diagnostic.text();
        assert!(
            help.contains("`pub api_version: codegen_runtime::ApiVersion<Self>,`"),
            "{help}"
        );
        assert!(help.contains("`pub kind: codegen_runtime::Kind<Self>,`"), "{help}");
        let only_kind = problems("pub struct Vm { #[serde(rename = \"apiVersion\")] pub a: ApiVersion<Self> }");
        assert_eq!(only_kind.len(), 1);
        assert!(only_kind[0].contains("does not carry `kind`, which"), "{only_kind:?}");
    }

    #[test]
    fn wrong_names_types_and_targets_are_refused() {
        let snake = problems("pub struct Vm { pub api_version: ApiVersion<Self>, pub kind: Kind<Self> }");
        assert_eq!(
            snake,
            ["Vm.api_version is serialized as `api_version`; the API server reads `apiVersion`"]
        );
        let string = problems(
            r#"#[serde(rename_all = "camelCase")] pub struct Vm { pub api_version: String, pub kind: Kind<Self> }"#,
        );
        assert_eq!(string.len(), 1);
        assert!(string[0].starts_with("Vm.api_version is sent as `apiVersion` but is not the runtime's ApiVersion"));
        let other = problems(
            "pub struct Vm { pub kind: Kind<Other>, #[serde(rename = \"apiVersion\")] pub a: ApiVersion<Self> }",
        );
        assert_eq!(other, ["Vm.kind must write Vm's own `kind`"]);
        let flat = problems(
            "pub struct Vm { #[serde(flatten)] pub kind: Kind<Self>, #[serde(rename = \"apiVersion\")] pub a: ApiVersion<Self> }",
        );
        assert_eq!(
            flat,
            ["Vm.kind must be serialized as the property `kind`, not flattened or skipped"]
        );
    }
}
