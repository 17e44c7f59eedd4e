//! The `Status` body as kube-apiserver writes it: Go's `encoding/json` writes a struct's fields
//! in declaration order (`metav1.Status`: kind, apiVersion, metadata, status, message, reason,
//! details, code; `StatusDetails` and `StatusCause` likewise), where a JSON map would be sorted.
//! Clients that point at a byte offset of a body (a decode error's column) see the same bytes.
//! The content is [`ApiStatus::to_json`]'s; only the order is this module's.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use crate::semantics::go_json_writer;
use crate::status::ApiStatus;

/// Go's field order of `metav1.Status`, `StatusDetails` and `StatusCause`.
const STATUS: &[&str] = &[
    "kind",
    "apiVersion",
    "metadata",
    "status",
    "message",
    "reason",
    "details",
    "code",
];
const DETAILS: &[&str] = &["name", "group", "kind", "uid", "causes", "retryAfterSeconds"];
const CAUSE: &[&str] = &["reason", "message", "field"];

/// `status` as the body of a failed request, in Go's field order.
pub(crate) fn to_bytes(status: &ApiStatus) -> Vec<u8> {
    go_json_writer::to_vec(&Ordered {
        value: &status.to_json(),
        order: STATUS,
    })
}

/// A JSON object written with the keys of `order` first, in that order (any other key after,
/// sorted); `details` and its `causes` take their own struct's order.
struct Ordered<'a> {
    value: &'a Value,
    order: &'static [&'static str],
}

impl Serialize for Ordered<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(map) = self.value.as_object() else {
            return self.value.serialize(serializer);
        };
        let known = self.order.iter().filter_map(|key| map.get_key_value(*key));
        let others = map.iter().filter(|(key, _)| !self.order.contains(&key.as_str()));
        let mut out = serializer.serialize_map(Some(map.len()))?;
        for (key, value) in known.chain(others) {
            match key.as_str() {
                "details" => out.serialize_entry(key, &Ordered { value, order: DETAILS })?,
                "causes" => out.serialize_entry(key, &Causes(value))?,
                _ => out.serialize_entry(key, value)?,
            }
        }
        out.end()
    }
}

/// `causes`: each in `StatusCause`'s order.
struct Causes<'a>(&'a Value);

impl Serialize for Causes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(items) = self.0.as_array() else {
            return self.0.serialize(serializer);
        };
        let mut out = serializer.serialize_seq(Some(items.len()))?;
        for cause in items {
            out.serialize_element(&Ordered {
                value: cause,
                order: CAUSE,
            })?;
        }
        out.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_bytes_should_write_go_field_order_and_the_same_json_as_to_json() {
        let mut status = ApiStatus::new(422, "Invalid", "bad");
        status.details = Some(serde_json::json!({
            "name": "x", "kind": "Widget", "group": "g.io",
            "causes": [{ "field": "spec.a", "message": "m", "reason": "FieldValueInvalid" }],
        }));
        let bytes = to_bytes(&status);
        let text = String::from_utf8(bytes.clone()).expect("UTF-8");
        assert!(
            text.starts_with(r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"bad","reason":"Invalid","details":{"name":"x","group":"g.io","kind":"Widget","causes":[{"reason":"FieldValueInvalid","message":"m","field":"spec.a"}]},"code":422}"#),
            "{text}"
        );
        let reparsed: Value = serde_json::from_slice(&bytes).expect("JSON");
        assert_eq!(reparsed, status.to_json());
    }
}
