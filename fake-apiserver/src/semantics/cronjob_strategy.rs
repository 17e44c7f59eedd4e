//! The CronJob strategy of kube-apiserver v1.28's `pkg/registry/batch/cronjob/strategy.go`.
//!
//! What is not validation: the warnings of `WarningsOnCreate` and `WarningsOnUpdate`, and the
//! crash the cron parser causes on some schedules. The rest of the strategy is the server's
//! common handling of a built-in kind with a status and a generation: status reset on create
//! and kept on update, the generation moved by spec changes, and a `/status` write that keeps
//! the stored spec and stores the rest of what was sent (`status_metadata` keeps nothing more
//! for a CronJob, whose status strategy resets the spec alone).

use serde_json::{Map, Value};

use crate::semantics::apps_set_strategy::semantic_equal;
use crate::semantics::cron_schedule::{ScheduleError, parse_standard};
use crate::semantics::cronjob_validation::{schedule, spec_of};
use crate::semantics::job_strategy;
use crate::status::ApiStatus;
use crate::storage::resource::ResourceInfo;

/// Whether `info` is the built-in CronJob.
fn is_cron_job(info: &ResourceInfo) -> bool {
    info.builtin && info.group == "batch" && info.kind == "CronJob"
}

/// A CronJob write whose validation would crash kube-apiserver (`TZ=` with no space after it,
/// see `ScheduleError::Panics`) is answered 500 instead of being validated; the status
/// strategy validates nothing, so a `/status` write never crashes.
pub(crate) fn refuse_panicking(
    info: &ResourceInfo,
    cron_job: &Value,
    subresource: Option<&str>,
) -> Result<(), ApiStatus> {
    if !is_cron_job(info) || subresource == Some("status") {
        return Ok(());
    }
    match parse_standard(schedule(spec_of(cron_job))) {
        Err(ScheduleError::Panics) => Err(job_strategy::panicked()),
        _ => Ok(()),
    }
}

/// The warning of a schedule with its own time zone.
fn zone_in_schedule_warning(spec: &Value) -> Option<String> {
    schedule(spec).contains("TZ").then(|| {
        // Go names the path `spec.spec.schedule`, a slip kept for fidelity.
        "CRON_TZ or TZ used in spec.spec.schedule is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details".to_owned()
    })
}

/// The job template's spec warnings (`job.WarningsForJobSpec`), its pod template's among them.
fn job_template_warnings(spec: &Value, minor: u32) -> Vec<String> {
    let empty = Value::Object(Map::new());
    let job_spec = spec.pointer("/jobTemplate/spec").unwrap_or(&empty);
    job_strategy::job_spec_warnings(job_spec, "spec.jobTemplate.spec", minor)
}

/// `WarningsOnCreate` on the Kubernetes `minor`, once the CronJob is valid: a name that is no
/// DNS label (it names pods), the job template's warnings, a zone in the schedule.
pub(crate) fn create_warnings(info: &ResourceInfo, cron_job: &Value, minor: u32) -> Vec<String> {
    if !is_cron_job(info) {
        return Vec::new();
    }
    let spec = spec_of(cron_job);
    let mut warnings = job_strategy::create_warnings(cron_job);
    warnings.extend(job_template_warnings(spec, minor));
    warnings.extend(zone_in_schedule_warning(spec));
    warnings
}

/// `WarningsOnUpdate` on the Kubernetes `minor`, once the update is valid: the job template's
/// warnings when the spec changed semantically (the generation moves), a zone in the schedule;
/// none through `/status`.
pub(crate) fn update_warnings(
    info: &ResourceInfo,
    cron_job: &Value,
    old: &Value,
    subresource: Option<&str>,
    minor: u32,
) -> Vec<String> {
    if !is_cron_job(info) || subresource.is_some() {
        return Vec::new();
    }
    let spec = spec_of(cron_job);
    let mut warnings = Vec::new();
    if !semantic_equal(Some(spec), Some(spec_of(old))) {
        warnings.extend(job_template_warnings(spec, minor));
    }
    warnings.extend(zone_in_schedule_warning(spec));
    warnings
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::cronjob_validation::tests::cron_job;

    #[test]
    fn warnings_should_follow_the_strategy() {
        let info = ResourceInfo::builtin("batch", "v1", "CronJob", "cronjobs");
        let zoned = cron_job(json!({"schedule": "CRON_TZ=UTC 0 * * * *"}));
        assert_eq!(
            create_warnings(&info, &zoned, 28),
            [
                "CRON_TZ or TZ used in spec.spec.schedule is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details"
            ]
        );
        assert_eq!(update_warnings(&info, &zoned, &zoned, None, 28).len(), 1);
        assert!(update_warnings(&info, &zoned, &zoned, Some("status"), 28).is_empty());
        let mut dotted = cron_job(json!({"schedule": "@daily"}));
        dotted["metadata"]["name"] = json!("a.b");
        assert_eq!(create_warnings(&info, &dotted, 28).len(), 1);
        // The job template's warnings, on update only when the spec changed.
        let mut indexed = cron_job(json!({"schedule": "@daily"}));
        let job_spec = &mut indexed["spec"]["jobTemplate"]["spec"];
        job_spec["completionMode"] = json!("Indexed");
        job_spec["completions"] = json!(100_001);
        job_spec["parallelism"] = json!(10_001);
        let warnings = create_warnings(&info, &indexed, 28);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("spec.jobTemplate.spec: In Indexed Jobs with a number of completions"));
        assert!(update_warnings(&info, &indexed, &indexed, None, 28).is_empty());
        let before = cron_job(json!({"schedule": "@daily"}));
        assert_eq!(update_warnings(&info, &indexed, &before, None, 28), warnings);
        let panicking = cron_job(json!({"schedule": "TZ=UTC"}));
        assert_eq!(refuse_panicking(&info, &panicking, None).map_err(|s| s.code), Err(500));
        assert!(refuse_panicking(&info, &panicking, Some("status")).is_ok());
    }
}
