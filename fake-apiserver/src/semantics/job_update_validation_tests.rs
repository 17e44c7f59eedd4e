//! Tests of `job_update_validation`, with kube-apiserver v1.28.7's answers
//! (`conformance/corpus/real/job-validation.json`).

use serde_json::json;

use super::*;
use crate::semantics::field_error::rendered;

fn stored(spec: Value) -> Value {
    let mut spec = spec;
    spec["selector"] = json!({"matchLabels": {"batch.kubernetes.io/controller-uid": "u1"}});
    spec["template"] = json!({"metadata": {"labels": {"batch.kubernetes.io/controller-uid": "u1"}},
        "spec": {"restartPolicy": "Never", "dnsPolicy": "ClusterFirst",
            "containers": [{"name": "c", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}]}});
    json!({"metadata": {"name": "u1", "uid": "u1"}, "spec": spec})
}

/// The update's own errors: `ValidateJobSpecUpdate` less the spec's rules it repeats.
fn update(old: &Value, change: impl FnOnce(&mut Value)) -> Vec<String> {
    let mut new = old.clone();
    change(&mut new["spec"]);
    let opts = JobOptions::for_job(Some(old), 28);
    let repeated = spec_errors(spec_of(&new), &opts).len();
    rendered(job_update_errors(&new, old, &opts)).split_off(repeated)
}

#[test]
fn a_non_indexed_jobs_completions_should_be_immutable() {
    let old = stored(json!({"completions": 2, "parallelism": 1, "completionMode": "NonIndexed"}));
    assert_eq!(
        update(&old, |spec| spec["completions"] = Value::Null),
        ["spec.completions: Invalid value: \"null\": field is immutable"]
    );
    assert_eq!(
        update(&old, |spec| spec["completionMode"] = json!("Indexed")),
        ["spec.completionMode: Invalid value: \"Indexed\": field is immutable"]
    );
}

#[test]
fn an_indexed_jobs_completions_should_follow_its_parallelism() {
    let old = stored(json!({"completions": 3, "parallelism": 3, "completionMode": "Indexed"}));
    assert_eq!(
        update(&old, |spec| spec["completions"] = json!(5)),
        ["spec.completions: Invalid value: 5: can only be modified in tandem with spec.parallelism"]
    );
    assert!(
        update(&old, |spec| {
            spec["completions"] = json!(5);
            spec["parallelism"] = json!(5);
        })
        .is_empty()
    );
    // To none is the spec's `Required`, not the update's.
    assert!(update(&old, |spec| spec["completions"] = Value::Null).is_empty());
}

#[test]
fn a_failure_policy_should_be_immutable() {
    let old = stored(
        json!({"podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]}}),
    );
    assert_eq!(
        update(&old, |spec| spec["podFailurePolicy"] = Value::Null),
        ["spec.podFailurePolicy: Invalid value: \"null\": field is immutable"]
    );
    let changed = update(&old, |spec| {
        spec["podFailurePolicy"]["rules"][0]["action"] = json!("Count")
    });
    assert!(changed[0].starts_with("spec.podFailurePolicy: Invalid value: batch.PodFailurePolicy{Rules:"));
    // An empty list is no list.
    let none = stored(json!({"podFailurePolicy": {"rules": null}}));
    assert!(update(&none, |spec| spec["podFailurePolicy"]["rules"] = json!([])).is_empty());
}

#[test]
fn a_suspended_jobs_scheduling_directives_should_be_mutable() {
    let mut old = stored(json!({"suspend": true}));
    let node_affinity = json!({"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}});
    let directives = |spec: &mut Value| {
        spec["template"]["metadata"]["annotations"] = json!({"note": "x"});
        spec["template"]["spec"]["nodeSelector"] = json!({"disk": "ssd"});
        spec["template"]["spec"]["affinity"] = json!({"nodeAffinity": node_affinity});
    };
    assert!(update(&old, directives).is_empty());
    // Pod affinity is no scheduling directive.
    let pod_affinity = |spec: &mut Value| {
        spec["template"]["spec"]["affinity"] =
            json!({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "k"}]}})
    };
    assert_eq!(update(&old, pod_affinity).len(), 1);
    // An affinity that held a node affinity alone may go.
    old["spec"]["template"]["spec"]["affinity"] = json!({"nodeAffinity": node_affinity});
    assert!(update(&old, |spec| spec["template"]["spec"]["affinity"] = Value::Null).is_empty());
    // Once started, nothing of the template may change.
    old["status"] = json!({"startTime": "2026-01-01T00:00:00Z"});
    let errors = update(&old, directives);
    assert_eq!(errors.len(), 1);
    assert!(errors[0].starts_with("spec.template: Invalid value: "));
}

#[test]
fn the_policies_of_1_30_should_be_immutable_from_1_30() {
    let old = stored(json!({}));
    let mut new = old.clone();
    new["spec"]["managedBy"] = json!("example.com/x");
    let opts = JobOptions::for_job(Some(&old), 31);
    let errors = rendered(job_update_errors(&new, &old, &opts));
    assert_eq!(
        errors.last().map(String::as_str),
        Some("spec.managedBy: Invalid value: \"example.com/x\": field is immutable")
    );
    let opts = JobOptions::for_job(Some(&old), 28);
    assert!(rendered(job_update_errors(&new, &old, &opts)).is_empty());
}
