//! The Go names of the built-in types as `encoding/json` prints them in its errors: the struct
//! that declares a field (`Go struct field PodSpec.spec.x`) and a field's own type
//! (`of type v1.ResourceList`), read from the built-in shapes' OpenAPI definitions.

use serde_json::Value;

use crate::semantics::shape::served_shapes;

/// The Go struct type that declares the field at `path` (JSON field names, list indexes left
/// out) of a built-in kind of `group/version/kind`: the type of its parent, as the definitions'
/// `$ref`s name it (`io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec` names
/// `HorizontalPodAutoscalerSpec`); `None` where a parent is not a named struct.
pub(crate) fn go_struct_name(group_version_kind: &str, path: &[&str]) -> Option<String> {
    let (kinds, definitions) = served_shapes();
    let mut name = kinds.get(group_version_kind)?.as_str()?;
    let (_, parents) = path.split_last()?;
    for field in parents {
        let mut node = definitions.get(name)?.pointer("/properties")?.get(*field)?;
        while let Some(items) = node.get("items") {
            node = items;
        }
        name = node.get("$ref")?.as_str()?;
    }
    name.rsplit('.').next().map(str::to_owned)
}

/// The Go type of the map or struct field at `path` (as [`go_struct_name`] takes it) of a
/// built-in kind, as `encoding/json` names it in an error: a struct as its package and name
/// (`v1.PodSpec`), a map of strings as `map[string]string` (of bytes `map[string][]uint8`), a
/// resource list as `v1.ResourceList`; `None` where the definitions do not say.
pub(crate) fn go_field_type(group_version_kind: &str, path: &[&str]) -> Option<String> {
    let (kinds, definitions) = served_shapes();
    let mut name = kinds.get(group_version_kind)?.as_str()?;
    let mut node = None;
    for field in path {
        let mut found = definitions.get(name)?.pointer("/properties")?.get(*field)?;
        while let Some(items) = found.get("items") {
            found = items;
        }
        node = Some(found);
        if let Some(next) = found.get("$ref").and_then(Value::as_str) {
            name = next;
        }
    }
    let node = node?;
    let package_and_name = |definition: &str| {
        let mut segments = definition.rsplit('.');
        let type_name = segments.next()?;
        Some(format!("{}.{type_name}", segments.next()?))
    };
    if let Some(definition) = node.get("$ref").and_then(Value::as_str) {
        return package_and_name(definition);
    }
    let entries = node.get("additionalProperties")?;
    match (
        entries.get("type").and_then(Value::as_str),
        entries.get("format").and_then(Value::as_str),
        entries.get("$ref").and_then(Value::as_str),
    ) {
        (Some("string"), Some("byte"), _) => Some("map[string][]uint8".to_owned()),
        (Some("string"), _, _) => Some("map[string]string".to_owned()),
        (_, _, Some(quantity)) if quantity.ends_with("resource.Quantity") => Some("v1.ResourceList".to_owned()),
        _ => None,
    }
}
