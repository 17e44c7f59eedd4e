//! The OpenAPI schema of a built-in kind as one minor's kube-controller-manager resolves it for
//! CEL (`apiserver/pkg/cel/openapi/resolver`: `DefinitionsSchemaResolver`, every `$ref`
//! followed), from the built-in shapes: the base tree's definitions with the fields later
//! minors added (`crate::semantics::minor_fields`).

use serde_json::{Map, Value, json};

use crate::semantics::minor_fields::Definitions;
use crate::semantics::shape;

/// How deep references are followed: deeper (only a CRD's own schema type is recursive) is
/// left as an object CEL cannot see into.
const MAX_DEPTH: usize = 16;

/// The schema of the built-in `group/version/Kind` on a server of `minor`, references inlined;
/// `None` for a kind the minor does not serve.
pub(crate) fn resolved(group: &str, version: &str, kind: &str, minor: u32) -> Option<Value> {
    let definitions = Definitions::of(minor)?;
    let shapes = shape::builtin_shapes();
    let key = format!("{group}/{version}/{kind}");
    let name = shapes
        .pointer("/kinds")
        .and_then(|k| k.get(&key))
        .or_else(|| {
            let newer = shapes.get("newer")?.as_object()?;
            newer.values().find_map(|n| n.get("kinds")?.get(&key))
        })?
        .as_str()?;
    Some(definition(&definitions, name, 0))
}

fn definition(definitions: &Definitions, name: &str, depth: usize) -> Value {
    let Some(node) = definitions.definition(name) else {
        return json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
    };
    let mut inlined = inline(definitions, node, depth);
    if let Some(properties) = inlined.get_mut("properties").and_then(Value::as_object_mut) {
        for added in definitions.added_fields(name) {
            for (key, field) in added {
                properties
                    .entry(key.clone())
                    .or_insert_with(|| inline(definitions, field, depth + 1));
            }
        }
    }
    inlined
}

fn inline(definitions: &Definitions, node: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
    }
    if let Some(name) = node.get("$ref").and_then(Value::as_str) {
        return definition(definitions, name, depth + 1);
    }
    let Some(fields) = node.as_object() else {
        return node.clone();
    };
    let mut out = Map::new();
    for (key, value) in fields {
        let value = match key.as_str() {
            "items" | "additionalProperties" if value.is_object() => inline(definitions, value, depth + 1),
            "properties" => Value::Object(
                value
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(k, v)| (k.clone(), inline(definitions, v, depth + 1)))
                    .collect(),
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deployment_should_resolve_with_its_types_inlined() {
        let schema = resolved("apps", "v1", "Deployment", 31).unwrap();
        assert_eq!(
            schema.pointer("/properties/spec/properties/replicas/type"),
            Some(&json!("integer"))
        );
        assert_eq!(
            schema.pointer("/properties/metadata/properties/creationTimestamp/format"),
            Some(&json!("date-time"))
        );
        let port = schema.pointer("/properties/spec/properties/template/properties/spec/properties/containers/items/properties/ports/items/properties/containerPort/type");
        assert_eq!(port, Some(&json!("integer")));
        assert!(resolved("apps", "v1", "Nothing", 31).is_none());
    }
}
