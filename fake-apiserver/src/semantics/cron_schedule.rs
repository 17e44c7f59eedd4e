//! The cron parser of `vendor/github.com/robfig/cron/v3/parser.go` (v3.0.1, kube-apiserver v1.28).
//!
//! `ParseStandard`, which a CronJob's schedule must pass: five fields or a descriptor, after an
//! optional `TZ=`/`CRON_TZ=` zone, with the parser's exact errors (`spec.go` gives the bounds).

use crate::semantics::field_error::go_quote;
use crate::semantics::go_time::{go_parse_duration, load_location};

/// `starBit`: set in a field that a `*` or `?` covered (unless stepped).
const STAR_BIT: u64 = 1 << 63;

/// A field's allowed values, and the names it also takes (`bounds`): the `i`th name stands
/// for `min + i`.
struct Bounds {
    min: u64,
    max: u64,
    names: &'static [&'static str],
}

const fn bounds(min: u64, max: u64) -> Bounds {
    Bounds { min, max, names: &[] }
}

const SECONDS: Bounds = bounds(0, 59);
const MINUTES: Bounds = bounds(0, 59);
const HOURS: Bounds = bounds(0, 23);
const DOM: Bounds = bounds(1, 31);
const MONTHS: Bounds = Bounds {
    names: &[
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ],
    ..bounds(1, 12)
};
const DOW: Bounds = Bounds {
    names: &["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
    ..bounds(0, 6)
};

/// A parsed schedule: `SpecSchedule`'s bit sets (bit `n` for value `n`, plus the star bit), or
/// `@every`'s interval in nanoseconds.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Schedule {
    /// Second, minute, hour, day of month, month, day of week.
    Spec([u64; 6]),
    Every(i64),
}

/// Why a schedule does not parse.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ScheduleError {
    /// The parser's error, in its words.
    Invalid(String),
    /// `TZ=…` with no space after it: the parser slices up to the missing space's index (-1)
    /// and panics, which kube-apiserver's panic filter answers with a 500.
    Panics,
}

/// `ParseStandard`: minute, hour, day of month, month and day of week, or a descriptor.
pub(crate) fn parse_standard(spec: &str) -> Result<Schedule, ScheduleError> {
    let invalid = ScheduleError::Invalid;
    if spec.is_empty() {
        return Err(invalid("empty spec string".to_owned()));
    }
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let Some(space) = spec.find(' ') else {
            return Err(ScheduleError::Panics);
        };
        let zone = spec
            .find('=')
            .and_then(|eq| spec.get(eq + 1..space))
            .unwrap_or_default();
        if let Err(why) = load_location(zone) {
            return Err(invalid(format!("provided bad location {zone}: {why}")));
        }
        // Go's `strings.TrimSpace` and `strings.Fields` split on Unicode's White_Space, as
        // Rust's `trim` and `split_whitespace` do.
        spec = spec[space..].trim();
    }
    if spec.starts_with('@') {
        return parse_descriptor(spec).map_err(invalid);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(invalid(format!(
            "expected exactly 5 fields, found {}: [{}]",
            fields.len(),
            fields.join(" ")
        )));
    }
    // The standard parser has no seconds field: it is "0". The first field in error is the one
    // reported.
    let mut bits = [0; 6];
    let places = [&SECONDS, &MINUTES, &HOURS, &DOM, &MONTHS, &DOW];
    for ((field, bounds), bits) in std::iter::once("0").chain(fields).zip(places).zip(&mut bits) {
        *bits = get_field(field, bounds).map_err(invalid)?;
    }
    Ok(Schedule::Spec(bits))
}

/// `getField`: the union of the comma-separated ranges (empty ones skipped, as
/// `strings.FieldsFunc` skips them).
fn get_field(field: &str, bounds: &Bounds) -> Result<u64, String> {
    field
        .split(',')
        .filter(|expr| !expr.is_empty())
        .try_fold(0, |bits, expr| Ok(bits | get_range(expr, bounds)?))
}

/// `getRange`: `*`, `?`, a number or name, or `low-high`, each with an optional `/step`.
fn get_range(expr: &str, bounds: &Bounds) -> Result<u64, String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let single = low_and_high.len() == 1;
    let (start, mut end, mut extra);
    if low_and_high[0] == "*" || low_and_high[0] == "?" {
        (start, end, extra) = (bounds.min, bounds.max, STAR_BIT);
    } else {
        start = parse_int_or_name(low_and_high[0], bounds)?;
        end = match low_and_high.len() {
            1 => start,
            2 => parse_int_or_name(low_and_high[1], bounds)?,
            _ => return Err(format!("too many hyphens: {expr}")),
        };
        extra = 0;
    }
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = must_parse_int(range_and_step[1])?;
            // "N/step" means "N-max/step".
            if single {
                end = bounds.max;
            }
            if step > 1 {
                extra = 0;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < bounds.min {
        return Err(format!(
            "beginning of range ({start}) below minimum ({}): {expr}",
            bounds.min
        ));
    }
    if end > bounds.max {
        return Err(format!("end of range ({end}) above maximum ({}): {expr}", bounds.max));
    }
    if start > end {
        return Err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(get_bits(start, end, step) | extra)
}

/// `parseIntOrName`: a name of the field (any case, as `strings.ToLower` folds it) or a number.
fn parse_int_or_name(expr: &str, bounds: &Bounds) -> Result<u64, String> {
    // Go lowers rune by rune with the simple mapping: `İ` becomes `i`, not `i̇`.
    let lower: String = expr
        .chars()
        .map(|c| if c == '\u{130}' { 'i' } else { c })
        .flat_map(char::to_lowercase)
        .collect();
    match bounds.names.iter().zip(bounds.min..).find(|(name, _)| **name == lower) {
        Some((_, value)) => Ok(value),
        None => must_parse_int(expr),
    }
}

/// `mustParseInt`: a non-negative `strconv.Atoi`.
fn must_parse_int(expr: &str) -> Result<u64, String> {
    let num = go_atoi(expr).map_err(|why| {
        format!(
            "failed to parse int from {expr}: strconv.Atoi: parsing {}: {why}",
            go_quote(expr)
        )
    })?;
    u64::try_from(num).map_err(|_| format!("negative number ({num}) not allowed: {expr}"))
}

/// `strconv.Atoi` on 64 bits: an optional sign and decimal digits; the error's reason. An
/// overflow is found digit by digit, before a later bad character would be.
fn go_atoi(s: &str) -> Result<i64, &'static str> {
    let (negative, digits) = match s.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        all => (false, all),
    };
    if digits.is_empty() {
        return Err("invalid syntax");
    }
    let mut magnitude: u64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return Err("invalid syntax");
        }
        magnitude = magnitude
            .checked_mul(10)
            .and_then(|m| m.checked_add(u64::from(b - b'0')))
            .ok_or("value out of range")?;
    }
    match (negative, i64::try_from(magnitude)) {
        (false, Ok(n)) => Ok(n),
        (true, _) if magnitude == 1 << 63 => Ok(i64::MIN),
        (true, Ok(n)) => Ok(-n),
        (_, Err(_)) => Err("value out of range"),
    }
}

/// `getBits`: every `step`th value from `min` to `max`.
fn get_bits(min: u64, max: u64, step: u64) -> u64 {
    let mut bits = 0;
    let mut value = min;
    while value <= max {
        bits |= 1u64.checked_shl(u32::try_from(value).unwrap_or(u32::MAX)).unwrap_or(0);
        match value.checked_add(step) {
            Some(next) => value = next,
            None => break,
        }
    }
    bits
}

/// `all`: every value of the field, and the star bit.
fn all(bounds: &Bounds) -> u64 {
    get_bits(bounds.min, bounds.max, 1) | STAR_BIT
}

/// `parseDescriptor`: `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`,
/// `@hourly`, or `@every <duration>`.
fn parse_descriptor(descriptor: &str) -> Result<Schedule, String> {
    let first = |bounds: &Bounds| 1u64 << bounds.min;
    let spec = |hour, dom, month, dow| Schedule::Spec([first(&SECONDS), first(&MINUTES), hour, dom, month, dow]);
    Ok(match descriptor {
        "@yearly" | "@annually" => spec(first(&HOURS), first(&DOM), first(&MONTHS), all(&DOW)),
        "@monthly" => spec(first(&HOURS), first(&DOM), all(&MONTHS), all(&DOW)),
        "@weekly" => spec(first(&HOURS), all(&DOM), all(&MONTHS), first(&DOW)),
        "@daily" | "@midnight" => spec(first(&HOURS), all(&DOM), all(&MONTHS), all(&DOW)),
        "@hourly" => spec(all(&HOURS), all(&DOM), all(&MONTHS), all(&DOW)),
        _ => match descriptor.strip_prefix("@every ") {
            Some(duration) => Schedule::Every(
                go_parse_duration(duration).map_err(|why| format!("failed to parse duration {descriptor}: {why}"))?,
            ),
            None => return Err(format!("unrecognized descriptor: {descriptor}")),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bits of `values`.
    fn bits(values: &[u64]) -> u64 {
        values.iter().fold(0, |bits, v| bits | 1 << v)
    }

    fn error(spec: &str) -> String {
        match parse_standard(spec) {
            Err(ScheduleError::Invalid(why)) => why,
            other => panic!("{spec:?} parsed as {other:?}"),
        }
    }

    fn fields(spec: &str) -> [u64; 5] {
        match parse_standard(spec) {
            Ok(Schedule::Spec([_, minute, hour, dom, month, dow])) => [minute, hour, dom, month, dow],
            other => panic!("{spec:?} parsed as {other:?}"),
        }
    }

    #[test]
    fn ranges_steps_and_lists_should_set_their_values() {
        let [minute, hour, dom, month, dow] = fields("*/15 1-3,7 10/10 * 1-5/2");
        assert_eq!(minute, bits(&[0, 15, 30, 45]));
        assert_eq!(hour, bits(&[1, 2, 3, 7]));
        assert_eq!(dom, bits(&[10, 20, 30]));
        // A star keeps its bit; a stepped star does not.
        assert_eq!(month, (2..=13).fold(0, |b, v| b | 1 << (v - 1)) | STAR_BIT);
        assert_eq!(dow, bits(&[1, 3, 5]));
        assert_eq!(fields("? ? ? ? ?")[4], bits(&[0, 1, 2, 3, 4, 5, 6]) | STAR_BIT);
        assert_eq!(fields("*/1 * * * *")[0] & STAR_BIT, STAR_BIT);
        // Empty list items are skipped.
        assert_eq!(fields("1,,2 , * * *")[0], bits(&[1, 2]));
        assert_eq!(fields("1,,2 , * * *")[1], 0);
        assert_eq!(fields("+5 * * * *")[0], bits(&[5]));
    }

    #[test]
    fn month_and_weekday_names_should_be_read_in_any_case() {
        let [.., month, dow] = fields("0 0 * JAN-mar,Dec mon-Fri");
        assert_eq!(month, bits(&[1, 2, 3, 12]));
        assert_eq!(dow, bits(&[1, 2, 3, 4, 5]));
        assert_eq!(fields("0 0 * * FR\u{130}")[4], bits(&[5]));
        assert_eq!(
            error("0 0 * * monday"),
            "failed to parse int from monday: strconv.Atoi: parsing \"monday\": invalid syntax"
        );
        // Names belong to their field.
        assert!(error("0 0 jan * *").starts_with("failed to parse int from jan"));
    }

    #[test]
    fn descriptors_should_stand_for_their_schedules() {
        let hourly = fields("@hourly");
        assert_eq!(hourly[0], 1);
        assert_eq!(hourly[1], (0..24).fold(0, |b, v| b | 1 << v) | STAR_BIT);
        assert_eq!(fields("@daily"), fields("@midnight"));
        assert_eq!(fields("@yearly"), fields("@annually"));
        assert_eq!(fields("@weekly")[4], 1);
        assert_eq!(fields("@monthly")[2], 1 << 1);
        assert_eq!(parse_standard("@every 1h30m"), Ok(Schedule::Every(5_400_000_000_000)));
        assert_eq!(parse_standard("@every -5s"), Ok(Schedule::Every(-5_000_000_000)));
        assert_eq!(error("@every"), "unrecognized descriptor: @every");
        assert_eq!(error("@hourly "), "unrecognized descriptor: @hourly ");
        assert_eq!(
            error("@every 5"),
            "failed to parse duration @every 5: time: missing unit in duration \"5\""
        );
    }

    #[test]
    fn a_zone_prefix_should_be_loaded_then_dropped() {
        assert_eq!(fields("CRON_TZ=UTC 0 * * * *"), fields("0 * * * *"));
        assert_eq!(fields("TZ=Europe/Berlin   @daily"), fields("@daily"));
        assert_eq!(fields("TZ= 0 * * * *"), fields("0 * * * *"));
        assert_eq!(
            error("TZ=Mars/Olympus 0 * * * *"),
            "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"
        );
        assert_eq!(error("CRON_TZ=UTC "), "expected exactly 5 fields, found 0: []");
        assert_eq!(parse_standard("CRON_TZ=UTC"), Err(ScheduleError::Panics));
        // The zone ends at the first ASCII space, whatever whitespace comes before it.
        assert_eq!(parse_standard("TZ=UTC\t0\t*\t*\t*\t*"), Err(ScheduleError::Panics));
        assert_eq!(
            error("TZ=UTC\t0 * * * *"),
            "provided bad location UTC\t0: unknown time zone UTC\t0"
        );
    }

    #[test]
    fn errors_should_be_worded_as_the_parser_words_them() {
        assert_eq!(error(""), "empty spec string");
        assert_eq!(
            error("every minute"),
            "expected exactly 5 fields, found 2: [every minute]"
        );
        assert_eq!(
            error("* * * * * *"),
            "expected exactly 5 fields, found 6: [* * * * * *]"
        );
        assert_eq!(error("61 * * * *"), "end of range (61) above maximum (59): 61");
        assert_eq!(error("* * 0 * *"), "beginning of range (0) below minimum (1): 0");
        assert_eq!(
            error("5-1 * * * *"),
            "beginning of range (5) beyond end of range (1): 5-1"
        );
        assert_eq!(error("* * * * 7"), "end of range (7) above maximum (6): 7");
        assert_eq!(error("1-2-3 * * * *"), "too many hyphens: 1-2-3");
        assert_eq!(error("*/2/3 * * * *"), "too many slashes: */2/3");
        assert_eq!(error("*/0 * * * *"), "step of range should be a positive number: */0");
        assert_eq!(
            error("-1 * * * *"),
            "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"
        );
        assert_eq!(error("*/-1 * * * *"), "negative number (-1) not allowed: -1");
        assert_eq!(
            error("99999999999999999999x * * * *"),
            "failed to parse int from 99999999999999999999x: strconv.Atoi: parsing \"99999999999999999999x\": value out of range"
        );
        // The first field in error is the one reported, minutes before hours.
        assert_eq!(error("60 24 * * *"), "end of range (60) above maximum (59): 60");
        assert_eq!(error("0 24 * * *"), "end of range (24) above maximum (23): 24");
        // "N/step" runs to the field's maximum.
        assert_eq!(fields("0 0 31/1 * *")[2], 1 << 31);
    }

    #[test]
    fn atoi_should_take_what_go_takes() {
        assert_eq!(go_atoi("-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(go_atoi("9223372036854775807"), Ok(i64::MAX));
        assert_eq!(go_atoi("9223372036854775808"), Err("value out of range"));
        assert_eq!(go_atoi("-"), Err("invalid syntax"));
        assert_eq!(go_atoi("1_000"), Err("invalid syntax"));
        assert_eq!(go_atoi("007"), Ok(7));
    }
}
