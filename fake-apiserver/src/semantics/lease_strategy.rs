//! The Lease strategy's `PrepareForCreate` and `PrepareForUpdate`
//! (`pkg/registry/coordination/lease/strategy.go` of v1.31.2): with the alpha
//! CoordinatedLeaderElection gate off, a Lease's `strategy` and `preferredHolder` are dropped
//! unless the stored Lease already has them. 1.28's Lease has neither field (`minor_fields`
//! drops them as unknown).

use serde_json::Value;

use crate::storage::resource::ResourceInfo;

/// The gated fields of a Lease's spec.
const GATED: [&str; 2] = ["strategy", "preferredHolder"];

/// Whether `info` is the Lease resource.
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group == "coordination.k8s.io" && info.kind == "Lease"
}

/// Drops the gated fields of `new` that `old` (none on create) does not use.
pub(crate) fn drop_disabled(info: &ResourceInfo, new: &mut Value, old: Option<&Value>) {
    if !concerns(info) {
        return;
    }
    let in_use = |key: &str| {
        old.and_then(|o| o.pointer(&format!("/spec/{key}")))
            .is_some_and(|v| !v.is_null())
    };
    let kept: Vec<bool> = GATED.iter().map(|key| in_use(key)).collect();
    if let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) {
        for (key, keep) in GATED.iter().zip(kept) {
            if !keep {
                spec.remove(*key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::storage::resource::ResourceInfo;

    fn leases() -> ResourceInfo {
        ResourceInfo::builtin("coordination.k8s.io", "v1", "Lease", "leases")
    }

    #[test]
    fn gated_fields_should_go_unless_the_stored_lease_uses_them() {
        let mut new =
            json!({"spec": {"holderIdentity": "a", "strategy": "OldestEmulationVersion", "preferredHolder": "b"}});
        drop_disabled(&leases(), &mut new, None);
        assert_eq!(new, json!({"spec": {"holderIdentity": "a"}}));
        let old = json!({"spec": {"strategy": "OldestEmulationVersion"}});
        let mut kept = json!({"spec": {"strategy": "OldestEmulationVersion", "preferredHolder": "b"}});
        drop_disabled(&leases(), &mut kept, Some(&old));
        assert_eq!(kept, json!({"spec": {"strategy": "OldestEmulationVersion"}}));
    }
}
