//! The `date`, `datetime` and `duration` formats: strfmt's `IsDate` (Go's `time.Parse` with
//! `2006-01-02`), `IsDateTime` (a split on `t` and a pattern, not `time.Parse`) and
//! `ParseDuration` (Go's `time.ParseDuration`, else a lenient reading of `3 days 4 hours`).

use std::sync::LazyLock;

use regex::Regex;

use crate::semantics::go_time::{days_in, parse_duration};

// `DateTimePattern` on the lowercased time piece; its `.` takes any character but a newline.
static TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$").expect("valid regex")
});
// strfmt's `durationMatcher`, `((\d+)\s*([A-Za-zµ]+))`, with Go's ASCII `\d` and `\s`.
static DURATION_PART: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"([0-9]+)[\t\n\x0C\r ]*([A-Za-zµ]+)").expect("valid regex"));

/// strfmt's `timeUnits`: a unit matches a variant exactly, or starts with the last one.
const UNIT_VARIANTS: [&[&str]; 8] = [
    &["ns", "nano"],
    &["us", "µs", "micro"],
    &["ms", "milli"],
    &["s", "sec"],
    &["m", "min"],
    &["h", "hr", "hour"],
    &["d", "day"],
    &["w", "wk", "week"],
];

/// Ports strfmt's `IsDate`: `time.Parse("2006-01-02", …)` succeeds.
pub(super) fn date(value: &str) -> bool {
    // A four-digit year (0000 too), month 01–12, a day within the month, nothing more.
    let &[y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = value.as_bytes() else {
        return false;
    };
    let digits = [y0, y1, y2, y3, m0, m1, d0, d1];
    if !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let number = |ds: &[u8]| ds.iter().fold(0, |n, &d| n * 10 + i64::from(d - b'0'));
    let (year, month, day) = (number(&digits[..4]), number(&digits[4..6]), number(&digits[6..]));
    (1..=12).contains(&month) && (1..=days_in(month, year)).contains(&day)
}

/// Ports strfmt's `IsDateTime`: a date, `t`, then `DateTimePattern` (not `time.Parse`).
pub(super) fn datetime(value: &str) -> bool {
    // At least 4 bytes, lowercased and split on `t`: the first piece a date, the second
    // `hh:mm:ss[.frac](z|±hh:mm)` with hour ≤ 23, minute and second ≤ 59; later pieces ignored.
    if value.len() < 4 {
        return false;
    }
    // Go lowers every rune, but only ASCII letters can change the split or the pattern: the
    // others stay single runes other than newline, which the pattern's `.` takes either way.
    let lower = value.to_ascii_lowercase();
    let mut pieces = lower.split('t');
    let (Some(day), Some(time)) = (pieces.next(), pieces.next()) else {
        return false;
    };
    if !date(day) {
        return false;
    }
    let Some(parts) = TIME.captures(time) else { return false };
    // Go compares the two-digit strings, which orders them as numbers.
    &parts[1] <= "23" && &parts[2] <= "59" && &parts[3] <= "59"
}

/// Ports strfmt's `IsDuration`: `time.ParseDuration`, else strfmt's lenient `ParseDuration`.
pub(super) fn duration(value: &str) -> bool {
    duration_nanos(value).is_some()
}

/// strfmt's `ParseDuration` (CEL reads `format: duration` strings with it): the nanoseconds
/// of Go's `time.ParseDuration`, else of the lenient reading.
pub(crate) fn duration_nanos(value: &str) -> Option<i64> {
    parse_duration(value).or_else(|| lenient_duration(value))
}

/// Nanoseconds per unit of strfmt's `timeUnits`, in `UNIT_VARIANTS`' order.
const UNIT_NANOS: [i64; 8] = [
    1,
    1_000,
    1_000_000,
    1_000_000_000,
    60_000_000_000,
    3_600_000_000_000,
    86_400_000_000_000,
    604_800_000_000_000,
];

/// The fallback of strfmt's `ParseDuration`: every `<digits><spaces><letters>` match is read;
/// digits past `int64` fail the whole parse (`strconv.Atoi`), an unknown unit is skipped, and
/// no known unit at all fails.
fn lenient_duration(value: &str) -> Option<i64> {
    let mut known = false;
    let mut total: i64 = 0;
    for part in DURATION_PART.captures_iter(value) {
        let count = part[1].parse::<i64>().ok()?;
        let unit = part[2].to_ascii_lowercase();
        let found = UNIT_VARIANTS.iter().position(|variants| {
            variants
                .iter()
                .enumerate()
                .any(|(i, variant)| unit == *variant || (i == variants.len() - 1 && unit.starts_with(variant)))
        });
        if let Some(index) = found {
            known = true;
            // Go's `time.Duration` arithmetic wraps.
            total = total.wrapping_add(count.wrapping_mul(UNIT_NANOS[index]));
        }
    }
    known.then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_should_follow_go_time_parse() {
        for valid in ["2024-02-29", "2000-02-29", "0000-02-29", "1999-12-31"] {
            assert!(date(valid), "{valid}");
        }
        // 1900 is no leap year; Go needs two-digit months and days, and nothing after.
        for invalid in [
            "1900-02-29",
            "2023-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "2024-1-01",
        ] {
            assert!(!date(invalid), "{invalid}");
        }
        for invalid in [
            "2024-01-00",
            "24-01-01",
            "2024-01-01T00:00:00Z",
            "2024/01/01",
            "+024-01-01",
            "",
        ] {
            assert!(!date(invalid), "{invalid}");
        }
    }

    #[test]
    fn datetime_should_follow_strfmt_pattern() {
        for valid in [
            "2014-12-15T19:30:20.000Z",
            "2014-12-15t19:30:20z",
            "2014-12-15T19:30:20+01:00",
        ] {
            assert!(datetime(valid), "{valid}");
        }
        // Anything after a second `t` is ignored, `.` takes any character before the digits
        // (`İ` too, which Go lowers to `i`), and the offset has no range.
        for valid in [
            "2014-12-15T19:30:20ZTrash",
            "2014-12-15T19:30:20x5Z",
            "2014-12-15T19:30:20İ5Z",
        ] {
            assert!(datetime(valid), "{valid}");
        }
        assert!(datetime("2014-12-15T19:30:20+99:99"));
        for invalid in [
            "2014-12-15T24:00:00Z",
            "2014-12-15T19:60:20Z",
            "2014-12-15T19:30:20",
            "2014-12-15 19:30:20Z",
        ] {
            assert!(!datetime(invalid), "{invalid}");
        }
        for invalid in [
            "2014-02-30T19:30:20Z",
            "2014-12-15T19:30Z",
            "2014-12-15T19:30:20.Z",
            "",
            "T19:30:20Z",
        ] {
            assert!(!datetime(invalid), "{invalid}");
        }
    }

    #[test]
    fn duration_should_follow_go_parse_duration() {
        for valid in [
            "0", "-0", "1h30m", "-1.5h", "+.5s", "5.s", "300ms", "2µs", "2μs", "1us", "10ns",
        ] {
            assert!(duration(valid), "{valid}");
        }
        assert!(duration("9223372036854775807ns"));
        assert!(duration("-9223372036854775808ns"));
        // Go's sum wraps in uint64.
        assert!(duration("9223372036854775808ns9223372036854775808ns"));
        for invalid in ["", "-", "1", ".s", "1.5", "9223372036854775808ns", "2562048h", "1 h30m"] {
            assert!(parse_duration(invalid).is_none(), "{invalid}");
        }
    }

    #[test]
    fn duration_should_accept_strfmt_lenient_forms() {
        for valid in [
            "3 days",
            "1 hour 30 minutes",
            "10seconds",
            "2 weeks",
            "1d",
            "1 h30m",
            "5 fortnights 2 wk",
        ] {
            assert!(duration(valid), "{valid}");
        }
        // Units are lowercased; a sign or fraction before the digits is skipped; products may
        // overflow (Go's sum wraps), which time.ParseDuration refuses but this reading does not.
        for valid in ["1 DAY", "2 µs", "1.5 days", "-3 days", "2562048h"] {
            assert!(duration(valid), "{valid}");
        }
        // No number, no known unit, or a number past int64 anywhere.
        for invalid in [
            "",
            "abc",
            "1",
            "5 fortnights",
            "1y",
            "1.5",
            "99999999999999999999 days",
            "-",
        ] {
            assert!(!duration(invalid), "{invalid}");
        }
        assert!(!duration("1 day 99999999999999999999 x"));
        // The pattern knows U+00B5 MICRO SIGN only, not U+03BC GREEK SMALL LETTER MU.
        assert!(!duration("2 μs"));
    }
}
