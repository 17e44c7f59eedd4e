//! The `default`s of a structural schema as apiextensions checks them when a CRD is written
//! (`apiextensions-apiserver/pkg/apiserver/schema/defaulting/validation.go`: `ValidateDefaults`):
//! each must be pruned already and valid against its own schema; defaults inside an embedded
//! resource's metadata are checked as that metadata.

use serde_json::Value;

use crate::semantics::field_error::FieldError;
use crate::semantics::schema;

/// The errors of every default below `root` (the `openAPIV3Schema` at `path`), the resource
/// root's included; properties are visited in name order.
pub(crate) fn errors(root: &Value, path: &str, require_pruned: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    walk(root, path, true, require_pruned, &mut errors);
    errors
}

fn walk(node: &Value, path: &str, resource_root: bool, require_pruned: bool, errors: &mut Vec<FieldError>) {
    let embedded = resource_root || node.get("x-kubernetes-embedded-resource").and_then(Value::as_bool) == Some(true);
    if let Some(default) = node.get("default").filter(|d| !d.is_null()) {
        errors.extend(schema::default_errors(
            node,
            default,
            embedded,
            &format!("{path}.default"),
            require_pruned,
        ));
    }
    if let Some(items) = node.get("items").filter(|i| i.is_object()) {
        walk(items, &format!("{path}.items"), false, require_pruned, errors);
    }
    for (name, property) in node.get("properties").and_then(Value::as_object).into_iter().flatten() {
        walk(
            property,
            &format!("{path}.properties[{name}]"),
            false,
            require_pruned,
            errors,
        );
    }
}
