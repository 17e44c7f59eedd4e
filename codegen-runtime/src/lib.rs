//! Runtime used by kube-codegen generated code and controllers: client-go's toolbox on kube-rs.
//!
//! - [`cache`]: indexed store, listers, shared informers and the informer factory (client-go's
//!   `tools/cache`).
//! - [`apply`]: server-side apply with typed apply configurations and extraction of what one
//!   field manager owns (client-go's `applyconfigurations`).
//! - [`workqueue`]: a rate-limited work queue with client-go's contract and metrics.
//! - [`controller`]: the controller loop: the [`Reconcile`] trait, workers over the work queue
//!   with requeue and backoff, reconcile metrics.
//! - [`leader`]: Lease-based leader election with client-go's semantics.
//! - [`crd`]: CustomResourceDefinitions from schemars schemas and controller-gen markers.
//! - [`events`]: best-effort event recording about reconciled objects, with a test double.
//! - [`type_meta`]: [`ApiVersion`] and [`Kind`], the fields that put `apiVersion` and `kind` on
//!   every object a `+genclient` type sends (Go's `metav1.TypeMeta`).
//!
//! The entry points are re-exported here.

pub mod apply;
pub mod cache;
pub mod controller;
pub mod crd;
pub mod events;
pub mod leader;
pub mod type_meta;
pub mod workqueue;

mod scope;

pub use apply::{ApplyField, ApplyOptions, ObjectMetaApplyConfiguration};
pub use cache::{
    Deleted, EventHandler, HandlerFns, Lister, NamespaceLister, Notification, SharedIndexInformer,
    SharedInformerFactory, Store,
};
pub use controller::{Next, Reconcile, ReconcileMetrics, run_workers};
pub use events::{EventRecorder, Events, FakeRecorder};
pub use leader::{LeaderCallbacks, LeaderElectionConfig, LeaderElector};
pub use scope::ScopeKind;
pub use type_meta::{ApiVersion, Kind};
pub use workqueue::WorkQueue;

/// What generated code names through this crate, so user crates need not depend on it
/// themselves. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use either::Either;
    pub use futures::Stream;
    pub use serde_json;

    /// The last segment of a `module_path!()`: a derived type's API version.
    pub const fn module_version(path: &'static str) -> &'static str {
        let bytes = path.as_bytes();
        let mut start = bytes.len();
        while start > 0 && bytes[start - 1] != b':' {
            start -= 1;
        }
        match core::str::from_utf8(bytes.split_at(start).1) {
            Ok(version) => version,
            Err(_) => "",
        }
    }

    /// Fails compilation unless the module is named like an API version (`v1`, `v1alpha1`,
    /// `v2beta3`), as code-generator requires of version directories.
    pub const fn check_version(path: &'static str) {
        let version = module_version(path).as_bytes();
        let ok = version.len() >= 2 && version[0] == b'v' && version[1].is_ascii_digit() && {
            let mut i = 1;
            while i < version.len() && version[i].is_ascii_digit() {
                i += 1;
            }
            let rest = version.split_at(i).1;
            rest.is_empty() || suffix_ok(rest, b"alpha") || suffix_ok(rest, b"beta")
        };
        if !ok {
            panic!("a #[derive(Codegen)] type must be in a module named like an API version: v1, v1alpha1, v2beta3");
        }
    }

    /// What a derived `+genclient` type with `+k8s:deepcopy-gen=false` must still be: kube's
    /// clients clone objects. The derive cannot see a `Clone` derived beside it, so the compiler
    /// checks, with this message.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has +k8s:deepcopy-gen=false and no Clone",
        label = "kube's clients need Clone",
        note = "derive or implement Clone, or drop +k8s:deepcopy-gen=false"
    )]
    pub trait DeepcopyOffNeedsClone {}

    impl<T: Clone> DeepcopyOffNeedsClone for T {}

    /// Compiles only when `T` is `Clone` (see [`DeepcopyOffNeedsClone`]).
    pub const fn assert_clone<T: DeepcopyOffNeedsClone>() {}

    /// Whether two strings are equal, in a const context (`clientset!` checks each type's group).
    pub const fn str_eq(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    const fn suffix_ok(rest: &[u8], word: &[u8]) -> bool {
        if rest.len() <= word.len() {
            return false;
        }
        let mut i = 0;
        while i < word.len() {
            if rest[i] != word[i] {
                return false;
            }
            i += 1;
        }
        while i < rest.len() {
            if !rest[i].is_ascii_digit() {
                return false;
            }
            i += 1;
        }
        true
    }
}
