//! The schedule arithmetic of kube-controller-manager's CronJob controller: robfig/cron v3's
//! `SpecSchedule.Next` and `dayMatches` (`spec.go`) and `Every`/`ConstantDelaySchedule.Next`
//! (`constantdelay.go`), and `mostRecentScheduleTime`, `nextScheduleTimeDuration`, `getJobName`
//! and `getTimeHashInMinutes` of `pkg/controller/cronjob/utils.go` and `cronjob_controllerv2.go`,
//! with the parts of Go's `time` they rely on (`Date`, `AddDate`, `Truncate`, `Format`).
//!
//! Times are nanoseconds since the Unix epoch, as `i128` so that Go's zero time (year 1) fits.
//! kube-controller-manager runs in UTC (its image has no zone for `Local`): a schedule without a
//! zone, and the times the informers decode, are UTC.

use chrono::{DateTime, Offset, TimeZone, Utc};
use chrono_tz::Tz;

use crate::semantics::cron_schedule::{Schedule, ScheduleError, parse_standard};
use crate::semantics::go_time::{self, Civil, days_from_civil};

pub(super) const SECOND: i128 = 1_000_000_000;
/// Go's zero `time.Time`, 0001-01-01T00:00:00Z, which `Next` returns when nothing matches.
pub(super) const ZERO_TIME: i128 = -62_135_596_800 * SECOND;
/// `starBit` of the parser (`cron_schedule`): the field was `*` or `?`.
const STAR_BIT: u64 = 1 << 63;
/// `nextScheduleDelta`: the requeue comes this much after the schedule time, for clock skew.
const NEXT_SCHEDULE_DELTA: i128 = 100_000_000;

/// A parsed schedule and the location it is read in.
pub(super) struct Cron {
    schedule: Schedule,
    zone: Tz,
}

impl Cron {
    /// `cron.ParseStandard`, keeping the zone of a `TZ=`/`CRON_TZ=` prefix (the parser has
    /// loaded it already); the error in the parser's words.
    pub(super) fn parse(spec: &str) -> Result<Self, String> {
        let schedule = parse_standard(spec).map_err(|error| match error {
            ScheduleError::Invalid(why) => why,
            // Go's parser panics here; kube-apiserver never stores such a schedule.
            ScheduleError::Panics => format!("no space after the zone of {spec}"),
        })?;
        let zone = ["TZ=", "CRON_TZ="]
            .iter()
            .find_map(|prefix| spec.strip_prefix(prefix))
            .and_then(|rest| rest.split_once(' '))
            .map_or(Tz::UTC, |(name, _)| zone_named(name));
        Ok(Self { schedule, zone })
    }

    /// `Schedule.Next`: the first activation after `t`, whole seconds.
    pub(super) fn next(&self, t: i128) -> i128 {
        match &self.schedule {
            // `Every` rounds the delay to whole seconds, at least one; `Next` drops `t`'s fraction.
            Schedule::Every(delay) => {
                let delay = i128::from(*delay).max(SECOND);
                t + delay - delay % SECOND - t.rem_euclid(SECOND)
            }
            Schedule::Spec(fields) => next_spec(fields, self.zone, t),
        }
    }
}

/// `time.LoadLocation` of a name known to load: `""`, `UTC` and `Local` are UTC here.
fn zone_named(name: &str) -> Tz {
    match name {
        "" | "UTC" | "Local" => Tz::UTC,
        name => name.parse().unwrap_or(Tz::UTC),
    }
}

/// The zone's offset from UTC at the instant `secs`, in seconds.
fn offset(zone: Tz, secs: i64) -> i64 {
    DateTime::<Utc>::from_timestamp(secs, 0).map_or(0, |utc| {
        i64::from(zone.offset_from_utc_datetime(&utc.naive_utc()).fix().local_minus_utc())
    })
}

/// The wall clock of an instant in a zone.
fn civil(zone: Tz, secs: i64) -> Civil {
    go_time::civil(secs + offset(zone, secs))
}

/// `time.Date` in `zone`, an overflowing month or day carried over. A wall clock a transition
/// skips or repeats gets the offset Go picks: the one in effect at the clock read as UTC, moved
/// by that offset.
fn date(zone: Tz, year: i64, month: i64, day: i64, hour: i64, minute: i64, second: i64) -> i64 {
    let year = year + (month - 1).div_euclid(12);
    let month = (month - 1).rem_euclid(12) + 1;
    let unix = (days_from_civil(year, month, 1) + day - 1) * 86_400 + hour * 3600 + minute * 60 + second;
    unix - offset(zone, unix - offset(zone, unix))
}

/// `t.AddDate(0, months, days)`: the same wall clock that many months and days later.
fn add_date(zone: Tz, secs: i64, months: i64, days: i64) -> i64 {
    let c = civil(zone, secs);
    date(zone, c.year, c.month + months, c.day + days, c.hour, c.minute, c.second)
}

/// Whether `value`'s bit is set.
fn has(bits: u64, value: i64) -> bool {
    bits & (1u64 << value) != 0
}

/// `dayMatches`: both day fields must match when either is a star, else either may.
fn day_matches(dom: u64, dow: u64, c: Civil) -> bool {
    let (dom_match, dow_match) = (has(dom, c.day), has(dow, c.weekday));
    if dom & STAR_BIT != 0 || dow & STAR_BIT != 0 {
        dom_match && dow_match
    } else {
        dom_match || dow_match
    }
}

/// `SpecSchedule.Next`: field by field from the month down, a field that does not match moved
/// on (the finer ones reset the first time), back to the month when one wraps; nothing within
/// five years is the zero time.
fn next_spec(fields: &[u64; 6], zone: Tz, from: i128) -> i128 {
    let [second_bits, minute_bits, hour_bits, dom_bits, month_bits, dow_bits] = *fields;
    let mut t = from.div_euclid(SECOND) as i64 + 1;
    let year_limit = civil(zone, t).year + 5;
    let mut added = false;
    'wrap: loop {
        if civil(zone, t).year > year_limit {
            break ZERO_TIME;
        }
        while !has(month_bits, civil(zone, t).month) {
            if !added {
                added = true;
                let c = civil(zone, t);
                t = date(zone, c.year, c.month, 1, 0, 0, 0);
            }
            t = add_date(zone, t, 1, 0);
            if civil(zone, t).month == 1 {
                continue 'wrap;
            }
        }
        while !day_matches(dom_bits, dow_bits, civil(zone, t)) {
            if !added {
                added = true;
                let c = civil(zone, t);
                t = date(zone, c.year, c.month, c.day, 0, 0, 0);
            }
            t = add_date(zone, t, 0, 1);
            // Where midnight does not exist the day starts at 1am, or at 11pm the day before.
            let hour = civil(zone, t).hour;
            if hour > 12 {
                t += (24 - hour) * 3600;
            } else if hour != 0 {
                t -= hour * 3600;
            }
            if civil(zone, t).day == 1 {
                continue 'wrap;
            }
        }
        while !has(hour_bits, civil(zone, t).hour) {
            if !added {
                added = true;
                let c = civil(zone, t);
                t = date(zone, c.year, c.month, c.day, c.hour, 0, 0);
            }
            t += 3600;
            if civil(zone, t).hour == 0 {
                continue 'wrap;
            }
        }
        while !has(minute_bits, civil(zone, t).minute) {
            if !added {
                added = true;
                // `Truncate` works on the absolute time, not the wall clock.
                t = t.div_euclid(60) * 60;
            }
            t += 60;
            if civil(zone, t).minute == 0 {
                continue 'wrap;
            }
        }
        while !has(second_bits, civil(zone, t).second) {
            // Truncating to the second changes nothing: `t` is whole seconds already. The flag
            // still matters after a wrap.
            added = true;
            t += 1;
            if civil(zone, t).second == 0 {
                continue 'wrap;
            }
        }
        break i128::from(t) * SECOND;
    }
}

/// How many schedule times `mostRecentScheduleTime` estimates were missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Missed {
    Nothing,
    Few,
    /// More than 100.
    Many,
}

/// What `mostRecentScheduleTime` finds.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct MostRecent {
    /// Where the search started.
    pub(super) earliest: i128,
    /// The latest schedule time not after `now`, if any.
    pub(super) time: Option<i128>,
    pub(super) missed: Missed,
}

/// `mostRecentScheduleTime` from `earliest` (the last schedule time, else the creation time),
/// or from `deadline` seconds before `now` when that is later; the error of a schedule whose
/// next two times are not a second apart (one that never fires).
pub(super) fn most_recent_schedule_time(
    cron: &Cron,
    earliest: i128,
    deadline: Option<i64>,
    now: i128,
) -> Result<MostRecent, &'static str> {
    let mut earliest = earliest;
    if let Some(deadline) = deadline {
        earliest = earliest.max(now - i128::from(deadline) * SECOND);
    }
    let found = |time: Option<i128>, missed: Missed| -> Result<MostRecent, &'static str> {
        Ok(MostRecent { earliest, time, missed })
    };
    let t1 = cron.next(earliest);
    let t2 = cron.next(t1);
    if now < t1 {
        return found(None, Missed::Nothing);
    }
    if now < t2 {
        return found(Some(t1), Missed::Nothing);
    }
    let between = (t2 - t1 + SECOND / 2).div_euclid(SECOND);
    if between < 1 {
        return Err("time difference between two schedules is less than 1 second");
    }
    // A rough count of the intervals since `t1`; the walk starts one interval before the last.
    let missed = (now - t1) / SECOND / between + 1;
    let mut t = cron.next(t1 + (missed - 2) * between * SECOND);
    let mut time = None;
    while t <= now {
        time = Some(t);
        let later = cron.next(t);
        // Go would walk for ever once `Next` gives the zero time.
        if later <= t {
            break;
        }
        t = later;
    }
    let missed = match missed {
        101.. => Missed::Many,
        1.. => Missed::Few,
        _ => Missed::Nothing,
    };
    found(time, missed)
}

/// `nextScheduleTimeDuration`: how long after `now` to sync again, 100ms past the schedule time
/// that follows the most recent one (deadline left aside), or `earliest` when none was missed,
/// or `now` when some were or the schedule never fires.
pub(super) fn next_schedule_time_duration(cron: &Cron, earliest: i128, now: i128) -> i128 {
    let from = match most_recent_schedule_time(cron, earliest, None, now) {
        Ok(MostRecent { time: Some(time), .. }) => time,
        Ok(MostRecent {
            missed: Missed::Nothing,
            earliest,
            ..
        }) => earliest,
        Ok(_) | Err(_) => now,
    };
    cron.next(from) + NEXT_SCHEDULE_DELTA - now
}

/// `getJobName`: the CronJob's name and the scheduled time in minutes since the epoch.
pub(super) fn job_name(cronjob: &str, scheduled: i128) -> String {
    format!("{cronjob}-{}", scheduled.div_euclid(SECOND) as i64 / 60)
}

/// `t.In(zone).Format(time.RFC3339)`, the zone loaded by `name`.
pub(super) fn rfc3339(name: &str, t: i128) -> String {
    let (zone, secs) = (zone_named(name), t.div_euclid(SECOND) as i64);
    let (c, offset) = (civil(zone, secs), offset(zone, secs));
    let offset = if offset == 0 {
        "Z".to_owned()
    } else {
        let sign = if offset < 0 { '-' } else { '+' };
        let minutes = offset.abs() / 60;
        format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
    };
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{offset}",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

/// `t.UTC().Format(time.RFC1123Z)`.
pub(super) fn rfc1123z(t: i128) -> String {
    jiff::Timestamp::from_nanosecond(t)
        .map(|t| t.strftime("%a, %d %b %Y %H:%M:%S +0000").to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> i128 {
        text.parse::<jiff::Timestamp>().expect("a valid time").as_nanosecond()
    }

    fn cron(spec: &str) -> Cron {
        Cron::parse(spec).expect("a valid schedule")
    }

    fn next(spec: &str, from: &str) -> String {
        rfc3339("", cron(spec).next(at(from)))
    }

    #[test]
    fn steps_and_ranges_should_find_the_next_matching_minute() {
        assert_eq!(next("*/5 * * * *", "2024-01-01T00:00:00Z"), "2024-01-01T00:05:00Z");
        assert_eq!(next("*/5 * * * *", "2024-01-01T00:03:27.5Z"), "2024-01-01T00:05:00Z");
        assert_eq!(next("*/5 * * * *", "2024-01-01T23:58:00Z"), "2024-01-02T00:00:00Z");
        // Friday after hours: Monday at nine.
        assert_eq!(next("0 9-17 * * 1-5", "2024-01-05T17:30:00Z"), "2024-01-08T09:00:00Z");
        assert_eq!(next("0 9-17 * * 1-5", "2024-01-08T09:00:00Z"), "2024-01-08T10:00:00Z");
        assert_eq!(next("@hourly", "2024-01-01T10:59:59Z"), "2024-01-01T11:00:00Z");
        assert_eq!(next("@hourly", "2024-01-01T11:00:00Z"), "2024-01-01T12:00:00Z");
    }

    #[test]
    fn day_of_month_and_weekday_should_match_either_unless_one_is_a_star() {
        // 2024-01-01 is a Monday: Fridays are the 5th and 12th, the 13th a Saturday.
        assert_eq!(next("0 0 13 * 5", "2024-01-01T00:00:00Z"), "2024-01-05T00:00:00Z");
        assert_eq!(next("0 0 13 * 5", "2024-01-05T00:00:00Z"), "2024-01-12T00:00:00Z");
        assert_eq!(next("0 0 13 * 5", "2024-01-12T00:00:00Z"), "2024-01-13T00:00:00Z");
        assert_eq!(next("0 0 13 * *", "2024-01-01T00:00:00Z"), "2024-01-13T00:00:00Z");
        assert_eq!(next("0 0 * * 5", "2024-01-06T00:00:00Z"), "2024-01-12T00:00:00Z");
    }

    #[test]
    fn every_should_step_whole_seconds_from_the_last_second() {
        assert_eq!(next("@every 90s", "2024-01-01T00:00:00.5Z"), "2024-01-01T00:01:30Z");
        assert_eq!(next("@every 1m30.7s", "2024-01-01T00:00:00Z"), "2024-01-01T00:01:30Z");
        assert_eq!(next("@every 500ms", "2024-01-01T00:00:00.25Z"), "2024-01-01T00:00:01Z");
    }

    #[test]
    fn a_zone_should_move_the_wall_clock_and_skip_a_missing_hour() {
        assert_eq!(
            next("TZ=Europe/Berlin 0 9 * * *", "2024-01-01T00:00:00Z"),
            "2024-01-01T08:00:00Z"
        );
        assert_eq!(
            next("TZ=Europe/Berlin 0 9 * * *", "2024-07-01T00:00:00Z"),
            "2024-07-01T07:00:00Z"
        );
        // 02:30 does not exist on 2024-03-31 in Berlin: the next one is on April 1st.
        assert_eq!(
            next("CRON_TZ=Europe/Berlin 30 2 * * *", "2024-03-30T12:00:00Z"),
            "2024-04-01T00:30:00Z"
        );
    }

    #[test]
    fn an_impossible_date_should_never_fire() {
        let never = cron("0 0 30 2 *");
        assert_eq!(never.next(at("2024-01-01T00:00:00Z")), ZERO_TIME);
        assert_eq!(
            most_recent_schedule_time(&never, at("2024-01-01T00:00:00Z"), None, at("2024-06-01T00:00:00Z")),
            Err("time difference between two schedules is less than 1 second")
        );
    }

    #[test]
    fn most_recent_should_be_the_last_time_not_after_now_within_the_deadline() {
        let minutely = cron("*/1 * * * *");
        let (created, now) = (at("2024-01-01T10:00:00Z"), at("2024-01-01T10:05:30Z"));
        let recent = |deadline| most_recent_schedule_time(&minutely, created, deadline, now).unwrap();
        assert_eq!(
            recent(None),
            MostRecent {
                earliest: created,
                time: Some(at("2024-01-01T10:05:00Z")),
                missed: Missed::Few
            }
        );
        assert_eq!(
            recent(Some(60)),
            MostRecent {
                earliest: at("2024-01-01T10:04:30Z"),
                time: Some(at("2024-01-01T10:05:00Z")),
                missed: Missed::Nothing
            }
        );
        assert_eq!(recent(Some(10)).time, None);
        let early = most_recent_schedule_time(&minutely, created, None, at("2024-01-01T10:00:30Z")).unwrap();
        assert_eq!((early.time, early.missed), (None, Missed::Nothing));
        let late = most_recent_schedule_time(&minutely, created, None, at("2024-01-01T13:20:30Z")).unwrap();
        assert_eq!(
            (late.time, late.missed),
            (Some(at("2024-01-01T13:20:00Z")), Missed::Many)
        );
    }

    #[test]
    fn the_requeue_should_come_after_the_next_time_plus_a_delta() {
        let five = cron("*/5 * * * *");
        let last = at("2024-01-01T10:05:00Z");
        assert_eq!(
            next_schedule_time_duration(&five, last, at("2024-01-01T10:07:00Z")),
            180_100_000_000
        );
        assert_eq!(
            next_schedule_time_duration(&five, last, at("2024-01-01T10:16:00Z")),
            240_100_000_000
        );
    }

    #[test]
    fn names_and_formats_should_be_gos() {
        assert_eq!(job_name("hello", at("2024-01-01T00:00:00Z")), "hello-28401120");
        let t = at("2024-01-01T08:00:00Z");
        assert_eq!(rfc3339("", t), "2024-01-01T08:00:00Z");
        assert_eq!(rfc3339("Europe/Berlin", t), "2024-01-01T09:00:00+01:00");
        assert_eq!(rfc3339("America/New_York", t), "2024-01-01T03:00:00-05:00");
        assert_eq!(rfc3339("Asia/Kolkata", t), "2024-01-01T13:30:00+05:30");
        assert_eq!(rfc1123z(t), "Mon, 01 Jan 2024 08:00:00 +0000");
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(go_time::civil_from_days(days_from_civil(2024, 2, 29)), (2024, 2, 29));
    }
}
