//! The values client-go's JSONPath walks, as the `reflect.Value`s Go holds for them: how
//! `PrintResults` prints one (`util/jsonpath/jsonpath.go`), how `%v` shows one in an error,
//! and how filters compare two (`third_party/forked/golang/template/funcs.go`).

use serde_json::{Map, Value};

use crate::semantics::field_error::go_float;
use crate::semantics::go_json_writer;

/// One value a path reaches, typed as Go types it: the object is an unstructured
/// `map[string]interface{}` read back from its stored JSON, the literals are the parser's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Found<'a> {
    /// A nil `interface{}`: JSON null.
    Nil,
    Map(&'a Map<String, Value>),
    Slice(&'a [Value]),
    /// A Go `string`: the object's, or a quoted literal (which may not be UTF-8).
    String(&'a [u8]),
    /// The object's integers.
    Int64(i64),
    /// An integer literal: an `int`, which a column's `int64` type switch does not take.
    Int(i64),
    /// A byte of a string: `*` and `..` index strings as Go does, by byte.
    Uint8(u8),
    /// The object's other numbers, and float literals.
    Float64(f64),
    Bool(bool),
    /// The zero `reflect.Value`: what a `range` over nothing walks, and a nil taken out of its
    /// interface and wrapped again.
    Invalid,
}

impl<'a> Found<'a> {
    /// A value of the object, in the `interface{}` holding it.
    pub(crate) fn of(value: &'a Value) -> Self {
        match value {
            Value::Null => Found::Nil,
            Value::Bool(b) => Found::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Found::Int64(i),
                None => float(n.as_f64().unwrap_or_default()),
            },
            Value::String(s) => Found::String(s.as_bytes()),
            Value::Array(items) => Found::Slice(items),
            Value::Object(map) => Found::Map(map),
        }
    }

    /// `template.Indirect`: the value out of its interface, `None` for a nil one.
    pub(super) fn indirect(self) -> Option<Self> {
        (self != Found::Nil).then_some(self)
    }

    /// `reflect.ValueOf(v.Interface())`: a nil comes back as the zero `Value`.
    pub(crate) fn rewrapped(self) -> Self {
        match self {
            Found::Nil => Found::Invalid,
            other => other,
        }
    }

    /// The name of the value's Go type, as errors show it; `None` for the zero `Value`, whose
    /// `Type()` panics.
    pub(super) fn go_type(self) -> Option<&'static str> {
        Some(match self {
            Found::Nil => "interface {}",
            Found::Map(_) => "map[string]interface {}",
            Found::Slice(_) => "[]interface {}",
            Found::String(_) => "string",
            Found::Int64(_) => "int64",
            Found::Int(_) => "int",
            Found::Uint8(_) => "uint8",
            Found::Float64(_) => "float64",
            Found::Bool(_) => "bool",
            Found::Invalid => return None,
        })
    }

    /// What `*` and `..` step into: a map's values, a slice's items, a string's bytes. A map's
    /// come in key order: Go's `MapKeys` order is random, and sorted is one of its orders.
    pub(super) fn children(self) -> Vec<Found<'a>> {
        match self {
            Found::Map(map) => map.values().map(Found::of).collect(),
            Found::Slice(items) => items.iter().map(Found::of).collect(),
            Found::String(bytes) => bytes.iter().map(|b| Found::Uint8(*b)).collect(),
            _ => Vec::new(),
        }
    }
}

/// A JSON float as kube-apiserver holds it once read back from storage: Go wrote a whole float
/// as an integer (`3.0` as `3`), which decodes as an `int64` where it fits.
fn float<'a>(f: f64) -> Found<'a> {
    const TWO_TO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.fract() == 0.0 && (-TWO_TO_63..TWO_TO_63).contains(&f) {
        Found::Int64(f as i64)
    } else {
        Found::Float64(f)
    }
}

/// `PrintResults` of one value: maps and slices as `json.Marshal` writes them, the rest as
/// `fmt.Fprint` (`evalToText`). A nil interface printed `<nil>` until kube-apiserver v1.29
/// (kubernetes#119883) and `null` since; the zero `Value` prints `<no value>`.
pub(crate) fn print(found: Found<'_>, minor: u32) -> String {
    match found {
        Found::Nil if minor >= 29 => "null".to_owned(),
        Found::Nil => "<nil>".to_owned(),
        Found::Map(map) => json(map),
        Found::Slice(items) => json(items),
        Found::String(bytes) => go_text(bytes),
        Found::Int64(n) | Found::Int(n) => n.to_string(),
        Found::Uint8(n) => n.to_string(),
        Found::Float64(f) => go_float(f),
        Found::Bool(b) => b.to_string(),
        Found::Invalid => "<no value>".to_owned(),
    }
}

fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    String::from_utf8_lossy(&go_json_writer::to_vec(value)).into_owned()
}

/// A Go string as Go's JSON encoder writes it out: each byte that is not UTF-8 as U+FFFD.
pub(crate) fn go_text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(error) => {
                let (valid, after) = rest.split_at(error.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                // Go decodes a broken sequence one byte at a time.
                let invalid = error.error_len().unwrap_or(after.len());
                out.extend(std::iter::repeat_n('\u{fffd}', invalid));
                rest = &after[invalid..];
            }
        }
    }
}

/// `fmt`'s `%v` of a value: `map[k:v …]` with sorted keys, `[a b]`, `<nil>`.
pub(super) fn go_fmt(found: Found<'_>) -> String {
    let join = |items: Vec<String>| items.join(" ");
    match found {
        Found::Map(map) => format!(
            "map[{}]",
            join(
                map.iter()
                    .map(|(k, v)| format!("{k}:{}", go_fmt(Found::of(v))))
                    .collect()
            )
        ),
        Found::Slice(items) => format!("[{}]", join(items.iter().map(|v| go_fmt(Found::of(v))).collect())),
        Found::Invalid => "<invalid reflect.Value>".to_owned(),
        scalar => print(scalar, 0),
    }
}

/// Why two values do not compare (`funcs.go`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CompareError {
    #[error("invalid type for comparison")]
    BadType,
    #[error("incompatible types for comparison")]
    Incompatible,
}

/// `basicKind`: what a comparison sees of a value.
#[derive(Clone, Copy)]
enum Basic<'a> {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    String(&'a [u8]),
}

fn basic(found: Found<'_>) -> Result<Basic<'_>, CompareError> {
    Ok(match found {
        Found::Bool(b) => Basic::Bool(b),
        Found::Int64(n) | Found::Int(n) => Basic::Int(n),
        Found::Uint8(n) => Basic::Uint(n.into()),
        Found::Float64(f) => Basic::Float(f),
        Found::String(s) => Basic::String(s),
        Found::Nil | Found::Map(_) | Found::Slice(_) | Found::Invalid => return Err(CompareError::BadType),
    })
}

/// `template.Equal`: same kinds only, but signed and unsigned integers compare.
pub(super) fn equal(a: Found<'_>, b: Found<'_>) -> Result<bool, CompareError> {
    Ok(match (basic(a)?, basic(b)?) {
        (Basic::Bool(x), Basic::Bool(y)) => x == y,
        (Basic::Int(x), Basic::Int(y)) => x == y,
        (Basic::Uint(x), Basic::Uint(y)) => x == y,
        (Basic::Float(x), Basic::Float(y)) => x == y,
        (Basic::String(x), Basic::String(y)) => x == y,
        (Basic::Int(x), Basic::Uint(y)) => u64::try_from(x).is_ok_and(|x| x == y),
        (Basic::Uint(x), Basic::Int(y)) => u64::try_from(y).is_ok_and(|y| x == y),
        _ => return Err(CompareError::Incompatible),
    })
}

/// `template.Less`: booleans do not order.
pub(super) fn less(a: Found<'_>, b: Found<'_>) -> Result<bool, CompareError> {
    Ok(match (basic(a)?, basic(b)?) {
        (Basic::Int(x), Basic::Int(y)) => x < y,
        (Basic::Uint(x), Basic::Uint(y)) => x < y,
        (Basic::Float(x), Basic::Float(y)) => x < y,
        (Basic::String(x), Basic::String(y)) => x < y,
        (Basic::Int(x), Basic::Uint(y)) => u64::try_from(x).map_or(true, |x| x < y),
        (Basic::Uint(x), Basic::Int(y)) => u64::try_from(y).is_ok_and(|y| x < y),
        (Basic::Bool(_), Basic::Bool(_)) => return Err(CompareError::BadType),
        _ => return Err(CompareError::Incompatible),
    })
}

/// `template.LessEqual`.
pub(super) fn less_equal(a: Found<'_>, b: Found<'_>) -> Result<bool, CompareError> {
    if less(a, b)? {
        return Ok(true);
    }
    equal(a, b)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn of_should_type_numbers_as_stored_json_decodes_them() {
        assert_eq!(Found::of(&json!(3)), Found::Int64(3));
        assert_eq!(Found::of(&json!(3.0)), Found::Int64(3));
        assert_eq!(Found::of(&json!(2.5)), Found::Float64(2.5));
        assert_eq!(Found::of(&json!(1e19)), Found::Float64(1e19));
        assert_eq!(Found::of(&json!(u64::MAX)), Found::Float64(u64::MAX as f64));
    }

    #[test]
    fn print_should_write_json_for_containers_and_fmt_for_the_rest() {
        let object = json!({"b": [1, 2.5], "a": "<&>"});
        assert_eq!(
            print(Found::of(&object), 28),
            r#"{"a":"\u003c\u0026\u003e","b":[1,2.5]}"#
        );
        assert_eq!(print(Found::of(&json!("x y")), 28), "x y");
        assert_eq!(print(Found::Float64(1234567.5), 28), "1.2345675e+06");
        assert_eq!(print(Found::Uint8(104), 28), "104");
        assert_eq!(print(Found::Nil, 28), "<nil>");
        assert_eq!(print(Found::Nil, 31), "null");
        assert_eq!(print(Found::Nil.rewrapped(), 31), "<no value>");
        assert_eq!(
            print(Found::String(b"a\xe2\x82z\xff"), 28),
            "a\u{fffd}\u{fffd}z\u{fffd}"
        );
    }

    #[test]
    fn go_fmt_should_show_values_as_percent_v() {
        let object = json!({"b": [true, null], "a": {"c": 1.5}});
        assert_eq!(go_fmt(Found::of(&object)), "map[a:map[c:1.5] b:[true <nil>]]");
        assert_eq!(go_fmt(Found::Nil), "<nil>");
    }

    #[test]
    fn comparisons_should_follow_template_funcs() {
        let s = |v: &'static str| Found::String(v.as_bytes());
        assert_eq!(equal(Found::Int64(2), Found::Int(2)), Ok(true));
        assert_eq!(equal(Found::Int(104), Found::Uint8(104)), Ok(true));
        assert_eq!(equal(Found::Int(-1), Found::Uint8(255)), Ok(false));
        assert_eq!(
            equal(Found::Int64(2), Found::Float64(2.5)),
            Err(CompareError::Incompatible)
        );
        assert_eq!(equal(Found::Nil, s("x")), Err(CompareError::BadType));
        assert_eq!(less(s("abc"), s("abd")), Ok(true));
        assert_eq!(less(Found::Int(-1), Found::Uint8(0)), Ok(true));
        assert_eq!(less(Found::Bool(true), Found::Bool(false)), Err(CompareError::BadType));
        assert_eq!(less(Found::Bool(true), Found::Int(1)), Err(CompareError::Incompatible));
        assert_eq!(less_equal(Found::Float64(1.5), Found::Float64(1.5)), Ok(true));
    }
}
