//! kube-apiserver's answers that the in-memory server does not give, for intercepting clients
//! (`support/intercepted.rs`) to answer with.

use bytes::Bytes;
use fake_apiserver::{ApiStatus, ResponseBody};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};

/// A body that may break off, as a connection does.
pub type BreakableBody = UnsyncBoxBody<Bytes, std::io::Error>;

/// A 200 whose body is `lines`, then ends.
pub fn answer(lines: &'static str) -> http::Response<ResponseBody> {
    http::Response::new(Full::new(Bytes::from_static(lines.as_bytes())).boxed_unsync())
}

/// How kube-apiserver's watch cache answers a streaming list from a resourceVersion it has not
/// reached in time: a 200 whose one event is the 504.
pub fn too_large_in_stream() -> http::Response<ResponseBody> {
    let status = ApiStatus::resource_version_too_large(10_000, 12).to_json();
    let line = format!("{{\"type\":\"ERROR\",\"object\":{status}}}\n");
    http::Response::new(Full::new(Bytes::from(line)).boxed_unsync())
}

/// kube-apiserver's answer to a request for a resourceVersion its cache has not reached in time.
pub fn too_large() -> http::Response<ResponseBody> {
    let status = ApiStatus::resource_version_too_large(10_000, 12);
    let mut response = http::Response::new(Full::new(Bytes::from(status.to_json().to_string())).boxed_unsync());
    *response.status_mut() = http::StatusCode::GATEWAY_TIMEOUT;
    response
}

/// A 200 whose body is `lines`, a chunk each, then its end or, where `cut`, a reset connection.
pub fn lines_then(lines: Vec<String>, cut: bool) -> http::Response<BreakableBody> {
    let mut frames: Vec<Result<_, std::io::Error>> = lines
        .into_iter()
        .map(|line| Ok(http_body::Frame::data(Bytes::from(line))))
        .collect();
    if cut {
        frames.push(Err(std::io::Error::other("connection reset")));
    }
    http::Response::new(StreamBody::new(futures::stream::iter(frames)).boxed_unsync())
}

/// `answered` (the server's answer) as a [`BreakableBody`], for a client that also answers with
/// [`lines_then`].
pub fn breakable(answered: http::Response<ResponseBody>) -> http::Response<BreakableBody> {
    answered.map(|body| body.map_err(|never| match never {}).boxed_unsync())
}

/// A watch event adding ConfigMap `name` of namespace `default` at `resource_version`.
pub fn added(resource_version: &str, name: &str) -> String {
    format!(
        "{{\"type\":\"ADDED\",\"object\":{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"{name}\",\"namespace\":\"default\",\"resourceVersion\":\"{resource_version}\"}}}}}}\n"
    )
}
