//! Whether an update's objects can be seen in every other version that manages fields of them,
//! as structured-merge-diff's `Updater.update` (`merge/update.go`) converts them for each manager
//! of another version, through `versionConverter.Convert`
//! (`apimachinery/pkg/util/managedfields/internal/versionconverter.go`).
//!
//! A custom resource's versions convert with `None`: only `apiVersion` changes, and the object is
//! then typed with the other version's schema. A field that version does not declare fails the
//! typing (`field not declared in schema`), the update fails, and `FieldManager.UpdateNoErrors`
//! drops every managed field of the object rather than keep a wrong set.

use serde_json::Value;

use crate::semantics::managed_fields::read;
use crate::semantics::schema_typing::{self, Undeclared};
use crate::storage::resource::ResourceInfo;

/// Whether `old` and `new`, written through `info`'s version, type in the version of every
/// managed fields entry of `old` that names another version of the same custom resource.
pub(crate) fn convertible(info: &ResourceInfo, old: &Value, new: &Value, minor: u32) -> bool {
    if info.version_schemas.len() <= 1 {
        return true;
    }
    let own = info.api_version();
    let group_prefix = format!("{}/", info.group);
    read(old)
        .iter()
        .filter(|entry| entry.api_version != own)
        .filter_map(|entry| entry.api_version.strip_prefix(&group_prefix))
        .filter_map(|version| info.version_schemas.get(version))
        .all(|schema| {
            [old, new]
                .iter()
                .all(|o| schema_typing::errors(schema, o, minor, Undeclared::Refused).is_empty())
        })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use serde_json::json;

    use super::*;

    fn shapes() -> ResourceInfo {
        let v1 = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}});
        let v2 = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "integer"}, "shade": {"type": "string"}}}}});
        let mut info = ResourceInfo::builtin("mv.example.com", "v2", "Shape", "shapes");
        info.version_schemas = Arc::new(BTreeMap::from([("v1".to_owned(), v1), ("v2".to_owned(), v2)]));
        info
    }

    fn managed_by(version: &str) -> Value {
        json!({"apiVersion": "mv.example.com/v2", "kind": "Shape", "metadata": {"name": "s", "managedFields": [
            {"manager": "m", "operation": "Update", "apiVersion": format!("mv.example.com/{version}"),
             "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:size": {}}}}]},
            "spec": {"size": 1}})
    }

    #[test]
    fn a_field_another_managing_version_lacks_should_fail_the_conversion() {
        let info = shapes();
        let old = managed_by("v1");
        let mut new = old.clone();
        new["spec"]["shade"] = json!("dark");
        assert!(!convertible(&info, &old, &new, 31));
        new["spec"].as_object_mut().unwrap().remove("shade");
        new["status"] = json!({"anything": {"goes": true}});
        assert!(
            convertible(&info, &old, &new, 31),
            "v1 preserves unknown fields under status"
        );
    }

    #[test]
    fn managers_of_the_written_version_should_need_no_conversion() {
        let info = shapes();
        let old = managed_by("v2");
        let mut new = old.clone();
        new["spec"]["shade"] = json!("dark");
        assert!(convertible(&info, &old, &new, 31));
    }
}
