//! Which of a pod's tolerations tolerate a node's taints: `Toleration.ToleratesTaint`
//! (`staging/src/k8s.io/api/core/v1/toleration.go`) and `GetMatchingTolerations`
//! (`pkg/apis/core/v1/helper/helpers.go`), as the scheduler's plugins and the controllers use them.

use serde_json::Value;

/// A string field of a toleration or taint, empty when absent.
fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `ToleratesTaint`: an empty effect or key matches any; the `Equal` operator (also when
/// empty) compares values, `Exists` does not; any other operator tolerates nothing.
pub(crate) fn tolerates_taint(toleration: &Value, taint: &Value) -> bool {
    let effect = text(toleration, "effect");
    if !effect.is_empty() && effect != text(taint, "effect") {
        return false;
    }
    let key = text(toleration, "key");
    if !key.is_empty() && key != text(taint, "key") {
        return false;
    }
    match text(toleration, "operator") {
        "" | "Equal" => text(toleration, "value") == text(taint, "value"),
        "Exists" => true,
        _ => false,
    }
}

/// `GetMatchingTolerations`: whether every taint is tolerated, and for each taint the first
/// toleration that tolerates it (none when one is not tolerated).
pub(crate) fn matching_tolerations<'a>(taints: &[Value], tolerations: &'a [Value]) -> (bool, Vec<&'a Value>) {
    let mut used = Vec::with_capacity(taints.len());
    for taint in taints {
        match tolerations.iter().find(|t| tolerates_taint(t, taint)) {
            Some(toleration) => used.push(toleration),
            None => return (false, Vec::new()),
        }
    }
    (true, used)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tolerations_should_match_by_effect_key_operator_and_value() {
        let taint = json!({"key": "example.com/maint", "value": "yes", "effect": "NoExecute"});
        assert!(tolerates_taint(&json!({"operator": "Exists"}), &taint));
        assert!(tolerates_taint(
            &json!({"key": "example.com/maint", "value": "yes"}),
            &taint
        ));
        assert!(!tolerates_taint(
            &json!({"key": "example.com/maint", "value": "no"}),
            &taint
        ));
        assert!(!tolerates_taint(
            &json!({"key": "example.com/maint", "operator": "Exists", "effect": "NoSchedule"}),
            &taint
        ));
        assert!(!tolerates_taint(
            &json!({"key": "example.com/maint", "operator": "Lt"}),
            &taint
        ));
    }

    #[test]
    fn every_taint_should_need_a_toleration_of_its_own() {
        let taints = [
            json!({"key": "a", "effect": "NoExecute"}),
            json!({"key": "b", "effect": "NoExecute"}),
        ];
        let tolerations = [
            json!({"key": "a", "operator": "Exists"}),
            json!({"operator": "Exists", "tolerationSeconds": 5}),
        ];
        let (all, used) = matching_tolerations(&taints, &tolerations);
        assert!(all);
        assert_eq!(used, vec![&tolerations[0], &tolerations[1]]);
        let (all, used) = matching_tolerations(&taints, &tolerations[..1]);
        assert!(!all && used.is_empty());
    }
}
