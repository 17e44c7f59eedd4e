//! What may change in a Job's spec, as kube-apiserver v1.28 and v1.31 have it
//! (`pkg/apis/batch/validation/validation.go`: `ValidateJobSpecUpdate`, `validateCompletions`,
//! `validatePodTemplateUpdate`): the selector, completion mode, pod failure policy and backoff
//! limit per index never (nor, from 1.30, the manager and the success policy); completions
//! only of an Indexed job and with parallelism (`ElasticIndexedJob`); the pod template only in
//! its scheduling directives, and only while the job is suspended and never started.

use serde_json::Value;

use crate::semantics::apps_set_strategy::semantic_equal;
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::job_policy_validation::{pod_failure_policy_go, success_policy_go};
use crate::semantics::job_validation::{JobOptions, POLICIES_SINCE, spec_errors};
use crate::semantics::names::go_syntax;
use crate::semantics::workload_validation::{selector_immutable, spec_of};
use crate::storage::object::present;

/// `ValidateJobSpecUpdate` of `job` replacing `old`, after `ValidateJob`: the spec's rules
/// again (so a spec error is reported twice, as kube-apiserver lists it), then what may not
/// change.
pub(crate) fn job_update_errors(job: &Value, old: &Value, opts: &JobOptions) -> Vec<FieldError> {
    let (spec, old_spec) = (spec_of(job), spec_of(old));
    let mut errors = spec_errors(spec, opts);
    errors.extend(completions_error(spec, old_spec));
    errors.extend(selector_immutable(job, old));
    errors.extend(template_error(spec, old_spec, opts.allow_mutable_scheduling_directives));
    let mut immutable: Vec<(&str, Shown)> = vec![
        ("completionMode", |v| v.as_str().unwrap_or_default().into()),
        ("podFailurePolicy", |v| BadValue::Raw(pod_failure_policy_go(v))),
        ("backoffLimitPerIndex", |v| {
            BadValue::Int(v.as_i64().unwrap_or_default())
        }),
    ];
    if opts.minor >= POLICIES_SINCE {
        immutable.push(("managedBy", |v| v.as_str().unwrap_or_default().into()));
        immutable.push(("successPolicy", |v| BadValue::Raw(success_policy_go(v))));
    }
    for (key, show) in immutable {
        errors.extend(immutable_error(spec, old_spec, key, show));
    }
    errors
}

/// How a field error shows a set pointer's value (dereferenced, as Go's `ErrorBody` does).
type Shown = fn(&Value) -> BadValue;

/// `ValidateImmutableField` of a pointer field: nil and set differ, two set values compare
/// semantically; the new value is shown dereferenced, a nil one as `"null"`.
fn immutable_error(spec: &Value, old_spec: &Value, key: &str, show: Shown) -> Option<FieldError> {
    let (new, old) = (present(spec, key), present(old_spec, key));
    let same = match (new, old) {
        (None, None) => true,
        (Some(new), Some(old)) => semantic_equal(Some(new), Some(old)),
        _ => false,
    };
    (!same).then(|| FieldError::invalid(format!("spec.{key}"), new.map_or(nil(), show), "field is immutable"))
}

/// How a field error prints a nil pointer.
fn nil() -> BadValue {
    BadValue::Str("null".to_owned())
}

/// `validateCompletions` (`ElasticIndexedJob` on): the completions of a non-indexed job are
/// immutable; an Indexed job's may change to its new parallelism (to none is the spec's
/// error, `Required`).
fn completions_error(spec: &Value, old_spec: &Value) -> Option<FieldError> {
    let indexed = spec.get("completionMode").and_then(Value::as_str) == Some("Indexed");
    if !indexed {
        return immutable_error(spec, old_spec, "completions", |v| {
            BadValue::Int(v.as_i64().unwrap_or_default())
        });
    }
    let completions = present(spec, "completions").and_then(Value::as_i64);
    if completions == present(old_spec, "completions").and_then(Value::as_i64) {
        return None;
    }
    let completions = completions?;
    (Some(completions) != present(spec, "parallelism").and_then(Value::as_i64)).then(|| {
        FieldError::invalid(
            "spec.completions",
            BadValue::Int(completions),
            "can only be modified in tandem with spec.parallelism",
        )
    })
}

/// `validatePodTemplateUpdate`: the template is immutable; while mutable scheduling
/// directives are allowed, the old template takes the new one's labels, annotations, node
/// selector, tolerations, scheduling gates and node affinity before the comparison (an
/// affinity may go when it held a node affinity alone, and come when it holds one alone).
fn template_error(spec: &Value, old_spec: &Value, mutable_scheduling: bool) -> Option<FieldError> {
    let template = spec.get("template").cloned().unwrap_or(Value::Null);
    let mut old_template = old_spec.get("template").cloned().unwrap_or(Value::Null);
    if mutable_scheduling {
        adopt_scheduling_directives(&mut old_template, &template);
    }
    if semantic_equal(Some(&template), Some(&old_template)) {
        return None;
    }
    // kube-apiserver prints the internal `core.PodTemplateSpec` here; this server prints the
    // template it has.
    Some(FieldError::invalid(
        "spec.template",
        BadValue::Raw(go_syntax(&template)),
        "field is immutable",
    ))
}

/// The old template with the new one's scheduling directives, as `validatePodTemplateUpdate`
/// rewrites its deep copy.
fn adopt_scheduling_directives(old: &mut Value, new: &Value) {
    let field =
        |template: &Value, section: &str, key: &str| template.get(section).and_then(|s| present(s, key)).cloned();
    let new_affinity = field(new, "spec", "affinity");
    let old_affinity = field(old, "spec", "affinity");
    let affinity = match (new_affinity, old_affinity) {
        (None, None) => None,
        // Cleared: fine when the old one held nothing but a node affinity.
        (None, Some(mut old)) => {
            if let Some(fields) = old.as_object_mut() {
                fields.remove("nodeAffinity");
            }
            old.as_object()
                .is_some_and(|f| f.values().any(|v| !v.is_null()))
                .then_some(old)
        }
        (Some(new), old) => {
            let mut kept = old.unwrap_or_else(|| serde_json::json!({}));
            if let Some(fields) = kept.as_object_mut() {
                match present(&new, "nodeAffinity") {
                    Some(node) => fields.insert("nodeAffinity".to_owned(), node.clone()),
                    None => fields.remove("nodeAffinity"),
                };
            }
            Some(kept)
        }
    };
    let mut replaced = vec![("spec", "affinity", affinity)];
    for (section, key) in [
        ("spec", "nodeSelector"),
        ("spec", "tolerations"),
        ("metadata", "annotations"),
        ("metadata", "labels"),
        ("spec", "schedulingGates"),
    ] {
        replaced.push((section, key, field(new, section, key)));
    }
    for (section, key, value) in replaced {
        if !old.is_object() {
            *old = serde_json::json!({});
        }
        if !old.get(section).is_some_and(Value::is_object) {
            old[section] = serde_json::json!({});
        }
        let Some(target) = old.get_mut(section).and_then(Value::as_object_mut) else {
            continue;
        };
        match value {
            Some(value) => target.insert(key.to_owned(), value),
            None => target.remove(key),
        };
    }
}

#[cfg(test)]
#[path = "job_update_validation_tests.rs"]
mod tests;
