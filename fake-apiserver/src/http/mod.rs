//! HTTP in and out: the tower service and the loopback server, routing, query parsing, and the
//! documents answered without a verb (discovery, OpenAPI) or rendered for kubectl (tables).

pub(crate) mod aggregated;
pub(crate) mod discovery;
pub(crate) mod discovery_answers;
pub(crate) mod dispatch;
pub(crate) mod execute;
pub(crate) mod health;
pub(crate) mod jsonpath;
pub(crate) mod openapi;
pub(crate) mod printers;
pub(crate) mod protobuf;
pub(crate) mod protobuf_status;
pub(crate) mod query;
pub(crate) mod render;
pub(crate) mod request_body;
pub(crate) mod responses;
pub(crate) mod restful_route;
pub(crate) mod route;
pub(crate) mod serve;
pub(crate) mod service;
pub(crate) mod table;
pub(crate) mod tls;
pub(crate) mod warning;
