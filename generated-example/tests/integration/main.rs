//! The generated example's tests, linked into one binary (each test binary links kube,
//! k8s-openapi and the in-memory API server, about 100 MB): deepcopy, the generated clients
//! against the in-memory server, and what they put on the wire.

mod deepcopy;
mod generated;
mod wire;
