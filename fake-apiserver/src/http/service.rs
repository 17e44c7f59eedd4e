//! The fake server as a tower `Service`, the shape `kube::Client::new` takes.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::BodyExt;

use crate::http::responses::{HandlerPanicked, ResponseBody};
use crate::server::{FakeApiServer, Inner};
use crate::status::ApiStatus;
use crate::status_body;

/// A tower `Service` answering Kubernetes API requests from a [`FakeApiServer`]; cheap to clone.
#[derive(Clone)]
pub struct FakeService {
    inner: Arc<Inner>,
    /// The `Authorization` header sent with requests that carry none.
    credentials: Option<http::HeaderValue>,
}

impl FakeService {
    /// The service sending `token` as the bearer token of every request that has no
    /// `Authorization` header of its own.
    pub fn with_credentials(mut self, token: &str) -> Self {
        self.credentials = http::HeaderValue::from_str(&format!("Bearer {token}")).ok();
        self
    }
}

impl<B> tower::Service<Request<B>> for FakeService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: std::fmt::Display,
{
    type Response = Response<ResponseBody>;
    /// A request kube-apiserver's handler panics on has no answer: the connection is closed.
    type Error = HandlerPanicked;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, HandlerPanicked>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), HandlerPanicked>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let inner = self.inner.clone();
        let credentials = self.credentials.clone();
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            if let Some(credentials) = credentials
                && !parts.headers.contains_key(http::header::AUTHORIZATION)
            {
                parts.headers.insert(http::header::AUTHORIZATION, credentials);
            }
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
            let mut response = inner.handle(Request::from_parts(parts, bytes)).await;
            match response.extensions_mut().remove::<HandlerPanicked>() {
                Some(panicked) => Err(panicked),
                None => Ok(response),
            }
        })
    }
}

impl FakeApiServer {
    /// The server as a tower `Service`, sending requests as they are: without an
    /// `Authorization` header they are anonymous when authentication is on
    /// ([`FakeService::with_credentials`] adds one).
    pub fn service(&self) -> FakeService {
        FakeService {
            inner: self.inner.clone(),
            credentials: None,
        }
    }

    /// A `kube::Client` whose requests this server answers as the admin's (its
    /// [`FakeApiServer::admin_token`]), with `default` as its namespace.
    ///
    /// Must be called inside a tokio runtime (kube's client spawns its request buffer).
    pub fn client(&self) -> kube::Client {
        kube::Client::new(self.service().with_credentials(self.admin_token()), "default")
    }
}
