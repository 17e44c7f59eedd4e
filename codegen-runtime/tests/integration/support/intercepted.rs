//! A client whose requests a test answers itself, or alters on their way to the in-memory
//! server and back: for what kube-apiserver (or a proxy in front of it) may do that the
//! in-memory server does not.

use std::convert::Infallible;
use std::future::Future;

use fake_apiserver::{FakeApiServer, FakeService, ResponseBody};
use tower::Service;

/// A request as kube's client sends it.
pub type Request = http::Request<kube::client::Body>;

/// A client whose every request goes to `answer`, with the server's service to pass it on to.
/// The answer's body may fail (`B`), as a broken connection does.
pub fn intercepted<F, Fut, B>(server: &FakeApiServer, answer: F) -> kube::Client
where
    F: Fn(Request, FakeService) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = http::Response<B>> + Send + 'static,
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let service = server.service();
    let intercept = tower::service_fn(move |request: Request| {
        let (answer, service) = (answer.clone(), service.clone());
        async move { Ok::<_, Infallible>(answer(request, service).await) }
    });
    kube::Client::new(intercept, "default")
}

/// What the server answers `request`. These tests send nothing kube-apiserver's handlers
/// panic on, so a closed connection is the test's own mistake.
pub async fn pass_on(mut service: FakeService, request: Request) -> http::Response<ResponseBody> {
    match service.call(request).await {
        Ok(response) => response,
        Err(panicked) => panic!("the in-memory server closed the connection: {panicked}"),
    }
}

/// Whether `request` is a watch.
pub fn is_watch(request: &Request) -> bool {
    query(request).split('&').any(|pair| pair == "watch=true")
}

/// The query of `request`, empty without one.
pub fn query(request: &Request) -> &str {
    request.uri().query().unwrap_or_default()
}

/// The `resourceVersion` a query asks for; empty where it names none.
pub fn resource_version(query: &str) -> &str {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("resourceVersion="))
        .unwrap_or_default()
}

/// Whether a query asks for a resourceVersion, not "any" ("0") or "the latest" (none).
pub fn at_a_version(query: &str) -> bool {
    !matches!(resource_version(query), "" | "0")
}
