//! kube-controller-manager's CronJob controller of v1.28 and v1.31
//! (`pkg/controller/cronjob/cronjob_controllerv2.go`: the informers' handlers, `sync`,
//! `getJobsToBeReconciled`, `cleanupFinishedJobs`, `removeOldestJobs`, `deleteJob`, `syncCronJob`,
//! `formatSchedule`; `utils.go`: `inActiveListByName`, `nextScheduleTime`). The schedule
//! arithmetic is `cronjob_schedule_times`'s, the decisions about single Jobs `cronjob_jobs`'s.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_refs;
use crate::lifecycle::cronjob_jobs::{
    active, by_start_time, finished_condition, in_active, job_from_template, job_reference, reconcile_job,
    remove_active, set_active, text, time_of,
};
use crate::lifecycle::cronjob_schedule_times::{self as times, Cron, Missed, SECOND, ZERO_TIME};
use crate::lifecycle::events;
use crate::lifecycle::writes::Writes;
use crate::semantics::field_error::go_quote;
use crate::semantics::go_time::load_location;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::{Pending, Timer};
use crate::storage::resource::ResourceInfo;

/// The event source of the controller's recorder.
const COMPONENT: &str = "cronjob-controller";
/// When a failed sync is tried again. Go's rate limiter backs off from 5ms to 1000s per key;
/// the queue here keeps no count of failures, so one fixed pause stands for it.
const RETRY: Duration = Duration::from_secs(1);

/// The informers' reaction to a write or removal: a CronJob added, updated or deleted is synced
/// (`enqueueController`), and so is the CronJob a Job names as its controller (`addJob`,
/// `updateJob`, `deleteJob`; a Job being deleted goes the same way). Without the old object, an
/// update that changes the schedule or zone is synced now, where Go's `updateCronJob` waits for
/// the new schedule's next time (or warns `UnParseableCronJobSchedule`); and a Job's controller
/// is not checked against the CronJob's uid (`resolveControllerRef`), which only costs a sync.
pub(super) fn on_change(info: &ResourceInfo, object: &Value) -> Vec<Pending> {
    if !info.builtin || info.group != "batch" {
        return Vec::new();
    }
    let cronjob = match info.plural.as_str() {
        "cronjobs" => Some(object::name(object)),
        "jobs" => controller_refs::controller_named(object, "CronJob"),
        _ => None,
    };
    cronjob
        .map(|name| Pending::Deadline {
            timer: Timer::CronJob,
            namespace: object::namespace(object).to_owned(),
            name: name.to_owned(),
            due: SystemTime::now(),
        })
        .into_iter()
        .collect()
}

/// What one sync works on.
struct Ctx {
    info: Arc<ResourceInfo>,
    jobs_info: Arc<ResourceInfo>,
    /// The CronJob as the lister has it; the events name it.
    stored: Arc<Value>,
    minor: u32,
}

impl Ctx {
    fn event(&self, state: &mut State, kind: &str, reason: &str, message: &str) {
        events::record(state, &self.info, &self.stored, kind, reason, message, COMPONENT);
    }
}

/// What `syncCronJob` asks of the queue.
enum Next {
    /// `AddAfter` this many nanoseconds.
    After(i128),
    /// Nothing until the next informer event.
    Done,
    /// `AddRateLimited`: an error.
    Retry,
}

/// `sync`: the CronJob's finished Jobs cleaned up, then `syncCronJob`, one status update for
/// both, and the next sync when it asks for one.
pub(super) fn sync(state: &mut State, namespace: &str, name: &str) {
    let info = state.info("batch", "v1", "cronjobs");
    let Some(stored) = state.object(&info, Some(namespace), name) else {
        return;
    };
    // `getJobsToBeReconciled`: whatever their labels, the Jobs whose controller reference has
    // its name (Go compares the name only).
    let jobs: Vec<Arc<Value>> = state
        .objects_in("batch", "jobs", namespace)
        .into_iter()
        .filter(|job| controller_refs::controller_of(job).is_some_and(|owner| text(owner, "name") == name))
        .collect();
    let ctx = Ctx {
        info,
        jobs_info: state.info("batch", "v1", "jobs"),
        stored,
        minor: state.options.minor(),
    };
    let mut cronjob = (*ctx.stored).clone();
    if !cronjob["status"].is_object() {
        cronjob["status"] = json!({});
    }
    let cleaned = cleanup_finished_jobs(state, &ctx, &mut cronjob, &jobs);
    let mut update = false;
    let next = sync_cronjob(state, &ctx, &mut cronjob, &jobs, &mut update);
    if (cleaned || update)
        && let Err(status) = state.update_object(
            &ctx.info,
            ctx.stored.clone(),
            cronjob,
            Some(CONTROLLER_MANAGER),
            Some("status"),
        )
    {
        tracing::debug!(namespace, name, %status, "could not update the CronJob's status");
        requeue(state, namespace, name, RETRY);
        return;
    }
    match next {
        Next::After(after) => {
            let after = Duration::from_nanos(u64::try_from(after.max(0)).unwrap_or(u64::MAX));
            requeue(state, namespace, name, after);
        }
        Next::Retry => requeue(state, namespace, name, RETRY),
        Next::Done => {}
    }
}

fn requeue(state: &mut State, namespace: &str, name: &str, after: Duration) {
    state.pending.push(Pending::Deadline {
        timer: Timer::CronJob,
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        due: SystemTime::now() + after,
    });
}

fn now_nanos() -> i128 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    i128::try_from(since.as_nanos()).unwrap_or(i128::MAX)
}

/// `cleanupFinishedJobs` and `removeOldestJobs`: past each history limit, the Jobs that started
/// first are deleted. Whether the status changed.
fn cleanup_finished_jobs(state: &mut State, ctx: &Ctx, cronjob: &mut Value, jobs: &[Arc<Value>]) -> bool {
    let mut update = false;
    for (kind, limit) in [
        ("Complete", "successfulJobsHistoryLimit"),
        ("Failed", "failedJobsHistoryLimit"),
    ] {
        let Some(limit) = ctx.stored.pointer(&format!("/spec/{limit}")).and_then(Value::as_i64) else {
            continue;
        };
        let mut finished: Vec<&Arc<Value>> = jobs
            .iter()
            .filter(|job| finished_condition(job) == Some(kind))
            .collect();
        let excess = usize::try_from(finished.len() as i64 - limit).unwrap_or(0);
        by_start_time(&mut finished);
        for job in finished.into_iter().take(excess) {
            delete_job(state, ctx, cronjob, job);
            update = true;
        }
    }
    update
}

/// `deleteJob`: the Job deleted in the background (a Job already gone is no failure here, so
/// `FailedDelete` never happens), its reference dropped, the event recorded.
fn delete_job(state: &mut State, ctx: &Ctx, cronjob: &mut Value, job: &Value) {
    let (namespace, name) = (object::namespace(job), object::name(job));
    state.delete_object(&ctx.jobs_info, Some(namespace), name, Some("Background"));
    remove_active(cronjob, object::uid(job));
    ctx.event(state, "Normal", "SuccessfulDelete", &format!("Deleted job {name}"));
}

/// `syncCronJob`: the active list brought up to date, then, unless the CronJob is being deleted,
/// has an unknown zone, is suspended or has no usable schedule, a Job for the most recent
/// schedule time not yet run, as the concurrency policy allows.
fn sync_cronjob(state: &mut State, ctx: &Ctx, cronjob: &mut Value, jobs: &[Arc<Value>], update: &mut bool) -> Next {
    let now = now_nanos();
    for job in jobs {
        if let Some(note) = reconcile_job(cronjob, job, ctx.minor, update) {
            ctx.event(state, note.kind, note.reason, &note.message);
        }
    }
    // An active Job not among its Jobs is looked up by name, as Go asks the API: gone, it leaves.
    let refs: Vec<Value> = active(cronjob).to_vec();
    for reference in refs {
        let uid = text(&reference, "uid");
        let (namespace, name) = (text(&reference, "namespace"), text(&reference, "name"));
        if jobs.iter().any(|job| object::uid(job) == uid)
            || state.object(&ctx.jobs_info, Some(namespace), name).is_some()
        {
            continue;
        }
        ctx.event(
            state,
            "Normal",
            "MissingJob",
            &format!("Active job went missing: {name}"),
        );
        remove_active(cronjob, uid);
        *update = true;
    }
    let stored = ctx.stored.clone();
    if object::is_deleting(&stored) {
        return Next::Done;
    }
    let spec = &stored["spec"];
    let time_zone = object::present(spec, "timeZone").map(|zone| zone.as_str().unwrap_or_default());
    if let Some(zone) = time_zone
        && let Err(why) = load_location(zone)
    {
        ctx.event(
            state,
            "Warning",
            "UnknownTimeZone",
            &format!("invalid timeZone: {}: {why}", go_quote(zone)),
        );
        return Next::Done;
    }
    if spec.get("suspend").and_then(Value::as_bool) == Some(true) {
        return Next::Done;
    }
    let schedule = text(spec, "schedule");
    let cron = match Cron::parse(&format_schedule(state, ctx, schedule, time_zone)) {
        Ok(cron) => cron,
        Err(why) => {
            let message = format!("unparseable schedule: {} : {why}", go_quote(schedule));
            ctx.event(state, "Warning", "UnparseableSchedule", &message);
            return Next::Done;
        }
    };
    let deadline = spec.get("startingDeadlineSeconds").and_then(Value::as_i64);
    // `nextScheduleTime`: the most recent time not after now, if any.
    let scheduled = match times::most_recent_schedule_time(&cron, schedule_base(cronjob), deadline, now) {
        Err(why) => {
            ctx.event(
                state,
                "Warning",
                "InvalidSchedule",
                &format!("invalid schedule: {schedule} : {why}"),
            );
            return Next::Done;
        }
        Ok(recent) => match recent.time {
            Some(time) if time <= now => {
                if recent.missed == Missed::Many {
                    let message = "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew";
                    ctx.event(state, "Warning", "TooManyMissedTimes", message);
                }
                time
            }
            _ => return requeue_after(&cron, cronjob, now),
        },
    };
    if let Some(deadline) = deadline
        && scheduled + i128::from(deadline) * SECOND < now
    {
        let message = format!("Missed scheduled time to start a job: {}", times::rfc1123z(scheduled));
        ctx.event(state, "Warning", "MissSchedule", &message);
        return requeue_after(&cron, cronjob, now);
    }
    let (namespace, name) = (
        object::namespace(&stored),
        times::job_name(object::name(&stored), scheduled),
    );
    let listed = active(cronjob)
        .iter()
        .any(|r| text(r, "name") == name && text(r, "namespace") == namespace);
    if listed || time_of(cronjob.pointer("/status/lastScheduleTime")) == Some(scheduled) {
        return requeue_after(&cron, cronjob, now);
    }
    let policy = text(spec, "concurrencyPolicy");
    if policy == "Forbid" && !active(cronjob).is_empty() {
        let message = "Not starting job because prior execution is running and concurrency policy is Forbid";
        ctx.event(state, "Normal", "JobAlreadyActive", message);
        return requeue_after(&cron, cronjob, now);
    }
    if policy == "Replace" {
        let running: Vec<Value> = active(cronjob).to_vec();
        for reference in running {
            let (job_namespace, job_name) = (text(&reference, "namespace"), text(&reference, "name"));
            let Some(job) = state.object(&ctx.jobs_info, Some(job_namespace), job_name) else {
                let why = ApiStatus::not_found(&ctx.jobs_info, job_name).message;
                ctx.event(state, "Warning", "FailedGet", &format!("Get job: {why}"));
                return Next::Retry;
            };
            delete_job(state, ctx, cronjob, &job);
            *update = true;
        }
    }
    let request = job_from_template(&stored, scheduled, &name);
    let created = match state.create_object(&ctx.jobs_info, Some(namespace), request, Some(CONTROLLER_MANAGER)) {
        Ok(created) => {
            ctx.event(
                state,
                "Normal",
                "SuccessfulCreate",
                &format!("Created job {}", object::name(&created)),
            );
            created
        }
        // No Job can be made in a namespace being deleted: tried again, without an event.
        Err(status) if status.has_cause("NamespaceTerminating") => return Next::Retry,
        Err(status) if status.reason == "AlreadyExists" => {
            let Some(existing) = state.object(&ctx.jobs_info, Some(namespace), &name) else {
                return Next::Retry;
            };
            // Another actor's Job, or ours already listed: its status is assumed kept, and Go
            // does not requeue.
            let ours = controller_refs::controller_uid(&existing) == Some(object::uid(&stored));
            if !ours || in_active(cronjob, object::uid(&existing)) {
                return Next::Done;
            }
            existing
        }
        Err(status) => {
            ctx.event(
                state,
                "Warning",
                "FailedCreate",
                &format!("Error creating job: {}", status.message),
            );
            return Next::Retry;
        }
    };
    let mut references = active(cronjob).to_vec();
    references.push(job_reference(&created));
    set_active(cronjob, references);
    cronjob["status"]["lastScheduleTime"] = json!(times::rfc3339("UTC", scheduled));
    *update = true;
    requeue_after(&cron, cronjob, now)
}

/// `nextScheduleTimeDuration` of the CronJob as it is now.
fn requeue_after(cron: &Cron, cronjob: &Value, now: i128) -> Next {
    Next::After(times::next_schedule_time_duration(cron, schedule_base(cronjob), now))
}

/// Where `mostRecentScheduleTime` starts: the last schedule time, else the creation time.
fn schedule_base(cronjob: &Value) -> i128 {
    time_of(cronjob.pointer("/status/lastScheduleTime"))
        .or_else(|| time_of(cronjob.pointer("/metadata/creationTimestamp")))
        .unwrap_or(ZERO_TIME)
}

/// `formatSchedule`: a zone in the schedule itself is kept (with a warning, every sync), else
/// `timeZone` becomes a `TZ=` prefix.
fn format_schedule(state: &mut State, ctx: &Ctx, schedule: &str, time_zone: Option<&str>) -> String {
    if schedule.contains("TZ") {
        let message = format!(
            "CRON_TZ or TZ used in schedule {} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details",
            go_quote(schedule)
        );
        ctx.event(state, "Warning", "UnsupportedSchedule", &message);
        return schedule.to_owned();
    }
    match time_zone {
        Some(zone) if load_location(zone).is_ok() => format!("TZ={zone} {schedule}"),
        _ => schedule.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_should_sync_the_cronjob_they_concern() {
        let cronjobs = ResourceInfo::builtin("batch", "v1", "CronJob", "cronjobs");
        let jobs = ResourceInfo::builtin("batch", "v1", "Job", "jobs");
        let synced = |info: &ResourceInfo, object: &Value| -> Vec<String> {
            let work = on_change(info, object);
            work.iter()
                .filter_map(|w| match w {
                    Pending::Deadline {
                        timer: Timer::CronJob,
                        namespace,
                        name,
                        ..
                    } => Some(format!("{namespace}/{name}")),
                    _ => None,
                })
                .collect()
        };
        let owned = |kind: &str| {
            json!({"metadata": {"name": "j", "namespace": "ns", "ownerReferences": [
                {"kind": kind, "name": "daily", "controller": true}]}})
        };
        assert_eq!(
            synced(&cronjobs, &json!({"metadata": {"name": "daily", "namespace": "ns"}})),
            ["ns/daily"]
        );
        assert_eq!(synced(&jobs, &owned("CronJob")), ["ns/daily"]);
        assert!(synced(&jobs, &owned("Deployment")).is_empty());
    }
}
