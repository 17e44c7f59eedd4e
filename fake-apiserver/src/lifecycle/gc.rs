//! Garbage collection as kube-controller-manager does it: dependents whose owners are all gone are
//! deleted, dangling owner references are dropped, and the Orphan and Foreground policies are honoured.

use std::sync::Arc;

use serde_json::Value;

use crate::verbs::write::{Core, Ownership, WriteOpts};
use crate::lifecycle::crd::{CRD_CLEANUP_FINALIZER, is_crd};
use crate::verbs::delete::{DeleteOpts, FOREGROUND_FINALIZER, ORPHAN_FINALIZER};
use crate::storage::object;
use crate::storage::resource::ResourceInfo;
use crate::storage::store::StoredRef;

impl Core {
    /// Reacts to an object that was just written while being deleted.
    pub(crate) fn after_update(&mut self, info: &Arc<ResourceInfo>, stored: &Arc<Value>) {
        if !object::is_deleting(stored) {
            return;
        }
        if is_crd(info) && object::finalizers(stored).iter().any(|f| f == CRD_CLEANUP_FINALIZER) {
            self.clean_up_crd(stored);
        }
        if !self.options.garbage_collection {
            return;
        }
        let finalizers = object::finalizers(stored);
        let uid = object::uid(stored).to_owned();
        if finalizers.iter().any(|f| f == ORPHAN_FINALIZER) {
            for dependent in self.store.dependents_of(&uid) {
                self.set_owner_references(&dependent, |reference| reference_uid(reference) != uid);
            }
            if let Ok(current) = self.get_object(info, ns_of(info, stored), object::name(stored)) {
                self.drop_finalizer(info, &current, ORPHAN_FINALIZER);
            }
        } else if finalizers.iter().any(|f| f == FOREGROUND_FINALIZER) {
            for (storage, key) in self.store.dependents_of(&uid) {
                let Some(dependent_info) = self.registry.preferred(&storage).cloned() else {
                    continue;
                };
                let Some(dependent) = self.store.get(&storage, &key).cloned() else {
                    continue;
                };
                // Like the garbage collector: dependents with dependents of their own go in the
                // foreground too, leaves in the background.
                let policy = if self.store.dependents_of(object::uid(&dependent)).is_empty() {
                    "Background"
                } else {
                    "Foreground"
                };
                let opts = DeleteOpts {
                    propagation: Some(policy.to_owned()),
                    ..DeleteOpts::default()
                };
                let namespace = dependent_info.namespaced.then_some(key.0.as_str());
                let _ = self.delete(&dependent_info, namespace, &key.1, &opts);
            }
            self.release_foreground(info, ns_of(info, stored), object::name(stored));
        }
    }

    /// Reacts to an object that was just removed for good.
    pub(crate) fn after_remove(&mut self, removed: &Value) {
        if !self.options.garbage_collection {
            return;
        }
        let uid = object::uid(removed).to_owned();
        for dependent in self.store.dependents_of(&uid) {
            let Some(current) = self.lookup(&dependent) else {
                continue;
            };
            let alive: Vec<Value> = object::owner_references(&current)
                .iter()
                .filter(|reference| reference_uid(reference) != uid && self.owner_exists(reference, &dependent.1.0))
                .cloned()
                .collect();
            if alive.is_empty() {
                let Some(info) = self.registry.preferred(&dependent.0).cloned() else {
                    continue;
                };
                let namespace = info.namespaced.then_some(dependent.1.0.as_str());
                let _ = self.delete(&info, namespace, &dependent.1.1, &DeleteOpts::default());
            } else {
                self.set_owner_references(&dependent, |reference| alive.contains(reference));
            }
        }
        // An owner deleted in the foreground waits for exactly this moment.
        for reference in object::owner_references(removed).to_vec() {
            let Some(info) = self.owner_info(&reference) else {
                continue;
            };
            let namespace = info.namespaced.then(|| object::namespace(removed).to_owned());
            let name = reference.get("name").and_then(Value::as_str).unwrap_or_default();
            self.release_foreground(&info, namespace.as_deref(), name);
        }
    }

    /// Drops the foreground finalizer once no dependent is left.
    fn release_foreground(&mut self, info: &Arc<ResourceInfo>, namespace: Option<&str>, name: &str) {
        let Ok(owner) = self.get_object(info, namespace, name) else {
            return;
        };
        let waiting =
            object::is_deleting(&owner) && object::finalizers(&owner).iter().any(|f| f == FOREGROUND_FINALIZER);
        // Only dependents that block their owner's deletion are waited for.
        let uid = object::uid(&owner);
        let blocking = self
            .store
            .dependents_of(uid)
            .into_iter()
            .filter_map(|d| self.lookup(&d))
            .any(|dependent| {
                object::owner_references(&dependent).iter().any(|reference| {
                    reference_uid(reference) == uid
                        && reference.get("blockOwnerDeletion").and_then(Value::as_bool) == Some(true)
                })
            });
        if waiting && !blocking {
            self.drop_finalizer(info, &owner, FOREGROUND_FINALIZER);
        }
    }

    fn lookup(&self, reference: &StoredRef) -> Option<Arc<Value>> {
        self.store.get(&reference.0, &reference.1).cloned()
    }

    fn owner_info(&self, reference: &Value) -> Option<Arc<ResourceInfo>> {
        let text = |key: &str| reference.get(key).and_then(Value::as_str).unwrap_or_default();
        self.registry.by_kind(text("apiVersion"), text("kind")).cloned()
    }

    /// Whether the owner named by `reference` exists with the referenced uid; an owner of a kind
    /// the server does not serve is assumed to exist, so nothing is collected by mistake.
    fn owner_exists(&self, reference: &Value, dependent_namespace: &str) -> bool {
        let Some(info) = self.owner_info(reference) else {
            return true;
        };
        let namespace = if info.namespaced { dependent_namespace } else { "" };
        let name = reference.get("name").and_then(Value::as_str).unwrap_or_default();
        self.store
            .get(&info.storage_key(), &(namespace.to_owned(), name.to_owned()))
            .is_some_and(|owner| object::uid(owner) == reference_uid(reference))
    }

    /// Keeps only the owner references for which `keep` holds.
    fn set_owner_references(&mut self, dependent: &StoredRef, keep: impl Fn(&Value) -> bool) {
        let Some(current) = self.lookup(dependent) else { return };
        let Some(info) = self.registry.preferred(&dependent.0).cloned() else {
            return;
        };
        let references: Vec<Value> = object::owner_references(&current)
            .iter()
            .filter(|r| keep(r))
            .cloned()
            .collect();
        let mut updated = (*current).clone();
        let meta = object::meta_mut(&mut updated);
        if references.is_empty() {
            meta.remove("ownerReferences");
        } else {
            meta.insert("ownerReferences".to_owned(), Value::Array(references));
        }
        let opts = WriteOpts {
            manager: Some("generic-garbage-collector".to_owned()),
            dry_run: false,
            strict: false,
        };
        if let Err(status) = self.commit_update(&info, current, updated, None, &opts, Ownership::Update) {
            tracing::warn!(%status, "garbage collector could not update owner references");
        }
    }
}

fn reference_uid(reference: &Value) -> &str {
    reference.get("uid").and_then(Value::as_str).unwrap_or_default()
}

fn ns_of<'a>(info: &ResourceInfo, object: &'a Value) -> Option<&'a str> {
    info.namespaced.then(|| object::namespace(object))
}
