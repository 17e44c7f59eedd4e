//! The Job strategy of kube-apiserver v1.28 and v1.31 (`pkg/registry/batch/job/strategy.go`,
//! with `WarningsForJobSpec` of `pkg/api/job/warnings.go`): the fields of feature gates that
//! are off dropped on create and, unless stored, on update (`PrepareForCreate`,
//! `PrepareForUpdate`), the selector generated on create (`generateSelector`), the warnings,
//! and the one spec validation crashes on. The rest is the server's common handling of a
//! built-in kind with a status and a generation (status reset on create and kept on update,
//! generation moved by spec changes, `/status` keeping the stored spec).

use serde_json::{Map, Value, json};

use crate::semantics::job_validation::{LEGACY_NAME, LEGACY_UID, NAME, POLICIES_SINCE, UID};
use crate::semantics::names;
use crate::semantics::pod_warnings;
use crate::status::ApiStatus;
use crate::storage::object::{self, present};
use crate::storage::resource::ResourceInfo;

/// The Job feature gates that decide what the strategy keeps, at their defaults of a minor
/// (`pkg/features/kube_features.go`). `JobPodFailurePolicy` and `ElasticIndexedJob` are on
/// from 1.28 on, so they decide nothing here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct JobGates {
    /// `JobBackoffLimitPerIndex`: alpha (off) in 1.28, beta from 1.29.
    pub(crate) backoff_limit_per_index: bool,
    /// `JobPodReplacementPolicy`: alpha (off) in 1.28, beta from 1.29.
    pub(crate) pod_replacement_policy: bool,
    /// `JobSuccessPolicy`: alpha (off) in 1.30, beta from 1.31.
    pub(crate) success_policy: bool,
    /// `JobManagedBy`: alpha (off) in 1.30 and 1.31, beta from 1.32.
    pub(crate) managed_by: bool,
}

impl JobGates {
    /// The gates' defaults on the Kubernetes `minor`.
    pub(crate) fn at(minor: u32) -> Self {
        Self {
            backoff_limit_per_index: minor >= 29,
            pod_replacement_policy: minor >= 29,
            success_policy: minor >= 31,
            managed_by: minor >= 32,
        }
    }
}

/// Whether `info` is the built-in Job.
const PANIC_MESSAGE: &str = "This request caused apiserver to panic. Look in the logs for details.";

/// kube-apiserver's answer to a request whose handling panicked (its panic filter recovers).
pub(crate) fn panicked() -> ApiStatus {
    ApiStatus::new(500, "InternalError", PANIC_MESSAGE)
}

pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group == "batch" && info.kind == "Job"
}

/// `PrepareForCreate` on the Kubernetes `minor`: the fields of gates that are off go, and
/// with `JobBackoffLimitPerIndex` off the pod failure policy's `FailIndex` rules too; and the
/// selector is generated (1.31 does it here, 1.28 at the start of `Validate`: nothing runs in
/// between).
pub(crate) fn prepare_create(info: &ResourceInfo, job: &mut Value, minor: u32) {
    if !concerns(info) {
        return;
    }
    generate_selector(job);
    let gates = JobGates::at(minor);
    let Some(spec) = job.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let dropped = [
        ("managedBy", !gates.managed_by),
        ("successPolicy", !gates.success_policy),
        ("backoffLimitPerIndex", !gates.backoff_limit_per_index),
        ("maxFailedIndexes", !gates.backoff_limit_per_index),
        ("podReplacementPolicy", !gates.pod_replacement_policy),
    ];
    for (key, _) in dropped.iter().filter(|(_, off)| *off) {
        spec.remove(*key);
    }
    if !gates.backoff_limit_per_index
        && let Some(rules) = spec.get_mut("podFailurePolicy").and_then(rules_mut)
    {
        rules.retain(|rule| rule.get("action").and_then(Value::as_str) != Some("FailIndex"));
    }
    stored_rules(spec);
}

/// `PrepareForUpdate` of the main resource on the Kubernetes `minor`: a gated field that is
/// off goes unless the stored job has it. `FailIndex` rules stay: the pod failure policy is
/// immutable, and validation refuses a new one.
pub(crate) fn prepare_update(info: &ResourceInfo, old: &Value, new: &mut Value, subresource: Option<&str>, minor: u32) {
    if !concerns(info) || subresource.is_some() {
        return;
    }
    let gates = JobGates::at(minor);
    let stored = |key: &str| old.get("spec").and_then(|spec| present(spec, key)).is_some();
    let dropped: Vec<&str> = [
        ("successPolicy", gates.success_policy),
        ("backoffLimitPerIndex", gates.backoff_limit_per_index),
        ("maxFailedIndexes", gates.backoff_limit_per_index),
        ("podReplacementPolicy", gates.pod_replacement_policy),
    ]
    .into_iter()
    .filter(|(key, on)| !on && !stored(key))
    .map(|(key, _)| key)
    .collect();
    if let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) {
        for key in dropped {
            spec.remove(key);
        }
        stored_rules(spec);
    }
}

fn rules_mut(policy: &mut Value) -> Option<&mut Vec<Value>> {
    policy.get_mut("rules").and_then(Value::as_array_mut)
}

/// What etcd gives back of the pod failure policy's rules: its protobuf holds no empty list,
/// and the field has no `omitempty`, so none is written `null`.
fn stored_rules(spec: &mut Map<String, Value>) {
    if let Some(policy) = spec.get_mut("podFailurePolicy")
        && rules_mut(policy).is_some_and(|rules| rules.is_empty())
    {
        policy["rules"] = Value::Null;
    }
}

/// A Job (or a CronJob's job template) that crashes kube-apiserver's validation: from 1.30,
/// `validateSuccessPolicyRule` dereferences the completions of an Indexed job, which may be
/// unset. kube-apiserver's panic filter answers 500; the status strategy validates no spec.
pub(crate) fn refuse_panicking(
    info: &ResourceInfo,
    object: &Value,
    subresource: Option<&str>,
    minor: u32,
) -> Result<(), ApiStatus> {
    let spec = match (info.builtin, info.group.as_str(), info.kind.as_str()) {
        (true, "batch", "Job") => object.get("spec"),
        (true, "batch", "CronJob") => object.pointer("/spec/jobTemplate/spec"),
        _ => None,
    };
    let Some(spec) = spec.filter(|_| minor >= POLICIES_SINCE && subresource != Some("status")) else {
        return Ok(());
    };
    let set = |v: &Value, key: &str| present(v, key).is_some();
    let indexed = spec.get("completionMode").and_then(Value::as_str) == Some("Indexed");
    let rules = spec
        .pointer("/successPolicy/rules")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let dereferences = rules
        .iter()
        .any(|rule| set(rule, "succeededIndexes") || set(rule, "succeededCount"));
    if set(spec, "successPolicy") && indexed && !set(spec, "completions") && dereferences {
        return Err(panicked());
    }
    Ok(())
}

/// `generateSelector` on create, unless the selector is manual: the template's job labels
/// (kept when given: validation refuses a conflict) and a selector on the uid.
fn generate_selector(job: &mut Value) {
    if job.pointer("/spec/manualSelector").and_then(Value::as_bool) == Some(true)
        || !job.get("spec").is_some_and(Value::is_object)
    {
        return;
    }
    let (name, uid) = (object::name(job).to_owned(), object::uid(job).to_owned());
    // A job without labels of its own has its template's (`SetDefaults_Job` shares the map,
    // and defaulting on the way out of storage copies them again), generated ones included.
    let own_labels = job
        .pointer("/metadata/labels")
        .filter(|l| l.as_object().is_some_and(|m| !m.is_empty()));
    let shares = own_labels.is_none_or(|own| Some(own) == job.pointer("/spec/template/metadata/labels"));
    let spec = &mut job["spec"];
    let labels = object_at(object_at(object_at(spec, "template"), "metadata"), "labels");
    if let Some(labels) = labels.as_object_mut() {
        for (key, value) in [(LEGACY_NAME, &name), (NAME, &name), (LEGACY_UID, &uid), (UID, &uid)] {
            labels.entry(key).or_insert_with(|| json!(value));
        }
    }
    let match_labels = object_at(object_at(spec, "selector"), "matchLabels");
    if let Some(match_labels) = match_labels.as_object_mut() {
        match_labels.entry(UID).or_insert_with(|| json!(uid));
    }
    if shares && let Some(labels) = job.pointer("/spec/template/metadata/labels").cloned() {
        object::meta_mut(job).insert("labels".to_owned(), labels);
    }
}

/// The object at `key` of `parent`, made an empty one when it is none.
fn object_at<'v>(parent: &'v mut Value, key: &str) -> &'v mut Value {
    if !parent.get(key).is_some_and(Value::is_object) {
        parent[key] = json!({});
    }
    &mut parent[key]
}

/// The strategy's create warning of a name that is no DNS label: a job's name ends up in pod
/// names and hostnames (as do a CronJob's, a Deployment's and a ReplicaSet's, whose strategies
/// warn alike).
pub(crate) fn create_warnings(job: &Value) -> Vec<String> {
    let why = names::dns1123_label_errors(object::name(job));
    if why.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [{}]",
        why.join(" ")
    )]
}

/// `WarningsForJobSpec` under `at`, on the Kubernetes `minor`: an Indexed job too large to
/// track its failed indexes, then the pod template's warnings.
pub(crate) fn job_spec_warnings(spec: &Value, at: &str, minor: u32) -> Vec<String> {
    let int = |key: &str| spec.get(key).and_then(Value::as_i64).unwrap_or(0);
    let indexed = spec.get("completionMode").and_then(Value::as_str) == Some("Indexed");
    let mut warnings = Vec::new();
    if indexed && int("completions") > 100_000 && int("parallelism") > 10_000 {
        warnings.push(format!(
            "{at}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail"
        ));
    }
    let template = format!("{at}.template");
    warnings.extend(pod_warnings::pod_template_warnings(
        spec.get("template"),
        &template,
        minor,
    ));
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs() -> ResourceInfo {
        ResourceInfo::builtin("batch", "v1", "Job", "jobs")
    }

    fn gated_job() -> Value {
        json!({"metadata": {"name": "j", "uid": "u1"}, "spec": {
            "backoffLimitPerIndex": 1, "maxFailedIndexes": 1, "podReplacementPolicy": "Failed",
            "managedBy": "example.com/x", "successPolicy": {"rules": [{"succeededCount": 1}]},
            "podFailurePolicy": {"rules": [{"action": "FailIndex"}, {"action": "Count"}]}}})
    }

    #[test]
    fn a_created_job_should_lose_the_fields_of_gates_that_are_off() {
        let gated = [
            "backoffLimitPerIndex",
            "maxFailedIndexes",
            "podReplacementPolicy",
            "managedBy",
            "successPolicy",
        ];
        let kept = |job: &Value| -> Vec<&str> {
            gated
                .into_iter()
                .filter(|key| job["spec"].get(*key).is_some())
                .collect()
        };
        let mut on_1_28 = gated_job();
        prepare_create(&jobs(), &mut on_1_28, 28);
        assert!(kept(&on_1_28).is_empty());
        assert_eq!(
            on_1_28["spec"]["podFailurePolicy"],
            json!({"rules": [{"action": "Count"}]})
        );
        let mut on_1_31 = gated_job();
        prepare_create(&jobs(), &mut on_1_31, 31);
        assert_eq!(
            kept(&on_1_31),
            [
                "backoffLimitPerIndex",
                "maxFailedIndexes",
                "podReplacementPolicy",
                "successPolicy"
            ]
        );
        assert_eq!(
            on_1_31["spec"]["podFailurePolicy"]["rules"].as_array().map(Vec::len),
            Some(2)
        );
    }

    #[test]
    fn an_emptied_rule_list_should_be_stored_as_none() {
        let mut job = json!({"spec": {"podFailurePolicy": {"rules": [{"action": "FailIndex"}]}}});
        prepare_create(&jobs(), &mut job, 28);
        assert_eq!(job["spec"]["podFailurePolicy"], json!({"rules": null}));
    }

    #[test]
    fn an_update_should_keep_the_gated_fields_already_stored() {
        let old = json!({"spec": {"backoffLimitPerIndex": 1}});
        let mut new =
            json!({"spec": {"backoffLimitPerIndex": 2, "maxFailedIndexes": 1, "podReplacementPolicy": "Failed"}});
        prepare_update(&jobs(), &old, &mut new, None, 28);
        assert_eq!(new["spec"], json!({"backoffLimitPerIndex": 2}));
        let mut status = json!({"spec": {"maxFailedIndexes": 1}});
        prepare_update(&jobs(), &old, &mut status, Some("status"), 28);
        assert_eq!(status["spec"], json!({"maxFailedIndexes": 1}));
    }

    #[test]
    fn a_success_policy_without_completions_should_crash_validation_from_1_30() {
        let job = json!({"spec": {"completionMode": "Indexed", "parallelism": 2,
            "successPolicy": {"rules": [{"succeededCount": 1}]}}});
        assert!(refuse_panicking(&jobs(), &job, None, 31).is_err());
        assert!(refuse_panicking(&jobs(), &job, Some("status"), 31).is_ok());
        assert!(refuse_panicking(&jobs(), &job, None, 28).is_ok());
    }

    #[test]
    fn a_created_job_should_select_its_own_pods() {
        let mut created = json!({"metadata": {"name": "j", "uid": "u1"}, "spec": {"template": {}}});
        generate_selector(&mut created);
        assert_eq!(created["spec"]["selector"], json!({"matchLabels": {UID: "u1"}}));
        assert_eq!(created["spec"]["template"]["metadata"]["labels"][LEGACY_NAME], "j");
        assert_eq!(created["metadata"]["labels"][NAME], "j");
        assert_eq!(create_warnings(&json!({"metadata": {"name": "a.b"}})).len(), 1);
    }
}
