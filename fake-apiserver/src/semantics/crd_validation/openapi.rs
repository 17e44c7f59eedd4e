//! A CRD version's `openAPIV3Schema` as apiextensions validates it
//! (`apiextensions/validation/validation.go`: `validateCustomResourceDefinitionValidation`,
//! `ValidateCustomResourceDefinitionOpenAPISchema`, `specStandardValidatorV3`); the
//! `x-kubernetes-*` extensions are checked in [`super::extensions`].

use serde_json::Value;

use std::cell::RefCell;

use super::cel_rules::{self, TotalCost};
use super::{Options, defaults, extensions, root_fields, structural};
use crate::semantics::field_error::{BadValue, FieldError};

const OPENAPI_TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];
const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// `validateCustomResourceDefinitionValidation`: `validation` is a `CustomResourceValidation`
/// (`{openAPIV3Schema: …}`) at `path`.
pub(crate) fn validation_errors(
    validation: Option<&Value>,
    status: bool,
    opts: &Options,
    path: &str,
) -> Vec<FieldError> {
    let Some(schema) = validation
        .and_then(|v| v.get("openAPIV3Schema"))
        .filter(|s| s.is_object())
    else {
        return Vec::new();
    };
    let root = format!("{path}.openAPIV3Schema");
    let mut errors = Vec::new();
    if status {
        errors.extend(root_fields::error(schema, &root, opts.minor));
    }
    if schema.get("nullable").and_then(Value::as_bool) == Some(true) {
        errors.push(FieldError::forbidden(
            format!("{root}.nullable"),
            "nullable cannot be true at the root",
        ));
    }
    let mut init_errors = Vec::new();
    // Rules are compiled only in a structural schema whose defaults are valid.
    let mut rules_checked = false;
    if opts.require_structural {
        match structural::init_error(schema) {
            Some(why) => init_errors.push(FieldError::invalid(&root, BadValue::from(""), why)),
            None => match &structural::structural_errors(schema, &root)[..] {
                [] => {
                    let found = defaults::errors(schema, &root, opts.require_pruned_defaults);
                    rules_checked = found.is_empty();
                    errors.extend(found);
                }
                found => errors.extend(found.iter().cloned()),
            },
        }
    }
    let total = RefCell::new(TotalCost::default());
    let root_context = cel_rules::Context::root(&total, opts.cel_loader());
    let cel = rules_checked.then_some(&root_context);
    let mut cel_errors = Vec::new();
    let standard = Standard {
        allow_defaults: true,
        forbidden_reason: None,
        inside_meta: false,
    };
    errors.extend(schema_errors(schema, &root, standard, true, opts, cel, &mut cel_errors));
    errors.extend(cel_errors);
    if errors.is_empty() {
        errors.extend(init_errors);
    }
    if rules_checked {
        errors.extend(total.borrow().errors(&root));
    }
    errors
}

/// `specStandardValidatorV3`'s state.
#[derive(Clone, Copy)]
struct Standard<'r> {
    allow_defaults: bool,
    forbidden_reason: Option<&'r str>,
    inside_meta: bool,
}

/// `ValidateCustomResourceDefinitionOpenAPISchema`: the schema errors of the node and below;
/// their CEL errors go to `cel_errors`, which kube-apiserver lists after all schema errors.
fn schema_errors(
    schema: &Value,
    path: &str,
    standard: Standard<'_>,
    root: bool,
    opts: &Options,
    cel: Option<&cel_rules::Context<'_>>,
    cel_errors: &mut Vec<FieldError>,
) -> Vec<FieldError> {
    let Some(fields) = schema.as_object() else {
        return Vec::new();
    };
    let mut errors = standard_errors(schema, path, standard);
    let flag = |key: &str| fields.get(key).and_then(Value::as_bool);
    if flag("uniqueItems") == Some(true) {
        errors.push(FieldError::forbidden(
            format!("{path}.uniqueItems"),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ));
    }
    let properties = fields
        .get("properties")
        .and_then(Value::as_object)
        .filter(|p| !p.is_empty());
    if let Some(additional) = fields.get("additionalProperties").filter(|a| !a.is_null()) {
        if properties.is_some() && (additional.as_bool() == Some(false) || additional.is_object()) {
            errors.push(FieldError::forbidden(
                format!("{path}.additionalProperties"),
                "additionalProperties and properties are mutual exclusive",
            ));
        }
        let mut sub = standard;
        if standard.inside_meta {
            sub.allow_defaults = false;
            sub.forbidden_reason = Some("inside additionalProperties applying to object metadata");
        }
        let context = cel.map(|c| c.additional(schema, additional));
        errors.extend(schema_errors(
            additional,
            &format!("{path}.additionalProperties"),
            sub,
            false,
            opts,
            context.as_ref(),
            cel_errors,
        ));
    }
    let embedded = flag("x-kubernetes-embedded-resource") == Some(true);
    let top_level_reasons = ["in top-level apiVersion", "in top-level kind", "in top-level metadata"];
    for (name, property) in properties.into_iter().flatten() {
        let mut sub = standard;
        if (root || embedded)
            && let Some(i) = META_FIELDS.iter().position(|m| m == name)
        {
            sub.inside_meta = true;
            if root {
                sub.allow_defaults = false;
                sub.forbidden_reason = Some(top_level_reasons[i]);
            }
        }
        let context = cel.map(|c| c.property(schema, path, property));
        errors.extend(schema_errors(
            property,
            &format!("{path}.properties[{name}]"),
            sub,
            false,
            opts,
            context.as_ref(),
            cel_errors,
        ));
    }
    if let Some(not) = fields.get("not") {
        errors.extend(schema_errors(
            not,
            &format!("{path}.not"),
            standard,
            false,
            opts,
            None,
            cel_errors,
        ));
    }
    for junctor in ["allOf", "oneOf", "anyOf"] {
        for (i, branch) in fields
            .get(junctor)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            errors.extend(schema_errors(
                branch,
                &format!("{path}.{junctor}[{i}]"),
                standard,
                false,
                opts,
                None,
                cel_errors,
            ));
        }
    }
    for (name, definition) in fields
        .get("definitions")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        errors.extend(schema_errors(
            definition,
            &format!("{path}.definitions[{name}]"),
            standard,
            false,
            opts,
            None,
            cel_errors,
        ));
    }
    match fields.get("items") {
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let context = cel.map(|c| c.items(schema, path, item));
                errors.extend(schema_errors(
                    item,
                    &format!("{path}.items[{i}]"),
                    standard,
                    false,
                    opts,
                    context.as_ref(),
                    cel_errors,
                ));
            }
        }
        Some(item) => {
            let context = cel.map(|c| c.items(schema, path, item));
            errors.extend(schema_errors(
                item,
                &format!("{path}.items"),
                standard,
                false,
                opts,
                context.as_ref(),
                cel_errors,
            ));
        }
        None => {}
    }
    for (name, dependency) in fields
        .get("dependencies")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        errors.extend(schema_errors(
            dependency,
            &format!("{path}.dependencies[{name}]"),
            standard,
            false,
            opts,
            None,
            cel_errors,
        ));
    }
    errors.extend(extensions::errors(schema, path, opts));
    // Rules are compiled only where this node and those below it have no schema errors.
    if let Some(context) = cel.filter(|_| errors.is_empty()) {
        cel_errors.extend(context.errors(schema, path));
    }
    errors
}

/// `specStandardValidatorV3.validate`: keywords structural schemas forbid anywhere.
fn standard_errors(schema: &Value, path: &str, standard: Standard<'_>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let type_name = schema.get("type").and_then(Value::as_str).unwrap_or_default();
    if !type_name.is_empty() && !OPENAPI_TYPES.contains(&type_name) {
        let supported: Vec<String> = OPENAPI_TYPES.iter().map(|t| (*t).to_owned()).collect();
        errors.push(FieldError::not_supported(
            format!("{path}.type"),
            BadValue::from(type_name),
            &supported,
        ));
    }
    if schema.get("default").is_some_and(|d| !d.is_null()) && !standard.allow_defaults {
        let detail = standard
            .forbidden_reason
            .map_or_else(|| "must not be set".to_owned(), |r| format!("must not be set {r}"));
        errors.push(FieldError::forbidden(format!("{path}.default"), detail));
    }
    if schema
        .get("id")
        .and_then(Value::as_str)
        .is_some_and(|id| !id.is_empty())
    {
        errors.push(FieldError::forbidden(format!("{path}.id"), "id is not supported"));
    }
    let forbidden = [
        ("additionalItems", "additionalItems is not supported"),
        ("patternProperties", "patternProperties is not supported"),
        ("definitions", "definitions is not supported"),
        ("dependencies", "dependencies is not supported"),
        ("$ref", "$ref is not supported"),
    ];
    for (key, why) in forbidden {
        let set = match schema.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::Object(map)) if key != "additionalItems" && key != "dependencies" => !map.is_empty(),
            Some(_) => true,
        };
        if set {
            errors.push(FieldError::forbidden(format!("{path}.{key}"), why));
        }
    }
    if type_name == "null" {
        errors.push(FieldError::forbidden(
            format!("{path}.type"),
            "type cannot be set to null, use nullable as an alternative",
        ));
    }
    if schema
        .get("items")
        .is_some_and(|i| i.as_array().is_some_and(|a| !a.is_empty()))
    {
        errors.push(FieldError::forbidden(
            format!("{path}.items"),
            "items must be a schema object and not an array",
        ));
    }
    if standard.inside_meta && schema.get("x-kubernetes-embedded-resource").and_then(Value::as_bool) == Some(true) {
        errors.push(FieldError::forbidden(
            format!("{path}.x-kubernetes-embedded-resource"),
            "must not be used inside of resource meta",
        ));
    }
    errors
}
