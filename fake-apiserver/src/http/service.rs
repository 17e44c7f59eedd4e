//! The fake server as a tower `Service`, the shape `kube::Client::new` takes.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::BodyExt;

use crate::http::dispatch::ResponseBody;
use crate::server::{FakeApiServer, Inner};
use crate::status::ApiStatus;
use crate::status_body;

/// A tower `Service` answering Kubernetes API requests from a [`FakeApiServer`]; cheap to clone.
#[derive(Clone)]
pub struct FakeService {
    inner: Arc<Inner>,
}

impl<B> tower::Service<Request<B>> for FakeService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: std::fmt::Display,
{
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let inner = self.inner.clone();
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let bytes: Bytes = match body.collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(e) => {
                    let status = ApiStatus::bad_request(format!("could not read the request body: {e}"));
                    let mut response = Response::new(
                        http_body_util::Full::new(Bytes::from(status_body::to_bytes(&status))).boxed_unsync(),
                    );
                    *response.status_mut() = http::StatusCode::BAD_REQUEST;
                    return Ok(response);
                }
            };
            Ok(inner.handle(Request::from_parts(parts, bytes)).await)
        })
    }
}

impl FakeApiServer {
    /// The server as a tower `Service`.
    pub fn service(&self) -> FakeService {
        FakeService {
            inner: self.inner.clone(),
        }
    }

    /// A `kube::Client` whose requests this server answers, with `default` as its namespace.
    ///
    /// Must be called inside a tokio runtime (kube's client spawns its request buffer).
    pub fn client(&self) -> kube::Client {
        kube::Client::new(self.service(), "default")
    }
}
