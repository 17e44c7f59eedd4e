//! The rules objects obey, independent of HTTP and storage: validation, CRD schemas, field paths,
//! managed fields, selectors and strategic merge patch.

pub(crate) mod apiservice_validation;
pub(crate) mod builtin_validation;
pub(crate) mod cel;
pub(crate) mod comparison;
pub(crate) mod container_validation;
pub(crate) mod crd_validation;
pub(crate) mod csr;
pub(crate) mod csr_validation;
pub(crate) mod decoding;
pub(crate) mod defaults;
pub(crate) mod field_error;
pub(crate) mod fieldpath;
pub(crate) mod go_json;
pub(crate) mod go_json_writer;
pub(crate) mod go_regexp;
pub(crate) mod go_time;
pub(crate) mod job;
pub(crate) mod list_types;
pub(crate) mod managed_fields;
pub(crate) mod names;
pub(crate) mod node_validation;
pub(crate) mod pod_validation;
pub(crate) mod quantity;
pub(crate) mod requester;
pub(crate) mod scale_checks;
pub(crate) mod schema;
pub(crate) mod selector;
pub(crate) mod service_account_token;
pub(crate) mod shape;
pub(crate) mod strategic;
pub(crate) mod typed;
pub(crate) mod validation;
pub(crate) mod versions;
pub(crate) mod x509_request;
pub(crate) mod zero;
