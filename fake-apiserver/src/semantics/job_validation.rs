//! A Job's validation on create and the part every update repeats, as kube-apiserver v1.28 and
//! v1.31 have it (`pkg/apis/batch/validation/validation.go`: `ValidateJob`,
//! `validateGeneratedSelector`, `ValidateJobSpec`, `validateJobSpec`, with the options of
//! `validationOptionsForJob` in `pkg/registry/batch/job/strategy.go`). The spec's rules are
//! also a CronJob's job template's (`ValidateJobTemplateSpec`).

use serde_json::{Map, Value, json};

use crate::semantics::field_error::{BadValue, FieldError, nonnegative};
use crate::semantics::ingress_class_validation::domain_prefixed_path_errors;
use crate::semantics::job_policy_validation::{
    pod_failure_policy_errors, pod_replacement_policy_errors, success_policy_errors, success_policy_go,
};
use crate::semantics::label_selector_validation::{
    has_invalid_label_value, label_selector_errors, label_selector_go, selector_fails, selects, string_map_go,
};
use crate::semantics::names;
use crate::semantics::pod_annotation_validation::allows_invalid_cost;
use crate::semantics::pod_validation::pod_template_errors;
use crate::semantics::workload_validation::spec_of;
use crate::storage::object::{self, present};

pub(crate) const LEGACY_UID: &str = "controller-uid";
pub(crate) const LEGACY_NAME: &str = "job-name";
pub(crate) const UID: &str = "batch.kubernetes.io/controller-uid";
pub(crate) const NAME: &str = "batch.kubernetes.io/job-name";

const MAX_PARALLELISM_FOR_INDEXED: i64 = 100_000;
const MAX_FAILED_INDEXES_FOR_INDEXED: i64 = 100_000;
const COMPLETIONS_SOFT_LIMIT: i64 = 100_000;
const PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS: i64 = 10_000;
const MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS: i64 = 10_000;
const MAX_MANAGED_BY_LENGTH: usize = 63;

/// The first minor whose validation knows `managedBy` and `successPolicy` (both 1.30
/// additions; 1.28's decoder drops the fields, so its validation never sees them).
pub(crate) const POLICIES_SINCE: u32 = 30;

/// `JobValidationOptions`, as the strategy's `validationOptionsForJob` sets them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobOptions {
    /// `RequirePrefixedLabels`: the `batch.kubernetes.io/` labels are required (always on
    /// create; on update only when the stored job has both, so older jobs stay valid).
    pub(crate) require_prefixed_labels: bool,
    /// `AllowInvalidLabelValueInSelector`: the stored selector already had such values.
    pub(crate) allow_invalid_label_value_in_selector: bool,
    /// `AllowMutableSchedulingDirectives`: the stored job is suspended and never started.
    pub(crate) allow_mutable_scheduling_directives: bool,
    /// `AllowInvalidPodDeletionCost`: the stored template's deletion cost is already invalid.
    pub(crate) allow_invalid_pod_deletion_cost: bool,
    /// The Kubernetes minor whose rules apply.
    pub(crate) minor: u32,
}

impl JobOptions {
    /// `validationOptionsForJob` of a create (`old` none) or of an update of `old`.
    pub(crate) fn for_job(old: Option<&Value>, minor: u32) -> Self {
        let Some(old) = old else {
            return Self {
                require_prefixed_labels: true,
                allow_invalid_label_value_in_selector: false,
                allow_mutable_scheduling_directives: false,
                allow_invalid_pod_deletion_cost: false,
                minor,
            };
        };
        let labels = old.pointer("/spec/template/metadata/labels");
        let had = |key: &str| labels.and_then(|l| l.get(key)).is_some();
        Self {
            require_prefixed_labels: had(NAME) && had(UID),
            allow_invalid_label_value_in_selector: old
                .pointer("/spec/selector")
                .filter(|s| !s.is_null())
                .is_some_and(has_invalid_label_value),
            allow_mutable_scheduling_directives: old.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true)
                && old.pointer("/status/startTime").is_none_or(Value::is_null),
            allow_invalid_pod_deletion_cost: allows_invalid_cost(old.pointer("/spec/template")),
            minor,
        }
    }
}

/// `ValidateJob`, less the object metadata checked for every kind: the generated selector,
/// the spec, and an Indexed job's last pod hostname.
pub(crate) fn job_errors(job: &Value, opts: &JobOptions) -> Vec<FieldError> {
    let mut errors = generated_selector_errors(job, opts.require_prefixed_labels);
    let spec = spec_of(job);
    errors.extend(spec_errors(spec, opts));
    let completions = present(spec, "completions").and_then(Value::as_i64);
    if present(spec, "completionMode").and_then(Value::as_str) == Some("Indexed")
        && let Some(completions) = completions.filter(|c| *c > 0)
    {
        // Pods of an Indexed job are named `<job>-<index>`: the last one must be a DNS label.
        let name = object::name(job);
        let hostname = format!("{name}-{}", completions - 1);
        if !names::dns1123_label_errors(&hostname).is_empty() {
            let why = format!("will not able to create pod with invalid DNS label: {hostname}");
            errors.push(FieldError::invalid("metadata.name", name.into(), why));
        }
    }
    errors
}

/// `validateGeneratedSelector`: unless the selector is manual (or missing, reported by the
/// spec), the template carries the job's generated labels and the selector selects them.
fn generated_selector_errors(job: &Value, prefixed: bool) -> Vec<FieldError> {
    let spec = spec_of(job);
    let Some(selector) = present(spec, "selector") else {
        return Vec::new();
    };
    if spec.get("manualSelector").and_then(Value::as_bool) == Some(true) {
        return Vec::new();
    }
    let (name, uid) = (object::name(job), object::uid(job));
    let mut errors = Vec::new();
    if uid.is_empty() {
        errors.push(FieldError::required("metadata.uid", ""));
    }
    let labels = spec.pointer("/template/metadata/labels").and_then(Value::as_object);
    let mut expected = vec![(LEGACY_UID, uid), (LEGACY_NAME, name)];
    if prefixed {
        expected.extend([(UID, uid), (NAME, name)]);
    }
    for (key, value) in &expected {
        // `ValidateHasLabel`.
        let field = format!("spec.template.metadata.labels[{key}]");
        match labels.and_then(|l| l.get(*key)).map(|v| v.as_str().unwrap_or_default()) {
            None => errors.push(FieldError::required(field, *value)),
            Some(actual) if actual != *value => errors.push(FieldError::invalid(
                field,
                BadValue::Raw(string_map_go(labels)),
                format!("must be '{value}'"),
            )),
            Some(_) => {}
        }
    }
    let wanted: Map<String, Value> = expected.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect();
    // A selector that does not convert is no error here.
    if !selector_fails(selector) && !selects(Some(selector), &wanted) {
        let why = "`selector` not auto-generated";
        errors.push(FieldError::invalid("spec.selector", label_selector_go(selector), why));
    }
    errors
}

/// `ValidateJobSpec` of a Job's `spec`: `validateJobSpec`, a valid selector, and one that
/// selects the template's labels (a missing one selects nothing).
pub(crate) fn spec_errors(spec: &Value, opts: &JobOptions) -> Vec<FieldError> {
    let mut errors = job_spec_errors(spec, "spec", opts.allow_invalid_pod_deletion_cost, opts.minor);
    let selector = present(spec, "selector");
    match selector {
        None => errors.push(FieldError::required("spec.selector", "")),
        Some(selector) => errors.extend(label_selector_errors(
            selector,
            "spec.selector",
            opts.allow_invalid_label_value_in_selector,
        )),
    }
    let labels = spec.pointer("/template/metadata/labels").and_then(Value::as_object);
    if !selector.is_some_and(selector_fails) && !selects(selector, labels.unwrap_or(&Map::new())) {
        errors.push(FieldError::invalid(
            "spec.template.metadata.labels",
            BadValue::Raw(string_map_go(labels)),
            "`selector` does not match template `labels`",
        ));
    }
    errors
}

/// `validateJobSpec` of the spec at `at` on the Kubernetes `minor`: the counts, the per-index
/// backoff, the manager, the completion mode and its limits, the policies, the pod template
/// and its restart policy.
pub(crate) fn job_spec_errors(spec: &Value, at: &str, lenient_cost: bool, minor: u32) -> Vec<FieldError> {
    let int = |key: &str| present(spec, key).and_then(Value::as_i64);
    let mut errors = Vec::new();
    for key in [
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
        "ttlSecondsAfterFinished",
        "backoffLimitPerIndex",
    ] {
        if let Some(n) = int(key) {
            errors.extend(nonnegative(n, &format!("{at}.{key}")));
        }
    }
    let (per_index, max_failed) = (int("backoffLimitPerIndex"), int("maxFailedIndexes"));
    if let Some(max_failed) = max_failed {
        errors.extend(nonnegative(max_failed, &format!("{at}.maxFailedIndexes")));
        if per_index.is_none() {
            let why = "when maxFailedIndexes is specified";
            errors.push(FieldError::required(format!("{at}.backoffLimitPerIndex"), why));
        }
    }
    if minor >= POLICIES_SINCE
        && let Some(manager) = present(spec, "managedBy")
    {
        let manager = manager.as_str().unwrap_or_default();
        let path = format!("{at}.managedBy");
        errors.extend(domain_prefixed_path_errors(&path, manager));
        if manager.len() > MAX_MANAGED_BY_LENGTH {
            errors.push(FieldError::too_long_max_length(
                path,
                manager.into(),
                MAX_MANAGED_BY_LENGTH as i64,
            ));
        }
    }
    let mode = present(spec, "completionMode").map(|m| m.as_str().unwrap_or_default());
    match mode {
        None | Some("NonIndexed") => {}
        Some("Indexed") => errors.extend(indexed_errors(spec, at)),
        Some(other) => errors.push(FieldError::not_supported(
            format!("{at}.completionMode"),
            other.into(),
            &["NonIndexed".to_owned(), "Indexed".to_owned()],
        )),
    }
    if matches!(mode, None | Some("NonIndexed")) {
        for (key, value) in [("backoffLimitPerIndex", per_index), ("maxFailedIndexes", max_failed)] {
            if let Some(n) = value {
                let why = "requires indexed completion mode";
                errors.push(FieldError::invalid(format!("{at}.{key}"), BadValue::Int(n), why));
            }
        }
    }
    errors.extend(pod_failure_policy_errors(spec, &format!("{at}.podFailurePolicy")));
    if minor >= POLICIES_SINCE
        && let Some(policy) = present(spec, "successPolicy")
    {
        let path = format!("{at}.successPolicy");
        match (mode, int("completions")) {
            (Some("Indexed"), Some(completions)) => errors.extend(success_policy_errors(spec, &path, completions)),
            // Go dereferences the missing completions: `job_strategy::refuse_panicking`
            // answers before validation.
            (Some("Indexed"), None) => {}
            _ => errors.push(FieldError::invalid(
                path,
                BadValue::Raw(success_policy_go(policy)),
                "requires indexed completion mode",
            )),
        }
    }
    errors.extend(pod_replacement_policy_errors(
        spec,
        &format!("{at}.podReplacementPolicy"),
    ));
    let template = spec.get("template").unwrap_or(&Value::Null);
    errors.extend(pod_template_errors(
        template,
        &format!("{at}.template"),
        lenient_cost,
        minor,
    ));
    errors.extend(restart_policy_error(spec, template, at));
    errors
}

/// The limits of an Indexed job: completions are required, parallelism and failed indexes
/// bounded (more tightly above 10^5 completions with a backoff limit per index).
fn indexed_errors(spec: &Value, at: &str) -> Vec<FieldError> {
    let int = |key: &str| present(spec, key).and_then(Value::as_i64);
    let (completions, parallelism) = (int("completions"), int("parallelism"));
    let max_failed = int("maxFailedIndexes");
    let mut errors = Vec::new();
    let invalid = |key: &str, n: i64, why: String| FieldError::invalid(format!("{at}.{key}"), BadValue::Int(n), why);
    if completions.is_none() {
        errors.push(FieldError::required(
            format!("{at}.completions"),
            "when completion mode is Indexed",
        ));
    }
    if let Some(p) = parallelism.filter(|p| *p > MAX_PARALLELISM_FOR_INDEXED) {
        let why =
            format!("must be less than or equal to {MAX_PARALLELISM_FOR_INDEXED} when completion mode is Indexed");
        errors.push(invalid("parallelism", p, why));
    }
    if let (Some(c), Some(m)) = (completions, max_failed)
        && m > c
    {
        errors.push(invalid(
            "maxFailedIndexes",
            m,
            "must be less than or equal to completions".to_owned(),
        ));
    }
    if let Some(m) = max_failed.filter(|m| *m > MAX_FAILED_INDEXES_FOR_INDEXED) {
        let why = format!("must be less than or equal to {MAX_FAILED_INDEXES_FOR_INDEXED}");
        errors.push(invalid("maxFailedIndexes", m, why));
    }
    let high = completions.is_some_and(|c| c > COMPLETIONS_SOFT_LIMIT);
    if high && int("backoffLimitPerIndex").is_some() {
        let tail = format!("when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index");
        if max_failed.is_none() {
            let why = format!("must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}");
            errors.push(FieldError::required(format!("{at}.maxFailedIndexes"), why));
        }
        if let Some(p) = parallelism.filter(|p| *p > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS) {
            let why = format!("must be less than or equal to {PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} {tail}");
            errors.push(invalid("parallelism", p, why));
        }
        if let Some(m) = max_failed.filter(|m| *m > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS) {
            let why = format!("must be less than or equal to {MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} {tail}");
            errors.push(invalid("maxFailedIndexes", m, why));
        }
    }
    errors
}

/// The pod template's restart policy: `OnFailure` or `Never` (the pod defaults write `Always`
/// when none is given), and `Never` alone with a pod failure policy.
fn restart_policy_error(spec: &Value, template: &Value, at: &str) -> Option<FieldError> {
    let field = format!("{at}.template.spec.restartPolicy");
    let policy = template
        .pointer("/spec/restartPolicy")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match policy {
        "Always" | "" => Some(FieldError::required(field, "valid values: \"OnFailure\", \"Never\"")),
        "OnFailure" if present(spec, "podFailurePolicy").is_some() => Some(FieldError::invalid(
            field,
            policy.into(),
            "only \"Never\" is supported when podFailurePolicy is specified",
        )),
        "OnFailure" | "Never" => None,
        other => Some(FieldError::not_supported(
            field,
            other.into(),
            &["OnFailure".to_owned(), "Never".to_owned()],
        )),
    }
}

#[cfg(test)]
#[path = "job_validation_tests.rs"]
mod tests;
