//! A condition set in an object's `status.conditions` as the apiserver's own controllers set
//! theirs (`SetAPIServiceCondition` in `kube-aggregator/pkg/apis/apiregistration/v1/helper`,
//! `SetCRDCondition` in `apiextensions-apiserver/pkg/apihelpers`).

use serde_json::{Value, json};

/// Sets `condition` in `object`'s `status.conditions` as `SetAPIServiceCondition` and
/// `SetCRDCondition` do: the transition time moves only with the status, reason and message
/// always. Whether anything changed.
pub(super) fn set_condition(object: &mut Value, condition: Value) -> bool {
    if !object.get("status").is_some_and(Value::is_object) {
        object["status"] = json!({});
    }
    let conditions = &mut object["status"]["conditions"];
    if !conditions.is_array() {
        *conditions = json!([]);
    }
    let Some(list) = conditions.as_array_mut() else {
        return false;
    };
    let Some(existing) = list.iter_mut().find(|c| c.get("type") == condition.get("type")) else {
        list.push(condition);
        return true;
    };
    let before = existing.clone();
    if existing.get("status") != condition.get("status") {
        existing["status"] = condition["status"].clone();
        existing["lastTransitionTime"] = condition["lastTransitionTime"].clone();
    }
    existing["reason"] = condition["reason"].clone();
    existing["message"] = condition["message"].clone();
    *existing != before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_should_move_its_transition_time_with_its_status_only() {
        let mut object = json!({"status": {}});
        let condition = |status: &str, time: &str| json!({"type": "Available", "status": status, "lastTransitionTime": time, "reason": "R", "message": "m"});
        assert!(set_condition(&mut object, condition("False", "t1")));
        assert!(!set_condition(&mut object, condition("False", "t2")));
        assert_eq!(object["status"]["conditions"][0]["lastTransitionTime"], "t1");
        assert!(set_condition(&mut object, condition("True", "t3")));
        assert_eq!(object["status"]["conditions"][0]["lastTransitionTime"], "t3");
    }
}
