//! How field management sees a resource's values: which lists are sets, keyed maps or atomic,
//! which maps and structs are owned whole, as structured-merge-diff types them. A custom
//! resource's come from its CRD schema (`x-kubernetes-list-type`, `x-kubernetes-map-type`); a
//! built-in kind's from kube-apiserver's own OpenAPI definitions, as kube-openapi's `schemaconv`
//! reads them (`builtin_shapes.json`, written by `hack/builtin-shapes.py` from the v1.28.7
//! `api/openapi-spec/v3` documents: a list's type, else its patch strategy and merge key, else
//! atomic; a kind only a later minor serves, flowcontrol's v1, from that minor's).

use std::sync::{LazyLock, OnceLock};

use serde_json::{Map, Value};

use crate::storage::resource::ResourceInfo;

/// Where list semantics come from: the schema at the current node (a CRD's, or a built-in
/// type's OpenAPI definition), with the definitions its `$ref`s name.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape<'a> {
    schema: Option<&'a Value>,
    /// The OpenAPI definitions of the built-in types, for a built-in kind.
    definitions: Option<&'static Map<String, Value>>,
    /// The definition `schema` is, by name (`io.k8s.api.apps.v1.DeploymentSpec`).
    definition: Option<&'a str>,
    /// Whether this is an object's root, whose `apiVersion`, `kind` and `metadata` are typed
    /// whatever its schema keeps.
    root: bool,
}

/// The schema structured-merge-diff gives a value below `x-kubernetes-preserve-unknown-fields`
/// (`__untyped_deduced_`): a map of more such values, each key an entry of its own; its lists
/// and scalars are atomic.
static DEDUCED: LazyLock<Value> = LazyLock::new(|| serde_json::json!({"x-kubernetes-preserve-unknown-fields": true}));

/// A field's strategic merge patch metadata (`strategicpatch.PatchMeta`): its patch strategies
/// and merge key, as its Go struct tags give them (`x-kubernetes-patch-strategy`, `-merge-key`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PatchMeta<'a> {
    /// Comma-separated: `merge`, `replace`, `retainKeys` or `merge,retainKeys`; empty if none.
    pub(crate) strategies: &'a str,
    /// The field that identifies an item of a merged list of objects; empty if none.
    pub(crate) merge_key: &'a str,
}

/// The built-in types' shapes: `kinds` (`group/version/Kind` → definition) and `definitions`,
/// and under `newer` what later minors' Go structs declare beyond them.
pub(crate) fn builtin_shapes() -> &'static Value {
    static SHAPES: OnceLock<Value> = OnceLock::new();
    SHAPES
        .get_or_init(|| serde_json::from_str(include_str!("builtin_shapes.json")).expect("builtin_shapes.json is JSON"))
}

/// The kinds and definitions of every minor's tree in one map each: the base tree's, and those
/// of the kinds a later minor serves and the base does not (flowcontrol's `v1`), with the
/// definitions they reach. Only a server of that minor registers such a kind, so one map serves
/// every minor; the fields later minors add to base definitions stay `minor_fields`' to read.
pub(crate) fn served_shapes() -> &'static (Map<String, Value>, Map<String, Value>) {
    static SERVED: OnceLock<(Map<String, Value>, Map<String, Value>)> = OnceLock::new();
    SERVED.get_or_init(|| {
        let shapes = builtin_shapes();
        let section = |value: Option<&Value>| value.and_then(Value::as_object).cloned().unwrap_or_default();
        let mut kinds = section(shapes.get("kinds"));
        let mut definitions = section(shapes.get("definitions"));
        for newer in shapes
            .get("newer")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(_, n)| n)
        {
            for (key, name) in section(newer.get("kinds")) {
                kinds.entry(key).or_insert(name);
            }
            for (name, definition) in section(newer.get("definitions")) {
                definitions.entry(name).or_insert(definition);
            }
        }
        (kinds, definitions)
    })
}

impl<'a> Shape<'a> {
    pub(crate) fn of(info: &'a ResourceInfo) -> Self {
        if info.builtin {
            let (kinds, definitions) = served_shapes();
            let key = format!("{}/{}/{}", info.group, info.version, info.kind);
            let name = kinds.get(&key).and_then(Value::as_str);
            if let Some((name, root)) = name.and_then(|name| Some((name, definitions.get(name)?))) {
                return Self {
                    schema: Some(root),
                    definitions: Some(definitions),
                    definition: Some(name),
                    root: true,
                };
            }
        }
        Self {
            schema: info.schema.as_ref(),
            definitions: None,
            definition: None,
            root: true,
        }
    }

    /// The shape a node stands for: the definition its `$ref` names, or itself.
    fn resolve(self, node: Option<&'a Value>) -> Self {
        let Some(node) = node else {
            return Self {
                schema: None,
                definition: None,
                root: false,
                ..self
            };
        };
        match (node.get("$ref").and_then(Value::as_str), self.definitions) {
            (Some(name), Some(definitions)) => Self {
                schema: definitions.get(name),
                definition: Some(name),
                root: false,
                ..self
            },
            _ => Self {
                schema: Some(node),
                definition: None,
                root: false,
                ..self
            },
        }
    }

    /// A declared field's own schema node, before its `$ref` is followed.
    fn property(self, key: &str) -> Option<&'a Value> {
        self.schema.and_then(|s| s.get("properties")).and_then(|p| p.get(key))
    }

    pub(crate) fn child(self, key: &str) -> Self {
        let schema = self
            .property(key)
            .or_else(|| {
                self.schema
                    .and_then(|s| s.get("additionalProperties"))
                    .filter(|a| a.is_object())
            })
            .or_else(|| self.deduces(key).then(|| &*DEDUCED));
        self.resolve(schema)
    }

    /// Whether the undeclared field `key` is typed by deduction: the schema keeps fields it does
    /// not declare (`x-kubernetes-preserve-unknown-fields`), which structured-merge-diff types as
    /// a map of deduced values, but never an object's own type meta and metadata (the CRD's
    /// OpenAPI builder always declares `metadata` as `ObjectMeta`).
    fn deduces(self, key: &str) -> bool {
        let type_meta = self.root && matches!(key, "apiVersion" | "kind" | "metadata");
        !type_meta
            && self
                .schema
                .and_then(|s| s.get("x-kubernetes-preserve-unknown-fields"))
                .and_then(Value::as_bool)
                .unwrap_or(false)
    }

    pub(crate) fn items(self) -> Self {
        self.resolve(self.schema.and_then(|s| s.get("items")))
    }

    /// The strategic merge patch metadata of the declared field `key` (none for a map entry).
    pub(crate) fn patch_meta(self, key: &str) -> PatchMeta<'a> {
        let tag = |name: &str| {
            self.property(key)
                .and_then(|p| p.get(name))
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        PatchMeta {
            strategies: tag("x-kubernetes-patch-strategy"),
            merge_key: tag("x-kubernetes-patch-merge-key"),
        }
    }

    /// Whether this is a struct of the built-in types that declares no field `key`, and the Go
    /// name of that struct (`DeploymentSpec`), as a field lookup by name reports it.
    pub(crate) fn undeclared_field(self, key: &str) -> Option<&'a str> {
        let name = self.definition?;
        let declared = self.property(key).is_some() || self.is_map();
        (!declared).then(|| name.rsplit('.').next().unwrap_or(name))
    }

    /// Whether this is a struct of the built-in types whose field `key` is declared but no list.
    pub(crate) fn declares_non_list(self, key: &str) -> bool {
        self.definition.is_some()
            && self.property(key).is_some()
            && self.child(key).schema.is_some_and(|s| s.get("items").is_none())
    }

    /// The built-in definition this node is (`io.k8s.api.core.v1.Probe`), if it is one.
    pub(crate) fn definition(self) -> Option<&'a str> {
        self.definition
    }

    /// The definition every entry of this map is (a `ResourceList`'s `Quantity`), if it is a
    /// map of one built-in type.
    pub(crate) fn entry_definition(self) -> Option<&'a str> {
        self.schema
            .and_then(|s| s.get("additionalProperties"))
            .and_then(|a| a.get("$ref"))
            .and_then(Value::as_str)
    }

    /// Whether the schema is a map of entries (`additionalProperties`) rather than a struct.
    pub(crate) fn is_map(self) -> bool {
        self.schema
            .and_then(|s| s.get("additionalProperties"))
            .is_some_and(Value::is_object)
    }

    /// Whether `key` is an entry of a schema map (`additionalProperties`) rather than a declared
    /// field: structured-merge-diff's field set owns such entries themselves.
    pub(crate) fn is_map_entry(self, key: &str) -> bool {
        self.schema.is_some_and(|s| {
            s.get("properties").and_then(|p| p.get(key)).is_none()
                && (s.get("additionalProperties").is_some_and(Value::is_object) || self.deduces(key))
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

    /// Whether this built-in type declares `key` as a slice or a map (a Go value that can be
    /// nil), not a struct or a scalar.
    pub(crate) fn declares_collection(self, key: &str) -> bool {
        let declared = self.definitions.is_some() && self.property(key).is_some();
        let child = self.child(key);
        declared && (child.schema.is_some_and(|s| s.get("items").is_some()) || child.is_map())
    }

    /// The default of a list item's field `name`, from the list's schema.
    fn item_default(self, name: &str) -> Option<Value> {
        let items = self.items().schema?;
        items
            .pointer(&format!("/properties/{name}/default"))
            .filter(|d| !d.is_null())
            .cloned()
    }
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

/// The kind of the list at `path`, from its schema. A custom resource's schema does not describe
/// its metadata: that list's kind comes from the built-in `ObjectMeta` definition, as
/// kube-apiserver's type converter embeds it (finalizers a set, owner references keyed by uid).
pub(crate) fn list_kind(shape: Shape<'_>, path: &[String]) -> ListKind {
    let described = shape.definitions.is_some() || path.first().is_none_or(|s| s != "f:metadata");
    let shape = if described { shape } else { object_meta(&path[1..]) };
    let Some(schema) = shape.schema else {
        return ListKind::Atomic;
    };
    match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
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
    }
}

/// The shape at `path` (field-set segments: `f:name` a field, anything else a list item) inside
/// the built-in `ObjectMeta`.
fn object_meta(path: &[String]) -> Shape<'static> {
    let definitions = builtin_shapes().get("definitions").and_then(Value::as_object);
    let name = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
    let root = Shape {
        schema: definitions.and_then(|d| d.get(name)),
        definitions,
        definition: Some(name),
        root: false,
    };
    path.iter()
        .fold(root, |shape, segment| match segment.strip_prefix("f:") {
            Some(field) => shape.child(field),
            None => shape.items(),
        })
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
        let ListKind::Map(keys) = list_kind(spec.child("ports"), &path(&["spec", "ports"])) else {
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
        let finalizers = list_kind(metadata.child("finalizers"), &path(&["metadata", "finalizers"]));
        assert!(matches!(finalizers, ListKind::Set));
        let containers = shape.child("spec").child("template").child("spec").child("containers");
        let kind = list_kind(containers, &path(&["spec", "template", "spec", "containers"]));
        assert!(matches!(kind, ListKind::Map(keys) if keys[0].0 == "name"));
    }
}
