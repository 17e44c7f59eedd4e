//! Deletion: preconditions, finalizers and deletionTimestamp, propagation policies, namespace
//! termination, and removal of a CRD's objects.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::verbs::write::{Core, Ownership, WriteOpts};
use crate::lifecycle::crd::is_crd;
use crate::storage::object::{self, meta_mut};
use crate::storage::resource::ResourceInfo;
use crate::status::ApiStatus;

/// Finalizers the garbage collector handles for the Orphan and Foreground policies.
pub(crate) const ORPHAN_FINALIZER: &str = "orphan";
pub(crate) const FOREGROUND_FINALIZER: &str = "foregroundDeletion";

/// The parts of `DeleteOptions` the server acts on.
#[derive(Clone, Debug, Default)]
pub(crate) struct DeleteOpts {
    pub(crate) uid: Option<String>,
    pub(crate) resource_version: Option<String>,
    pub(crate) propagation: Option<String>,
    /// The deprecated `orphanDependents`, which alone decides between 200 and 202.
    pub(crate) orphan_dependents: Option<bool>,
    pub(crate) dry_run: bool,
}

impl DeleteOpts {
    /// Reads a `DeleteOptions` body (possibly empty) and the query's propagation policy.
    pub(crate) fn parse(body: Option<&Value>, query_policy: Option<&str>, dry_run: bool) -> Self {
        let text = |pointer: &str| {
            body.and_then(|b| b.pointer(pointer))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let orphan = body.and_then(|b| b.get("orphanDependents")).and_then(Value::as_bool);
        let propagation = text("/propagationPolicy")
            .or_else(|| query_policy.map(str::to_owned))
            .or_else(|| orphan.map(|o| if o { "Orphan" } else { "Background" }.to_owned()));
        let dry_run = dry_run
            || body
                .and_then(|b| b.get("dryRun"))
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty());
        Self {
            uid: text("/preconditions/uid"),
            resource_version: text("/preconditions/resourceVersion"),
            propagation,
            orphan_dependents: orphan,
            dry_run,
        }
    }
}

impl Core {
    /// DELETE: returns the object and whether it is gone (200) or waits on finalizers (202).
    pub(crate) fn delete(
        &mut self,
        info: &Arc<ResourceInfo>,
        namespace: Option<&str>,
        name: &str,
        opts: &DeleteOpts,
    ) -> Result<(Arc<Value>, bool), ApiStatus> {
        let old = self.get_object(info, namespace, name)?;
        if let Some(uid) = &opts.uid
            && uid != object::uid(&old)
        {
            let why = format!(
                "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                object::uid(&old)
            );
            return Err(ApiStatus::conflict(info, name, &why));
        }
        if let Some(rv) = &opts.resource_version
            && rv != object::resource_version(&old)
        {
            let why = format!(
                "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
                object::resource_version(&old)
            );
            return Err(ApiStatus::conflict(info, name, &why));
        }
        if opts.dry_run {
            return Ok((old, false));
        }
        if info.builtin && info.kind == "Namespace" {
            return Ok((self.terminate_namespace(info, old), false));
        }
        let mut finalizers = object::finalizers(&old);
        if self.options.garbage_collection {
            let policy_finalizer = match opts.propagation.as_deref() {
                Some("Orphan") => Some(ORPHAN_FINALIZER),
                Some("Foreground") => Some(FOREGROUND_FINALIZER),
                _ => None,
            };
            // A stated policy replaces whichever one an earlier delete asked for.
            if opts.propagation.is_some() {
                finalizers.retain(|f| f != ORPHAN_FINALIZER && f != FOREGROUND_FINALIZER);
            }
            if let Some(f) = policy_finalizer {
                finalizers.push(f.to_owned());
            }
        }
        if finalizers.is_empty() {
            return Ok((self.finish_delete(info, (*old).clone()), true));
        }
        let mut marked = (*old).clone();
        object::set_finalizers(&mut marked, &finalizers);
        if !object::is_deleting(&old) {
            let meta = meta_mut(&mut marked);
            meta.insert("deletionTimestamp".to_owned(), json!(object::now()));
            meta.insert("deletionGracePeriodSeconds".to_owned(), json!(0));
            if info.has_generation {
                meta.insert("generation".to_owned(), json!(object::generation(&old) + 1));
            }
        }
        if *old == marked {
            return Ok((old, false));
        }
        let stored = self.store.put(&info.storage_key(), marked);
        self.after_update(info, &stored);
        let current = self.get_object(info, namespace, name);
        Ok(match current {
            Ok(still_there) => (still_there, false),
            Err(_) => (stored, true),
        })
    }

    /// Removes an object for good, then lets the garbage collector and the namespace and CRD
    /// lifecycles react.
    pub(crate) fn finish_delete(&mut self, info: &Arc<ResourceInfo>, last: Value) -> Arc<Value> {
        let key = (object::namespace(&last).to_owned(), object::name(&last).to_owned());
        let Some(removed) = self.store.remove(&info.storage_key(), &key, Some(last.clone())) else {
            // Already gone (a cascade got there first): nothing is left to react to.
            return Arc::new(last);
        };
        if is_crd(info) {
            self.stop_serving_crd(&removed);
        } else if !info.builtin {
            self.release_crd_if_empty(&info.storage_key());
        }
        self.after_remove(&removed);
        if info.namespaced {
            self.finish_namespace_if_empty(&key.0);
        }
        removed
    }

    /// DELETE on a collection: deletes every selected object, returning them.
    pub(crate) fn delete_collection(
        &mut self,
        info: &Arc<ResourceInfo>,
        namespace: Option<&str>,
        selected: Vec<Arc<Value>>,
        opts: &DeleteOpts,
    ) -> Vec<Arc<Value>> {
        let mut deleted = Vec::new();
        for object in selected {
            let no_preconditions = DeleteOpts {
                uid: None,
                resource_version: None,
                ..opts.clone()
            };
            // An object removed meanwhile (e.g. by the garbage collector) is simply skipped.
            if let Ok((last, _)) = self.delete(info, namespace, object::name(&object), &no_preconditions) {
                deleted.push(last);
            }
        }
        deleted
    }

    /// Marks a namespace Terminating, deletes its contents, and removes it once it is empty.
    fn terminate_namespace(&mut self, info: &Arc<ResourceInfo>, old: Arc<Value>) -> Arc<Value> {
        let name = object::name(&old).to_owned();
        let marked = if object::is_deleting(&old) {
            old
        } else {
            let mut marked = (*old).clone();
            meta_mut(&mut marked).insert("deletionTimestamp".to_owned(), json!(object::now()));
            marked["spec"] = json!({ "finalizers": ["kubernetes"] });
            marked["status"] = json!({ "phase": "Terminating" });
            self.store.put(&info.storage_key(), marked)
        };
        for storage in self.store.storage_keys() {
            let Some(resource) = self.registry.preferred(&storage).cloned() else {
                continue;
            };
            if !resource.namespaced {
                continue;
            }
            let names: Vec<String> = self
                .store
                .iter(&storage, Some(&name))
                .map(|(key, _)| key.1.clone())
                .collect();
            for object_name in names {
                let _ = self.delete(&resource, Some(&name), &object_name, &DeleteOpts::default());
            }
        }
        self.finish_namespace_if_empty(&name);
        // The namespace as the request left it: Terminating, possibly already gone.
        self.get_object(info, None, &name).unwrap_or(marked)
    }

    /// Removes a terminating namespace when nothing is left in it.
    fn finish_namespace_if_empty(&mut self, namespace: &str) {
        let info = self.info("", "v1", "namespaces");
        let Ok(ns) = self.get_object(&info, None, namespace) else {
            return;
        };
        if !object::is_deleting(&ns) {
            return;
        }
        let empty = self.store.storage_keys().iter().all(|storage| {
            self.registry.preferred(storage).is_none_or(|r| !r.namespaced)
                || self.store.iter(storage, Some(namespace)).next().is_none()
        });
        if empty {
            let mut last = (*ns).clone();
            last["spec"] = json!({});
            let key = (String::new(), namespace.to_owned());
            self.store.remove(&info.storage_key(), &key, Some(last));
        }
    }

    /// Removes `finalizer` from a stored object through the normal update path.
    pub(crate) fn drop_finalizer(&mut self, info: &Arc<ResourceInfo>, current: &Arc<Value>, finalizer: &str) {
        let mut updated = (**current).clone();
        let remaining: Vec<String> = object::finalizers(current)
            .into_iter()
            .filter(|f| f != finalizer)
            .collect();
        object::set_finalizers(&mut updated, &remaining);
        let opts = WriteOpts::default();
        if let Err(status) = self.commit_update(info, current.clone(), updated, None, &opts, Ownership::Update) {
            tracing::warn!(object = object::name(current), %status, "could not remove finalizer {finalizer}");
        }
    }
}
