//! The bodies of the fake server's answers: JSON, plain text, the mux's 404, and an answer in
//! the media type the request negotiated (`WriteObjectNegotiated`, `ErrorNegotiated`): YAML
//! written again from the JSON, protobuf only as a custom resource's handler can write it.

use std::convert::Infallible;

use bytes::Bytes;
use http::{Response, StatusCode, header};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};

use crate::http::execute::Answer;
use crate::http::{protobuf, protobuf_status};
use crate::semantics::{go_yaml, yaml_body};
use crate::status::ApiStatus;
use crate::status_body;

/// The body of every fake server response: a buffer, or a watch stream.
pub type ResponseBody = UnsyncBoxBody<Bytes, Infallible>;

/// A resource request's answer in the media type (`json`, `yaml`, `vnd.kubernetes.protobuf`)
/// it negotiated, for a built-in resource or not.
pub(crate) fn negotiated(answer: Answer, media: &str, builtin: bool) -> Response<ResponseBody> {
    match answer {
        // What a custom resource's handler can write in protobuf: only a `Status`.
        answer if media == protobuf_status::SUBTYPE && !builtin => {
            let status = answer.err().unwrap_or_else(protobuf_status::not_marshalable);
            plain_response(
                code_of(&status),
                protobuf_status::to_bytes(&status).into(),
                protobuf::MEDIA_TYPE,
            )
        }
        Err(status) if status.plain_text => status_response(&status),
        // Asked for YAML: the JSON answer, written again as go-yaml writes it.
        answer if media == "yaml" => {
            let (code, bytes) = match answer {
                Ok(answer) => answer,
                Err(status) => (code_of(&status), status_body::to_bytes(&status)),
            };
            match serde_json::from_slice::<serde_json::Value>(&bytes) {
                Ok(value) => plain_response(code, Bytes::from(go_yaml::to_yaml(&value)), yaml_body::MEDIA_TYPE),
                Err(_) => json_response(code, bytes),
            }
        }
        Ok((code, bytes)) => json_response(code, bytes),
        Err(status) => status_response(&status),
    }
}

/// The HTTP code of a status.
fn code_of(status: &ApiStatus) -> StatusCode {
    StatusCode::from_u16(status.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// `status` as kube-apiserver answers it: a `Status` body, or plain text where its filters
/// answer before the API handlers.
pub(crate) fn status_response(status: &ApiStatus) -> Response<ResponseBody> {
    if status.abort_connection {
        let mut response = Response::new(Full::new(Bytes::new()).boxed_unsync());
        response
            .extensions_mut()
            .insert(HandlerPanicked(status.message.clone()));
        return response;
    }
    if status.plain_text {
        let code = code_of(status);
        let mut response = plain_response(
            code,
            Bytes::from(format!("{}\n", status.message)),
            "text/plain; charset=utf-8",
        );
        response
            .headers_mut()
            .insert("x-content-type-options", header::HeaderValue::from_static("nosniff"));
        return response;
    }
    json_response(code_of(status), status_body::to_bytes(status))
}

/// What marks a response that must not be sent: the handler panicked, and the service closes
/// the connection instead (its message says what panicked).
#[derive(Clone, Debug, thiserror::Error)]
#[error("the API handler panicked ({0}): the connection is closed without an answer, as kube-apiserver closes it")]
pub struct HandlerPanicked(pub(crate) String);

/// A JSON body, or none for 204.
pub(crate) fn json_response(code: StatusCode, bytes: Vec<u8>) -> Response<ResponseBody> {
    if code == StatusCode::NO_CONTENT {
        // Nothing, and no type for it.
        let mut response = Response::new(Full::new(Bytes::new()).boxed_unsync());
        *response.status_mut() = code;
        return response;
    }
    plain_response(code, Bytes::from(bytes), "application/json")
}

/// The mux's own answer to a path no handler serves.
pub(crate) fn page_not_found() -> Response<ResponseBody> {
    let body = Bytes::from_static(b"404 page not found\n");
    plain_response(StatusCode::NOT_FOUND, body, "text/plain; charset=utf-8")
}

/// `bytes` as they are, of `content_type`.
pub(crate) fn plain_response(code: StatusCode, bytes: Bytes, content_type: &'static str) -> Response<ResponseBody> {
    let mut response = Response::new(Full::new(bytes).boxed_unsync());
    *response.status_mut() = code;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, header::HeaderValue::from_static(content_type));
    response
}
