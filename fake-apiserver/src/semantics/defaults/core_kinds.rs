//! What a PersistentVolumeClaim's Go types (`k8s.io/api/core/v1/types.go`) write without
//! `omitempty`; the claim's defaults (`pkg/apis/core/v1/defaults.go`) are `walker`'s.

use serde_json::Value;

/// What the Go types write of a claim that has no `omitempty`, as `null` when unset: a data
/// source's API group and a condition's probe and transition times; the field manager counts
/// those as set. (Its defaults are the walker's.)
pub(super) fn persistent_volume_claim(object: &mut Value) {
    if let Some(spec) = object.get_mut("spec").filter(|s| s.is_object()) {
        for source in ["dataSource", "dataSourceRef"] {
            if let Some(source) = spec.get_mut(source).filter(|s| s.is_object()) {
                source
                    .as_object_mut()
                    .expect("checked")
                    .entry("apiGroup")
                    .or_insert(Value::Null);
            }
        }
    }
    let conditions = object.pointer_mut("/status/conditions").and_then(Value::as_array_mut);
    for condition in conditions.into_iter().flatten().filter_map(Value::as_object_mut) {
        for time in ["lastProbeTime", "lastTransitionTime"] {
            condition.entry(time).or_insert(Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_claims_pointers_without_omitempty_should_be_written_null() {
        let mut claim = json!({"spec": {"dataSource": {"kind": "PersistentVolumeClaim", "name": "a"}},
            "status": {"conditions": [{"type": "Resizing"}]}});
        persistent_volume_claim(&mut claim);
        assert_eq!(claim["spec"]["dataSource"]["apiGroup"], Value::Null);
        assert!(claim["status"]["conditions"][0].get("lastProbeTime").is_some());
        assert!(claim["spec"].get("volumeMode").is_none(), "the walker's");
    }
}
