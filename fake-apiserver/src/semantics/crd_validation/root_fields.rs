//! The root of a CRD's schema when the status subresource is on
//! (`validateCustomResourceDefinitionValidation` in `pkg/apis/apiextensions/validation/validation.go`):
//! its type must be `object`, and only some of `JSONSchemaProps`' fields may be set, walked in
//! Go's declaration order.

use serde_json::Value;

use super::go_dump;
use crate::semantics::field_error::{BadValue, FieldError};

/// JSONSchemaProps' fields in Go's declaration order, as JSON names them; the root check walks
/// them in this order.
const FIELDS: [(&str, &str); 44] = [
    ("id", "ID"),
    ("$schema", "Schema"),
    ("$ref", "Ref"),
    ("description", "Description"),
    ("type", "Type"),
    ("format", "Format"),
    ("title", "Title"),
    ("default", "Default"),
    ("maximum", "Maximum"),
    ("exclusiveMaximum", "ExclusiveMaximum"),
    ("minimum", "Minimum"),
    ("exclusiveMinimum", "ExclusiveMinimum"),
    ("maxLength", "MaxLength"),
    ("minLength", "MinLength"),
    ("pattern", "Pattern"),
    ("maxItems", "MaxItems"),
    ("minItems", "MinItems"),
    ("uniqueItems", "UniqueItems"),
    ("multipleOf", "MultipleOf"),
    ("enum", "Enum"),
    ("maxProperties", "MaxProperties"),
    ("minProperties", "MinProperties"),
    ("required", "Required"),
    ("items", "Items"),
    ("allOf", "AllOf"),
    ("oneOf", "OneOf"),
    ("anyOf", "AnyOf"),
    ("not", "Not"),
    ("properties", "Properties"),
    ("additionalProperties", "AdditionalProperties"),
    ("patternProperties", "PatternProperties"),
    ("dependencies", "Dependencies"),
    ("additionalItems", "AdditionalItems"),
    ("definitions", "Definitions"),
    ("externalDocs", "ExternalDocs"),
    ("example", "Example"),
    ("nullable", "Nullable"),
    ("x-kubernetes-preserve-unknown-fields", "XPreserveUnknownFields"),
    ("x-kubernetes-embedded-resource", "XEmbeddedResource"),
    ("x-kubernetes-int-or-string", "XIntOrString"),
    ("x-kubernetes-list-map-keys", "XListMapKeys"),
    ("x-kubernetes-list-type", "XListType"),
    ("x-kubernetes-map-type", "XMapType"),
    ("x-kubernetes-validations", "XValidations"),
];

/// The fields the root may have when the status subresource is on.
const ALLOWED_AT_ROOT: &str = "[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]";

/// The check of the root's fields when `status` is a subresource: `type` must be `object`, and
/// only some fields may be set.
pub(super) fn error(schema: &Value, root: &str, minor: u32) -> Option<FieldError> {
    for (json, go) in FIELDS {
        let Some(value) = schema.get(json).filter(|v| !is_zero(v)) else {
            continue;
        };
        if go == "Type" {
            if value.as_str() != Some("object") {
                let why = "only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled";
                return Some(FieldError::invalid(
                    format!("{root}.type"),
                    BadValue::Json(value.clone()),
                    why,
                ));
            }
            continue;
        }
        if !ALLOWED_AT_ROOT
            .trim_matches(['[', ']'])
            .split(' ')
            .any(|allowed| allowed == go)
        {
            let why = format!(
                "only {ALLOWED_AT_ROOT} fields are allowed at the root of the schema if the status subresource is enabled"
            );
            return Some(FieldError::invalid(
                root,
                BadValue::Raw(go_dump::schema(schema, minor)),
                why,
            ));
        }
    }
    None
}

/// Go's zero value of the field a JSON value decodes into.
fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}
