//! CustomResourceDefinition objects: validating them, serving the resources they define and
//! reporting them Established, and on deletion removing their objects through the normal delete
//! path before the CRD goes — what kube-apiserver's apiextensions controllers do.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::writes::{Writes, drop_finalizer};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::{ResourceInfo, StorageKey};

/// The finalizer that keeps a deleted CRD until its objects are gone.
const CRD_CLEANUP_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

/// The resources a CRD object defines, or Invalid naming what is wrong.
pub(super) fn resources(state: &State, info: &ResourceInfo, crd: &Value) -> Result<Vec<ResourceInfo>, ApiStatus> {
    let name = object::name(crd);
    let invalid = |field: &str, why: String| ApiStatus::invalid(info, name, &[(field.to_owned(), why)]);
    let infos = ResourceInfo::from_crd(crd).map_err(|why| invalid("spec", format!("Invalid value: {why}")))?;
    let first = &infos[0];
    let expected = format!("{}.{}", first.plural, first.group);
    if name != expected {
        return Err(invalid(
            "metadata.name",
            format!("Invalid value: {name:?}: must be spec.names.plural+\".\"+spec.group"),
        ));
    }
    if !first.group.contains('.') {
        return Err(invalid(
            "spec.group",
            format!(
                "Invalid value: {:?}: should be a domain with at least one dot",
                first.group
            ),
        ));
    }
    let protected = first.group.ends_with(".k8s.io") || first.group.ends_with(".kubernetes.io");
    let approved = crd
        .pointer("/metadata/annotations/api-approved.kubernetes.io")
        .is_some();
    if protected && !approved {
        return Err(invalid(
            "metadata.annotations[api-approved.kubernetes.io]",
            "Required value: protected groups must have approval annotation \"api-approved.kubernetes.io\"".to_owned(),
        ));
    }
    let taken = state
        .registry
        .preferred(&first.storage_key())
        .is_some_and(|served| served.builtin);
    if taken {
        return Err(invalid(
            "spec.names.plural",
            format!("Invalid value: {expected:?}: is served by a built-in resource"),
        ));
    }
    let versions = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    let mut schema_errors = Vec::new();
    for (i, version) in versions.enumerate() {
        let field = format!("spec.versions[{i}].schema.openAPIV3Schema");
        match version.pointer("/schema/openAPIV3Schema") {
            None => schema_errors.push((field, "Required value: schemas are required".to_owned())),
            Some(schema) if !schema.is_object() => {
                schema_errors.push((field, "Invalid value: must be an object".to_owned()))
            }
            Some(_) => {}
        }
    }
    if !schema_errors.is_empty() {
        return Err(ApiStatus::invalid(info, name, &schema_errors));
    }
    Ok(infos)
}

/// The status the CRD strategy gives a new definition: the stored versions, no names accepted
/// yet, no conditions.
pub(super) fn initial_status(crd: &mut Value) {
    crd["status"] = json!({
        "conditions": null,
        "acceptedNames": { "plural": "", "kind": "" },
        "storedVersions": storage_versions(crd),
    });
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

/// What the naming and establishing controllers do with a new CRD: serve its resources and
/// write its status (accepted names, `NamesAccepted` and `Established`) as `kube-apiserver`.
pub(super) fn establish(state: &mut State, name: &str, defined: Vec<ResourceInfo>) {
    let info = state.info("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    let Some(crd) = state.object(&info, None, name).filter(|crd| !object::is_deleting(crd)) else {
        return;
    };
    serve(state, defined);
    let mut established = (*crd).clone();
    let now = object::now();
    let condition = |type_: &str, reason: &str, message: &str| json!({ "type": type_, "status": "True", "lastTransitionTime": now, "reason": reason, "message": message });
    established["status"] = json!({
        "conditions": [
            condition("NamesAccepted", "NoConflicts", "no conflicts found"),
            condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
        ],
        "acceptedNames": crd.pointer("/spec/names").cloned().unwrap_or_else(|| json!({})),
        "storedVersions": storage_versions(&crd),
    });
    if let Err(status) = state.update_object(&info, crd, established, Some("kube-apiserver"), Some("status")) {
        tracing::warn!(crd = name, %status, "could not establish the CRD");
    }
}

/// The first DELETE of a CRD: the cleanup finalizer and the `Terminating` condition are written
/// before the delete itself, so that the definition stays until its objects are gone.
pub(super) fn prepare_delete(state: &mut State, info: &ResourceInfo, crd: Arc<Value>) -> Arc<Value> {
    if object::is_deleting(&crd) {
        return crd;
    }
    let mut marked = (*crd).clone();
    let mut finalizers = object::finalizers(&crd);
    if !finalizers.iter().any(|f| f == CRD_CLEANUP_FINALIZER) {
        finalizers.push(CRD_CLEANUP_FINALIZER.to_owned());
        object::set_finalizers(&mut marked, &finalizers);
    }
    let terminating = json!({
        "type": "Terminating", "status": "True", "lastTransitionTime": object::now(),
        "reason": "InstanceDeletionPending",
        "message": "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
    });
    match marked.pointer_mut("/status/conditions").and_then(Value::as_array_mut) {
        Some(conditions) => {
            conditions.retain(|c| c.get("type").and_then(Value::as_str) != Some("Terminating"));
            conditions.push(terminating);
        }
        None => marked["status"]["conditions"] = json!([terminating]),
    }
    state.store.put(&info.storage_key(), marked)
}

/// Serves exactly the versions a CRD now lists.
pub(super) fn serve(state: &mut State, infos: Vec<ResourceInfo>) {
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
        Some((_, crd)) if object::is_deleting(&crd) => Err(ApiStatus::new(
            405,
            "MethodNotAllowed",
            "create not allowed while custom resource definition is terminating",
        )),
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
    if let Some(info) = state.registry.preferred(&storage).cloned() {
        let keys: Vec<_> = state.store.iter(&storage, None).map(|(key, _)| key.clone()).collect();
        for key in keys {
            let namespace = info.namespaced.then_some(key.namespace.as_str());
            state.delete_object(&info, namespace, &key.name, None);
        }
    }
    release_if_empty(state, &storage);
}

/// Drops the cleanup finalizer of a terminating CRD whose objects are all gone.
pub(super) fn release_if_empty(state: &mut State, storage: &StorageKey) {
    let Some((info, crd)) = crd_of(state, storage) else {
        return;
    };
    let waiting = object::is_deleting(&crd) && object::finalizers(&crd).iter().any(|f| f == CRD_CLEANUP_FINALIZER);
    if waiting && state.store.iter(storage, None).next().is_none() {
        drop_finalizer(state, &info, &crd, CRD_CLEANUP_FINALIZER);
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
