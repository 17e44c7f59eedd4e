//! The Kubernetes verbs, one file per family, each a transaction on the storage under one lock.

pub(crate) mod apply;
pub(crate) mod delete;
pub(crate) mod patch;
pub(crate) mod read;
pub(crate) mod watch;
pub(crate) mod write;
