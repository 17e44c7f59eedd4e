//! cel-go's timestamps and durations (`common/types/{timestamp,duration}.go`, Go 1.21's `time.Parse(time.RFC3339)` and `time.ParseDuration`): conversions, `string()`, and the accessors without a time zone, which read timestamps in UTC (`DefaultUTCTimeZone`) though they keep their zone offset for `string()`.

use std::ops::Deref;
use std::str::FromStr;

use cel::common::functions::Function;
use cel::common::types::{CelDuration, CelInt, CelString, CelTimestamp, DYN_TYPE};
use cel::common::value::CowVal;
use cel::{DeclarationError, Env, ExecutionError};

use super::{arguments, conversion_error, go_error, no_such_overload};
use crate::semantics::go_time::{civil, days_from_civil, days_in, parse_duration};

/// `chrono::Duration`, which backs the crate's durations.
type ChronoDuration = <CelDuration as Deref>::Target;

/// Seconds of `0001-01-01T00:00:00Z` and `9999-12-31T23:59:59Z`, cel-go's timestamp range.
const MIN_UNIX: i64 = -62_135_596_800;
const MAX_UNIX: i64 = 253_402_300_799;
const NANOS_PER_SECOND: i64 = 1_000_000_000;

pub(super) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    // The calls `kubernetes_env`'s macros redirect here, for any argument.
    let conversions: [(&str, Function); 2] = [("duration", to_duration), ("timestamp", to_timestamp)];
    for (name, function) in conversions {
        env.add_overload(&format!("@{name}"), &format!("dyn_to_{name}"), vec![DYN_TYPE], function)?;
    }
    for (name, function) in ACCESSORS.into_iter().zip(ACCESSOR_FNS) {
        env.add_overload(&format!("@{name}"), &format!("dyn_{name}"), vec![DYN_TYPE], function)?;
    }
    Ok(())
}

fn to_duration<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [value] = arguments(&args)?;
    if value.downcast_ref::<CelDuration>().is_some() {
        return Ok(args.remove(0));
    }
    let target = "google.protobuf.Duration";
    let nanos = value
        .downcast_ref::<CelString>()
        .and_then(|s| parse_duration(s.inner()))
        .ok_or_else(|| conversion_error("duration", value, target))?;
    Ok(CowVal::owned(CelDuration::from(ChronoDuration::nanoseconds(nanos))))
}

fn to_timestamp<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [value] = arguments(&args)?;
    let target = "google.protobuf.Timestamp";
    let (unix, nanos, offset) = if value.downcast_ref::<CelTimestamp>().is_some() {
        return Ok(args.remove(0));
    } else if let Some(i) = value.downcast_ref::<CelInt>() {
        (*i.inner(), 0, 0)
    } else if let Some(s) = value.downcast_ref::<CelString>() {
        parse_rfc3339(s.inner()).ok_or_else(|| conversion_error("timestamp", value, target))?
    } else {
        return Err(conversion_error("timestamp", value, target));
    };
    if !(MIN_UNIX..=MAX_UNIX).contains(&unix) {
        return Err(go_error("timestamp", "timestamp overflow"));
    }
    let timestamp = timestamp_at(unix, nanos, offset).ok_or_else(|| conversion_error("timestamp", value, target))?;
    Ok(CowVal::owned(timestamp))
}

/// `time.Parse(time.RFC3339, s)` as Go 1.21 has it, the union of its strict fast path and its
/// layout parser (which also takes a comma before the fraction, a one-digit hour, and zone
/// offsets up to `24:60`), to Unix seconds, nanoseconds and the zone's offset in seconds.
fn parse_rfc3339(s: &str) -> Option<(i64, u32, i32)> {
    let mut text = Cursor(s.as_bytes());
    let year = text.number(4, 9999)?;
    text.literal(b'-')?;
    let month = text.number(2, 12).filter(|&m| m >= 1)?;
    text.literal(b'-')?;
    let day = text.number(2, days_in(month, year)).filter(|&d| d >= 1)?;
    text.literal(b'T')?;
    let hour_len = if text.0.get(1).is_some_and(u8::is_ascii_digit) {
        2
    } else {
        1
    };
    let hour = text.number(hour_len, 23)?;
    text.literal(b':')?;
    let minute = text.number(2, 59)?;
    text.literal(b':')?;
    let second = text.number(2, 59)?;
    let mut nanos = 0;
    if let [b'.' | b',', fraction @ ..] = text.0 {
        let len = fraction.iter().take_while(|d| d.is_ascii_digit()).count();
        if len > 0 {
            // Digits past the ninth are dropped.
            let digits = &fraction[..len.min(9)];
            let value = digits.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0'));
            nanos = value * 10u32.pow(9 - digits.len() as u32);
            text.0 = &fraction[len..];
        }
    }
    let offset = match text.0 {
        [b'Z'] => 0,
        [sign @ (b'+' | b'-'), zone @ ..] => {
            let mut zone = Cursor(zone);
            let hours = zone.number(2, 24)?;
            zone.literal(b':')?;
            let minutes = zone.number(2, 60)?;
            if !zone.0.is_empty() {
                return None;
            }
            let offset = i32::try_from((hours * 60 + minutes) * 60).ok()?;
            if *sign == b'-' { -offset } else { offset }
        }
        _ => return None,
    };
    let local = days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second;
    Some((local - i64::from(offset), nanos, offset))
}

/// The rest of a text being parsed.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    /// The number of the next `len` ASCII digits, if at most `max`.
    fn number(&mut self, len: usize, max: i64) -> Option<i64> {
        let digits = self.0.get(..len).filter(|d| d.iter().all(u8::is_ascii_digit))?;
        self.0 = &self.0[len..];
        let n = digits.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0'));
        (n <= max).then_some(n)
    }

    fn literal(&mut self, expected: u8) -> Option<()> {
        let (&first, rest) = self.0.split_first()?;
        self.0 = rest;
        (first == expected).then_some(())
    }
}

/// A timestamp at `unix` seconds and `nanos`, on a clock `offset` seconds east of UTC. The
/// crate's timestamps are `chrono` values, built here through their `FromStr`.
fn timestamp_at(unix: i64, nanos: u32, offset: i32) -> Option<CelTimestamp> {
    fn parse<T: FromStr>(_: fn(&CelTimestamp) -> &T, s: &str) -> Option<T> {
        s.parse().ok()
    }
    let c = civil(unix + i64::from(offset));
    let (sign, offset) = if offset < 0 { ('-', -offset) } else { ('+', offset) };
    let text = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{nanos:09}{sign}{:02}:{:02}",
        c.year,
        c.month,
        c.day,
        c.hour,
        c.minute,
        c.second,
        offset / 3_600,
        offset % 3_600 / 60
    );
    parse(CelTimestamp::inner, &text).map(CelTimestamp::from)
}

/// `Time.Format(time.RFC3339Nano)` on the timestamp's own offset: `Z` for UTC, the fraction
/// without trailing zeros.
pub(super) fn format_timestamp(t: &CelTimestamp) -> String {
    let offset = t.inner().offset().local_minus_utc();
    let c = civil(t.inner().timestamp() + i64::from(offset));
    let mut text = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    );
    let nanos = t.inner().timestamp_subsec_nanos();
    if nanos != 0 {
        text.push_str(format!(".{nanos:09}").trim_end_matches('0'));
    }
    if offset == 0 {
        text.push('Z');
    } else {
        let (sign, offset) = if offset < 0 { ('-', -offset) } else { ('+', offset) };
        text.push_str(&format!("{sign}{:02}:{:02}", offset / 3_600, offset % 3_600 / 60));
    }
    text
}

/// `Duration.ConvertToType(StringType)`: `strconv.FormatFloat(d.Seconds(), 'f', -1, 64)` and
/// `s`; Rust's `Display` of an `f64` is the same shortest decimal.
pub(super) fn format_duration(d: &CelDuration) -> String {
    let nanos = nanos(d);
    let seconds = (nanos / NANOS_PER_SECOND) as f64 + (nanos % NANOS_PER_SECOND) as f64 / NANOS_PER_SECOND as f64;
    format!("{seconds}s")
}

/// A duration's nanoseconds; the crate keeps durations within `i64` nanoseconds.
pub(super) fn nanos(d: &CelDuration) -> i64 {
    d.inner().num_nanoseconds().unwrap_or_else(|| {
        if *d.inner() < ChronoDuration::zero() {
            i64::MIN
        } else {
            i64::MAX
        }
    })
}

/// The zero-argument accessors, read in UTC for timestamps; the last four also read durations.
pub(super) const ACCESSORS: [&str; 10] = [
    "getFullYear",
    "getMonth",
    "getDayOfYear",
    "getDayOfMonth",
    "getDate",
    "getDayOfWeek",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
];

const ACCESSOR_FNS: [Function; 10] = [
    accessor::<0>,
    accessor::<1>,
    accessor::<2>,
    accessor::<3>,
    accessor::<4>,
    accessor::<5>,
    accessor::<6>,
    accessor::<7>,
    accessor::<8>,
    accessor::<9>,
];

/// The accessor `ACCESSORS[FIELD]` (`common/types/{timestamp,duration}.go`).
fn accessor<'b, 'v, const FIELD: usize>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [target] = arguments(&args)?;
    let value = if let Some(t) = target.downcast_ref::<CelTimestamp>() {
        let c = civil(t.inner().timestamp());
        let millis = i64::from(t.inner().timestamp_subsec_nanos() / 1_000_000);
        [
            c.year,
            c.month - 1,
            c.day_of_year,
            c.day - 1,
            c.day,
            c.weekday,
            c.hour,
            c.minute,
            c.second,
            millis,
        ][FIELD]
    } else if let (Some(d), 6..) = (target.downcast_ref::<CelDuration>(), FIELD) {
        // Go's float conversions (`Int(d.Hours())`) truncate as integer division does.
        let unit = [3_600_000_000_000, 60_000_000_000, NANOS_PER_SECOND, 1_000_000][FIELD - 6];
        nanos(d) / unit
    } else {
        return Err(no_such_overload(ACCESSORS[FIELD], &args));
    };
    Ok(CowVal::owned(CelInt::from(value)))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check, string};

    #[test]
    fn durations_parse_and_print_as_go_does() {
        // time.ParseDuration; Duration.ConvertToType(StringType) prints float seconds.
        for (source, expected) in [
            ("duration('1h30m')", "5400s"),
            ("duration('-1.5h')", "-5400s"),
            ("duration('+.5s')", "0.5s"),
            ("duration('5.s')", "5s"),
            ("duration('1µs') + duration('1μs') + duration('1us')", "0.000003s"),
            ("duration('-0')", "0s"),
            ("duration('1.0000000001s')", "1s"),
            ("duration('-1ns')", "-0.000000001s"),
            ("duration('9223372036854775807ns')", "9223372036.854776s"),
            ("duration('2562047h')", "9223369200s"),
            ("duration('1h') + duration('1ms')", "3600.001s"),
        ] {
            string(source, expected);
        }
        for bad in [
            "1hfoo",
            "5",
            "",
            "1e3s",
            "1h 30m",
            "1H",
            "9223372036854775808ns",
            "2562048h",
            "infh",
            ".s",
        ] {
            check(
                &format!("duration('{bad}')"),
                Err("type conversion error from 'string' to 'google.protobuf.Duration'"),
            );
        }
        check(
            "duration(1)",
            Err("type conversion error from 'int' to 'google.protobuf.Duration'"),
        );
        check("duration('-90m').getHours()", Ok((-1).into()));
        check("duration('-1.5s').getMilliseconds()", Ok((-1500).into()));
        check("duration('-1.5s').getSeconds()", Ok((-1).into()));
    }

    #[test]
    fn timestamps_parse_as_go_rfc3339_and_keep_their_offset() {
        for (source, expected) in [
            ("'2023-01-01T10:00:00+02:00'", "2023-01-01T10:00:00+02:00"),
            ("'2023-01-01T10:00:00.120Z'", "2023-01-01T10:00:00.12Z"),
            ("'2023-01-01T10:00:00,5-00:00'", "2023-01-01T10:00:00.5Z"),
            ("'2023-01-01T1:00:00.1234567891Z'", "2023-01-01T01:00:00.123456789Z"),
            ("'2024-02-29T10:00:00+23:59'", "2024-02-29T10:00:00+23:59"),
            ("'9999-12-31T23:59:59.999999999Z'", "9999-12-31T23:59:59.999999999Z"),
        ] {
            string(&format!("timestamp({source})"), expected);
        }
        string(
            "timestamp('2023-01-01T10:00:00+02:00') + duration('1h')",
            "2023-01-01T11:00:00+02:00",
        );
        string("timestamp(1)", "1970-01-01T00:00:01Z");
        let invalid = "type conversion error from 'string' to 'google.protobuf.Timestamp'";
        for bad in [
            "2023-01-01t10:00:00z",
            "2023-01-01 10:00:00Z",
            "2023-01-01T10:00:00+0200",
            "2023-01-01T24:00:00Z",
            "2023-02-29T10:00:00Z",
            "2023-01-01T10:00:60Z",
            "10000-01-01T10:00:00Z",
            "2023-01-01T10:00:00.Z",
            "2023-1-01T10:00:00Z",
            "2023-01-01T10:0:00Z",
        ] {
            check(&format!("timestamp('{bad}')"), Err(invalid));
        }
        check("timestamp('0000-01-01T00:00:00Z')", Err("timestamp overflow"));
        check("timestamp('0001-01-01T00:00:00+01:00')", Err("timestamp overflow"));
        check("timestamp(253402300800)", Err("timestamp overflow"));
        check(
            "timestamp(dyn(1.5))",
            Err("type conversion error from 'double' to 'google.protobuf.Timestamp'"),
        );
    }

    #[test]
    fn timestamps_are_read_in_utc() {
        let t = "timestamp('2023-12-31T23:00:00.987-05:00')";
        for (accessor, expected) in [
            ("getFullYear", 2024),
            ("getMonth", 0),
            ("getDayOfYear", 0),
            ("getDayOfMonth", 0),
            ("getDate", 1),
            ("getDayOfWeek", 1),
            ("getHours", 4),
            ("getMinutes", 0),
            ("getSeconds", 0),
            ("getMilliseconds", 987),
        ] {
            check(&format!("{t}.{accessor}()"), Ok(expected.into()));
        }
        check("timestamp('1969-12-31T23:59:59.5Z').getMilliseconds()", Ok(500.into()));
        check(&format!("{t}.getHours('-05:00')"), Ok(23.into()));
        check(&format!("{t}.getHours('America/New_York')"), Ok(23.into()));
        check(
            &format!("{t}.getHours('Mars/Olympus')"),
            Err("unknown time zone Mars/Olympus"),
        );
        check("dyn('a').getHours()", Err("no such overload: getHours(string)"));
        check(
            "dyn(duration('1h')).getFullYear()",
            Err("no such overload: getFullYear(google.protobuf.Duration)"),
        );
    }
}
