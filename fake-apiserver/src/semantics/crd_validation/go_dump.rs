//! The values of some CRD errors as Go's `%#v` prints the internal apiextensions structs
//! (`fmt`'s Go-syntax printing of `apiextensions.CustomResourceDefinitionVersion`,
//! `JSONSchemaProps`, `ValidationRule`, in `pkg/apis/apiextensions/types*.go`' field order):
//! structs `pkg.Type{Field:value, …}`, strings quoted, nil pointers, slices and maps
//! `(*T)(nil)` / `[]T(nil)` / `map[K]V(nil)`, maps with sorted keys. A non-nil pointer prints
//! as its address, which no answer can depend on: this server prints a fixed one.

use serde_json::Value;

use super::internal::Version;
use crate::semantics::field_error::{go_float, go_quote};

use crate::semantics::names::{ADDRESS, go_pointer as pointer};

/// `[]apiextensions.CustomResourceDefinitionVersion{…}` of the internal spec's versions
/// (`None`: the field was absent, a nil slice) on a server of `minor`.
pub(crate) fn versions(versions: Option<&[Version<'_>]>, minor: u32) -> String {
    let Some(versions) = versions else {
        return "[]apiextensions.CustomResourceDefinitionVersion(nil)".into();
    };
    // Selectable fields (1.30's) all versions share move to the spec, as schemas do.
    fn fields<'v>(v: &Version<'v>) -> Option<&'v Value> {
        v.raw.get("selectableFields").filter(|f| !f.is_null())
    }
    let shared = versions.iter().all(|v| fields(v) == versions.first().and_then(fields));
    let selectable = |v: &Version<'_>| match (minor >= 30, shared) {
        (false, _) => String::new(),
        (true, true) => ", SelectableFields:[]apiextensions.SelectableField(nil)".to_owned(),
        (true, false) => format!(", SelectableFields:{}", selectable_fields(fields(v))),
    };
    let items: Vec<String> = versions.iter().map(|v| version(v, &selectable(v))).collect();
    format!(
        "[]apiextensions.CustomResourceDefinitionVersion{{{}}}",
        items.join(", ")
    )
}

/// `[]apiextensions.SelectableField{…}`.
fn selectable_fields(fields: Option<&Value>) -> String {
    let Some(fields) = fields.and_then(Value::as_array) else {
        return "[]apiextensions.SelectableField(nil)".to_owned();
    };
    let items: Vec<String> = fields
        .iter()
        .map(|f| {
            let path = f.get("jsonPath").and_then(Value::as_str).unwrap_or_default();
            format!("apiextensions.SelectableField{{JSONPath:{}}}", go_quote(path))
        })
        .collect();
    format!("[]apiextensions.SelectableField{{{}}}", items.join(", "))
}

/// One version; `selectable` is its `SelectableFields` field where the minor has one.
fn version(v: &Version<'_>, selectable: &str) -> String {
    let text = |key: &str| go_quote(v.raw.get(key).and_then(Value::as_str).unwrap_or_default());
    let flag = |key: &str| v.raw.get(key).and_then(Value::as_bool).unwrap_or_default();
    let columns = match v.columns {
        None => "[]apiextensions.CustomResourceColumnDefinition(nil)".to_owned(),
        Some(columns) => {
            let items: Vec<String> = columns.iter().map(column).collect();
            format!("[]apiextensions.CustomResourceColumnDefinition{{{}}}", items.join(", "))
        }
    };
    format!(
        "apiextensions.CustomResourceDefinitionVersion{{Name:{}, Served:{}, Storage:{}, Deprecated:{}, DeprecationWarning:{}, Schema:{}, Subresources:{}, AdditionalPrinterColumns:{columns}{selectable}}}",
        text("name"),
        flag("served"),
        flag("storage"),
        flag("deprecated"),
        pointer("string", v.raw.get("deprecationWarning")),
        pointer("apiextensions.CustomResourceValidation", v.schema),
        pointer("apiextensions.CustomResourceSubresources", v.subresources),
    )
}

fn column(c: &Value) -> String {
    let text = |key: &str| go_quote(c.get(key).and_then(Value::as_str).unwrap_or_default());
    format!(
        "apiextensions.CustomResourceColumnDefinition{{Name:{}, Type:{}, Format:{}, Description:{}, Priority:{}, JSONPath:{}}}",
        text("name"),
        text("type"),
        text("format"),
        text("description"),
        c.get("priority").and_then(Value::as_i64).unwrap_or_default(),
        text("jsonPath"),
    )
}

/// `apiextensions.JSONSchemaProps{…}` of a v1 schema on a server of `minor`.
pub(crate) fn schema(s: &Value, minor: u32) -> String {
    let text = |key: &str| go_quote(s.get(key).and_then(Value::as_str).unwrap_or_default());
    let flag = |key: &str| s.get(key).and_then(Value::as_bool).unwrap_or_default();
    let ptr = |ty: &str, key: &str| pointer(ty, s.get(key));
    let schemas = |key: &str| match s.get(key).and_then(Value::as_array) {
        None => "[]apiextensions.JSONSchemaProps(nil)".to_owned(),
        Some(items) => {
            let items: Vec<String> = items.iter().map(|item| schema(item, minor)).collect();
            format!("[]apiextensions.JSONSchemaProps{{{}}}", items.join(", "))
        }
    };
    let map = |key: &str, ty: &str| match s.get(key).and_then(Value::as_object) {
        None => format!("{ty}(nil)"),
        Some(entries) => {
            // Go's fmt prints a map's entries sorted by key; serde_json's map is sorted.
            let items: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}:{}", go_quote(k), schema(v, minor)))
                .collect();
            format!("{ty}{{{}}}", items.join(", "))
        }
    };
    let strings = |key: &str| match s.get(key).and_then(Value::as_array) {
        None => "[]string(nil)".to_owned(),
        Some(items) => {
            let items: Vec<String> = items.iter().map(|i| go_quote(i.as_str().unwrap_or_default())).collect();
            format!("[]string{{{}}}", items.join(", "))
        }
    };
    let enum_values = match s.get("enum").and_then(Value::as_array) {
        None => "[]apiextensions.JSON(nil)".to_owned(),
        Some(items) => {
            let items: Vec<String> = items.iter().map(json_value).collect();
            format!("[]apiextensions.JSON{{{}}}", items.join(", "))
        }
    };
    let validations = match s.get("x-kubernetes-validations").and_then(Value::as_array) {
        None => "apiextensions.ValidationRules(nil)".to_owned(),
        Some(rules) => {
            let items: Vec<String> = rules
                .iter()
                .map(|rule| super::cel_rules::go_rule(rule, minor))
                .collect();
            format!("apiextensions.ValidationRules{{{}}}", items.join(", "))
        }
    };
    let fields = [
        ("ID", text("id")),
        ("Schema", text("$schema")),
        ("Ref", ptr("string", "$ref")),
        ("Description", text("description")),
        ("Type", text("type")),
        ("Nullable", flag("nullable").to_string()),
        ("Format", text("format")),
        ("Title", text("title")),
        ("Default", ptr("apiextensions.JSON", "default")),
        ("Maximum", ptr("float64", "maximum")),
        ("ExclusiveMaximum", flag("exclusiveMaximum").to_string()),
        ("Minimum", ptr("float64", "minimum")),
        ("ExclusiveMinimum", flag("exclusiveMinimum").to_string()),
        ("MaxLength", ptr("int64", "maxLength")),
        ("MinLength", ptr("int64", "minLength")),
        ("Pattern", text("pattern")),
        ("MaxItems", ptr("int64", "maxItems")),
        ("MinItems", ptr("int64", "minItems")),
        ("UniqueItems", flag("uniqueItems").to_string()),
        ("MultipleOf", ptr("float64", "multipleOf")),
        ("Enum", enum_values),
        ("MaxProperties", ptr("int64", "maxProperties")),
        ("MinProperties", ptr("int64", "minProperties")),
        ("Required", strings("required")),
        ("Items", ptr("apiextensions.JSONSchemaPropsOrArray", "items")),
        ("AllOf", schemas("allOf")),
        ("OneOf", schemas("oneOf")),
        ("AnyOf", schemas("anyOf")),
        ("Not", ptr("apiextensions.JSONSchemaProps", "not")),
        (
            "Properties",
            map("properties", "map[string]apiextensions.JSONSchemaProps"),
        ),
        (
            "AdditionalProperties",
            ptr("apiextensions.JSONSchemaPropsOrBool", "additionalProperties"),
        ),
        (
            "PatternProperties",
            map("patternProperties", "map[string]apiextensions.JSONSchemaProps"),
        ),
        ("Dependencies", dependencies(s)),
        (
            "AdditionalItems",
            ptr("apiextensions.JSONSchemaPropsOrBool", "additionalItems"),
        ),
        ("Definitions", map("definitions", "apiextensions.JSONSchemaDefinitions")),
        (
            "ExternalDocs",
            ptr("apiextensions.ExternalDocumentation", "externalDocs"),
        ),
        ("Example", ptr("apiextensions.JSON", "example")),
        (
            "XPreserveUnknownFields",
            ptr("bool", "x-kubernetes-preserve-unknown-fields"),
        ),
        ("XEmbeddedResource", flag("x-kubernetes-embedded-resource").to_string()),
        ("XIntOrString", flag("x-kubernetes-int-or-string").to_string()),
        ("XListMapKeys", strings("x-kubernetes-list-map-keys")),
        ("XListType", ptr("string", "x-kubernetes-list-type")),
        ("XMapType", ptr("string", "x-kubernetes-map-type")),
        ("XValidations", validations),
    ];
    let body: Vec<String> = fields.iter().map(|(name, value)| format!("{name}:{value}")).collect();
    format!("apiextensions.JSONSchemaProps{{{}}}", body.join(", "))
}

/// `Dependencies`: a map of schemas or property lists, whose values are structs Go prints.
fn dependencies(s: &Value) -> String {
    match s.get("dependencies").and_then(Value::as_object) {
        None => "apiextensions.JSONSchemaDependencies(nil)".to_owned(),
        Some(entries) => {
            let items: Vec<String> = entries
                .iter()
                .map(|(k, v)| {
                    let (schema_ptr, property) = match v.as_array() {
                        Some(list) => {
                            let names: Vec<String> =
                                list.iter().map(|n| go_quote(n.as_str().unwrap_or_default())).collect();
                            (
                                "(*apiextensions.JSONSchemaProps)(nil)".to_owned(),
                                format!("[]string{{{}}}", names.join(", ")),
                            )
                        }
                        None => (
                            format!("(*apiextensions.JSONSchemaProps)({ADDRESS})"),
                            "[]string(nil)".to_owned(),
                        ),
                    };
                    format!(
                        "{}:apiextensions.JSONSchemaPropsOrStringArray{{Schema:{schema_ptr}, Property:{property}}}",
                        go_quote(k)
                    )
                })
                .collect();
            format!("apiextensions.JSONSchemaDependencies{{{}}}", items.join(", "))
        }
    }
}

/// An `apiextensions.JSON` (an `interface{}`) inside a slice: Go's `%#v` of its dynamic value.
fn json_value(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => go_quote(s),
        Value::Number(n) => match n.as_i64() {
            Some(i) => format!("{i}"),
            None => go_float(n.as_f64().unwrap_or_default()),
        },
        Value::Array(_) | Value::Object(_) => crate::semantics::names::go_syntax(v),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_plain_schema_should_print_every_field_in_go_order() {
        let printed = schema(&json!({"required": ["spec"]}), 28);
        assert!(printed.starts_with(
            r#"apiextensions.JSONSchemaProps{ID:"", Schema:"", Ref:(*string)(nil), Description:"", Type:"""#
        ));
        assert!(printed.contains(r#"Required:[]string{"spec"}, Items:(*apiextensions.JSONSchemaPropsOrArray)(nil)"#));
        assert!(printed.ends_with("XMapType:(*string)(nil), XValidations:apiextensions.ValidationRules(nil)}"));
    }
}
