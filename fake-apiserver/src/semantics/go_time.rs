//! Go's `time` package as more than one port reads times with it (`time/format.go` of Go 1.21):
//! `ParseDuration`, `LoadLocation`, and the month lengths `Parse` checks a day against.

/// 2⁶³: Go's durations are `int64` nanoseconds, parsed as `uint64` magnitudes up to this.
const TWO_TO_63: u64 = 1 << 63;

/// Ports Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with units ns, us, µs, μs,
/// ms, s, m, h, a lone `0` needing none, and the total within ±2⁶³ ns; `None` for any of its
/// errors, which its callers report alike.
pub(crate) fn parse_duration(s: &str) -> Option<i64> {
    go_parse_duration(s).ok()
}

/// `time.ParseDuration` with its error's text (`time: missing unit in duration "5"`).
pub(crate) fn go_parse_duration(orig: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", quote(orig));
    let (negative, mut s) = match orig.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        s => (false, s),
    };
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if s[0] != b'.' && !s[0].is_ascii_digit() {
            return Err(invalid());
        }
        let int_len = s.iter().take_while(|b| b.is_ascii_digit()).count();
        let mut v = leading_int(&s[..int_len]).ok_or_else(invalid)?;
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
            return Err(invalid());
        }
        let unit_len = s.iter().take_while(|&&b| b != b'.' && !b.is_ascii_digit()).count();
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {}", quote(orig)));
        }
        let Some(unit) = unit_nanos(&s[..unit_len]) else {
            // The unit ends at an ASCII byte, so it is whole characters.
            let name = String::from_utf8_lossy(&s[..unit_len]);
            return Err(format!(
                "time: unknown unit {} in duration {}",
                quote(&name),
                quote(orig)
            ));
        };
        s = &s[unit_len..];
        if v > TWO_TO_63 / unit {
            return Err(invalid());
        }
        v *= unit;
        if fraction > 0 {
            // Go's float64 arithmetic, truncated as its conversion to uint64 truncates.
            v += (fraction as f64 * (unit as f64 / scale)) as u64;
            if v > TWO_TO_63 {
                return Err(invalid());
            }
        }
        // Go adds in uint64, wrapping: two halves of 2⁶³ sum to 0 and pass.
        total = total.wrapping_add(v);
        if total > TWO_TO_63 {
            return Err(invalid());
        }
    }
    if negative {
        // -2⁶³ is the one magnitude of 2⁶³ that fits.
        Ok((total as i64).wrapping_neg())
    } else if total < TWO_TO_63 {
        Ok(total as i64)
    } else {
        Err(invalid())
    }
}

/// The `time` package's own `quote`: ASCII as it is (quotes and backslashes escaped), every
/// byte of anything else as `\xNN`.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{byte:02x}"));
            }
        }
    }
    out.push('"');
    out
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

/// `time.LoadLocation` as kube-apiserver runs it, with the IANA database built in (it imports
/// `time/tzdata` for CronJob time zones): `""`, `UTC` and `Local` always load, a name with `..`
/// or a leading slash is refused outright, any other must name a zone of the database
/// (chrono-tz's copy of it, matched case-sensitively as Go's zip is); the error's text otherwise.
pub(crate) fn load_location(name: &str) -> Result<(), String> {
    if matches!(name, "" | "UTC" | "Local") {
        return Ok(());
    }
    if name.contains("..") || name.starts_with('/') || name.starts_with('\\') {
        return Err("time: invalid location name".to_owned());
    }
    name.parse::<chrono_tz::Tz>()
        .map(drop)
        .map_err(|_| format!("unknown time zone {name}"))
}

/// `daysIn`: the days of `month` (1 to 12) in `year` of the proleptic Gregorian calendar.
pub(crate) fn days_in(month: i64, year: i64) -> i64 {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Go's `time.Time.String()` of an RFC 3339 UTC time (`2026-02-01 00:00:00 +0000 UTC`); the
/// zero time for none.
pub(crate) fn time_string(time: &str) -> String {
    let Some((date, clock)) = time.trim_end_matches('Z').split_once('T') else {
        return "0001-01-01 00:00:00 +0000 UTC".to_owned();
    };
    let clock = match clock.split_once('.') {
        Some((whole, fraction)) => {
            let fraction = fraction.trim_end_matches('0');
            if fraction.is_empty() {
                whole.to_owned()
            } else {
                format!("{whole}.{fraction}")
            }
        }
        None => clock.to_owned(),
    };
    format!("{date} {clock} +0000 UTC")
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`), as
/// Go's `time.Date` counts them.
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The year, month and day of a day since 1970-01-01 (Hinnant's `civil_from_days`).
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400;
    (if month <= 2 { year + 1 } else { year }, month, day)
}

/// A moment's calendar fields, in the zone of the offset it was read with (Go's `Time.Date`,
/// `Clock`, `Weekday`, `YearDay` less one).
pub(crate) struct Civil {
    pub(crate) year: i64,
    pub(crate) month: i64,
    pub(crate) day: i64,
    pub(crate) day_of_year: i64,
    /// 0 for Sunday.
    pub(crate) weekday: i64,
    pub(crate) hour: i64,
    pub(crate) minute: i64,
    pub(crate) second: i64,
}

/// The calendar fields of `seconds` since the epoch, on the local clock of that many seconds.
pub(crate) fn civil(seconds: i64) -> Civil {
    let days = seconds.div_euclid(86_400);
    let time = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    Civil {
        year,
        month,
        day,
        day_of_year: days - days_from_civil(year, 1, 1),
        weekday: (days + 4).rem_euclid(7),
        hour: time / 3_600,
        minute: time % 3_600 / 60,
        second: time % 60,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_duration_should_stop_at_go_overflow_checks() {
        // `leadingInt` refuses a prefix past 2⁶³ / 10 before multiplying, so a value that
        // would wrap `u64` is refused rather than read modulo 2⁶⁴.
        assert_eq!(parse_duration("18446744073709551619ns"), None);
        // `leadingFraction` stops gaining digits instead.
        assert_eq!(parse_duration("0.18446744073709551619s"), Some(184_467_440));
        assert_eq!(parse_duration("-9223372036854775808ns"), Some(i64::MIN));
    }

    #[test]
    fn parse_duration_errors_should_read_as_go_words_them() {
        assert_eq!(go_parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(
            go_parse_duration("5").unwrap_err(),
            r#"time: missing unit in duration "5""#
        );
        assert_eq!(
            go_parse_duration("5q").unwrap_err(),
            r#"time: unknown unit "q" in duration "5q""#
        );
        assert_eq!(go_parse_duration("").unwrap_err(), r#"time: invalid duration """#);
        assert_eq!(go_parse_duration("x").unwrap_err(), r#"time: invalid duration "x""#);
        assert_eq!(
            go_parse_duration("9223372036854775808ns").unwrap_err(),
            r#"time: invalid duration "9223372036854775808ns""#
        );
        // Non-ASCII is written byte by byte.
        assert_eq!(
            go_parse_duration("1é").unwrap_err(),
            r#"time: unknown unit "\xc3\xa9" in duration "1\xc3\xa9""#
        );
    }

    #[test]
    fn load_location_should_know_iana_names_only() {
        for known in [
            "",
            "UTC",
            "Local",
            "Europe/Berlin",
            "America/Argentina/Buenos_Aires",
            "Etc/GMT+5",
            "US/Eastern",
        ] {
            assert_eq!(load_location(known), Ok(()), "{known}");
        }
        assert_eq!(
            load_location("Mars/Olympus").unwrap_err(),
            "unknown time zone Mars/Olympus"
        );
        assert_eq!(
            load_location("europe/berlin").unwrap_err(),
            "unknown time zone europe/berlin"
        );
        assert_eq!(load_location("a..b").unwrap_err(), "time: invalid location name");
        assert_eq!(load_location("/etc/passwd").unwrap_err(), "time: invalid location name");
    }

    #[test]
    fn days_in_should_follow_the_gregorian_leap_rule() {
        assert_eq!(days_in(2, 2024), 29);
        assert_eq!(days_in(2, 1900), 28);
        assert_eq!(days_in(2, 2000), 29);
        assert_eq!(days_in(2, 0), 29);
        assert_eq!(days_in(4, 2023), 30);
        assert_eq!(days_in(12, 2023), 31);
    }
}
