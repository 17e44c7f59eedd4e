//! CustomResourceDefinition objects: validating them, serving the resources they define and
//! reporting them Established, and on deletion removing their objects through the normal delete
//! path before the CRD goes — what kube-apiserver's apiextensions controllers do.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::APISERVER_MANAGER;
use crate::lifecycle::crd_names;
use crate::lifecycle::status_conditions::set_condition;
use crate::lifecycle::writes::Writes;
use crate::semantics::cel::CompiledRules;
use crate::semantics::crd_validation;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::definition::DefinitionError;
use crate::storage::object;
use crate::storage::resource::{ResourceInfo, StorageKey};

/// The finalizer that keeps a deleted CRD until its objects are gone.
const CRD_CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

/// How a CRD is being written, for its validation.
pub(crate) enum Write<'a> {
    Create,
    Update { old: &'a Value },
    Status,
}

/// The resources a CRD object defines, or Invalid naming what is wrong: the CRD is validated as
/// apiextensions validates a create, an update or a `/status` update.
pub(super) fn resources(
    state: &State,
    info: &ResourceInfo,
    crd: &Value,
    write: Write<'_>,
) -> Result<Vec<ResourceInfo>, ApiStatus> {
    let name = object::name(crd);
    let minor = state.options.minor();
    let errors = match write {
        Write::Create => crd_validation::validate_create(crd, minor),
        Write::Update { old } => crd_validation::validate_update(crd, old, minor),
        Write::Status => crd_validation::validate_status_update(crd),
    };
    if !errors.is_empty() {
        return Err(ApiStatus::invalid_fields(info, name, &errors));
    }
    let mut infos = match ResourceInfo::from_crd(crd) {
        Ok(infos) => infos,
        // A CRD that serves no version is valid; it defines nothing to serve.
        Err(DefinitionError::NoServedVersion) => return Ok(Vec::new()),
        Err(why) => return Err(ApiStatus::internal(format!("cannot serve a valid CRD: {why}"))),
    };
    // Objects are validated with the rules as this minor compiles them.
    for info in &mut infos {
        info.rules = CompiledRules::for_minor(minor);
    }
    let Some(first) = infos.first() else { return Ok(infos) };
    let taken = state
        .registry
        .preferred(&first.storage_key())
        .is_some_and(|served| served.builtin);
    if taken {
        let expected = format!("{}.{}", first.plural, first.group);
        let cause = (
            "spec.names.plural".to_owned(),
            format!("Invalid value: {expected:?}: is served by a built-in resource"),
        );
        return Err(ApiStatus::invalid(info, name, &[cause]));
    }
    Ok(infos)
}

/// The status the CRD strategy gives a new definition: the stored versions, no names accepted
/// yet, no conditions.
pub(super) fn initial_status(crd: &mut Value) {
    // PrepareForCreate: a fresh status whose stored versions start with the storage version.
    crd["status"] = json!({
        "conditions": null,
        "acceptedNames": { "plural": "", "kind": "" },
        "storedVersions": storage_versions(crd),
    });
}

/// `PrepareForUpdate`: the stored versions keep every version ever stored, and gain the
/// storage version if it is new.
pub(super) fn add_stored_version(crd: &mut Value) {
    let Some(storage) = storage_versions(crd).into_iter().next() else {
        return;
    };
    let status = &mut crd["status"];
    if !status.is_object() {
        *status = json!({});
    }
    let stored = &mut status["storedVersions"];
    if !stored.is_array() {
        *stored = json!([]);
    }
    if let Some(list) = stored.as_array_mut()
        && !list.contains(&storage)
    {
        list.push(storage);
    }
}

fn storage_versions(crd: &Value) -> Vec<Value> {
    crd.pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
        .filter_map(|v| v.get("name").cloned())
        .collect()
}

/// What the naming and establishing controllers do with a new or renamed CRD: accept the names
/// no other CRD of the group holds, and if all are accepted serve its resources and report it
/// Established; else report the conflict and serve nothing new.
pub(super) fn establish(state: &mut State, name: &str, defined: Vec<ResourceInfo>) {
    let info = state.info("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    let Some(crd) = state.object(&info, None, name).filter(|crd| !object::is_deleting(crd)) else {
        return;
    };
    let naming = crd_names::calculate(state, &crd);
    let now = object::now();
    let condition = |type_: &str, status: &str, reason: &str, message: &str| json!({ "type": type_, "status": status, "lastTransitionTime": now, "reason": reason, "message": message });
    let conditions = match &naming.conflict {
        None => {
            serve(state, defined);
            [
                condition("NamesAccepted", "True", "NoConflicts", "no conflicts found"),
                condition(
                    "Established",
                    "True",
                    "InitialNamesAccepted",
                    "the initial names have been accepted",
                ),
            ]
        }
        Some((reason, message)) => {
            let established = find_condition(&crd, "Established")
                .cloned()
                .unwrap_or_else(|| condition("Established", "False", "NotAccepted", "not all names are accepted"));
            [condition("NamesAccepted", "False", reason, message), established]
        }
    };
    let mut updated = (*crd).clone();
    let stored = crd
        .pointer("/status/storedVersions")
        .filter(|v| v.as_array().is_some_and(|a| !a.is_empty()))
        .cloned()
        .unwrap_or_else(|| json!(storage_versions(&crd)));
    let mut listed: Vec<Value> = crd
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for condition in conditions {
        match listed.iter_mut().find(|c| c.get("type") == condition.get("type")) {
            Some(existing) => *existing = condition,
            None => listed.push(condition),
        }
    }
    updated["status"] = json!({ "conditions": listed, "acceptedNames": naming.accepted, "storedVersions": stored });
    if let Err(status) = state.update_object(&info, crd, updated, Some("kube-apiserver"), Some("status")) {
        tracing::warn!(crd = name, %status, "could not establish the CRD");
    }
}

/// The CRD's condition of `type_`, if it has one.
fn find_condition<'c>(crd: &'c Value, type_: &str) -> Option<&'c Value> {
    crd.pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(type_))
}

/// Whether the CRD's condition of `type_` is `True` (`IsCRDConditionTrue`).
fn condition_true(crd: &Value, type_: &str) -> bool {
    find_condition(crd, type_)
        .and_then(|c| c.get("status"))
        .and_then(Value::as_str)
        == Some("True")
}

/// Whether the CRD asks for names it has not been given yet.
pub(super) fn names_pending(crd: &Value) -> bool {
    crd.pointer("/spec/names") != crd.pointer("/status/acceptedNames")
}

/// The first DELETE of a CRD: the cleanup finalizer and the `Terminating` condition are written
/// before the delete itself, so that the definition stays until its objects are gone.
pub(super) fn prepare_delete(state: &mut State, info: &ResourceInfo, crd: Arc<Value>) -> Arc<Value> {
    if object::is_deleting(&crd) {
        return crd;
    }
    state.store.put(&info.storage_key(), with_cleanup_pending(&crd))
}

/// A CRD as the registry's first DELETE leaves it (a dry run's answer, with its deletion time):
/// the cleanup finalizer added and the `Terminating` condition true.
pub(crate) fn with_cleanup_pending(crd: &Value) -> Value {
    let mut marked = crd.clone();
    let mut finalizers = object::finalizers(crd);
    if !finalizers.iter().any(|f| f == CRD_CLEANUP_FINALIZER) {
        finalizers.push(CRD_CLEANUP_FINALIZER.to_owned());
        object::set_finalizers(&mut marked, &finalizers);
    }
    set_condition(
        &mut marked,
        terminating(
            "True",
            "InstanceDeletionPending",
            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
        ),
    );
    marked
}

/// Serves exactly the versions a CRD now lists.
pub(super) fn serve(state: &mut State, infos: Vec<ResourceInfo>) {
    // A version whose schema changed decodes the objects stored before now on read.
    let now = state.store.current_rv();
    let infos: Vec<ResourceInfo> = infos
        .into_iter()
        .map(|mut info| {
            let served = state.registry.find(&info.group, &info.version, &info.plural);
            match served {
                // The same schema keeps its compiled rules.
                Some(served) if served.schema == info.schema => {
                    info.schema_since = served.schema_since;
                    info.rules = served.rules.clone();
                }
                _ => info.schema_since = now,
            }
            info
        })
        .collect();
    if let Some(first) = infos.first() {
        let storage = first.storage_key();
        state.registry.remove(&storage);
        state.store.start_cache(&storage);
    }
    for info in infos {
        state.registry.insert(info);
    }
}

/// The CRD object that defines a stored resource, if it was defined by one.
fn crd_of(state: &State, storage: &StorageKey) -> Option<(Arc<ResourceInfo>, Arc<Value>)> {
    let info = state.info("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    let name = format!("{}.{}", storage.plural, storage.group);
    let crd = state.object(&info, None, &name)?;
    Some((info, crd))
}

/// Custom resources cannot be created while their CRD is being deleted.
pub(super) fn check_not_terminating(state: &State, info: &ResourceInfo) -> Result<(), ApiStatus> {
    match crd_of(state, &info.storage_key()) {
        // `NewMethodNotSupported` with its message replaced, while the `Terminating` condition
        // is true (`customresource_handler.go`).
        Some((_, crd)) if find_condition(&crd, "Terminating").and_then(|c| c.get("status")) == Some(&json!("True")) => {
            Err(ApiStatus {
                message: "create not allowed while custom resource definition is terminating".to_owned(),
                ..ApiStatus::method_not_supported(info, "create")
            })
        }
        _ => Ok(()),
    }
}

/// A CRD marked for deletion whose cleanup is pending: delete its objects (their finalizers are
/// honoured), then let the CRD go once none is left.
pub(super) fn clean_up_if_marked(state: &mut State, crd: &Value) {
    if !object::finalizers(crd).iter().any(|f| f == CRD_CLEANUP_FINALIZER) {
        return;
    }
    let Ok(infos) = ResourceInfo::from_crd(crd) else { return };
    let storage = infos[0].storage_key();
    // `CRDFinalizer.sync` says so before it deletes anything: the cleanup may take a while.
    set_terminating(
        state,
        &storage,
        terminating(
            "True",
            "InstanceDeletionInProgress",
            "CustomResource deletion is in progress",
        ),
        false,
    );
    // A definition never established has no instances to delete (`deleteInstances`).
    if !condition_true(crd, "Established") {
        let never = terminating("False", "NeverEstablished", "resource was never established");
        set_terminating(state, &storage, never, true);
        return;
    }
    if let Some(info) = state.registry.preferred(&storage).cloned() {
        let keys: Vec<_> = state.store.iter(&storage, None).map(|(key, _)| key.clone()).collect();
        for key in keys {
            let namespace = info.namespaced.then_some(key.namespace.as_str());
            state.delete_object(&info, namespace, &key.name, None);
        }
    }
    release_if_empty(state, &storage);
}

/// Drops the cleanup finalizer of a terminating CRD whose objects are all gone, in the status
/// write that says so.
pub(super) fn release_if_empty(state: &mut State, storage: &StorageKey) {
    if state.store.iter(storage, None).next().is_none() {
        set_terminating(
            state,
            storage,
            terminating("False", "InstanceDeletionCompleted", "removed all instances"),
            true,
        );
    }
}

/// A `Terminating` condition as the CRD's registry and finalizer controller write it.
fn terminating(status: &str, reason: &str, message: &str) -> Value {
    json!({
        "type": "Terminating", "status": status, "lastTransitionTime": object::now(),
        "reason": reason, "message": message,
    })
}

/// The status write of the finalizer controller to a CRD it cleans up (`UpdateStatus` as the
/// apiserver itself), with the cleanup finalizer removed when `release`; nothing when the CRD
/// is not waiting for it or nothing would change.
fn set_terminating(state: &mut State, storage: &StorageKey, condition: Value, release: bool) {
    let Some((info, crd)) = crd_of(state, storage) else {
        return;
    };
    let finalizers = object::finalizers(&crd);
    if !object::is_deleting(&crd) || !finalizers.iter().any(|f| f == CRD_CLEANUP_FINALIZER) {
        return;
    }
    let mut updated = (*crd).clone();
    let changed = set_condition(&mut updated, condition);
    if release {
        let remaining: Vec<String> = finalizers.into_iter().filter(|f| f != CRD_CLEANUP_FINALIZER).collect();
        object::set_finalizers(&mut updated, &remaining);
    } else if !changed {
        return;
    }
    if let Err(status) = state.update_object(&info, crd, updated, Some(APISERVER_MANAGER), Some("status")) {
        tracing::warn!(crd = %storage.plural, %status, "could not write the CRD's Terminating condition");
    }
}

/// A CRD is gone for good: its resources stop being served.
pub(super) fn stop_serving(state: &mut State, crd: &Value) {
    if let Ok(infos) = ResourceInfo::from_crd(crd) {
        let storage = infos[0].storage_key();
        state.registry.remove(&storage);
        state.store.end_cache(&storage);
    }
}
