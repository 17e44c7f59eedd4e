//! `<string>.format(<list>)` of cel-go v0.20's strings library (`ext/formatting.go`): the clause parser (`parseFormatString`), which the literal-call validation of `ast_validators.rs` shares, and the clauses' formatting of values, `%f` and `%e` through `golang.org/x/text`'s `en_US` printer as cel-go does.

use cel::common::types::{CelDuration, CelString, CelTimestamp, LIST_TYPE, STRING_TYPE};
use cel::common::value::CowVal;
use cel::objects::{Key, Value};
use cel::{DeclarationError, Env, ExecutionError};

use super::conversions::format_double;
use super::time::{format_duration, format_timestamp};
use super::{arguments, go_error};
use crate::semantics::field_error::go_quote;

/// A formatting clause: `%s`, `%d`, `%f` (with its precision), `%e`, `%b`, `%x`/`%X`, `%o`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Clause {
    String,
    Decimal,
    Fixed(Option<usize>),
    Scientific,
    Binary,
    Hex { upper: bool },
    Octal,
}

/// Why a format failed: the message, and the expression it is about when the checker knows
/// one (a `formatError`'s id).
pub(crate) type Failure = (Option<u64>, String);

pub(super) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_member_overload("format", "string_format", STRING_TYPE, vec![LIST_TYPE], format)
}

fn format<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let [text, list] = arguments(&args)?;
    let text = text
        .downcast_ref::<CelString>()
        .ok_or_else(|| go_error("format", "no such overload"))?;
    let values: Vec<Value> = match Value::try_from(list) {
        Ok(Value::List(items)) => items.as_ref().clone(),
        _ => return Err(go_error("format", "no such overload")),
    };
    let formatted = interpolate(text.inner(), values.len(), false, |i, clause| {
        values
            .get(i)
            .map_or_else(|| Ok(String::new()), |v| format_value(clause, v))
    });
    formatted
        .map(|(s, _)| CowVal::owned(CelString::from(s)))
        .map_err(|(_, message)| go_error("format", message))
}

/// `parseFormatString`: `format` with each clause replaced by what `clause` makes of the
/// argument at its index, and how many arguments the clauses asked for. `checking`: the
/// validator's argument list, which reports an index past the end only after the clause is
/// found to be complete.
pub(crate) fn interpolate(
    format: &str,
    count: usize,
    checking: bool,
    mut clause: impl FnMut(usize, Clause) -> Result<String, Failure>,
) -> Result<(String, usize), Failure> {
    let bytes = format.as_bytes();
    let (mut out, mut i, mut index, mut requested) = (Vec::new(), 0, 0, 0);
    let out_of_range = |index: usize| (None, format!("index {index} out of range"));
    while i < bytes.len() {
        if bytes[i] != b'%' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        if bytes.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        requested += 1;
        if !checking && index >= count {
            return Err(out_of_range(index));
        }
        if i + 1 >= bytes.len() {
            return Err((None, "unexpected end of string".into()));
        }
        if index >= count {
            return Err(out_of_range(index));
        }
        let (read, parsed) =
            parse_clause(&bytes[i + 1..]).map_err(|why| (None, format!("could not parse formatting clause: {why}")))?;
        let text = clause(index, parsed).map_err(|(at, why)| (at, format!("error during formatting: {why}")))?;
        out.extend_from_slice(text.as_bytes());
        i += 1 + read;
        index += 1;
    }
    Ok((String::from_utf8_lossy(&out).into_owned(), requested))
}

/// `parseFormattingClause`: the clause at the start of `bytes` (after the `%`) and its length.
fn parse_clause(bytes: &[u8]) -> Result<(usize, Clause), String> {
    let mut i = 0;
    let mut precision = None;
    if bytes.first() == Some(&b'.') {
        i = 1;
        let digits = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if 1 + digits >= bytes.len() {
            return Err("error while parsing precision: could not find end of precision specifier".into());
        }
        let text = std::str::from_utf8(&bytes[1..1 + digits]).unwrap_or_default();
        precision = Some(text.parse::<usize>().map_err(|_| {
            format!(
                "error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing {}: {}",
                go_quote(text),
                if text.is_empty() { "invalid syntax" } else { "value out of range" }
            )
        })?);
        i += digits;
    }
    let conversion = bytes.get(i).copied().unwrap_or_default();
    let clause = match conversion {
        b's' => Clause::String,
        b'd' => Clause::Decimal,
        b'f' => Clause::Fixed(precision),
        // cel-go passes the precision as a width (`%6e`): the precision stays six.
        b'e' => Clause::Scientific,
        b'b' => Clause::Binary,
        b'x' | b'X' => Clause::Hex {
            upper: conversion == b'X',
        },
        b'o' => Clause::Octal,
        // Go reads one byte as a rune.
        other => return Err(format!("unrecognized formatting clause \"{}\"", char::from(other))),
    };
    Ok((i + 1, clause))
}

/// The CEL type name of a value, as cel-go's errors name it.
fn type_name(v: &Value) -> String {
    match v {
        Value::Int(_) => "int".into(),
        Value::UInt(_) => "uint".into(),
        Value::Float(_) => "double".into(),
        Value::String(_) => "string".into(),
        Value::Bytes(_) => "bytes".into(),
        Value::Bool(_) => "bool".into(),
        Value::List(_) => "list".into(),
        Value::Map(_) => "map".into(),
        Value::Null => "null_type".into(),
        Value::Timestamp(_) => "google.protobuf.Timestamp".into(),
        Value::Duration(_) => "google.protobuf.Duration".into(),
        other => other.type_of().to_string(),
    }
}

/// One clause applied to one value (`stringFormatter`).
fn format_value(clause: Clause, v: &Value) -> Result<String, Failure> {
    let refuse = |what: &str| Err((None, format!("{what}, was given {}", type_name(v))));
    match (clause, v) {
        (Clause::String, _) => format_string(v).map_err(|why| (None, why)),
        (Clause::Decimal, Value::Int(i)) => Ok(i.to_string()),
        (Clause::Decimal, Value::UInt(u)) => Ok(u.to_string()),
        (Clause::Decimal, _) => refuse("decimal clause can only be used on integers"),
        (Clause::Fixed(precision), _) => match number(v) {
            Some(f) => Ok(fixed(f, precision.unwrap_or(6))),
            None => refuse("fixed-point clause can only be used on doubles"),
        },
        (Clause::Scientific, _) => match number(v) {
            Some(f) => Ok(scientific(f)),
            None => refuse("scientific clause can only be used on doubles"),
        },
        (Clause::Binary, Value::Int(i)) => Ok(signed(*i, |u| format!("{u:b}"))),
        (Clause::Binary, Value::UInt(u)) => Ok(format!("{u:b}")),
        (Clause::Binary, Value::Bool(b)) => Ok(if *b { "1" } else { "0" }.into()),
        (Clause::Binary, _) => refuse("only integers and bools can be formatted as binary"),
        (Clause::Hex { upper }, _) => {
            let hex = match v {
                Value::String(s) => s.bytes().map(|b| format!("{b:02x}")).collect(),
                Value::Bytes(b) => b.iter().map(|b| format!("{b:02x}")).collect(),
                Value::Int(i) => signed(*i, |u| format!("{u:x}")),
                Value::UInt(u) => format!("{u:x}"),
                _ => return refuse("only integers, byte buffers, and strings can be formatted as hex"),
            };
            Ok(if upper { hex.to_uppercase() } else { hex })
        }
        (Clause::Octal, Value::Int(i)) => Ok(signed(*i, |u| format!("{u:o}"))),
        (Clause::Octal, Value::UInt(u)) => Ok(format!("{u:o}")),
        (Clause::Octal, _) => refuse("octal clause can only be used on integers"),
    }
}

/// Go's `%b`, `%x`, `%o` of an int64: the magnitude's digits after a minus sign.
fn signed(i: i64, digits: impl Fn(u64) -> String) -> String {
    let sign = if i < 0 { "-" } else { "" };
    format!("{sign}{}", digits(i.unsigned_abs()))
}

/// A double, or one of the strings `NaN`, `Infinity` and `-Infinity` the fixed and scientific
/// clauses also take.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Float(f) => Some(*f),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// x/text's `%.<p>f` in `en_US`: the digits grouped by thousands, `NaN`, `∞`.
fn fixed(f: f64, precision: usize) -> String {
    if let Some(special) = special(f) {
        return special;
    }
    let digits = format!("{:.precision$}", f.abs());
    let (whole, fraction) = digits
        .split_once('.')
        .map_or((digits.as_str(), None), |(w, r)| (w, Some(r)));
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if f.is_sign_negative() && f != 0.0 { "-" } else { "" };
    match fraction {
        Some(fraction) => format!("{sign}{grouped}.{fraction}"),
        None => format!("{sign}{grouped}"),
    }
}

/// x/text's `%e` in `en_US`: six decimals, then `×` between narrow no-break spaces and the
/// power of ten in superscript digits.
fn scientific(f: f64) -> String {
    if let Some(special) = special(f) {
        return special;
    }
    let text = format!("{f:.6e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or_default();
    let superscript = |c: char| match c {
        '0' => '⁰',
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        other => char::from_u32(0x2070 + other.to_digit(10).unwrap_or(0)).unwrap_or(other),
    };
    let sign = if exponent < 0 { "⁻" } else { "" };
    let digits: String = format!("{:02}", exponent.unsigned_abs())
        .chars()
        .map(superscript)
        .collect();
    format!("{mantissa}\u{202f}×\u{202f}10{sign}{digits}")
}

fn special(f: f64) -> Option<String> {
    match f {
        f if f.is_nan() => Some("NaN".into()),
        f if f.is_infinite() => Some(if f > 0.0 { "∞" } else { "-∞" }.into()),
        _ => None,
    }
}

/// `FormatString`: a value as `string()` makes it; lists and maps as CEL literals.
fn format_string(v: &Value) -> Result<String, String> {
    Ok(match v {
        Value::List(items) => {
            let items: Result<Vec<String>, String> = items.iter().map(literal).collect();
            format!("[{}]", items?.join(", "))
        }
        Value::Map(map) => {
            let mut entries = Vec::new();
            for (key, value) in map.map.iter() {
                let key = match key {
                    Key::String(s) => go_quote(s),
                    Key::Bool(b) => b.to_string(),
                    Key::Int(i) => i.to_string(),
                    Key::Uint(u) => u.to_string(),
                };
                entries.push((key, literal(value)?));
            }
            entries.sort();
            let entries: Vec<String> = entries.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
            format!("{{{}}}", entries.join(", "))
        }
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => format_double(*f),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => s.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Null => "null".into(),
        Value::Timestamp(t) => format_timestamp(&CelTimestamp::from(*t)),
        Value::Duration(d) => format_duration(&CelDuration::from(*d)),
        other => {
            return Err(format!(
                "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {}",
                type_name(other)
            ));
        }
    })
}

/// An element of a list or map as `clauseForType` and `quoteForCEL` write it: strings and
/// bytes quoted, doubles with six decimals, timestamps and durations as their calls.
fn literal(v: &Value) -> Result<String, String> {
    Ok(match v {
        Value::String(s) => go_quote(s),
        Value::Bytes(b) => format!("b{}", go_quote(&String::from_utf8_lossy(b))),
        Value::Float(f) if f.is_finite() => format!("{f:.6}"),
        Value::Float(f) => go_quote(&go_special(*f)),
        Value::Timestamp(t) => format!("timestamp({})", go_quote(&format_timestamp(&CelTimestamp::from(*t)))),
        Value::Duration(d) => format!("duration({})", go_quote(&format_duration(&CelDuration::from(*d)))),
        Value::Int(_) | Value::UInt(_) | Value::Bool(_) | Value::Null | Value::List(_) | Value::Map(_) => {
            format_string(v)?
        }
        other => return Err(format!("no formatting function for {}", type_name(other))),
    })
}

/// Go's `%.6f` of an infinity or NaN.
fn go_special(f: f64) -> String {
    match f {
        f if f.is_nan() => "NaN".into(),
        f if f > 0.0 => "+Inf".into(),
        _ => "-Inf".into(),
    }
}

#[cfg(test)]
mod tests {
    // Expected values are kube-apiserver 1.31.2's (cel-go v0.20.1, x/text's en_US printer).
    use super::super::tests::check;

    #[test]
    fn clauses_should_format_as_cel_go_v020() {
        check("'%.2f'.format([1234567.891])", Ok("1,234,567.89".into()));
        check("'%f|%.0f|%.1f'.format([-0.5, 2.5, 0.05])", Ok("-0.500000|2|0.1".into()));
        check(
            "'%.3e'.format([-0.00012345])",
            Ok("-1.234500\u{202f}×\u{202f}10⁻⁰⁴".into()),
        );
        check(
            "'%e|%e'.format([0.0, 1e300])",
            Ok("0.000000\u{202f}×\u{202f}10⁰⁰|1.000000\u{202f}×\u{202f}10³⁰⁰".into()),
        );
        check("'%f|%f'.format(['NaN', '-Infinity'])", Ok("NaN|-∞".into()));
        check(
            "'%d|%x|%X|%o|%b|%b'.format([-12, -255, b'\\xff', -8, -5, true])",
            Ok("-12|-ff|FF|-10|-101|1".into()),
        );
        check(
            "'%s|%s|%s'.format([1.5, 1e21, timestamp('2024-01-02T03:04:05Z')])",
            Ok("1.5|1e+21|2024-01-02T03:04:05Z".into()),
        );
        check("'100%% %s'.format(['x'])", Ok("100% x".into()));
        check(
            "'%f'.format([12345678901234567890.0])",
            Ok("12,345,678,901,234,567,168.000000".into()),
        );
    }

    #[test]
    fn lists_and_maps_should_print_as_cel_literals() {
        let list = "'%s'.format([[1.5, 'a', b'b', true, null, duration('90s'), [2u]]])";
        check(
            list,
            Ok(r#"[1.500000, "a", b"b", true, null, duration("90s"), [2]]"#.into()),
        );
        check(
            "'%s'.format([{'b': 1, 'a': 2.0}])",
            Ok(r#"{"a":2.000000, "b":1}"#.into()),
        );
    }

    #[test]
    fn failures_should_read_as_cel_go_s() {
        check(
            "'%d'.format(['a'])",
            Err("error during formatting: decimal clause can only be used on integers, was given string"),
        );
        check("'%s %s'.format(['a'])", Err("index 1 out of range"));
        check(
            "'%z'.format([1])",
            Err("could not parse formatting clause: unrecognized formatting clause \"z\""),
        );
        check("'%'.format([])", Err("index 0 out of range"));
        check(
            "'%.3'.format([1.0])",
            Err(
                "could not parse formatting clause: error while parsing precision: could not find end of precision specifier",
            ),
        );
    }
}
