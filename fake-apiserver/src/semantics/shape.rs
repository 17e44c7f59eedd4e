//! How field management sees a resource's values: which lists are sets, keyed maps or atomic
//! (the CRD schema's `x-kubernetes-list-type`, or for built-ins and metadata the patch merge
//! keys) and which structs are owned whole.

use serde_json::Value;

use crate::semantics::strategic;
use crate::storage::resource::ResourceInfo;

/// Where list semantics come from: the resource's schema, if any, at the current node, and the
/// structs its Go types mark `+structType=atomic`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape<'a> {
    schema: Option<&'a Value>,
    atomic: &'static [&'static str],
}

impl<'a> Shape<'a> {
    pub(crate) fn of(info: &'a ResourceInfo) -> Self {
        Self {
            schema: info.schema.as_ref(),
            atomic: atomic_structs(info),
        }
    }

    pub(crate) fn child(self, key: &str) -> Self {
        let schema = self.schema.and_then(|s| {
            s.get("properties")
                .and_then(|p| p.get(key))
                .or_else(|| s.get("additionalProperties").filter(|a| a.is_object()))
        });
        Self { schema, ..self }
    }

    pub(crate) fn items(self) -> Self {
        Self {
            schema: self.schema.and_then(|s| s.get("items")),
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

    /// Whether the value at `path` is owned whole: its Go struct is `+structType=atomic`, or its
    /// CRD schema says `x-kubernetes-map-type: atomic`. Patterns name fields with dots and list
    /// elements with `[]`: `metadata.ownerReferences[]`.
    pub(crate) fn is_atomic(self, path: &[String]) -> bool {
        let schema_atomic = self
            .schema
            .and_then(|s| s.get("x-kubernetes-map-type"))
            .and_then(Value::as_str)
            == Some("atomic");
        schema_atomic
            || self.atomic.iter().any(|pattern| {
                let mut segments = path.iter();
                let matched = pattern.split('.').all(|part| {
                    let (field, elements) = match part.strip_suffix("[]") {
                        Some(field) => (field, 1),
                        None => (part, 0),
                    };
                    segments.next().and_then(|s| s.strip_prefix("f:")) == Some(field)
                        && (0..elements).all(|_| segments.next().is_some_and(|s| !s.starts_with("f:")))
                });
                matched && segments.next().is_none()
            })
    }
}

/// The fields of a kind whose Go structs are `+structType=atomic` (`metav1.OwnerReference`,
/// `metav1.LabelSelector`, `corev1.ObjectReference`, `rbacv1.RoleRef`): field management owns
/// them whole, as leaves.
fn atomic_structs(info: &ResourceInfo) -> &'static [&'static str] {
    match (info.builtin, info.group.as_str(), info.kind.as_str()) {
        (true, "apps", "Deployment" | "ReplicaSet") => &["metadata.ownerReferences[]", "spec.selector"],
        (true, "", "Event") => &["metadata.ownerReferences[]", "involvedObject", "related"],
        (true, "events.k8s.io", "Event") => &["metadata.ownerReferences[]", "regarding", "related"],
        (true, "rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding") => {
            &["metadata.ownerReferences[]", "roleRef"]
        }
        _ => &["metadata.ownerReferences[]"],
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

/// The kind of the list at `path` (named `field`), from the schema or the built-in merge keys.
pub(crate) fn list_kind(shape: Shape<'_>, path: &[String], field: &str, items: &[Value]) -> ListKind {
    let in_metadata = path.first().is_some_and(|s| s == "f:metadata");
    if let (Some(schema), false) = (shape.schema, in_metadata) {
        return match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
            Some("set") => ListKind::Set,
            Some("map") => {
                let keys = schema.get("x-kubernetes-list-map-keys").and_then(Value::as_array);
                let default = |name: &str| {
                    schema
                        .pointer(&format!("/items/properties/{name}/default"))
                        .filter(|d| !d.is_null())
                        .cloned()
                };
                ListKind::Map(
                    keys.into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(|name| (name.to_owned(), default(name)))
                        .collect(),
                )
            }
            _ => ListKind::Atomic,
        };
    }
    if strategic::is_set_list(field) {
        return ListKind::Set;
    }
    // Server-side apply keys ports by number and protocol (`+listMapKey`), where strategic merge
    // patch keys them by number alone.
    match (field, strategic::merge_key(field, items)) {
        // A port's `protocol` defaults to TCP in the built-in kinds' OpenAPI.
        ("ports", Some(number)) => ListKind::Map(vec![
            (number.to_owned(), None),
            ("protocol".to_owned(), Some(Value::from("TCP"))),
        ]),
        (_, Some(key)) => ListKind::Map(vec![(key.to_owned(), None)]),
        (_, None) => ListKind::Atomic,
    }
}
