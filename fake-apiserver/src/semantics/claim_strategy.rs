//! What the PersistentVolumeClaim strategy changes before validation
//! (`pkg/registry/core/persistentvolumeclaim/strategy.go`, with
//! `pkg/api/persistentvolumeclaim/util.go`): a new claim's status is reset — and defaulted again
//! to phase `Pending` when the storage decodes it —, its data sources are cleaned and made to
//! name each other (`EnforceDataSourceBackwardsCompatibility`, `NormalizeDataSources`), and the
//! fields of gates that are off are dropped (`DropDisabledFields`, `DropDisabledFieldsFromStatus`).

use serde_json::{Map, Value, json};

use crate::storage::object::keep_stored;
use crate::storage::resource::ResourceInfo;

/// Whether `info` is the claims' resource.
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && info.kind == "PersistentVolumeClaim"
}

/// `PrepareForCreate` on the Kubernetes `minor`, and the phase the storage's decoding defaults.
pub(crate) fn prepare_create(info: &ResourceInfo, object: &mut Value, minor: u32) {
    if !concerns(info) {
        return;
    }
    // `Status = {}`; `SetDefaults_PersistentVolumeClaim` sets the phase again on the way out of
    // etcd, which is what the create answers.
    object["status"] = json!({"phase": "Pending"});
    let spec = spec_mut(object);
    drop_disabled_claim_fields(spec, None, minor);
    enforce_data_source_compatibility(spec, None);
    normalize_data_sources(spec);
}

/// `PrepareForUpdate` of the main resource or of `/status` on the Kubernetes `minor`, after
/// the generic path kept the stored status (main) or spec (`/status`).
pub(crate) fn prepare_update(info: &ResourceInfo, old: &Value, new: &mut Value, subresource: Option<&str>, minor: u32) {
    if !concerns(info) {
        return;
    }
    match subresource {
        None => {
            keep_stored(new, old, "status");
            let old_spec = old.get("spec").cloned().unwrap_or_else(|| json!({}));
            let spec = spec_mut(new);
            drop_disabled_claim_fields(spec, Some(&old_spec), minor);
            enforce_data_source_compatibility(spec, Some(&old_spec));
            normalize_data_sources(spec);
        }
        Some("status") => drop_disabled_claim_status(new, old, minor),
        Some(_) => {}
    }
}

fn spec_mut(object: &mut Value) -> &mut Map<String, Value> {
    if !object.get("spec").is_some_and(Value::is_object) {
        object["spec"] = json!({});
    }
    object["spec"].as_object_mut().expect("spec was just made an object")
}

fn is_set(spec: &Map<String, Value>, key: &str) -> bool {
    spec.get(key).is_some_and(|v| !v.is_null())
}

/// `DropDisabledFields`: a cross-namespace data source reference is dropped
/// (`CrossNamespaceVolumeDataSource` is off) unless the stored claim had a reference; 1.28 also
/// drops the resource claims, 1.29+ the attributes class (its gate is off) unless stored.
fn drop_disabled_claim_fields(spec: &mut Map<String, Value>, old: Option<&Value>, minor: u32) {
    let reference_in_use = old.is_some_and(|o| !o.get("dataSourceRef").is_none_or(Value::is_null));
    let cross_namespace = spec
        .get("dataSourceRef")
        .and_then(|r| r.get("namespace"))
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty());
    if cross_namespace && !reference_in_use {
        spec.remove("dataSourceRef");
    }
    if minor < 29 {
        if let Some(resources) = spec.get_mut("resources").and_then(Value::as_object_mut) {
            resources.remove("claims");
        }
    } else if old.is_none_or(|o| o.get("volumeAttributesClassName").is_none_or(Value::is_null)) {
        spec.remove("volumeAttributesClassName");
    }
}

/// `EnforceDataSourceBackwardsCompatibility`: without a reference, a data source that is no
/// claim nor volume snapshot is dropped, unless the stored claim had data sources.
fn enforce_data_source_compatibility(spec: &mut Map<String, Value>, old: Option<&Value>) {
    let in_use = old.is_some_and(|o| {
        ["dataSource", "dataSourceRef"]
            .iter()
            .any(|k| !o.get(*k).is_none_or(Value::is_null))
    });
    if in_use || is_set(spec, "dataSourceRef") {
        return;
    }
    let keep = spec.get("dataSource").filter(|s| !s.is_null()).is_some_and(|source| {
        let text = |key: &str| source.get(key).and_then(Value::as_str).unwrap_or_default();
        matches!(
            (text("kind"), text("apiGroup")),
            ("PersistentVolumeClaim", "") | ("VolumeSnapshot", "snapshot.storage.k8s.io")
        )
    });
    if !keep {
        spec.remove("dataSource");
    }
}

/// `NormalizeDataSources` (`AnyVolumeDataSource` is on): each of data source and reference is
/// copied to the other when that one is unset (a reference to another namespace is not).
fn normalize_data_sources(spec: &mut Map<String, Value>) {
    let copy = |from: &Value| {
        let mut to = Map::new();
        if let Some(group) = from.get("apiGroup").filter(|g| !g.is_null()) {
            to.insert("apiGroup".to_owned(), group.clone());
        }
        for key in ["kind", "name"] {
            to.insert(key.to_owned(), from.get(key).cloned().unwrap_or_else(|| json!("")));
        }
        Value::Object(to)
    };
    match (is_set(spec, "dataSource"), is_set(spec, "dataSourceRef")) {
        (true, false) => {
            let reference = copy(&spec["dataSource"]);
            spec.insert("dataSourceRef".to_owned(), reference);
        }
        (false, true) => {
            let namespace = spec["dataSourceRef"]
                .get("namespace")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if namespace.is_empty() {
                let source = copy(&spec["dataSourceRef"]);
                spec.insert("dataSource".to_owned(), source);
            }
        }
        _ => {}
    }
}

/// `DropDisabledFieldsFromStatus` (`RecoverVolumeExpansionFailure` is off): the allocated
/// resources and their statuses stay only where the stored claim has them; 1.29+ also the
/// attributes class status fields.
fn drop_disabled_claim_status(new: &mut Value, old: &Value, minor: u32) {
    let Some(status) = new.get_mut("status").and_then(Value::as_object_mut) else {
        return;
    };
    let stored = |key: &str| old.pointer(&format!("/status/{key}"));
    for key in ["allocatedResources", "allocatedResourceStatuses"] {
        if stored(key).and_then(Value::as_object).is_none_or(Map::is_empty) {
            status.remove(key);
        }
    }
    if minor >= 29 {
        for key in ["currentVolumeAttributesClassName", "modifyVolumeStatus"] {
            if stored(key).is_none_or(Value::is_null) {
                status.remove(key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims() -> ResourceInfo {
        ResourceInfo::builtin("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims")
    }

    #[test]
    fn a_new_claim_should_name_its_data_source_twice() {
        let mut claim = json!({"spec": {"dataSource": {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "s"}},
            "status": {"phase": "Bound"}});
        prepare_create(&claims(), &mut claim, 28);
        assert_eq!(claim["spec"]["dataSourceRef"], claim["spec"]["dataSource"]);
        assert_eq!(claim["status"], json!({"phase": "Pending"}));
        let mut other = json!({"spec": {"dataSource": {"kind": "ConfigMap", "name": "c"}}});
        prepare_create(&claims(), &mut other, 28);
        assert_eq!(other["spec"], json!({}));
        let mut cross =
            json!({"spec": {"dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "a", "namespace": "n"}}});
        prepare_create(&claims(), &mut cross, 31);
        assert_eq!(cross["spec"], json!({}));
    }

    #[test]
    fn a_claim_status_write_should_drop_allocated_resources_unless_stored() {
        let old = json!({"status": {"phase": "Pending"}});
        let mut new = json!({"status": {"phase": "Bound", "allocatedResources": {"storage": "1Gi"}}});
        prepare_update(&claims(), &old, &mut new, Some("status"), 28);
        assert_eq!(new["status"], json!({"phase": "Bound"}));
    }
}
