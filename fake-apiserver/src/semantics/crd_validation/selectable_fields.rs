//! `ValidateCustomResourceSelectableFields` (`apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`,
//! served from 1.31, where `CustomResourceFieldSelectors` is on): each field a custom resource
//! may be selected by is a path into the schema, read as a CEL rule's `fieldPath` is but without
//! `['name']` steps, to a string, boolean or integer outside `metadata`, named once, and at most
//! eight of them.

use serde_json::Value;

use crate::semantics::cel::resolve_field_path;
use crate::semantics::field_error::{BadValue, FieldError};

/// `MaxSelectableFields`.
const MAX_SELECTABLE_FIELDS: i64 = 8;

/// The errors of `fields` (a version's or, when every version has the same, the spec's), under
/// `path`; `schema` is the `CustomResourceValidation` beside them, which they need. `scope`
/// words the refusal when it is missing, as Go words it at each level.
pub(crate) fn errors(fields: &[Value], schema: Option<&Value>, path: &str, scope: Scope) -> Vec<FieldError> {
    let Some(schema) = schema.and_then(|s| s.get("openAPIV3Schema")) else {
        return vec![FieldError::invalid(path, BadValue::from(""), scope.missing_schema())];
    };
    let mut errors = Vec::new();
    let mut unique: Vec<String> = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        let at = format!("{path}[{i}].jsonPath");
        let json_path = field.get("jsonPath").and_then(Value::as_str).unwrap_or_default();
        if json_path.is_empty() {
            errors.push(FieldError::required(at, ""));
            continue;
        }
        let (normalized, node) = match resolve_field_path(json_path, schema, false) {
            Ok(found) => found,
            Err(why) => {
                errors.push(FieldError::invalid(
                    at,
                    BadValue::from(json_path),
                    format!("is an invalid path: {why}"),
                ));
                continue;
            }
        };
        let root = normalized.split(['.', '[']).next().unwrap_or_default();
        if root == "metadata" {
            errors.push(FieldError::invalid(
                &at,
                BadValue::from(json_path),
                "must not point to fields in metadata",
            ));
        }
        let scalar = matches!(
            node.get("type").and_then(Value::as_str),
            Some("string" | "boolean" | "integer")
        );
        if !scalar {
            errors.push(FieldError::invalid(
                &at,
                BadValue::from(json_path),
                "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
            ));
        }
        if unique.contains(&normalized) {
            errors.push(FieldError::duplicate(at, BadValue::from(json_path)));
        } else {
            unique.push(normalized);
        }
    }
    let count = unique.len() as i64;
    if count > MAX_SELECTABLE_FIELDS {
        errors.push(FieldError::too_many(path, count, MAX_SELECTABLE_FIELDS));
    }
    errors
}

/// Where the selectable fields stand: the two levels word a missing schema differently.
#[derive(Clone, Copy)]
pub(crate) enum Scope {
    Spec,
    Version,
}

impl Scope {
    fn missing_schema(self) -> &'static str {
        match self {
            Scope::Spec => "selectableFields may only be set when validations.schema is included",
            // Go's wording, negation included.
            Scope::Version => "selectableFields may only be set when version.schema.openAPIV3Schema is not included",
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    fn schema() -> Value {
        json!({"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "color": {"type": "string"}, "size": {"type": "integer"},
                "items": {"type": "array", "items": {"type": "string"}}
            }},
            "metadata": {"type": "object", "properties": {"name": {"type": "string"}}}
        }}})
    }

    #[test]
    fn paths_should_name_scalars_outside_metadata_once() {
        let fields = json!([
            {"jsonPath": ".spec.color"}, {"jsonPath": ".spec.items"}, {"jsonPath": ".spec.nothing"},
            {"jsonPath": ".spec['color']"}, {"jsonPath": ".metadata.name"}, {"jsonPath": "spec.size"}, {},
            {"jsonPath": ".spec.color"}
        ]);
        let errors = errors(
            fields.as_array().unwrap(),
            Some(&schema()),
            "spec.selectableFields",
            Scope::Spec,
        );
        assert_eq!(
            rendered(&errors),
            [
                "spec.selectableFields[1].jsonPath: Invalid value: \".spec.items\": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
                "spec.selectableFields[2].jsonPath: Invalid value: \".spec.nothing\": is an invalid path: does not refer to a valid field",
                "spec.selectableFields[3].jsonPath: Invalid value: \".spec['color']\": is an invalid path: array notation is not allowed",
                "spec.selectableFields[4].jsonPath: Invalid value: \".metadata.name\": must not point to fields in metadata",
                "spec.selectableFields[5].jsonPath: Invalid value: \"spec.size\": is an invalid path: expected [ or . but got: spec",
                "spec.selectableFields[6].jsonPath: Required value",
                "spec.selectableFields[7].jsonPath: Duplicate value: \".spec.color\"",
            ]
        );
    }

    #[test]
    fn more_than_eight_fields_or_no_schema_should_be_refused() {
        let many: Vec<Value> = (0..9).map(|i| json!({"jsonPath": format!(".f{i}")})).collect();
        let properties: serde_json::Map<String, Value> =
            (0..9).map(|i| (format!("f{i}"), json!({"type": "boolean"}))).collect();
        let schema = json!({"openAPIV3Schema": {"type": "object", "properties": properties}});
        let too_many = errors(
            &many,
            Some(&schema),
            "spec.versions[0].selectableFields",
            Scope::Version,
        );
        assert_eq!(
            rendered(&too_many),
            ["spec.versions[0].selectableFields: Too many: 9: must have at most 8 items"]
        );
        let missing = errors(&many, None, "spec.versions[0].selectableFields", Scope::Version);
        assert_eq!(
            rendered(&missing),
            [
                "spec.versions[0].selectableFields: Invalid value: \"\": selectableFields may only be set when version.schema.openAPIV3Schema is not included"
            ]
        );
    }
}
