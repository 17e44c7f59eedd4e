//! A `Status` written in Kubernetes' protobuf encoding, for a client that asked a custom
//! resource for `application/vnd.kubernetes.protobuf`: the CRD handler's serializers list the
//! type (`unstructuredNegotiatedSerializer`), so negotiation picks it, but an unstructured
//! object cannot be written in it (`errNotMarshalable`), so every success is answered 406 and
//! every failure is its `Status`, both as protobuf (`metav1.Status` of `generated.proto`, in the
//! `k8s\0` + `runtime.Unknown` envelope that `protobuf.Serializer.Encode` writes). gogo-protobuf
//! writes a non-pointer string even when empty, which is why the empty strings are `Some("")`.

use prost::Message;
use serde_json::Value;

use crate::http::protobuf::{MAGIC, TypeMeta, Unknown};
use crate::status::ApiStatus;

/// The subtype negotiation names protobuf by.
pub(crate) const SUBTYPE: &str = "vnd.kubernetes.protobuf";

#[derive(Clone, PartialEq, Message)]
struct Status {
    #[prost(message, optional, tag = "1")]
    metadata: Option<ListMeta>,
    #[prost(string, optional, tag = "2")]
    status: Option<String>,
    #[prost(string, optional, tag = "3")]
    message: Option<String>,
    #[prost(string, optional, tag = "4")]
    reason: Option<String>,
    #[prost(message, optional, tag = "5")]
    details: Option<StatusDetails>,
    #[prost(int32, optional, tag = "6")]
    code: Option<i32>,
}

#[derive(Clone, PartialEq, Message)]
struct ListMeta {
    #[prost(string, optional, tag = "1")]
    self_link: Option<String>,
    #[prost(string, optional, tag = "2")]
    resource_version: Option<String>,
    #[prost(string, optional, tag = "3")]
    continue_token: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct StatusDetails {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "2")]
    group: Option<String>,
    #[prost(string, optional, tag = "3")]
    kind: Option<String>,
    #[prost(message, repeated, tag = "4")]
    causes: Vec<StatusCause>,
    #[prost(int32, optional, tag = "5")]
    retry_after_seconds: Option<i32>,
    #[prost(string, optional, tag = "6")]
    uid: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct StatusCause {
    #[prost(string, optional, tag = "1")]
    reason: Option<String>,
    #[prost(string, optional, tag = "2")]
    message: Option<String>,
    #[prost(string, optional, tag = "3")]
    field: Option<String>,
}

/// The 406 a custom resource's success becomes when asked for protobuf: the object could not
/// be written, and the refusal lists the types the handler serves.
pub(crate) fn not_marshalable() -> ApiStatus {
    ApiStatus::not_acceptable(
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    )
}

/// `status` as a protobuf body.
pub(crate) fn to_bytes(status: &ApiStatus) -> Vec<u8> {
    let text = |value: Option<&Value>| Some(value.and_then(Value::as_str).unwrap_or_default().to_owned());
    let details = status.details.as_ref().map(|details| StatusDetails {
        name: text(details.get("name")),
        group: text(details.get("group")),
        kind: text(details.get("kind")),
        causes: details
            .get("causes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|cause| StatusCause {
                reason: text(cause.get("reason")),
                message: text(cause.get("message")),
                field: text(cause.get("field")),
            })
            .collect(),
        retry_after_seconds: Some(
            details
                .get("retryAfterSeconds")
                .and_then(Value::as_i64)
                .and_then(|seconds| i32::try_from(seconds).ok())
                .unwrap_or_default(),
        ),
        uid: text(details.get("uid")),
    });
    let body = Status {
        metadata: Some(ListMeta {
            self_link: Some(String::new()),
            resource_version: Some(String::new()),
            continue_token: Some(String::new()),
        }),
        status: Some("Failure".to_owned()),
        message: Some(status.message.clone()),
        reason: Some(status.reason.clone()),
        details,
        code: Some(i32::from(status.code)),
    };
    let envelope = Unknown {
        type_meta: Some(TypeMeta {
            api_version: Some("v1".to_owned()),
            kind: Some("Status".to_owned()),
        }),
        raw: Some(body.encode_to_vec()),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    [MAGIC, &envelope.encode_to_vec()].concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_should_be_written_as_kube_apiserver_writes_it() {
        let bytes = to_bytes(&not_marshalable());
        // The bytes kube-apiserver v1.28.7 answered a protobuf list of a custom resource with.
        let mut expected =
            b"k8s\0\n\x0c\n\x02v1\x12\x06Status\x12\x99\x01\n\x06\n\0\x12\0\x1a\0\x12\x07Failure\x1at".to_vec();
        expected.extend_from_slice(not_marshalable().message.as_bytes());
        expected.extend_from_slice(b"\"\x0dNotAcceptable0\x96\x03\x1a\0\"\0");
        assert_eq!(bytes, expected);
    }
}
