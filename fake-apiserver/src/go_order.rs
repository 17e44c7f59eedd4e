//! JSON written in the field order of the Go struct it stands for: Go's `encoding/json` writes a
//! struct's fields in declaration order where a map would be sorted, so kube-apiserver writes a
//! built-in object `{"kind":…,"apiVersion":…,"metadata":{"name":…`, and a `Status` `{"kind":…,
//! "apiVersion":…,"metadata":…,"status":…`. Clients that point at a byte offset of a body (a
//! decode error's column) see the same bytes. Custom resources are Go maps: sorted, as stored.
//! The keys a struct does not list (the kind's own fields) follow, sorted.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

/// The Go structs whose order is kept.
#[derive(Clone, Copy, Debug)]
pub(crate) enum GoStruct {
    /// A built-in object: `TypeMeta` inline, then `ObjectMeta`, then the kind's fields.
    Object,
    /// `metav1.ObjectMeta`.
    ObjectMeta,
    /// `metav1.ManagedFieldsEntry`.
    ManagedField,
    /// `metav1.OwnerReference`.
    OwnerReference,
    /// `metav1.Status`.
    Status,
    /// `metav1.StatusDetails`.
    StatusDetails,
    /// `metav1.StatusCause`.
    StatusCause,
}

/// How a field's value is written.
enum Field {
    /// As the struct it is.
    Struct(GoStruct),
    /// A list of that struct.
    Each(GoStruct),
    /// As it is (sorted maps).
    Plain,
}

impl GoStruct {
    /// The struct's JSON fields, in declaration order.
    fn fields(self) -> &'static [&'static str] {
        match self {
            GoStruct::Object => &["kind", "apiVersion", "metadata"],
            GoStruct::ObjectMeta => &[
                "name",
                "generateName",
                "namespace",
                "selfLink",
                "uid",
                "resourceVersion",
                "generation",
                "creationTimestamp",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "labels",
                "annotations",
                "ownerReferences",
                "finalizers",
                "managedFields",
            ],
            GoStruct::ManagedField => &[
                "manager",
                "operation",
                "apiVersion",
                "time",
                "fieldsType",
                "fieldsV1",
                "subresource",
            ],
            GoStruct::OwnerReference => &["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"],
            GoStruct::Status => &[
                "kind",
                "apiVersion",
                "metadata",
                "status",
                "message",
                "reason",
                "details",
                "code",
            ],
            GoStruct::StatusDetails => &["name", "group", "kind", "uid", "causes", "retryAfterSeconds"],
            GoStruct::StatusCause => &["reason", "message", "field"],
        }
    }

    fn field(self, key: &str) -> Field {
        match (self, key) {
            (GoStruct::Object, "metadata") => Field::Struct(GoStruct::ObjectMeta),
            (GoStruct::ObjectMeta, "managedFields") => Field::Each(GoStruct::ManagedField),
            (GoStruct::ObjectMeta, "ownerReferences") => Field::Each(GoStruct::OwnerReference),
            (GoStruct::Status, "details") => Field::Struct(GoStruct::StatusDetails),
            (GoStruct::StatusDetails, "causes") => Field::Each(GoStruct::StatusCause),
            _ => Field::Plain,
        }
    }
}

/// `value` written as the Go struct `shape`.
pub(crate) struct Ordered<'a> {
    pub(crate) value: &'a Value,
    pub(crate) shape: GoStruct,
}

impl Serialize for Ordered<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(map) = self.value.as_object() else {
            return self.value.serialize(serializer);
        };
        let order = self.shape.fields();
        let known = order.iter().filter_map(|key| map.get_key_value(*key));
        let others = map.iter().filter(|(key, _)| !order.contains(&key.as_str()));
        let mut out = serializer.serialize_map(Some(map.len()))?;
        for (key, value) in known.chain(others) {
            match self.shape.field(key) {
                Field::Struct(shape) => out.serialize_entry(key, &Ordered { value, shape })?,
                Field::Each(shape) => out.serialize_entry(key, &Each { value, shape })?,
                Field::Plain => out.serialize_entry(key, value)?,
            }
        }
        out.end()
    }
}

/// A list whose items are each the struct `shape`.
struct Each<'a> {
    value: &'a Value,
    shape: GoStruct,
}

impl Serialize for Each<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(items) = self.value.as_array() else {
            return self.value.serialize(serializer);
        };
        let mut out = serializer.serialize_seq(Some(items.len()))?;
        for value in items {
            out.serialize_element(&Ordered {
                value,
                shape: self.shape,
            })?;
        }
        out.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::go_json_writer;

    #[test]
    fn an_object_should_start_with_its_type_meta_and_keep_object_meta_order() {
        let object = json!({
            "apiVersion": "v1", "kind": "Service", "spec": {"b": 1, "a": 2},
            "metadata": {"uid": "u", "name": "n", "managedFields": [{"time": "t", "manager": "m"}]},
        });
        let text = String::from_utf8(go_json_writer::to_vec(&Ordered {
            value: &object,
            shape: GoStruct::Object,
        }))
        .expect("UTF-8");
        assert_eq!(
            text,
            r#"{"kind":"Service","apiVersion":"v1","metadata":{"name":"n","uid":"u","managedFields":[{"manager":"m","time":"t"}]},"spec":{"a":2,"b":1}}"#
        );
    }
}
