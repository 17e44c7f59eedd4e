//! Tests of `job_policy_validation`, with kube-apiserver v1.28.7's answers
//! (`conformance/corpus/real/job-validation.json`).

use serde_json::json;

use super::*;
use crate::semantics::field_error::rendered;

fn policy_errors(rules: Value) -> Vec<String> {
    let spec = json!({"podFailurePolicy": {"rules": rules}, "template": {"spec": {
        "initContainers": [{"name": "init"}], "containers": [{"name": "c"}]}}});
    rendered(pod_failure_policy_errors(&spec, "spec.podFailurePolicy"))
}

#[test]
fn an_action_should_be_supported() {
    assert_eq!(
        policy_errors(json!([{"action": "Restart", "onExitCodes": {"operator": "In", "values": [0]}}])),
        [
            "spec.podFailurePolicy.rules[0].action: Unsupported value: \"Restart\": supported values: \"Count\", \"FailIndex\", \"FailJob\", \"Ignore\"",
            "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator",
        ]
    );
    assert_eq!(
        policy_errors(json!([{"action": "", "onExitCodes": {"operator": "", "values": [1]}}])),
        [
            "spec.podFailurePolicy.rules[0].action: Required value: valid values: [\"Count\" \"FailIndex\" \"FailJob\" \"Ignore\"]",
            "spec.podFailurePolicy.rules[0].onExitCodes.operator: Required value: valid values: [\"In\" \"NotIn\"]",
        ]
    );
    // `FailIndex` needs a backoff limit per index.
    assert_eq!(
        policy_errors(json!([{"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [1]}}])),
        [
            "spec.podFailurePolicy.rules[0].action: Invalid value: \"FailIndex\": requires the backoffLimitPerIndex to be set"
        ]
    );
}

#[test]
fn exit_codes_should_be_distinct_ordered_and_of_a_known_container() {
    assert_eq!(
        policy_errors(json!([{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [5, 3, 3, 0]}}])),
        [
            "spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3",
            "spec.podFailurePolicy.rules[0].onExitCodes.values[3]: Invalid value: 0: must not be 0 for the In operator",
            "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{5, 3, 3, 0}: must be ordered",
        ]
    );
    assert_eq!(
        policy_errors(json!([
            {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": []}},
            {"action": "Count", "onExitCodes": {"operator": "In"}},
            {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [0], "containerName": "init"}},
            {"action": "Count", "onExitCodes": {"operator": "Between", "values": [1], "containerName": "nope"}},
        ])),
        [
            "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{}: at least one value is required",
            "spec.podFailurePolicy.rules[1].onExitCodes.values: Invalid value: []int32(nil): at least one value is required",
            "spec.podFailurePolicy.rules[3].onExitCodes.operator: Unsupported value: \"Between\": supported values: \"In\", \"NotIn\"",
            "spec.podFailurePolicy.rules[3].onExitCodes.containerName: Invalid value: \"nope\": must be one of the container or initContainer names in the pod template",
        ]
    );
    let many: Vec<i64> = (1..=256).collect();
    assert_eq!(
        policy_errors(json!([{"action": "FailJob", "onExitCodes": {"operator": "In", "values": many}}])),
        ["spec.podFailurePolicy.rules[0].onExitCodes.values: Too many: 256: must have at most 255 items"]
    );
}

#[test]
fn a_rule_should_have_exactly_one_requirement() {
    let errors = policy_errors(json!([
        {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [1]}, "onPodConditions": [{"type": "A", "status": "True"}]},
        {"action": "Ignore"},
        {"action": "Ignore", "onPodConditions": [{"type": "bad type!", "status": "Maybe"}, {"type": "B", "status": ""}]},
    ]));
    assert_eq!(
        errors[0],
        "spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported"
    );
    assert_eq!(
        errors[1],
        "spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required"
    );
    assert!(
        errors[2].starts_with("spec.podFailurePolicy.rules[2].onPodConditions[0].type: Invalid value: \"bad type!\"")
    );
    assert_eq!(
        &errors[3..],
        [
            "spec.podFailurePolicy.rules[2].onPodConditions[0].status: Unsupported value: \"Maybe\": supported values: \"False\", \"True\", \"Unknown\"",
            "spec.podFailurePolicy.rules[2].onPodConditions[1].status: Required value: valid values: [\"False\" \"True\" \"Unknown\"]",
        ]
    );
    let rules: Vec<Value> = (1..=21)
        .map(|i| json!({"action": "Ignore", "onExitCodes": {"operator": "In", "values": [i]}}))
        .collect();
    assert_eq!(
        policy_errors(json!(rules)),
        ["spec.podFailurePolicy.rules: Too many: 21: must have at most 20 items"]
    );
}

#[test]
fn a_replacement_policy_should_be_failed_with_a_failure_policy() {
    let error = |spec: Value| pod_replacement_policy_errors(&spec, "spec.podReplacementPolicy").map(|e| e.to_string());
    assert_eq!(
        error(json!({"podReplacementPolicy": "TerminatingOrFailed", "podFailurePolicy": {"rules": []}})).as_deref(),
        Some("spec.podReplacementPolicy: Unsupported value: \"TerminatingOrFailed\": supported values: \"Failed\"")
    );
    assert_eq!(
        error(json!({"podReplacementPolicy": "Sometimes"})).as_deref(),
        Some(
            "spec.podReplacementPolicy: Unsupported value: \"Sometimes\": supported values: \"Failed\", \"TerminatingOrFailed\""
        )
    );
    assert_eq!(error(json!({"podReplacementPolicy": "TerminatingOrFailed"})), None);
}

#[test]
fn success_rules_should_fit_the_completions() {
    let spec = json!({"successPolicy": {"rules": [
        {}, {"succeededIndexes": "0-2,1", "succeededCount": 9}, {"succeededIndexes": "0,2", "succeededCount": 3}]}});
    assert_eq!(
        rendered(success_policy_errors(&spec, "spec.successPolicy", 4)),
        [
            "spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified",
            "spec.successPolicy.rules[1].succeededIndexes: Invalid value: \"0-2,1\": error parsing succeededIndexes: non-increasing order, previous: 2, current: 1",
            "spec.successPolicy.rules[1].succeededCount: Invalid value: 9: must be less than or equal to 4 (the number of specified completions)",
            "spec.successPolicy.rules[1].succeededCount: Invalid value: 9: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)",
            "spec.successPolicy.rules[2].succeededCount: Invalid value: 3: must be less than or equal to 2 (the number of indexes in the specified succeededIndexes field)",
        ]
    );
    assert_eq!(
        rendered(success_policy_errors(
            &json!({"successPolicy": {}}),
            "spec.successPolicy",
            4
        )),
        [
            "spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified"
        ]
    );
}

#[test]
fn policies_should_print_as_go_prints_their_structs() {
    let policy = json!({"rules": [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1]}}]});
    assert_eq!(
        pod_failure_policy_go(&policy),
        "batch.PodFailurePolicy{Rules:[]batch.PodFailurePolicyRule{batch.PodFailurePolicyRule{Action:\"Ignore\", OnExitCodes:(*batch.PodFailurePolicyOnExitCodesRequirement)(nil), OnPodConditions:[]batch.PodFailurePolicyOnPodConditionsPattern{batch.PodFailurePolicyOnPodConditionsPattern{Type:\"DisruptionTarget\", Status:\"True\"}}}, batch.PodFailurePolicyRule{Action:\"FailJob\", OnExitCodes:(*batch.PodFailurePolicyOnExitCodesRequirement)(0xc000000000), OnPodConditions:[]batch.PodFailurePolicyOnPodConditionsPattern(nil)}}}"
    );
    assert_eq!(
        success_policy_go(&json!({"rules": [{"succeededCount": 1}]})),
        "batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{batch.SuccessPolicyRule{SucceededIndexes:(*string)(nil), SucceededCount:(*int32)(0xc000000000)}}}"
    );
}
