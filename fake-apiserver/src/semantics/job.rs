//! A Job's strategy and validation, as kube-apiserver v1.28 has them
//! (`pkg/registry/batch/job/strategy.go`, `pkg/apis/batch/validation/validation.go`): the
//! selector generated on create (the pod template labelled with the job's name and uid under
//! the legacy and the `batch.kubernetes.io/` keys, the selector matching the uid), `ValidateJob`
//! (the generated labels, the counts, the completion mode, the pod failure policy's restart
//! policy, the pod template, the selector), `ValidateJobUpdate` (what may not change: the
//! selector, the completions, the template unless the job is suspended and not started — then
//! its labels, annotations, node selector and tolerations may) and `ValidateJobStatusUpdate`
//! (counts). The alpha features of 1.28 are off (`backoffLimitPerIndex`,
//! `podReplacementPolicy`); elastic indexed jobs are on.

use serde_json::{Map, Value, json};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names::{self, go_syntax};
use crate::semantics::pod_validation::pod_template_errors;
use crate::semantics::pod_warnings;
use crate::semantics::selector::{LabelSelector, label_selector_text};
use crate::storage::object;

const LEGACY_UID: &str = "controller-uid";
const LEGACY_NAME: &str = "job-name";
const UID: &str = "batch.kubernetes.io/controller-uid";
const NAME: &str = "batch.kubernetes.io/job-name";

/// The strategy's `generateSelector` on create, unless the selector is manual: the template's
/// job labels (kept when given) and a selector on the uid.
pub(crate) fn generate_selector(job: &mut Value) {
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
    if !spec.get("template").is_some_and(Value::is_object) {
        spec["template"] = json!({});
    }
    let template = &mut spec["template"];
    if !template.get("metadata").is_some_and(Value::is_object) {
        template["metadata"] = json!({});
    }
    let meta = &mut template["metadata"];
    if !meta.get("labels").is_some_and(Value::is_object) {
        meta["labels"] = json!({});
    }
    if let Some(labels) = meta["labels"].as_object_mut() {
        for (key, value) in [(LEGACY_NAME, &name), (NAME, &name), (LEGACY_UID, &uid), (UID, &uid)] {
            labels.entry(key).or_insert_with(|| json!(value));
        }
    }
    if !spec.get("selector").is_some_and(Value::is_object) {
        spec["selector"] = json!({});
    }
    let selector = &mut spec["selector"];
    if !selector.get("matchLabels").is_some_and(Value::is_object) {
        selector["matchLabels"] = json!({});
    }
    if let Some(match_labels) = selector["matchLabels"].as_object_mut() {
        match_labels.entry(UID).or_insert_with(|| json!(uid));
    }
    if shares && let Some(labels) = job.pointer("/spec/template/metadata/labels").cloned() {
        object::meta_mut(job).insert("labels".to_owned(), labels);
    }
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

/// `ValidateJob`, less the object metadata checked for every kind. `prefixed` says whether the
/// `batch.kubernetes.io/` labels are required (always on create; on update only when the job
/// had them).
pub(crate) fn job_errors(job: &Value, prefixed: bool, minor: u32) -> Vec<FieldError> {
    let mut errors = generated_selector_errors(job, prefixed);
    let empty = Value::Object(Map::new());
    let spec = job.get("spec").unwrap_or(&empty);
    errors.extend(spec_errors(spec, minor));
    let int = |key: &str| spec.get(key).and_then(Value::as_i64);
    if spec.get("completionMode").and_then(Value::as_str) == Some("Indexed")
        && let Some(completions) = int("completions").filter(|c| *c > 0)
    {
        let hostname = format!("{}-{}", object::name(job), completions - 1);
        if !names::dns1123_label_errors(&hostname).is_empty() {
            errors.push(FieldError::invalid(
                "metadata.name",
                object::name(job).into(),
                format!("will not able to create pod with invalid DNS label: {hostname}"),
            ));
        }
    }
    errors
}

/// `validateGeneratedSelector`.
fn generated_selector_errors(job: &Value, prefixed: bool) -> Vec<FieldError> {
    let spec = job.get("spec");
    if spec.and_then(|s| s.get("manualSelector")).and_then(Value::as_bool) == Some(true)
        || spec.and_then(|s| s.get("selector")).is_none_or(Value::is_null)
    {
        return Vec::new();
    }
    let (name, uid) = (object::name(job), object::uid(job));
    let mut errors = Vec::new();
    if uid.is_empty() {
        errors.push(FieldError::required("metadata.uid", ""));
    }
    let labels = job
        .pointer("/spec/template/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut expected = vec![(LEGACY_UID, uid), (LEGACY_NAME, name)];
    if prefixed {
        expected.extend([(UID, uid), (NAME, name)]);
    }
    for (key, value) in &expected {
        let field = format!("spec.template.metadata.labels[{key}]");
        match labels.get(*key).and_then(Value::as_str) {
            None => errors.push(FieldError::required(field, *value)),
            Some(actual) if actual != *value => errors.push(FieldError::invalid(
                field,
                BadValue::Raw(string_map(&labels)),
                format!("must be '{value}'"),
            )),
            Some(_) => {}
        }
    }
    let wanted: Map<String, Value> = expected.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect();
    let selector = &job["spec"]["selector"];
    if !selects(selector, &wanted) {
        errors.push(FieldError::invalid(
            "spec.selector",
            BadValue::Raw(label_selector_go(selector)),
            "`selector` not auto-generated",
        ));
    }
    errors
}

/// `ValidateJobSpec`: `validateJobSpec` under `spec`, then the selector.
fn spec_errors(spec: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = job_spec_errors(spec, "spec", minor);
    let empty = Value::Object(Map::new());
    let template = spec.get("template").unwrap_or(&empty);
    let selector = spec.get("selector").filter(|s| !s.is_null());
    if selector.is_none() {
        errors.push(FieldError::required("spec.selector", ""));
    }
    let labels = template
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    // A missing selector selects nothing.
    if !selector.is_some_and(|s| selects(s, &labels)) {
        errors.push(FieldError::invalid(
            "spec.template.metadata.labels",
            BadValue::Raw(string_map(&labels)),
            "`selector` does not match template `labels`",
        ));
    }
    errors
}

/// `validateJobSpec`, the part of a job's spec a CronJob's job template shares (`at` is the
/// spec's path): the counts and modes, the pod template and its restart policy.
pub(crate) fn job_spec_errors(spec: &Value, at: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let int = |key: &str| spec.get(key).and_then(Value::as_i64);
    for key in [
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
        "ttlSecondsAfterFinished",
    ] {
        if let Some(n) = int(key).filter(|n| *n < 0) {
            errors.push(FieldError::invalid(
                format!("{at}.{key}"),
                BadValue::Int(n),
                "must be greater than or equal to 0",
            ));
        }
    }
    match spec.get("completionMode").and_then(Value::as_str) {
        Some("NonIndexed") | None => {}
        Some("Indexed") => {
            if int("completions").is_none() {
                errors.push(FieldError::required(
                    format!("{at}.completions"),
                    "when completion mode is Indexed",
                ));
            }
            if let Some(p) = int("parallelism").filter(|p| *p > 100_000) {
                let why = "must be less than or equal to 100000 when completion mode is Indexed";
                errors.push(FieldError::invalid(format!("{at}.parallelism"), BadValue::Int(p), why));
            }
        }
        Some(other) => {
            let supported = ["NonIndexed".to_owned(), "Indexed".to_owned()];
            errors.push(FieldError::not_supported(
                format!("{at}.completionMode"),
                other.into(),
                &supported,
            ));
        }
    }
    let empty = Value::Object(Map::new());
    let template = spec.get("template").unwrap_or(&empty);
    errors.extend(pod_template_errors(template, &format!("{at}.template"), minor));
    let restart = template
        .pointer("/spec/restartPolicy")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let field = format!("{at}.template.spec.restartPolicy");
    match restart {
        "Always" | "" => errors.push(FieldError::required(field, "valid values: \"OnFailure\", \"Never\"")),
        "OnFailure" | "Never" => {
            if spec.get("podFailurePolicy").is_some_and(|p| !p.is_null()) && restart != "Never" {
                let why = "only \"Never\" is supported when podFailurePolicy is specified";
                errors.push(FieldError::invalid(field, restart.into(), why));
            }
        }
        other => {
            let supported = ["OnFailure".to_owned(), "Never".to_owned()];
            errors.push(FieldError::not_supported(field, other.into(), &supported));
        }
    }
    errors
}

/// `WarningsForJobSpec` (`pkg/api/job/warnings.go`) under `at`, on the Kubernetes `minor`: an
/// Indexed job too large to track its failed indexes, then the pod template's warnings.
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

/// `ValidateJobUpdate` and the template rules of `ValidateJobSpecUpdate`, after `job_errors`.
pub(crate) fn job_update_errors(job: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let empty = Value::Object(Map::new());
    let (spec, old_spec) = (job.get("spec").unwrap_or(&empty), old.get("spec").unwrap_or(&empty));
    let mut errors = spec_errors(spec, minor);
    let immutable = |key: &str| spec.get(key) != old_spec.get(key);
    let indexed = spec.get("completionMode").and_then(Value::as_str) == Some("Indexed");
    if immutable("completions") {
        let completions = spec.get("completions").and_then(Value::as_i64);
        if !indexed {
            errors.push(FieldError::invalid(
                "spec.completions",
                completions.map_or(BadValue::Raw("(*int32)(nil)".to_owned()), BadValue::Int),
                "field is immutable",
            ));
        } else if let Some(c) = completions
            && Some(c) != spec.get("parallelism").and_then(Value::as_i64)
        {
            errors.push(FieldError::invalid(
                "spec.completions",
                BadValue::Int(c),
                "can only be modified in tandem with spec.parallelism",
            ));
        }
    }
    if immutable("selector") {
        let shown = spec
            .get("selector")
            .map_or("(*v1.LabelSelector)(nil)".to_owned(), label_selector_go);
        errors.push(FieldError::invalid(
            "spec.selector",
            BadValue::Raw(shown),
            "field is immutable",
        ));
    }
    let suspended = old_spec.get("suspend").and_then(Value::as_bool) == Some(true);
    let started = old.pointer("/status/startTime").is_some_and(|t| !t.is_null());
    let mut old_template = old_spec.get("template").cloned().unwrap_or_default();
    let template = spec.get("template").cloned().unwrap_or_default();
    if suspended && !started {
        // Scheduling directives of a job that never ran may change.
        for (section, key) in [
            ("metadata", "labels"),
            ("metadata", "annotations"),
            ("spec", "nodeSelector"),
            ("spec", "tolerations"),
            ("spec", "schedulingGates"),
            ("spec", "affinity"),
        ] {
            if let Some(target) = old_template.get_mut(section).and_then(Value::as_object_mut) {
                match template.get(section).and_then(|s| s.get(key)) {
                    Some(value) => target.insert(key.to_owned(), value.clone()),
                    None => target.remove(key),
                };
            }
        }
    }
    if template != old_template {
        errors.push(FieldError::invalid(
            "spec.template",
            BadValue::Raw(go_syntax(&template)),
            "field is immutable",
        ));
    }
    for key in ["completionMode", "podFailurePolicy"] {
        if immutable(key) {
            let shown = spec.get(key).cloned().unwrap_or(Value::Null);
            errors.push(FieldError::invalid(
                format!("spec.{key}"),
                BadValue::Json(shown),
                "field is immutable",
            ));
        }
    }
    errors
}

/// `ValidateJobStatusUpdate`: no negative counts.
pub(crate) fn job_status_errors(job: &Value) -> Vec<FieldError> {
    ["active", "succeeded", "failed", "ready"]
        .iter()
        .filter_map(|key| {
            let n = job.pointer(&format!("/status/{key}")).and_then(Value::as_i64)?;
            (n < 0).then(|| {
                FieldError::invalid(
                    format!("status.{key}"),
                    BadValue::Int(n),
                    "must be greater than or equal to 0",
                )
            })
        })
        .collect()
}

/// Whether a `LabelSelector` object selects `labels`; one that does not parse selects nothing.
fn selects(selector: &Value, labels: &Map<String, Value>) -> bool {
    LabelSelector::parse(&label_selector_text(selector)).is_ok_and(|s| s.matches(Some(labels)))
}

/// Go's `%#v` of a `map[string]string`, keys sorted.
fn string_map(map: &Map<String, Value>) -> String {
    let mut entries: Vec<(&String, &str)> = map.iter().map(|(k, v)| (k, v.as_str().unwrap_or_default())).collect();
    entries.sort();
    let shown: Vec<String> = entries.iter().map(|(k, v)| format!("{k:?}:{v:?}")).collect();
    format!("map[string]string{{{}}}", shown.join(", "))
}

/// Go's `%#v` of a `v1.LabelSelector`.
pub(crate) fn label_selector_go(selector: &Value) -> String {
    let labels = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .map_or("map[string]string(nil)".to_owned(), string_map);
    let expressions = match selector.get("matchExpressions").and_then(Value::as_array) {
        Some(items) if !items.is_empty() => format!("[]v1.LabelSelectorRequirement{{{}}}", items.len()),
        _ => "[]v1.LabelSelectorRequirement(nil)".to_owned(),
    };
    format!("v1.LabelSelector{{MatchLabels:{labels}, MatchExpressions:{expressions}}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> Value {
        json!({"metadata": {"name": "j", "uid": "u1"}, "spec": {"template": {"spec": {
            "restartPolicy": "Never", "dnsPolicy": "ClusterFirst",
            "containers": [{"name": "c", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}]}}}})
    }

    #[test]
    fn a_created_job_should_select_its_own_pods() {
        let mut created = job();
        generate_selector(&mut created);
        assert_eq!(created["spec"]["selector"], json!({"matchLabels": {UID: "u1"}}));
        assert_eq!(created["spec"]["template"]["metadata"]["labels"][LEGACY_NAME], "j");
        assert!(job_errors(&created, true, 28).is_empty());
        let mut conflict = job();
        conflict["spec"]["template"]["metadata"] = json!({"labels": {"job-name": "other"}});
        generate_selector(&mut conflict);
        let errors = job_errors(&conflict, true, 28);
        assert_eq!(errors[0].field, "spec.template.metadata.labels[job-name]");
    }

    #[test]
    fn a_job_should_restart_its_pods_only_on_failure_or_never() {
        let mut always = job();
        always["spec"]["template"]["spec"]["restartPolicy"] = json!("Always");
        generate_selector(&mut always);
        let errors: Vec<String> = job_errors(&always, true, 28).iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            ["spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\""]
        );
        assert_eq!(create_warnings(&json!({"metadata": {"name": "a.b"}})).len(), 1);
    }
}
