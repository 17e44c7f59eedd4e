//! Go's `time.Parse` (`time/format.go` of Go 1.21) with the two layouts kube-apiserver decodes
//! timestamps with — `time.RFC3339` for a `metav1.Time`, `metav1.RFC3339Micro` (exactly six
//! fractional digits) for a `metav1.MicroTime` — reduced to whether a string parses and, when
//! it does not, `ParseError`'s words (`parsing time "x" as "2006-…": cannot parse "x" as
//! "2006"`, or `…: month out of range`).

use crate::semantics::go_time::{days_in, quote};

/// `time.RFC3339` and `metav1.RFC3339Micro`.
pub(crate) const RFC3339: &str = "2006-01-02T15:04:05Z07:00";
pub(crate) const RFC3339_MICRO: &str = "2006-01-02T15:04:05.000000Z07:00";

/// The layout's elements in order: literals and the std chunks `Parse` reads.
const ELEMENTS: [&str; 13] = [
    "2006", "-", "01", "-", "02", "T", "15", ":", "04", ":", "05", ".000000", "Z07:00",
];

/// Why `time.Parse(layout, value)` fails, in Go's words; `None` when it parses. `micro` picks
/// `RFC3339_MICRO` over `RFC3339`.
pub(crate) fn parse_error(value: &str, micro: bool) -> Option<String> {
    let layout = if micro { RFC3339_MICRO } else { RFC3339 };
    let cannot = |rest: &str, element: &str| {
        Some(format!(
            "parsing time {} as {}: cannot parse {} as {}",
            quote(value),
            quote(layout),
            quote(rest),
            quote(element)
        ))
    };
    let out_of_range = |what: &str| Some(format!("parsing time {}: {what} out of range", quote(value)));
    let mut rest = value;
    let (mut year, mut month, mut day) = (0i64, 0i64, 0i64);
    for element in ELEMENTS.iter().filter(|e| micro || **e != ".000000") {
        let hold = rest;
        match *element {
            "2006" => {
                let digits = rest.get(..4).filter(|d| d.bytes().all(|b| b.is_ascii_digit()));
                let Some(digits) = digits else {
                    return cannot(hold, element);
                };
                year = digits.parse().unwrap_or(0);
                rest = &rest[4..];
            }
            "01" | "02" | "04" | "05" | "15" => {
                // `getnum`: two digits, but the hour may have one.
                let Some((number, after)) = number(rest, *element != "15") else {
                    return cannot(hold, element);
                };
                rest = after;
                // The day is checked against its month once everything parsed.
                let (what, ok) = match *element {
                    "01" => ("month", (1..=12).contains(&number)),
                    "02" => ("day", true),
                    "15" => ("hour", number < 24),
                    "04" => ("minute", number < 60),
                    _ => ("second", number < 60),
                };
                if !ok {
                    return out_of_range(what);
                }
                match *element {
                    "01" => month = number,
                    "02" => day = number,
                    // A fraction the layout does not ask for is read after the seconds.
                    "05" if !micro => rest = skip_fraction(rest),
                    _ => {}
                }
            }
            ".000000" => {
                // `parseNanoseconds`: a `.` or `,`, then six characters `atoi` reads (a sign
                // included; a negative fraction is out of range).
                let Some(fraction) = rest.get(..7).filter(|f| matches!(f.as_bytes()[0], b'.' | b',')) else {
                    return cannot(hold, element);
                };
                let digits = &fraction[1..];
                let unsigned = digits.strip_prefix(['+', '-']).unwrap_or(digits);
                if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
                    return cannot(hold, element);
                }
                if digits.starts_with('-') && unsigned.bytes().any(|b| b != b'0') {
                    return out_of_range("fractional second");
                }
                rest = &rest[7..];
            }
            "Z07:00" => match zone(rest) {
                Some(after) => rest = after,
                None => return cannot(hold, element),
            },
            literal => match rest.strip_prefix(literal) {
                Some(after) => rest = after,
                None => return cannot(hold, literal),
            },
        }
    }
    if !rest.is_empty() {
        return Some(format!("parsing time {}: extra text: {}", quote(value), quote(rest)));
    }
    if day < 1 || day > days_in(month, year) {
        return out_of_range("day");
    }
    None
}

/// `getnum`: one or two digits (`fixed`: exactly two) and what follows.
fn number(text: &str, fixed: bool) -> Option<(i64, &str)> {
    let bytes = text.as_bytes();
    let first = *bytes.first().filter(|b| b.is_ascii_digit())?;
    match bytes.get(1) {
        Some(second) if second.is_ascii_digit() => {
            Some((i64::from(first - b'0') * 10 + i64::from(second - b'0'), &text[2..]))
        }
        _ if fixed => None,
        _ => Some((i64::from(first - b'0'), &text[1..])),
    }
}

/// A fractional second (`.` or `,` then digits) after the seconds, when there is one.
fn skip_fraction(text: &str) -> &str {
    let bytes = text.as_bytes();
    if bytes.len() >= 2 && (bytes[0] == b'.' || bytes[0] == b',') && bytes[1].is_ascii_digit() {
        let digits = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
        return &text[1 + digits..];
    }
    text
}

/// `stdISO8601ColonTZ`: `Z`, or a sign, two digits, a colon and two digits.
fn zone(text: &str) -> Option<&str> {
    if let Some(after) = text.strip_prefix('Z') {
        return Some(after);
    }
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| bytes.get(range).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let well_formed =
        bytes.len() >= 6 && matches!(bytes[0], b'+' | b'-') && bytes[3] == b':' && digits(1..3) && digits(4..6);
    well_formed.then(|| &text[6..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micro_times_should_have_six_fractional_digits() {
        assert_eq!(parse_error("2026-11-29T10:00:00.123456Z", true), None);
        assert_eq!(parse_error("2026-11-29T12:00:00.250000+02:00", true), None);
        assert_eq!(
            parse_error("2026-11-29T10:00:01.5Z", true).unwrap(),
            r#"parsing time "2026-11-29T10:00:01.5Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".5Z" as ".000000""#
        );
        assert_eq!(
            parse_error("2026-11-29T10:00:00.123456789Z", true).unwrap(),
            r#"parsing time "2026-11-29T10:00:00.123456789Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "789Z" as "Z07:00""#
        );
    }

    #[test]
    fn words_should_be_go_s() {
        assert_eq!(
            parse_error("yesterday", true).unwrap(),
            r#"parsing time "yesterday" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "yesterday" as "2006""#
        );
        assert_eq!(
            parse_error("2026-13-01T00:00:00Z", false).unwrap(),
            r#"parsing time "2026-13-01T00:00:00Z": month out of range"#
        );
        assert_eq!(
            parse_error("2026-02-30T00:00:00Z", false).unwrap(),
            r#"parsing time "2026-02-30T00:00:00Z": day out of range"#
        );
        assert_eq!(parse_error("2026-02-03T04:05:06.789Z", false), None);
        // The day is checked last: the hour's range fails first.
        assert_eq!(
            parse_error("2026-01-32T25:00:00Z", false).unwrap(),
            r#"parsing time "2026-01-32T25:00:00Z": hour out of range"#
        );
        assert_eq!(parse_error("2026-01-01T00:00:00.+12345Z", true), None);
        assert_eq!(
            parse_error("2026-01-01T00:00:00.-12345Z", true).unwrap(),
            r#"parsing time "2026-01-01T00:00:00.-12345Z": fractional second out of range"#
        );
        assert_eq!(
            parse_error("2026-02-03T04:05:06Zjunk", false).unwrap(),
            r#"parsing time "2026-02-03T04:05:06Zjunk": extra text: "junk""#
        );
    }
}
