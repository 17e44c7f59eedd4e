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
            format!("Invalid value: {name:?}: must be spec.names.plural+\".\"+spec.group ({expected})"),
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
    if crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|v| {
            v.pointer("/schema/openAPIV3Schema")
                .is_some_and(|schema| !schema.is_object())
        })
    {
        return Err(invalid(
            "spec.versions[].schema.openAPIV3Schema",
            "Invalid value: must be an object".to_owned(),
        ));
    }
    Ok(infos)
}

/// A new CRD keeps its objects' cleanup pending until they are gone.
pub(super) fn add_cleanup_finalizer(crd: &mut Value) {
    let mut finalizers = object::finalizers(crd);
    if !finalizers.iter().any(|f| f == CRD_CLEANUP_FINALIZER) {
        finalizers.push(CRD_CLEANUP_FINALIZER.to_owned());
        object::set_finalizers(crd, &finalizers);
    }
}

/// Serves the resources of a CRD that was just created, then writes its status the way the
/// naming and establishing controllers do (a second change, as on a real server).
pub(super) fn establish(state: &mut State, stored: &Arc<Value>, infos: Vec<ResourceInfo>) -> Arc<Value> {
    serve(state, infos);
    let mut established = (**stored).clone();
    let names = stored.pointer("/spec/names").cloned().unwrap_or_else(|| json!({}));
    let versions: Vec<Value> = stored
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
        .filter_map(|v| v.get("name").cloned())
        .collect();
    let now = object::now();
    let condition = |type_: &str, reason: &str, message: &str| json!({ "type": type_, "status": "True", "lastTransitionTime": now, "reason": reason, "message": message });
    established["status"] = json!({
        "acceptedNames": names,
        "storedVersions": versions,
        "conditions": [
            condition("NamesAccepted", "NoConflicts", "no conflicts found"),
            condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
        ],
    });
    let storage = state
        .info("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        .storage_key();
    state.store.put(&storage, established)
}

/// Serves exactly the versions a CRD now lists.
pub(super) fn serve(state: &mut State, infos: Vec<ResourceInfo>) {
    if let Some(first) = infos.first() {
        state.registry.remove(&first.storage_key());
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
        for (namespace, name) in keys {
            let namespace = info.namespaced.then_some(namespace.as_str());
            state.delete_object(&info, namespace, &name, None);
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
        state.registry.remove(&infos[0].storage_key());
    }
}
