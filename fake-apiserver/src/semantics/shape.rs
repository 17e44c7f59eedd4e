//! How field management sees a resource's values: which lists are sets, keyed maps or atomic,
//! which maps and structs are owned whole, as structured-merge-diff types them. A custom
//! resource's come from its CRD schema (`x-kubernetes-list-type`, `x-kubernetes-map-type`); a
//! built-in kind's from kube-apiserver's own OpenAPI definitions, as kube-openapi's `schemaconv`
//! reads them (`builtin_shapes.json`, written by `hack/builtin-shapes.py` from the v1.28.7
//! `api/openapi-spec/v3` documents: a list's type, else its patch strategy and merge key, else
//! atomic).

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::semantics::strategic;
use crate::storage::resource::ResourceInfo;

/// Where list semantics come from: the schema at the current node (a CRD's, or a built-in
/// type's OpenAPI definition), with the definitions its `$ref`s name.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape<'a> {
    schema: Option<&'a Value>,
    /// The OpenAPI definitions of the built-in types, for a built-in kind.
    definitions: Option<&'static Map<String, Value>>,
}

/// The built-in types' shapes: `kinds` (`group/version/Kind` → definition) and `definitions`.
fn builtin_shapes() -> &'static Value {
    static SHAPES: OnceLock<Value> = OnceLock::new();
    SHAPES
        .get_or_init(|| serde_json::from_str(include_str!("builtin_shapes.json")).expect("builtin_shapes.json is JSON"))
}

impl<'a> Shape<'a> {
    pub(crate) fn of(info: &'a ResourceInfo) -> Self {
        if info.builtin {
            let shapes = builtin_shapes();
            let key = format!("{}/{}/{}", info.group, info.version, info.kind);
            let definitions = shapes.get("definitions").and_then(Value::as_object);
            let root = shapes
                .pointer("/kinds")
                .and_then(|kinds| kinds.get(&key))
                .and_then(Value::as_str)
                .and_then(|name| definitions?.get(name));
            if let Some(root) = root {
                return Self {
                    schema: Some(root),
                    definitions,
                };
            }
        }
        Self {
            schema: info.schema.as_ref(),
            definitions: None,
        }
    }

    /// The schema a node stands for: the definition its `$ref` names, or itself.
    fn resolve(self, node: Option<&'a Value>) -> Option<&'a Value> {
        let node = node?;
        match (node.get("$ref").and_then(Value::as_str), self.definitions) {
            (Some(name), Some(definitions)) => definitions.get(name),
            _ => Some(node),
        }
    }

    pub(crate) fn child(self, key: &str) -> Self {
        let schema = self.schema.and_then(|s| {
            s.get("properties")
                .and_then(|p| p.get(key))
                .or_else(|| s.get("additionalProperties").filter(|a| a.is_object()))
        });
        Self {
            schema: self.resolve(schema),
            ..self
        }
    }

    pub(crate) fn items(self) -> Self {
        Self {
            schema: self.resolve(self.schema.and_then(|s| s.get("items"))),
            ..self
        }
    }

    /// Whether `key` is an entry of a schema map (`additionalProperties`) rather than a declared
    /// field: structured-merge-diff's field set owns such entries themselves.
    pub(crate) fn is_map_entry(self, key: &str) -> bool {
        self.schema.is_some_and(|s| {
            s.get("properties").and_then(|p| p.get(key)).is_none()
                && s.get("additionalProperties").is_some_and(Value::is_object)
        })
    }

    /// Whether the value at `path` is owned whole: its type says `x-kubernetes-map-type:
    /// atomic` (a struct marked `+structType=atomic`, such as a label selector or an owner
    /// reference, or an atomic map). A custom resource's schema does not describe its
    /// metadata, whose owner references are such structs.
    pub(crate) fn is_atomic(self, path: &[String]) -> bool {
        let schema_atomic = self
            .schema
            .and_then(|s| s.get("x-kubernetes-map-type"))
            .and_then(Value::as_str)
            == Some("atomic");
        let owner_reference = self.definitions.is_none()
            && matches!(path, [metadata, references, item]
                if metadata == "f:metadata" && references == "f:ownerReferences" && !item.starts_with("f:"));
        schema_atomic || owner_reference
    }

    /// Whether Go's JSON encoder leaves the field `key` of this built-in type out when it is
    /// empty (`x-omitempty`, from the Go types by `hack/builtin-shapes.py`).
    pub(crate) fn omits_empty(self, key: &str) -> bool {
        self.definitions.is_some()
            && self
                .schema
                .and_then(|s| s.get("x-omitempty"))
                .and_then(Value::as_array)
                .is_some_and(|fields| fields.iter().any(|f| f == key))
    }

    /// The default of a list item's field `name`, from the list's schema.
    fn item_default(self, name: &str) -> Option<Value> {
        let items = self.resolve(self.schema.and_then(|s| s.get("items")))?;
        items
            .pointer(&format!("/properties/{name}/default"))
            .filter(|d| !d.is_null())
            .cloned()
    }
}

/// The Go struct type that declares the field at `path` (JSON field names, list indexes left
/// out) of a built-in kind of `group/version/kind`: the type of its parent, as the definitions'
/// `$ref`s name it (`io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec` names
/// `HorizontalPodAutoscalerSpec`); `None` where a parent is not a named struct.
pub(crate) fn go_struct_name(group_version_kind: &str, path: &[&str]) -> Option<String> {
    let shapes = builtin_shapes();
    let definitions = shapes.get("definitions").and_then(Value::as_object)?;
    let mut name = shapes.pointer("/kinds")?.get(group_version_kind)?.as_str()?;
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

/// How a list's elements are identified.
pub(crate) enum ListKind {
    /// Replaced whole.
    Atomic,
    /// Scalars, each a `v:` member.
    Set,
    /// Objects, each a `k:` element keyed by these fields, with the value a field takes where
    /// an item omits it (its schema default: structured-merge-diff keys such an item by it).
    Map(Vec<(String, Option<Value>)>),
}

/// The kind of the list at `path` (named `field`), from the schema or the built-in merge keys.
pub(crate) fn list_kind(shape: Shape<'_>, path: &[String], field: &str, items: &[Value]) -> ListKind {
    // A CRD schema does not describe metadata; a built-in type's definitions do.
    let described = shape.definitions.is_some() || path.first().is_none_or(|s| s != "f:metadata");
    if let (Some(schema), true) = (shape.schema, described) {
        return match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
            Some("set") => ListKind::Set,
            Some("map") => {
                let keys = schema.get("x-kubernetes-list-map-keys").and_then(Value::as_array);
                ListKind::Map(
                    keys.into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(|name| (name.to_owned(), shape.item_default(name)))
                        .collect(),
                )
            }
            _ => ListKind::Atomic,
        };
    }
    // A custom resource's metadata: ObjectMeta's patch strategies (finalizers a set, owner
    // references keyed by uid).
    if strategic::is_set_list(field) {
        return ListKind::Set;
    }
    match strategic::merge_key(field, items) {
        Some(key) => ListKind::Map(vec![(key.to_owned(), None)]),
        None => ListKind::Atomic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(fields: &[&str]) -> Vec<String> {
        fields.iter().map(|f| format!("f:{f}")).collect()
    }

    #[test]
    fn a_services_selector_is_an_atomic_map_and_its_ports_are_keyed_by_port_and_protocol() {
        let service = ResourceInfo::builtin("", "v1", "Service", "services");
        let spec = Shape::of(&service).child("spec");
        assert!(spec.child("selector").is_atomic(&path(&["spec", "selector"])));
        let ListKind::Map(keys) = list_kind(spec.child("ports"), &path(&["spec", "ports"]), "ports", &[]) else {
            panic!("ports are a list-map");
        };
        // The OpenAPI defaults (Go zero values included) key an item that omits a key field.
        assert_eq!(
            keys,
            [
                ("port".to_owned(), Some(Value::from(0))),
                ("protocol".to_owned(), Some(Value::from("TCP")))
            ]
        );
    }

    #[test]
    fn built_in_structs_marked_atomic_and_metadata_lists_come_from_the_definitions() {
        let deployment = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let shape = Shape::of(&deployment);
        assert!(
            shape
                .child("spec")
                .child("selector")
                .is_atomic(&path(&["spec", "selector"]))
        );
        assert!(
            !shape
                .child("spec")
                .child("template")
                .is_atomic(&path(&["spec", "template"]))
        );
        let metadata = shape.child("metadata");
        let finalizers = list_kind(
            metadata.child("finalizers"),
            &path(&["metadata", "finalizers"]),
            "finalizers",
            &[],
        );
        assert!(matches!(finalizers, ListKind::Set));
        let containers = shape.child("spec").child("template").child("spec").child("containers");
        let kind = list_kind(
            containers,
            &path(&["spec", "template", "spec", "containers"]),
            "containers",
            &[],
        );
        assert!(matches!(kind, ListKind::Map(keys) if keys[0].0 == "name"));
    }
}
