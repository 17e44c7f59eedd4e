//! What kube-apiserver's and kube-controller-manager's controllers do around a write: garbage
//! collection, CRD establishment and cleanup, namespace termination. The resource table's
//! [`Lifecycle`] of each resource says which of them act on its objects.
//!
//! These controllers write through the verbs (a dependent is deleted like any object), but they
//! must not depend on them, since the verbs call the hooks here: they ask for the [`Writes`] they
//! make, which the verbs implement for the server's state.

mod crd;
mod gc;
mod namespace;
mod writes;

use std::sync::Arc;

use serde_json::{Value, json};

use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::{Lifecycle, ResourceInfo};

pub(crate) use gc::{FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
pub(crate) use writes::Writes;

/// Resources a CRD that is being created or updated defines.
pub(crate) type Defined = Option<Vec<ResourceInfo>>;

/// Admission of a new object, after the generic checks: namespaces start `Active`, a CRD is
/// validated (and gets its cleanup finalizer), a custom resource needs a live definition.
pub(crate) fn admit_create(state: &State, info: &ResourceInfo, body: &mut Value) -> Result<Defined, ApiStatus> {
    match info.lifecycle {
        Lifecycle::Namespace => {
            // The namespace strategy's own: the phase, and the finalizer its controller removes
            // once the namespace is empty.
            body["status"] = json!({ "phase": "Active" });
            body["spec"] = json!({ "finalizers": ["kubernetes"] });
            Ok(None)
        }
        Lifecycle::CustomResourceDefinition => {
            let defined = crd::resources(state, info, body)?;
            crd::add_cleanup_finalizer(body);
            Ok(Some(defined))
        }
        Lifecycle::CustomResource => crd::check_not_terminating(state, info).map(|()| None),
        Lifecycle::Plain => Ok(None),
    }
}

/// After a create is stored: a CRD's resources are served and it is reported `Established`.
pub(crate) fn after_create(state: &mut State, info: &ResourceInfo, stored: Arc<Value>, defined: Defined) -> Arc<Value> {
    match (info.lifecycle, defined) {
        (Lifecycle::CustomResourceDefinition, Some(defined)) => crd::establish(state, &stored, defined),
        _ => stored,
    }
}

/// Admission of an update: a changed CRD must still be valid.
pub(crate) fn admit_update(state: &State, info: &ResourceInfo, new: &Value) -> Result<Defined, ApiStatus> {
    match info.lifecycle {
        Lifecycle::CustomResourceDefinition => crd::resources(state, info, new).map(Some),
        Lifecycle::Plain | Lifecycle::Namespace | Lifecycle::CustomResource => Ok(None),
    }
}

/// After an update is stored (also the marking of a pending delete): a CRD serves exactly the
/// versions it lists now; an object being deleted has its dependents and, for a CRD, its
/// objects dealt with.
pub(crate) fn after_update(state: &mut State, info: &Arc<ResourceInfo>, stored: &Arc<Value>, defined: Defined) {
    if let Some(defined) = defined {
        crd::serve(state, defined);
    }
    if !object::is_deleting(stored) {
        return;
    }
    if info.lifecycle == Lifecycle::CustomResourceDefinition {
        crd::clean_up_if_marked(state, stored);
    }
    gc::after_marked(state, info, stored);
}

/// A DELETE the resource's lifecycle answers itself: a namespace is terminated, not removed.
pub(crate) fn on_delete(state: &mut State, info: &Arc<ResourceInfo>, old: &Arc<Value>) -> Option<Arc<Value>> {
    match info.lifecycle {
        Lifecycle::Namespace => Some(namespace::terminate(state, info, old.clone())),
        Lifecycle::Plain | Lifecycle::CustomResourceDefinition | Lifecycle::CustomResource => None,
    }
}

/// After an object is removed for good: a CRD stops being served, a CRD waiting for its last
/// object may go, dependents are collected, a terminating namespace may be finished.
pub(crate) fn after_remove(state: &mut State, info: &Arc<ResourceInfo>, removed: &Value) {
    match info.lifecycle {
        Lifecycle::CustomResourceDefinition => crd::stop_serving(state, removed),
        Lifecycle::CustomResource => crd::release_if_empty(state, &info.storage_key()),
        Lifecycle::Plain | Lifecycle::Namespace => {}
    }
    gc::after_removed(state, removed);
    if info.namespaced {
        namespace::finish_if_empty(state, object::namespace(removed));
    }
}
