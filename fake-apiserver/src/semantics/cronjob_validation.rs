//! CronJob validation as in kube-apiserver v1.28's `pkg/apis/batch/validation/validation.go`.
//!
//! `ValidateCronJobCreate` and `ValidateCronJobUpdate`: the schedule (`validateScheduleFormat`,
//! through the cron parser of `cron_schedule`), the time zone (`validateTimeZone`), the
//! concurrency policy, the counts, and the job template as a Job's spec
//! (`ValidateJobTemplateSpec`, through `job_validation::job_spec_errors`).

use serde_json::{Map, Value};

use crate::semantics::cron_schedule::{ScheduleError, parse_standard};
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::go_time::load_location;
use crate::semantics::job_validation::job_spec_errors;
use crate::semantics::label_selector_validation::label_selector_go;
use crate::semantics::pod_annotation_validation::allows_invalid_cost;
use crate::storage::object::{self, present};

/// The longest name a CronJob may have: its jobs are named `<name>-<11 characters>`, and a
/// job's name is a 63-character DNS label.
const MAX_NAME_LENGTH: usize = 52;

/// A CronJob's spec, or an empty one (Go's zero value) when it has none.
pub(crate) fn spec_of(cron_job: &Value) -> &Value {
    static EMPTY: Value = Value::Null;
    cron_job.get("spec").filter(|s| s.is_object()).unwrap_or(&EMPTY)
}

/// The schedule of a CronJob's spec ("" when unset).
pub(crate) fn schedule(spec: &Value) -> &str {
    spec.get("schedule").and_then(Value::as_str).unwrap_or_default()
}

fn time_zone(spec: &Value) -> Option<&str> {
    present(spec, "timeZone").map(|tz| tz.as_str().unwrap_or_default())
}

/// `ValidateCronJobCreate` on the Kubernetes `minor`, less the object metadata checked for every
/// kind: the spec, then the name's length.
pub(crate) fn create_errors(cron_job: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = spec_errors(spec_of(cron_job), None, minor);
    let name = object::name(cron_job);
    if name.len() > MAX_NAME_LENGTH {
        errors.push(FieldError::invalid(
            "metadata.name",
            name.into(),
            format!("must be no more than {MAX_NAME_LENGTH} characters"),
        ));
    }
    errors
}

/// `ValidateCronJobUpdate`: the spec again (the time zone only when it changed); the name's
/// length is not checked, so that older, longer-named CronJobs can still be changed.
pub(crate) fn update_errors(cron_job: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    spec_errors(spec_of(cron_job), Some(spec_of(old)), minor)
}

/// `validateCronJobSpec`. From 1.29 a schedule may name a time zone only where the stored one
/// already did (until then it only drew a warning).
fn spec_errors(spec: &Value, old: Option<&Value>, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let schedule = schedule(spec);
    if schedule.is_empty() {
        errors.push(FieldError::required("spec.schedule", ""));
    } else {
        let allow_zone_in_schedule = minor < 29 || old.is_some_and(|old| self::schedule(old).contains("TZ"));
        errors.extend(schedule_errors(schedule, time_zone(spec), allow_zone_in_schedule));
    }
    errors.extend(nonnegative(spec, "startingDeadlineSeconds"));
    if old.is_none_or(|old| time_zone(old) != time_zone(spec)) {
        errors.extend(time_zone_errors(time_zone(spec)));
    }
    let policy = spec
        .get("concurrencyPolicy")
        .and_then(Value::as_str)
        .unwrap_or_default();
    errors.extend(FieldError::enum_string(
        "spec.concurrencyPolicy",
        policy,
        &["Allow", "Forbid", "Replace"],
    ));
    // The options of the stored job template.
    let lenient_cost = allows_invalid_cost(old.and_then(|old| old.pointer("/jobTemplate/spec/template")));
    errors.extend(job_template_errors(spec.get("jobTemplate"), lenient_cost, minor));
    errors.extend(nonnegative(spec, "successfulJobsHistoryLimit"));
    errors.extend(nonnegative(spec, "failedJobsHistoryLimit"));
    errors
}

/// `ValidateNonnegativeField` of an optional count of the spec.
fn nonnegative(spec: &Value, key: &str) -> Option<FieldError> {
    let n = spec.get(key).and_then(Value::as_i64).filter(|n| *n < 0)?;
    Some(FieldError::invalid(
        format!("spec.{key}"),
        BadValue::Int(n),
        "must be greater than or equal to 0",
    ))
}

/// `validateScheduleFormat`: the schedule parses, and names no zone of its own when the
/// `timeZone` field does, or at all where that is not allowed.
fn schedule_errors(schedule: &str, time_zone: Option<&str>, allow_zone_in_schedule: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    // A schedule that crashes the parser is refused before validation
    // (`cronjob_strategy::refuse_panicking`).
    if let Err(ScheduleError::Invalid(why)) = parse_standard(schedule) {
        errors.push(FieldError::invalid("spec.schedule", schedule.into(), why));
    }
    if allow_zone_in_schedule && schedule.contains("TZ") && time_zone.is_some() {
        errors.push(FieldError::invalid(
            "spec.schedule",
            schedule.into(),
            "cannot use both timeZone field and TZ or CRON_TZ in schedule",
        ));
    } else if !allow_zone_in_schedule && schedule.contains("TZ") {
        errors.push(FieldError::invalid(
            "spec.schedule",
            schedule.into(),
            "cannot use TZ or CRON_TZ in schedule, use timeZone field instead",
        ));
    }
    errors
}

/// `validTimeZoneCharacters`, `^[A-Za-z\.\-_0-9+]{1,14}$`: a component of an IANA name (digits
/// and `+` tolerated for the legacy names).
fn is_zone_component(part: &str) -> bool {
    (1..=14).contains(&part.len())
        && part
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'+'))
}

/// `validateTimeZone`: unset, or an IANA zone name the server's time package loads.
fn time_zone_errors(time_zone: Option<&str>) -> Vec<FieldError> {
    let field = "spec.timeZone";
    let Some(zone) = time_zone else {
        return Vec::new();
    };
    if zone.is_empty() {
        return vec![FieldError::invalid(
            field,
            zone.into(),
            "timeZone must be nil or non-empty string",
        )];
    }
    let malformed = zone
        .split('/')
        .any(|part| part == "." || part == ".." || part.starts_with('-') || !is_zone_component(part));
    if malformed {
        return vec![FieldError::invalid(
            field,
            zone.into(),
            format!("unknown time zone {zone}"),
        )];
    }
    let mut errors = Vec::new();
    // `strings.EqualFold`; the name is ASCII by now.
    if zone.eq_ignore_ascii_case("Local") {
        let why = "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones";
        errors.push(FieldError::invalid(field, zone.into(), why));
    }
    if let Err(why) = load_location(zone) {
        errors.push(FieldError::invalid(field, zone.into(), why));
    }
    errors
}

/// `ValidateJobTemplateSpec`: the job spec as a Job's (`validateJobSpec`, without the selector
/// checks of `ValidateJobSpec`), and no selector, manual or not: the job controller generates it.
fn job_template_errors(template: Option<&Value>, lenient_cost: bool, minor: u32) -> Vec<FieldError> {
    let empty = Value::Object(Map::new());
    let spec = template
        .and_then(|t| t.get("spec"))
        .filter(|s| s.is_object())
        .unwrap_or(&empty);
    let at = "spec.jobTemplate.spec";
    let mut errors = job_spec_errors(spec, at, lenient_cost, minor);
    if let Some(selector) = present(spec, "selector") {
        errors.push(FieldError::invalid(
            format!("{at}.selector"),
            label_selector_go(selector),
            "`selector` will be auto-generated",
        ));
    }
    if spec.get("manualSelector").and_then(Value::as_bool) == Some(true) {
        errors.push(FieldError::not_supported(
            format!("{at}.manualSelector"),
            BadValue::Json(Value::Bool(true)),
            &["nil".to_owned(), "false".to_owned()],
        ));
    }
    errors
}

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::json;

    use super::*;
    use crate::storage::resource::ResourceInfo;

    /// A valid CronJob with `spec` and a defaulted job template (also for the strategy's tests).
    pub(crate) fn cron_job(spec: Value) -> Value {
        let mut spec = spec;
        spec["jobTemplate"] = json!({"spec": {"template": {"spec": {
            "restartPolicy": "OnFailure", "dnsPolicy": "ClusterFirst",
            "containers": [{"name": "c", "image": "busybox", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}]}}}});
        json!({"metadata": {"name": "c1"}, "spec": spec})
    }

    fn rendered(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_valid_cron_job_should_pass() {
        let valid = cron_job(json!({"schedule": "*/5 * * * *", "concurrencyPolicy": "Allow"}));
        assert_eq!(rendered(&create_errors(&valid, 28)), Vec::<String>::new());
    }

    #[test]
    fn spec_errors_should_come_in_go_order() {
        let bad = cron_job(json!({
            "schedule": "", "concurrencyPolicy": "Sometimes", "startingDeadlineSeconds": -1,
            "successfulJobsHistoryLimit": -1, "failedJobsHistoryLimit": -2, "timeZone": "",
        }));
        assert_eq!(
            rendered(&create_errors(&bad, 28)),
            [
                "spec.schedule: Required value",
                "spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
                "spec.timeZone: Invalid value: \"\": timeZone must be nil or non-empty string",
                "spec.concurrencyPolicy: Unsupported value: \"Sometimes\": supported values: \"Allow\", \"Forbid\", \"Replace\"",
                "spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0",
                "spec.failedJobsHistoryLimit: Invalid value: -2: must be greater than or equal to 0",
            ]
        );
        let unset = json!({"metadata": {"name": "c1"}, "spec": {"schedule": "@daily", "concurrencyPolicy": ""}});
        let errors = rendered(&create_errors(&unset, 28));
        assert_eq!(errors[0], "spec.concurrencyPolicy: Required value");
        assert!(errors.contains(&"spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"".to_owned()));
    }

    #[test]
    fn the_time_zone_should_be_an_iana_name() {
        let errors = |tz: &str| rendered(&time_zone_errors(Some(tz)));
        assert!(errors("Europe/Berlin").is_empty());
        assert!(errors("Etc/GMT+5").is_empty());
        assert_eq!(
            errors("Mars/Olympus"),
            ["spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus"]
        );
        for malformed in [
            "Europe//Berlin",
            "/UTC",
            "-UTC",
            "Europe/..",
            "A_Very_Long_Zone_Name",
            "Europe/Ber lin",
        ] {
            assert_eq!(
                errors(malformed),
                [format!(
                    "spec.timeZone: Invalid value: {malformed:?}: unknown time zone {malformed}"
                )]
            );
        }
        assert_eq!(
            errors("local"),
            [
                "spec.timeZone: Invalid value: \"local\": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
                "spec.timeZone: Invalid value: \"local\": unknown time zone local",
            ]
        );
        assert_eq!(errors("Local").len(), 1);
        assert_eq!(
            errors("a..b"),
            ["spec.timeZone: Invalid value: \"a..b\": time: invalid location name"]
        );
        // Both the field and the schedule naming a zone.
        let both =
            cron_job(json!({"schedule": "CRON_TZ=UTC 0 * * * *", "timeZone": "UTC", "concurrencyPolicy": "Allow"}));
        assert_eq!(
            rendered(&create_errors(&both, 28)),
            [
                "spec.schedule: Invalid value: \"CRON_TZ=UTC 0 * * * *\": cannot use both timeZone field and TZ or CRON_TZ in schedule"
            ]
        );
    }

    #[test]
    fn an_update_should_check_the_time_zone_only_when_it_changes() {
        let mut old = cron_job(json!({"schedule": "@daily", "concurrencyPolicy": "Allow"}));
        old["spec"]["timeZone"] = json!("Mars/Olympus");
        let mut new = old.clone();
        new["metadata"]["name"] = json!("x".repeat(60));
        assert!(update_errors(&new, &old, 28).is_empty());
        assert_eq!(create_errors(&new, 28).len(), 2);
        new["spec"]["timeZone"] = json!("Mars/Phobos");
        assert_eq!(update_errors(&new, &old, 28).len(), 1);
    }

    #[test]
    fn the_job_template_should_be_validated_as_a_job_without_selector() {
        let mut bad = cron_job(json!({"schedule": "0 0 31 2 *", "concurrencyPolicy": "Allow"}));
        let spec = &mut bad["spec"]["jobTemplate"]["spec"];
        spec["parallelism"] = json!(-1);
        spec["selector"] = json!({"matchLabels": {"a": "b"}});
        spec["manualSelector"] = json!(true);
        assert_eq!(
            rendered(&create_errors(&bad, 28)),
            [
                "spec.jobTemplate.spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
                "spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"a\":\"b\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated",
                "spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: \"nil\", \"false\"",
            ]
        );
    }

    #[test]
    fn malformed_objects_should_not_crash_validation() {
        for odd in [
            json!({}),
            json!({"spec": 5}),
            json!({"spec": {"schedule": 5, "jobTemplate": []}}),
        ] {
            assert_eq!(create_errors(&odd, 28)[0].to_string(), "spec.schedule: Required value");
        }
    }

    #[test]
    fn defaults_should_fill_the_spec_and_the_pod_template_only() {
        let info = ResourceInfo::builtin("batch", "v1", "CronJob", "cronjobs");
        let mut defaulted = json!({"metadata": {"name": "c1"}, "spec": {"schedule": "@daily", "jobTemplate": {"spec": {
            "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}}});
        let applied = crate::semantics::defaults::apply(&info, &mut defaulted, 28);
        assert!(applied.is_ok());
        let spec = &defaulted["spec"];
        assert_eq!(
            (
                &spec["concurrencyPolicy"],
                &spec["suspend"],
                &spec["successfulJobsHistoryLimit"],
                &spec["failedJobsHistoryLimit"]
            ),
            (&json!("Allow"), &json!(false), &json!(3), &json!(1))
        );
        // Go writes the templates' empty metadata, and defaults no JobSpec field.
        assert_eq!(spec["jobTemplate"]["metadata"], json!({"creationTimestamp": null}));
        let job_spec = &spec["jobTemplate"]["spec"];
        assert!(job_spec.get("backoffLimit").is_none() && job_spec.get("completions").is_none());
        assert_eq!(job_spec["template"]["metadata"], json!({"creationTimestamp": null}));
        assert_eq!(job_spec["template"]["spec"]["dnsPolicy"], "ClusterFirst");
        assert_eq!(
            job_spec["template"]["spec"]["containers"][0]["imagePullPolicy"],
            "Always"
        );
        // Without a spec Go still defaults its zero value; a spec of the wrong type is left.
        let mut bare = json!({"metadata": {"name": "c1"}});
        assert!(crate::semantics::defaults::apply(&info, &mut bare, 28).is_ok());
        assert_eq!(
            bare["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"],
            Value::Null
        );
        let mut odd = json!({"metadata": {"name": "c1"}, "spec": {"jobTemplate": 3}});
        assert!(crate::semantics::defaults::apply(&info, &mut odd, 28).is_ok());
        assert_eq!(odd["spec"]["jobTemplate"], 3);
    }

    #[test]
    fn a_zone_in_the_schedule_should_be_refused_from_1_29_unless_stored() {
        let zoned = cron_job(json!({"schedule": "CRON_TZ=UTC 0 * * * *", "concurrencyPolicy": "Allow"}));
        assert!(create_errors(&zoned, 28).is_empty());
        assert_eq!(
            rendered(&create_errors(&zoned, 31)),
            [
                "spec.schedule: Invalid value: \"CRON_TZ=UTC 0 * * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
            ]
        );
        assert!(update_errors(&zoned, &zoned, 31).is_empty());
        let plain = cron_job(json!({"schedule": "0 * * * *", "concurrencyPolicy": "Allow"}));
        assert_eq!(update_errors(&zoned, &plain, 31).len(), 1);
    }
}
