//! The discovery documents as answers: negotiated as JSON or YAML, and for `/api` and `/apis`
//! the aggregated document with its `ETag` (`apiserver/pkg/endpoints/discovery`,
//! `discovery/aggregated/wrapper.go`, `etag.go`).

use bytes::Bytes;
use http::{Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use serde_json::Value;

use crate::http::responses::{ResponseBody, json_response, plain_response};
use crate::http::{aggregated, discovery};
use crate::semantics::{go_json_writer, go_yaml, yaml_body};
use crate::server::Inner;
use crate::status::ApiStatus;

/// What a request for `/api` (`core`) or `/apis` says of itself.
#[derive(Clone, Copy)]
pub(crate) struct RootRequest<'a> {
    pub(crate) accept: &'a str,
    pub(crate) if_none_match: &'a str,
    /// HEAD: the headers without the body.
    pub(crate) head: bool,
    pub(crate) core: bool,
}

impl Inner {
    /// `/apis/<group>` or a group version's resources, as JSON or YAML.
    pub(crate) fn legacy_discovery(&self, accept: &str, document: &Value) -> Result<Response<ResponseBody>, ApiStatus> {
        match aggregated::negotiate(accept, self.options.minor(), false)? {
            aggregated::Wanted::Legacy { yaml: true } => Ok(plain_response(
                StatusCode::OK,
                Bytes::from(go_yaml::to_yaml(document)),
                yaml_body::MEDIA_TYPE,
            )),
            _ => Ok(json_response(StatusCode::OK, go_json_writer::to_vec(document))),
        }
    }

    /// `/api` or `/apis`: the legacy document or, when `Accept` asks for it, the aggregated one
    /// with its `ETag` (304 to an `If-None-Match` that names it).
    pub(crate) fn discovery_root(&self, request: &RootRequest<'_>) -> Result<Response<ResponseBody>, ApiStatus> {
        let RootRequest {
            accept,
            if_none_match,
            head,
            core,
        } = *request;
        let (json, content_type, etag) = match aggregated::negotiate(accept, self.options.minor(), true)? {
            aggregated::Wanted::Legacy { yaml } => {
                let document = if core {
                    discovery::core_versions(self.external_address.get().map(String::as_str))
                } else {
                    discovery::groups(&self.state().registry)
                };
                match yaml {
                    true => (
                        go_yaml::to_yaml(&document).into_bytes(),
                        yaml_body::MEDIA_TYPE.to_owned(),
                        None,
                    ),
                    false => (go_json_writer::to_vec(&document), "application/json".to_owned(), None),
                }
            }
            aggregated::Wanted::Aggregated(version) => {
                let json = go_json_writer::to_vec(&aggregated::document(&self.state().registry, core, version));
                let etag = aggregated::etag(&json);
                (json, aggregated::content_type(version), Some(etag))
            }
        };
        let not_modified = etag.as_deref().is_some_and(|tag| if_none_match == tag);
        let (code, body) = match (not_modified, head) {
            (true, _) => (StatusCode::NOT_MODIFIED, Bytes::new()),
            (false, true) => (StatusCode::OK, Bytes::new()),
            (false, false) => (StatusCode::OK, Bytes::from(json)),
        };
        let mut response = Response::new(Full::new(body).boxed_unsync());
        *response.status_mut() = code;
        let headers = response.headers_mut();
        let value = |text: &str| header::HeaderValue::from_str(text).map_err(|e| ApiStatus::internal(e.to_string()));
        headers.insert(header::CONTENT_TYPE, value(&content_type)?);
        if let Some(etag) = etag {
            headers.insert(header::ETAG, value(&etag)?);
            headers.insert(header::VARY, header::HeaderValue::from_static("Accept"));
        }
        Ok(response)
    }
}
