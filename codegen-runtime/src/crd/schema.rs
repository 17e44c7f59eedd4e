//! The schema half of a CRD: schemars' schema made structural and shaped like controller-gen's,
//! and the generator's marker patches applied to it.

use kube::core::schema::{OptionalEnum, OptionalIntOrString, StructuralSchemaRewriter};
use schemars::generate::SchemaSettings;
use schemars::transform::AddNullable;
use serde_json::{Map, Value, json};

use super::{CrdError, CrdSchema};

/// A change to the schema, computed by the generator from a marker.
pub(super) enum Patch {
    /// Merge a JSON object into the schema at a pointer; `x-kubernetes-validations` and
    /// `x-kubernetes-list-map-keys` append, anything else replaces.
    Merge {
        pointer: String,
        fragment: String,
        what: String,
    },
    /// Replace the schema at a pointer (`+kubebuilder:validation:Schemaless`).
    Replace {
        pointer: String,
        fragment: String,
        what: String,
    },
    /// Add `field` to, or remove it from, the `required` list of the object at a pointer.
    Required {
        pointer: String,
        field: String,
        required: bool,
        what: String,
    },
}

/// The structural schema of the object `K`, shaped like controller-gen's.
pub(super) fn object_schema<K: CrdSchema>() -> Value {
    // As kube-derive generates it: no definitions and no `$schema`, which CRDs forbid.
    let generator = SchemaSettings::openapi3()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .with_transform(AddNullable::default())
        .with_transform(StructuralSchemaRewriter)
        .with_transform(OptionalEnum)
        .with_transform(OptionalIntOrString)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<K>().to_value();
    strip_markers(&mut schema);
    if let Some(root) = schema.as_object_mut() {
        root.remove("title");
        let properties = root.entry("properties").or_insert_with(|| Value::Object(Map::new()));
        if let Some(properties) = properties.as_object_mut() {
            // The API server owns metadata's schema; a CRD may only say it is an object.
            properties.insert("metadata".into(), json!({ "type": "object" }));
            properties.insert("apiVersion".into(), json!({
                "description": "The versioned schema of this object, e.g. group/version. Servers convert the schemas they know to the latest internal value and may reject the others.",
                "type": "string",
            }));
            properties.insert("kind".into(), json!({
                "description": "The REST resource this object represents, in CamelCase. Servers may infer it from the endpoint the client submits requests to.",
                "type": "string",
            }));
        }
        if let Some(Value::Array(required)) = root.get_mut("required") {
            // kube-apiserver fills these in: a CRD never requires them (controller-gen's don't),
            // although the types' fields are not `Option`s.
            required.retain(|r| r != "metadata" && r != "apiVersion" && r != "kind");
            if required.is_empty() {
                root.remove("required");
            }
        }
    }
    schema
}

/// Removes tag and marker lines (`+genclient`, `+kubebuilder:…`) from every description, as
/// controller-gen does: they are instructions to tools, not documentation.
fn strip_markers(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(text)) = map.get_mut("description") {
                let kept: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with('+')).collect();
                let cleaned = kept.join("\n").trim().to_owned();
                if cleaned.is_empty() {
                    map.remove("description");
                } else {
                    *text = cleaned;
                }
            }
            map.values_mut().for_each(strip_markers);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_markers),
        _ => {}
    }
}

pub(super) fn apply(schema: &mut Value, patch: &Patch, kind: &str) -> Result<(), CrdError> {
    let (pointer, what) = match patch {
        Patch::Merge { pointer, what, .. }
        | Patch::Replace { pointer, what, .. }
        | Patch::Required { pointer, what, .. } => (pointer, what),
    };
    let missing = || CrdError::MissingPath {
        kind: kind.to_owned(),
        pointer: pointer.clone(),
        what: what.clone(),
    };
    let target = schema
        .pointer_mut(pointer)
        .and_then(Value::as_object_mut)
        .ok_or_else(missing)?;
    let parse = |fragment: &str| -> Result<Value, CrdError> {
        serde_json::from_str(fragment).map_err(|error| CrdError::InvalidFragment {
            kind: kind.to_owned(),
            what: what.clone(),
            fragment: fragment.to_owned(),
            error,
        })
    };
    match patch {
        Patch::Replace { fragment, .. } => {
            let Value::Object(replacement) = parse(fragment)? else {
                return Err(missing());
            };
            *target = replacement;
        }
        Patch::Merge { fragment, .. } => {
            let parsed = parse(fragment)?;
            for (key, value) in parsed.as_object().into_iter().flatten() {
                let appends = matches!(key.as_str(), "x-kubernetes-validations" | "x-kubernetes-list-map-keys");
                match (appends, target.get_mut(key), value) {
                    (true, Some(Value::Array(existing)), Value::Array(more)) => existing.extend(more.iter().cloned()),
                    _ => {
                        target.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        Patch::Required { field, required, .. } => {
            let list = target.entry("required").or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = list {
                list.retain(|f| f != field.as_str());
                if *required {
                    list.push(Value::String(field.clone()));
                }
                if list.is_empty() {
                    target.remove("required");
                }
            }
        }
    }
    Ok(())
}
