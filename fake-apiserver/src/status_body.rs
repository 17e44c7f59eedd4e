//! The `Status` body as kube-apiserver writes it: Go's `encoding/json` writes a struct's fields
//! in declaration order (`metav1.Status`: kind, apiVersion, metadata, status, message, reason,
//! details, code; `StatusDetails` and `StatusCause` likewise), where a JSON map would be sorted.
//! Clients that point at a byte offset of a body (a decode error's column) see the same bytes.
//! The content is [`ApiStatus::to_json`]'s; only the order is this module's.

use crate::go_order::{GoStruct, Ordered};
use crate::semantics::go_json_writer;
use crate::status::ApiStatus;

/// `status` as the body of a failed request, in Go's field order.
pub(crate) fn to_bytes(status: &ApiStatus) -> Vec<u8> {
    go_json_writer::to_vec(&Ordered {
        value: &status.to_json(),
        shape: GoStruct::Status,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

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
