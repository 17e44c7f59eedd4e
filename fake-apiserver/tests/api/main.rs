//! The in-memory API server, tested only through `kube::Api`, kube-runtime's watcher and HTTP —
//! never through its internals — so the tests state the Kubernetes API contract it keeps.

mod common;

mod admission_policies;
mod aids;
mod auth;
mod builtins;
mod crd;
mod delete;
mod field_validation;
mod flowcontrol;
mod job_policies;
mod jobs;
mod kubectl;
mod list;
mod node_health;
mod node_lifecycle;
mod patch;
mod replication;
mod scale_apply;
mod served;
mod service_endpoints;
mod statefulsets;
mod type_meta;
mod volumes;
mod watch;
mod workloads;
mod write;
