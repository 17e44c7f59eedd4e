//! The `Status` body as kube-apiserver writes it: Go's `encoding/json` writes a struct's fields
//! in declaration order (`metav1.Status`: kind, apiVersion, metadata, status, message, reason,
//! details, code; `StatusDetails` and `StatusCause` likewise), where a JSON map would be sorted.
//! Clients that point at a byte offset of a body (a decode error's column) see the same bytes.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::semantics::go_json_writer;
use crate::status::ApiStatus;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    kind: &'static str,
    api_version: &'static str,
    metadata: Map<String, Value>,
    status: &'static str,
    message: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<Details<'a>>,
    code: u16,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Details<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uid: Option<&'a Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    causes: Vec<Cause<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after_seconds: Option<&'a Value>,
}

#[derive(Serialize)]
struct Cause<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a Value>,
}

/// `status` as the body of a failed request, in Go's field order.
pub(crate) fn to_bytes(status: &ApiStatus) -> Vec<u8> {
    let details = status.details.as_ref().map(|details| {
        let get = |key: &str| details.get(key);
        let causes = details
            .get("causes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|cause| Cause {
                reason: cause.get("reason"),
                message: cause.get("message"),
                field: cause.get("field"),
            })
            .collect();
        Details {
            name: get("name"),
            group: get("group"),
            kind: get("kind"),
            uid: get("uid"),
            causes,
            retry_after_seconds: get("retryAfterSeconds"),
        }
    });
    let body = Body {
        kind: "Status",
        api_version: "v1",
        metadata: Map::new(),
        status: "Failure",
        message: &status.message,
        reason: &status.reason,
        details,
        code: status.code,
    };
    go_json_writer::to_vec(&body)
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
