//! DELETE of an object or a collection: preconditions, finalizers and deletionTimestamp,
//! propagation policies, and removal for good, after which the lifecycle controllers react.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::admission_policies;
use crate::lifecycle::crd;
use crate::lifecycle::namespace as namespace_lifecycle;
use crate::lifecycle::{self, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, OnDelete};
use crate::semantics::{priorityclass, versions};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::key::ObjectKey;
use crate::storage::object::{self, meta_mut};
use crate::storage::resource::{Lifecycle, ResourceInfo};
use crate::verbs::graceful_delete::{self, Graceful};
use crate::verbs::options::DeleteOpts;
use crate::verbs::read;

/// DELETE: returns the object and whether it is gone (200) or waits on finalizers (202).
pub(crate) fn delete(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    namespace: Option<&str>,
    name: &str,
    opts: &DeleteOpts,
) -> Result<(Arc<Value>, bool), ApiStatus> {
    priorityclass::check_delete(info, name)?;
    let old = read::get(state, info, namespace, name)?;
    if let Some(why) = precondition_mismatch(opts, &old) {
        return Err(ApiStatus::precondition_failed(info, name, &why));
    }
    // Admission runs as the store's delete validation, after the preconditions.
    namespace_lifecycle::admit_delete(info, name)?;
    if !opts.skip_admission {
        let request = admission_policies::Request {
            operation: "DELETE",
            object: None,
            old: Some(&old),
            name: if opts.in_collection { "" } else { name },
            // A Namespace's own requests are in the namespace they name.
            namespace: namespace.unwrap_or(if info.lifecycle == Lifecycle::Namespace {
                name
            } else {
                ""
            }),
            subresource: "",
            dry_run: opts.dry_run,
            user: opts.requester.as_deref(),
        };
        let mut warnings = Vec::new();
        let admitted = admission_policies::validate(state, info, &request, &mut warnings);
        opts.warnings.extend(warnings);
        admitted?;
    }
    if opts.dry_run {
        return Ok(dry_run(state, info, old, opts));
    }
    let old = match lifecycle::on_delete(state, info, old) {
        OnDelete::Proceed(old) => old,
        OnDelete::Answered(terminating) => return Ok((terminating, false)),
    };
    let finalizers = finalizers_after(state, &old, opts);
    let old = match graceful_delete::before_delete(info, &old, opts) {
        // Graceful deletion under way and not shortened: the pod as it is.
        Graceful::Pending => return Ok((old, false)),
        // A pod is deleted gracefully: marked first (a write of its own), removed once its
        // grace period is over, at once with none (a pod no node runs) and no finalizer.
        Graceful::Mark { timestamp, grace } => {
            let marked = graceful_delete::marked(&old, &finalizers, &timestamp, grace);
            let stored = state.store.put(&info.storage_key(), versions::to_storage(info, marked));
            if grace > 0 || !finalizers.is_empty() {
                lifecycle::after_update(state, info, &stored, &old, None);
                return Ok((stored, false));
            }
            stored
        }
        Graceful::No => old,
    };
    if finalizers.is_empty() {
        return Ok((finish_delete(state, info, (*old).clone()), true));
    }
    let marked = mark(info, &old, &finalizers);
    if *old == marked {
        return Ok((old, false));
    }
    let stored = state.store.put(&info.storage_key(), versions::to_storage(info, marked));
    lifecycle::after_update(state, info, &stored, &old, None);
    let current = read::get(state, info, namespace, name);
    Ok(match current {
        Ok(still_there) => (still_there, false),
        Err(_) => (stored, true),
    })
}

/// What a delete would answer, with nothing stored: the object as it would be marked, or gone.
fn dry_run(state: &State, info: &ResourceInfo, old: Arc<Value>, opts: &DeleteOpts) -> (Arc<Value>, bool) {
    if info.lifecycle == Lifecycle::Namespace && !object::is_deleting(&old) {
        return (Arc::new(namespace_lifecycle::marked_for_deletion(&old)), false);
    }
    // The CRD registry's first delete is an update of its own (`REST.Delete`).
    if info.lifecycle == Lifecycle::CustomResourceDefinition && !object::is_deleting(&old) {
        let mut marked = crd::with_cleanup_pending(&old);
        meta_mut(&mut marked).insert("deletionTimestamp".to_owned(), json!(object::now()));
        return (Arc::new(marked), false);
    }
    let finalizers = finalizers_after(state, &old, opts);
    // A pod's graceful deletion marks it first (in memory only here), even when it is then
    // removed at once.
    match graceful_delete::before_delete(info, &old, opts) {
        Graceful::Pending => return (old, false),
        Graceful::Mark { timestamp, grace } => {
            let marked = graceful_delete::marked(&old, &finalizers, &timestamp, grace);
            return (Arc::new(marked), grace == 0 && finalizers.is_empty());
        }
        Graceful::No => {}
    }
    if finalizers.is_empty() && info.lifecycle != Lifecycle::Namespace {
        return (old, true);
    }
    (Arc::new(mark(info, &old, &finalizers)), false)
}

/// The finalizers an object keeps once deleted: its own, and the one of the propagation policy
/// asked for (which replaces whichever one an earlier delete asked for).
fn finalizers_after(state: &State, old: &Value, opts: &DeleteOpts) -> Vec<String> {
    let mut finalizers = object::finalizers(old);
    if state.options.garbage_collection && opts.propagation.is_some() {
        finalizers.retain(|f| f != ORPHAN_FINALIZER && f != FOREGROUND_FINALIZER);
        match opts.propagation.as_deref() {
            Some("Orphan") => finalizers.push(ORPHAN_FINALIZER.to_owned()),
            Some("Foreground") => finalizers.push(FOREGROUND_FINALIZER.to_owned()),
            _ => {}
        }
    }
    finalizers
}

/// The object marked for deletion, waiting on `finalizers`.
fn mark(info: &ResourceInfo, old: &Value, finalizers: &[String]) -> Value {
    let mut marked = old.clone();
    object::set_finalizers(&mut marked, finalizers);
    if !object::is_deleting(old) {
        let meta = meta_mut(&mut marked);
        meta.insert("deletionTimestamp".to_owned(), json!(object::now()));
        meta.insert("deletionGracePeriodSeconds".to_owned(), json!(0));
        if info.has_generation {
            meta.insert("generation".to_owned(), json!(object::generation(old) + 1));
        }
    }
    marked
}

/// Removes an object for good, then lets the garbage collector and the namespace and CRD
/// lifecycles react.
pub(crate) fn finish_delete(state: &mut State, info: &Arc<ResourceInfo>, last: Value) -> Arc<Value> {
    let last = versions::to_storage(info, last);
    let key = ObjectKey::of(&last);
    let Some(removed) = state.store.remove(&info.storage_key(), &key, Some(last.clone())) else {
        // Already gone (a cascade got there first): nothing is left to react to.
        return Arc::new(last);
    };
    lifecycle::after_remove(state, info, &removed);
    removed
}

/// DELETE on a collection: deletes every selected object; the first refusal (an admission
/// policy's) answers the request, after the others were tried, as the store's workers do.
pub(crate) fn delete_collection(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    namespace: Option<&str>,
    selected: &[Arc<Value>],
    opts: &DeleteOpts,
) -> Result<(), ApiStatus> {
    let mut refused = None;
    for object in selected {
        let no_preconditions = DeleteOpts {
            uid: None,
            resource_version: None,
            in_collection: true,
            ..opts.clone()
        };
        // An object removed meanwhile (e.g. by the garbage collector) is simply skipped.
        match delete(state, info, namespace, object::name(object), &no_preconditions) {
            Err(status) if status.code != 404 && refused.is_none() => refused = Some(status),
            _ => {}
        }
    }
    refused.map_or(Ok(()), Err)
}
/// Why `object` fails the delete's preconditions (its uid, then its resourceVersion), in the
/// words of the storage's `Preconditions.Check`.
pub(crate) fn precondition_mismatch(opts: &DeleteOpts, object: &Value) -> Option<String> {
    if let Some(uid) = opts.uid.as_deref().filter(|uid| *uid != object::uid(object)) {
        return Some(format!(
            "the UID in the precondition ({uid}) does not match the UID in record ({}). The object might have been deleted and then recreated",
            object::uid(object)
        ));
    }
    let rv = opts
        .resource_version
        .as_deref()
        .filter(|rv| *rv != object::resource_version(object))?;
    Some(format!(
        "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({}). The object might have been modified",
        object::resource_version(object)
    ))
}
