//! The `date`, `datetime` and `duration` formats: strfmt's `IsDate` (Go's `time.Parse` with
//! `2006-01-02`), `IsDateTime` (a split on `t` and a pattern, not `time.Parse`) and
//! `ParseDuration` (Go's `time.ParseDuration`, else a lenient reading of `3 days 4 hours`).

use std::sync::LazyLock;

use regex::Regex;

// `DateTimePattern` on the lowercased time piece; its `.` takes any character but a newline.
static TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$").expect("valid regex")
});
// strfmt's `durationMatcher`, `((\d+)\s*([A-Za-zµ]+))`, with Go's ASCII `\d` and `\s`.
static DURATION_PART: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"([0-9]+)[\t\n\x0C\r ]*([A-Za-zµ]+)").expect("valid regex"));

/// 2⁶³: Go's durations are `int64` nanoseconds, parsed as `uint64` magnitudes up to this.
const TWO_TO_63: u64 = 1 << 63;

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
    let number = |ds: &[u8]| ds.iter().fold(0, |n, &d| n * 10 + u32::from(d - b'0'));
    let (year, month, day) = (number(&digits[..4]), number(&digits[4..6]), number(&digits[6..]));
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return false,
    };
    (1..=days).contains(&day)
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
    go_duration(value.as_bytes()).or_else(|| lenient_duration(value))
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

/// Ports Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with units ns, us, µs, μs,
/// ms, s, m, h, a lone `0` needing none, and the total within ±2⁶³ ns.
fn go_duration(s: &[u8]) -> Option<i64> {
    let (negative, mut s) = match s {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, s),
    };
    if s == b"0" {
        return Some(0);
    }
    if s.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if s[0] != b'.' && !s[0].is_ascii_digit() {
            return None;
        }
        let int_len = s.iter().take_while(|b| b.is_ascii_digit()).count();
        let mut v = leading_int(&s[..int_len])?;
        s = &s[int_len..];
        let (mut fraction, mut scale, mut post) = (0, 1.0, false);
        if let [b'.', rest @ ..] = s {
            let fraction_len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            (fraction, scale) = leading_fraction(&rest[..fraction_len]);
            post = fraction_len > 0;
            s = &rest[fraction_len..];
        }
        // No digits at all, as in `.s`.
        if int_len == 0 && !post {
            return None;
        }
        let unit_len = s.iter().take_while(|&&b| b != b'.' && !b.is_ascii_digit()).count();
        let unit = unit_nanos(&s[..unit_len])?;
        s = &s[unit_len..];
        if v > TWO_TO_63 / unit {
            return None;
        }
        v *= unit;
        if fraction > 0 {
            // Go's float64 arithmetic, truncated as its conversion to uint64 truncates.
            v += (fraction as f64 * (unit as f64 / scale)) as u64;
            if v > TWO_TO_63 {
                return None;
            }
        }
        // Go adds in uint64, wrapping: two halves of 2⁶³ sum to 0 and pass.
        total = total.wrapping_add(v);
        if total > TWO_TO_63 {
            return None;
        }
    }
    if negative {
        // -2⁶³ is the one magnitude of 2⁶³ that fits.
        Some((total as i64).wrapping_neg())
    } else {
        (total < TWO_TO_63).then_some(total as i64)
    }
}

/// `leadingInt`: the digits' value, or `None` past 2⁶³.
fn leading_int(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |x, &d| {
        if x > TWO_TO_63 / 10 {
            return None;
        }
        let x = x * 10 + u64::from(d - b'0');
        (x <= TWO_TO_63).then_some(x)
    })
}

/// `leadingFraction`: the digits' value and its power of ten, digits past overflow ignored.
fn leading_fraction(digits: &[u8]) -> (u64, f64) {
    let (mut x, mut scale) = (0u64, 1.0);
    for &d in digits {
        if x > (TWO_TO_63 - 1) / 10 {
            break;
        }
        let y = x * 10 + u64::from(d - b'0');
        if y > TWO_TO_63 {
            break;
        }
        x = y;
        scale *= 10.0;
    }
    (x, scale)
}

/// `unitMap`: nanoseconds per unit; `µs` is U+00B5 MICRO SIGN, `μs` U+03BC GREEK SMALL LETTER MU.
fn unit_nanos(unit: &[u8]) -> Option<u64> {
    match unit {
        [b'n', b's'] => Some(1),
        [b'u', b's'] | [0xC2, 0xB5, b's'] | [0xCE, 0xBC, b's'] => Some(1_000),
        [b'm', b's'] => Some(1_000_000),
        [b's'] => Some(1_000_000_000),
        [b'm'] => Some(60_000_000_000),
        [b'h'] => Some(3_600_000_000_000),
        _ => None,
    }
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
            assert!(go_duration(invalid.as_bytes()).is_none(), "{invalid}");
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
