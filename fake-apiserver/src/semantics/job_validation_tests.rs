//! Tests of `job_validation`, with kube-apiserver v1.28.7's answers
//! (`conformance/corpus/real/job-validation.json`).

use serde_json::json;

use super::*;
use crate::semantics::field_error::rendered;

/// A created job as the strategy leaves it: generated labels and selector.
fn job(spec: Value) -> Value {
    let mut job = json!({"metadata": {"name": "j", "uid": "u1"}, "spec": spec});
    let spec = &mut job["spec"];
    spec["selector"] = json!({"matchLabels": {UID: "u1"}});
    if spec.get("template").is_none() {
        spec["template"] = json!({"spec": {"restartPolicy": "Never", "dnsPolicy": "ClusterFirst",
            "containers": [{"name": "c", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}]}});
    }
    spec["template"]["metadata"] = json!({"labels": {LEGACY_UID: "u1", LEGACY_NAME: "j", UID: "u1", NAME: "j"}});
    job
}

fn create(job: &Value, minor: u32) -> Vec<String> {
    rendered(job_errors(job, &JobOptions::for_job(None, minor)))
}

#[test]
fn a_valid_job_should_pass() {
    assert_eq!(
        create(&job(json!({"completions": 1, "parallelism": 1})), 28),
        Vec::<String>::new()
    );
}

#[test]
fn a_failure_policy_should_come_before_the_restart_policy() {
    let mut restarting = job(
        json!({"podFailurePolicy": {"rules": [{"action": "Restart", "onExitCodes": {"operator": "In", "values": [0]}}]}}),
    );
    restarting["spec"]["template"]["spec"]["restartPolicy"] = json!("OnFailure");
    assert_eq!(
        create(&restarting, 28),
        [
            "spec.podFailurePolicy.rules[0].action: Unsupported value: \"Restart\": supported values: \"Count\", \"FailIndex\", \"FailJob\", \"Ignore\"",
            "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator",
            "spec.template.spec.restartPolicy: Invalid value: \"OnFailure\": only \"Never\" is supported when podFailurePolicy is specified",
        ]
    );
}

#[test]
fn a_backoff_limit_per_index_should_need_an_indexed_job() {
    let template = job(json!({"backoffLimitPerIndex": -1, "maxFailedIndexes": 3}));
    assert_eq!(
        rendered(job_spec_errors(&template["spec"], "spec.jobTemplate.spec", false, 28)),
        [
            "spec.jobTemplate.spec.backoffLimitPerIndex: Invalid value: -1: must be greater than or equal to 0",
            "spec.jobTemplate.spec.backoffLimitPerIndex: Invalid value: -1: requires indexed completion mode",
            "spec.jobTemplate.spec.maxFailedIndexes: Invalid value: 3: requires indexed completion mode",
        ]
    );
}

#[test]
fn an_indexed_job_should_stay_within_its_limits() {
    let errors = |spec: Value| rendered(job_spec_errors(&job(spec)["spec"], "spec", false, 28));
    assert_eq!(
        errors(json!({"completionMode": "Indexed", "parallelism": 100_001, "maxFailedIndexes": 4})),
        [
            "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified",
            "spec.completions: Required value: when completion mode is Indexed",
            "spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when completion mode is Indexed",
        ]
    );
    assert_eq!(
        errors(
            json!({"completionMode": "Indexed", "completions": 200_000, "parallelism": 20_000,
            "backoffLimitPerIndex": 1, "maxFailedIndexes": 150_000})
        ),
        [
            "spec.maxFailedIndexes: Invalid value: 150000: must be less than or equal to 100000",
            "spec.parallelism: Invalid value: 20000: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index",
            "spec.maxFailedIndexes: Invalid value: 150000: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index",
        ]
    );
    let long = json!({"metadata": {"name": "x".repeat(60), "uid": "u1"}});
    let mut hostname = job(json!({"completionMode": "Indexed", "completions": 10_000, "parallelism": 1}));
    hostname["metadata"] = long["metadata"].clone();
    let errors = rendered(job_errors(&hostname, &JobOptions::for_job(None, 28)));
    assert!(
        errors
            .last()
            .is_some_and(|e| e.ends_with(&format!("invalid DNS label: {}-9999", "x".repeat(60))))
    );
}

#[test]
fn a_manual_selector_should_be_valid_before_it_is_matched() {
    let mut manual = job(json!({"manualSelector": true}));
    manual["spec"]["selector"] = json!({"matchExpressions": [{"key": "a", "operator": "Bogus", "values": ["b"]}]});
    assert_eq!(
        create(&manual, 28),
        ["spec.selector.matchExpressions[0].operator: Invalid value: \"Bogus\": not a valid selector operator"]
    );
    manual["spec"]["selector"] = json!({"matchLabels": {"a": "b"}});
    assert_eq!(
        create(&manual, 28)[0],
        "spec.template.metadata.labels: Invalid value: map[string]string{\"batch.kubernetes.io/controller-uid\":\"u1\", \"batch.kubernetes.io/job-name\":\"j\", \"controller-uid\":\"u1\", \"job-name\":\"j\"}: `selector` does not match template `labels`"
    );
}

#[test]
fn the_policies_of_1_30_should_be_checked_from_1_30() {
    let spec = job(json!({"managedBy": "nope", "successPolicy": {"rules": [{"succeededCount": 1}]}}));
    assert!(create(&spec, 28).is_empty());
    assert_eq!(
        create(&spec, 31),
        [
            "spec.managedBy: Invalid value: \"nope\": must be a domain-prefixed path (such as \"acme.io/foo\")",
            "spec.successPolicy: Invalid value: batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{batch.SuccessPolicyRule{SucceededIndexes:(*string)(nil), SucceededCount:(*int32)(0xc000000000)}}}: requires indexed completion mode",
        ]
    );
}

#[test]
fn an_update_should_take_its_options_from_the_stored_job() {
    let mut old = job(json!({"suspend": true}));
    let opts = JobOptions::for_job(Some(&old), 28);
    assert!(opts.require_prefixed_labels && opts.allow_mutable_scheduling_directives);
    old["status"] = json!({"startTime": "2026-01-01T00:00:00Z"});
    old["spec"]["template"]["metadata"]["labels"] = json!({LEGACY_UID: "u1", LEGACY_NAME: "j"});
    let opts = JobOptions::for_job(Some(&old), 28);
    assert!(!opts.require_prefixed_labels && !opts.allow_mutable_scheduling_directives);
}
