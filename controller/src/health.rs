//! The probe and metrics endpoint: `/healthz` (the process serves), `/readyz` (caches synced and,
//! with leader election, a candidate running) and `/metrics` (Prometheus text: work queues,
//! reconciles, leadership), on one address.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use prometheus_client::registry::Registry;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// What the endpoints report.
#[derive(Clone)]
pub struct Health {
    ready: Arc<AtomicBool>,
    registry: Arc<Registry>,
}

impl Health {
    /// Not ready yet; metrics from `registry`.
    pub fn new(registry: Registry) -> Self {
        Self {
            ready: Arc::new(AtomicBool::new(false)),
            registry: Arc::new(registry),
        }
    }

    /// Marks the process ready (or not).
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::SeqCst);
    }

    fn respond(&self, path: &str) -> Response<Full<Bytes>> {
        let (status, content_type, body) = match path {
            "/healthz" | "/livez" => (StatusCode::OK, "text/plain", "ok".to_owned()),
            "/readyz" if self.ready.load(Ordering::SeqCst) => (StatusCode::OK, "text/plain", "ok".to_owned()),
            "/readyz" => (
                StatusCode::SERVICE_UNAVAILABLE,
                "text/plain",
                "caches not synced".to_owned(),
            ),
            "/metrics" => {
                let mut text = String::new();
                match prometheus_client::encoding::text::encode(&mut text, &self.registry) {
                    Ok(()) => (
                        StatusCode::OK,
                        "application/openmetrics-text; version=1.0.0; charset=utf-8",
                        text,
                    ),
                    Err(error) => (StatusCode::INTERNAL_SERVER_ERROR, "text/plain", error.to_string()),
                }
            }
            _ => (StatusCode::NOT_FOUND, "text/plain", "not found".to_owned()),
        };
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = status;
        if let Ok(value) = http::HeaderValue::from_str(content_type) {
            response.headers_mut().insert(http::header::CONTENT_TYPE, value);
        }
        response
    }

    /// Binds `addr` (reporting a clear error) and serves until `cancel`; returns the bound
    /// address and the serving task.
    pub async fn serve(
        &self,
        addr: SocketAddr,
        cancel: CancellationToken,
    ) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), std::io::Error> {
        let listener = TcpListener::bind(addr).await?;
        let bound = listener.local_addr()?;
        let health = self.clone();
        let task = tokio::spawn(async move {
            loop {
                let stream = tokio::select! {
                    () = cancel.cancelled() => return,
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => stream,
                        Err(error) => {
                            tracing::warn!(%error, "probe endpoint: accept failed");
                            continue;
                        }
                    },
                };
                let health = health.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |request: Request<Incoming>| {
                        let response = health.respond(request.uri().path());
                        async move { Ok::<_, Infallible>(response) }
                    });
                    let connection =
                        hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service);
                    if let Err(error) = connection.await {
                        tracing::debug!(%error, "probe endpoint: connection error");
                    }
                });
            }
        });
        Ok((bound, task))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn body(response: Response<Full<Bytes>>) -> String {
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn readiness_should_follow_the_caches_and_metrics_should_be_served() {
        let mut registry = Registry::default();
        let metrics = codegen_runtime::workqueue::WorkqueueMetrics::new();
        metrics.register(&mut registry);
        let queue = codegen_runtime::WorkQueue::<String>::builder()
            .name("Foo")
            .metrics(&metrics)
            .build();
        queue.add("default/example-foo".to_owned());
        let health = Health::new(registry);
        assert_eq!(health.respond("/healthz").status(), StatusCode::OK);
        assert_eq!(health.respond("/readyz").status(), StatusCode::SERVICE_UNAVAILABLE);
        health.set_ready(true);
        assert_eq!(health.respond("/readyz").status(), StatusCode::OK);
        assert_eq!(health.respond("/nope").status(), StatusCode::NOT_FOUND);
        let text = body(health.respond("/metrics")).await;
        assert!(text.contains("workqueue_adds_total{name=\"Foo\"} 1"), "{text}");
        assert!(text.contains("workqueue_depth{name=\"Foo\"} 1"), "{text}");
    }
}
