//! A loopback list/watch server for the informer benchmarks: the [`Catalog`]'s objects served
//! in `limit`/`continue` pages or as a streaming list (`sendInitialEvents`), then its MODIFIED
//! watch events as fast as the client reads them. It runs in its own process
//! ([`crate::process::ServerProcess`]) so that its memory is not counted as the client's.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::net::TcpListener;

use crate::error::BenchError;
use crate::vm_catalog::{Catalog, Cursor};

/// Watch events are sent in chunks of about this many bytes.
const CHUNK_BYTES: usize = 64 * 1024;

/// What a request asks for, from its query.
#[derive(Default)]
struct Query {
    watch: bool,
    send_initial_events: bool,
    limit: Option<usize>,
    continue_from: usize,
    resource_version: Option<u64>,
}

fn parse_query(query: Option<&str>) -> Query {
    let mut parsed = Query::default();
    for pair in query.unwrap_or_default().split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "watch" => parsed.watch = value == "true" || value == "1",
            "sendInitialEvents" => parsed.send_initial_events = value == "true",
            "limit" => parsed.limit = value.parse().ok(),
            "continue" => parsed.continue_from = value.parse().unwrap_or(0),
            "resourceVersion" => parsed.resource_version = value.parse().ok(),
            _ => {}
        }
    }
    parsed
}

type Body = BoxBody<Bytes, Infallible>;

fn full(status: StatusCode, body: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

/// The watch stream: initial events if asked for, then the MODIFIED events after the
/// requested resourceVersion, in chunks made as the client reads, then nothing (the connection
/// stays open).
fn watch(catalog: Arc<Catalog>, query: &Query) -> Response<Body> {
    let first = if query.send_initial_events {
        Cursor::Added(0)
    } else {
        let after = query.resource_version.unwrap_or(0);
        Cursor::Modified(after.saturating_sub(catalog.list_version()) as usize)
    };
    let end = catalog.events().unwrap_or(usize::MAX);
    let events = futures::stream::unfold(Some(first), move |cursor| {
        let catalog = catalog.clone();
        async move {
            let mut cursor = cursor?;
            let mut chunk = Vec::with_capacity(CHUNK_BYTES + 2048);
            while chunk.len() < CHUNK_BYTES {
                match catalog.write_next(&mut chunk, cursor, end) {
                    Some(next) => cursor = next,
                    None => return (!chunk.is_empty()).then(|| (Bytes::from(chunk), None)),
                }
            }
            Some((Bytes::from(chunk), Some(cursor)))
        }
    });
    let body = events
        .chain(futures::stream::pending())
        .map(|chunk| Ok::<_, Infallible>(Frame::data(chunk)));
    let mut response = Response::new(BodyExt::boxed(StreamBody::new(body)));
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

async fn handle(catalog: Arc<Catalog>, request: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    if !request.uri().path().ends_with("/virtualmachines") {
        let status = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404,
            "message": format!("the benchmark server serves only virtualmachines, not {}", request.uri().path())});
        return Ok(full(StatusCode::NOT_FOUND, status.to_string().into_bytes()));
    }
    let query = parse_query(request.uri().query());
    if query.watch {
        return Ok(watch(catalog, &query));
    }
    let limit = query.limit.filter(|&l| l > 0).unwrap_or(usize::MAX);
    Ok(full(StatusCode::OK, catalog.page(query.continue_from, limit)))
}

/// The `bench serve` subcommand: builds the catalog, listens on a free loopback port, prints
/// `listening <url>` and serves until killed.
pub async fn serve(objects: usize, events: Option<usize>, managed_fields: bool) -> Result<(), BenchError> {
    let catalog = Arc::new(Catalog::new(objects, events, managed_fields));
    let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .map_err(BenchError::io("cannot listen on loopback"))?;
    let addr = listener
        .local_addr()
        .map_err(BenchError::io("the listener's address"))?;
    println!("listening http://{addr}");
    loop {
        let (stream, _) = listener.accept().await.map_err(BenchError::io("accept"))?;
        stream.set_nodelay(true).map_err(BenchError::io("TCP_NODELAY"))?;
        let catalog = catalog.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| handle(catalog.clone(), request));
            // A client that goes away mid-stream ends its connection; nothing to report.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
