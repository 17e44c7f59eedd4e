//! What the controller tests share: an in-memory API server with the generated CRDs installed,
//! and polling until a condition holds.

#![allow(dead_code)]

use std::time::Duration;

use codegen_runtime::FakeApiServer;
use codegen_runtime::fake::Action;
use controller::embedded::{MANIFESTS, objects};

/// An in-memory API server serving the CRDs of `deploy/crds/`, namespaces created on use.
pub fn server() -> FakeApiServer {
    let server = FakeApiServer::builder().auto_create_namespaces(true).build();
    for (path, yaml) in MANIFESTS.iter().filter(|(path, _)| path.starts_with("deploy/crds/")) {
        for crd in objects(path, yaml).unwrap() {
            server.insert(&crd).unwrap();
        }
    }
    server
}

/// Polls `check` every 10 ms until it returns `Some`, failing the test after `timeout`.
pub async fn wait_for<T>(what: &str, timeout: Duration, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The actions that change state, as `verb resource[/subresource]` (sample-controller's
/// `filterInformerActions` drops the informers' lists and watches).
pub fn writes(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter(|a| !matches!(a.verb.as_str(), "list" | "watch" | "get"))
        .map(|a| match &a.subresource {
            Some(sub) => format!("{} {}/{sub}", a.verb.as_str(), a.resource),
            None => format!("{} {}", a.verb.as_str(), a.resource),
        })
        .collect()
}
