//! The conformance crate's tests, linked into one binary (each test binary links kube,
//! k8s-openapi and the in-memory API server, about 100 MB): the corpus replayed on both minors,
//! the normalizer, typed apply and the generated CRDs.

mod generated_crds;
mod normalizer;
mod replay;
mod replay_minor;
mod typed_apply;
