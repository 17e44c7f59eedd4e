//! A Job's pod failure policy (`pkg/controller/job/pod_failure_policy.go`:
//! `matchPodFailurePolicy`, `matchOnExitCodes`, `matchOnPodConditions`): the first rule that
//! matches a failed pod — by a terminated container's non-zero exit code or by a pod condition —
//! decides whether the failure fails the Job, fails its index, is ignored or is counted.

use serde_json::Value;

/// What the matching rule says about one failed pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Verdict {
    /// A `FailJob` rule's message for the Job's `FailureTarget` condition.
    pub(super) fail_job: Option<String>,
    /// Whether the failure counts against the backoff limit (not after an `Ignore` rule).
    pub(super) counts: bool,
    /// The action of the rule that matched, if any.
    pub(super) action: Option<String>,
}

impl Verdict {
    fn unmatched() -> Self {
        Self {
            fail_job: None,
            counts: true,
            action: None,
        }
    }
}

/// `matchPodFailurePolicy` of the Job's `spec.podFailurePolicy` for a failed pod; a Job without
/// a policy counts every failure. `FailIndex` needs `JobBackoffLimitPerIndex`, on from 1.29.
pub(super) fn match_policy(job: &Value, pod: &Value, minor: u32) -> Verdict {
    let Some(rules) = job.pointer("/spec/podFailurePolicy/rules").and_then(Value::as_array) else {
        return Verdict::unmatched();
    };
    let namespace = pod.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("");
    let name = pod.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
    let status = pod.get("status").unwrap_or(&Value::Null);
    for (index, rule) in rules.iter().enumerate() {
        let action = rule.get("action").and_then(Value::as_str).unwrap_or("");
        let fail_job = if let Some(requirement) = rule.get("onExitCodes").filter(|r| !r.is_null()) {
            let Some(container) = matching_container(status, requirement) else {
                continue;
            };
            let code = container
                .pointer("/state/terminated/exitCode")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            let container = container.get("name").and_then(Value::as_str).unwrap_or("");
            format!(
                "Container {container} for pod {namespace}/{name} failed with exit code {code} matching {action} rule at index {index}"
            )
        } else if let Some(patterns) = rule.get("onPodConditions").and_then(Value::as_array) {
            let Some(condition) = matching_condition(status, patterns) else {
                continue;
            };
            format!("Pod {namespace}/{name} has condition {condition} matching {action} rule at index {index}")
        } else {
            continue;
        };
        let verdict = |counts: bool, fail_job: Option<String>| Verdict {
            fail_job,
            counts,
            action: Some(action.to_owned()),
        };
        match action {
            "Ignore" => return verdict(false, None),
            "FailIndex" if minor >= 29 => return verdict(true, None),
            "Count" => return verdict(true, None),
            "FailJob" => return verdict(true, Some(fail_job)),
            // An action this version does not know matches nothing.
            _ => {}
        }
    }
    Verdict::unmatched()
}

/// `matchOnExitCodes`: the first terminated container (then init container) of the named one, or
/// any, whose non-zero exit code the operator accepts.
fn matching_container<'a>(status: &'a Value, requirement: &Value) -> Option<&'a Value> {
    let wanted_name = requirement.get("containerName").and_then(Value::as_str);
    let operator = requirement.get("operator").and_then(Value::as_str).unwrap_or("");
    let values: Vec<i64> = requirement
        .get("values")
        .and_then(Value::as_array)
        .map(|values| values.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default();
    let accepts = |code: i64| match operator {
        "In" => values.contains(&code),
        "NotIn" => !values.contains(&code),
        _ => false,
    };
    ["containerStatuses", "initContainerStatuses"]
        .into_iter()
        .find_map(|list| {
            let statuses = status.get(list).and_then(Value::as_array)?;
            statuses.iter().find(|container| {
                let Some(terminated) = container.pointer("/state/terminated").filter(|t| !t.is_null()) else {
                    return false;
                };
                let name = container.get("name").and_then(Value::as_str);
                let code = terminated.get("exitCode").and_then(Value::as_i64).unwrap_or(0);
                (wanted_name.is_none() || wanted_name == name) && code != 0 && accepts(code)
            })
        })
}

/// `matchOnPodConditions`: the type of the first pod condition with a pattern's type and status.
fn matching_condition<'a>(status: &'a Value, patterns: &[Value]) -> Option<&'a str> {
    let conditions = status.get("conditions").and_then(Value::as_array)?;
    conditions.iter().find_map(|condition| {
        let kind = condition.get("type")?;
        let matched = patterns
            .iter()
            .any(|p| p.get("type") == Some(kind) && p.get("status") == condition.get("status"));
        matched.then(|| kind.as_str()).flatten()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn job() -> Value {
        json!({"spec": {"podFailurePolicy": {"rules": [
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
            {"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In", "values": [42]}},
            {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [1]}},
        ]}}})
    }

    fn failed(name: &str, code: i64, conditions: Value) -> Value {
        json!({"metadata": {"namespace": "ns", "name": "p"}, "status": {"phase": "Failed", "conditions": conditions,
            "containerStatuses": [{"name": name, "state": {"terminated": {"exitCode": code}}}]}})
    }

    #[test]
    fn a_fail_job_rule_should_give_go_s_message() {
        let verdict = match_policy(&job(), &failed("main", 42, json!([])), 28);
        assert_eq!(
            verdict.fail_job.as_deref(),
            Some("Container main for pod ns/p failed with exit code 42 matching FailJob rule at index 1")
        );
        assert!(verdict.counts);
    }

    #[test]
    fn an_ignored_failure_should_not_count() {
        let pod = failed("main", 42, json!([{"type": "DisruptionTarget", "status": "True"}]));
        let verdict = match_policy(&job(), &pod, 28);
        assert_eq!((verdict.counts, verdict.action.as_deref()), (false, Some("Ignore")));
    }

    #[test]
    fn exit_codes_should_match_by_operator_and_container() {
        assert_eq!(
            match_policy(&job(), &failed("side", 42, json!([])), 28)
                .action
                .as_deref(),
            Some("Count")
        );
        assert_eq!(
            match_policy(&job(), &failed("side", 1, json!([])), 28),
            Verdict::unmatched()
        );
        assert_eq!(
            match_policy(&json!({"spec": {}}), &failed("main", 42, json!([])), 28),
            Verdict::unmatched()
        );
    }
}
