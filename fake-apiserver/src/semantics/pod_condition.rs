//! `UpdatePodCondition` (`pkg/api/v1/pod/util.go`): how kube-apiserver's subresources and
//! kube-controller-manager's controllers set one condition of a pod's status.

use serde_json::{Value, json};

use crate::storage::object;

/// Sets `condition` (its `type`, `status`, `reason`, `message`, and `lastProbeTime` when it
/// has one) on the pod: it replaces the pod's condition of that type, keeping its transition
/// time when its status did not change, or is appended. Returns whether anything changed.
pub(crate) fn update_pod_condition(pod: &mut Value, mut condition: Value) -> bool {
    if condition.get("lastProbeTime").is_none() {
        condition["lastProbeTime"] = Value::Null;
    }
    condition["lastTransitionTime"] = json!(object::now());
    let status = &mut pod["status"];
    if !status.get("conditions").is_some_and(Value::is_array) {
        status["conditions"] = json!([]);
    }
    let Some(conditions) = status["conditions"].as_array_mut() else {
        return false;
    };
    let Some(old) = conditions.iter_mut().find(|c| c.get("type") == condition.get("type")) else {
        conditions.push(condition);
        return true;
    };
    if old.get("status") == condition.get("status") {
        condition["lastTransitionTime"] = old.get("lastTransitionTime").cloned().unwrap_or(Value::Null);
    }
    let field = |c: &Value, key: &str| c.get(key).filter(|v| !v.is_null()).cloned();
    let changed = ["status", "reason", "message", "lastProbeTime", "lastTransitionTime"]
        .iter()
        .any(|key| field(old, key) != field(&condition, key));
    *old = condition;
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_should_be_appended_then_replaced_and_report_changes() {
        let mut pod = json!({"status": {"phase": "Pending"}});
        let target = json!({"type": "DisruptionTarget", "status": "True", "reason": "R", "message": "m"});
        assert!(update_pod_condition(&mut pod, target.clone()));
        let first = pod["status"]["conditions"][0]["lastTransitionTime"].clone();
        assert!(!update_pod_condition(&mut pod, target));
        assert_eq!(pod["status"]["conditions"][0]["lastTransitionTime"], first);
        let other = json!({"type": "DisruptionTarget", "status": "True", "reason": "S", "message": "m"});
        assert!(update_pod_condition(&mut pod, other));
        assert_eq!(pod["status"]["conditions"].as_array().map(Vec::len), Some(1));
    }
}
