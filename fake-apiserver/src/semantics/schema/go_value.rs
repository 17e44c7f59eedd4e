//! Unstructured JSON as kube-apiserver's Go code holds it: integers as `int64` (past its range,
//! `float64`), other numbers as `float64`; `reflect.DeepEqual` between such values, the
//! `reflect` conversions kube-openapi's `enum` check makes, and go-openapi's
//! `swag.IsFloat64AJSONInteger`.

use serde_json::Value;

use crate::semantics::field_error::BadValue;

/// A JSON number as Go's unstructured decoding types it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    /// The number `value` holds, if it is one.
    pub(crate) fn of(value: &Value) -> Option<Self> {
        let n = value.as_number()?;
        Some(match n.as_i64() {
            Some(i) => Self::Int(i),
            None => Self::Float(n.as_f64().unwrap_or_default()),
        })
    }

    /// The value as a field error shows it.
    pub(crate) fn bad_value(self) -> BadValue {
        match self {
            Self::Int(n) => BadValue::Int(n),
            Self::Float(f) => BadValue::Float(f),
        }
    }
}

/// `reflect.DeepEqual` of two unstructured values: an `int64` never equals a `float64`.
pub(crate) fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => Number::of(a) == Number::of(b),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| deep_equal(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| deep_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Whether `data` equals the enum value `allowed` once converted to its Go type, as
/// `basicCommonValidator` checks: numbers convert both ways (a float is truncated to an
/// integer), an integer converts to a string as the rune it codes, nothing else converts.
pub(crate) fn enum_matches(data: &Value, allowed: &Value) -> bool {
    match (Number::of(data), allowed) {
        (Some(Number::Int(n)), Value::Number(_)) => match Number::of(allowed) {
            Some(Number::Float(f)) => n as f64 == f,
            other => other == Some(Number::Int(n)),
        },
        (Some(Number::Float(f)), Value::Number(_)) => match Number::of(allowed) {
            Some(Number::Int(n)) => go_float_to_int(f) == n,
            other => other == Some(Number::Float(f)),
        },
        (Some(Number::Int(n)), Value::String(s)) => rune_string(n) == *s,
        _ => deep_equal(data, allowed),
    }
}

/// Go's `int64(f)` on amd64: truncation toward zero; NaN and out-of-range values give the
/// "integer indefinite" value, `math.MinInt64`.
fn go_float_to_int(f: f64) -> i64 {
    // -2^63 converts exactly; 2^63 is the first float past the range.
    let min = i64::MIN as f64;
    if f.is_nan() || !(min..-min).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// Go's `string(rune(n))`: the character, or U+FFFD for a value that codes none.
fn rune_string(n: i64) -> String {
    u32::try_from(n)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or('\u{fffd}')
        .to_string()
}

/// `swag.IsFloat64AJSONInteger`: an integer within ±(2^53-1), allowing a relative error of 1e-9
/// above the integer below it (Go's `uint64(f)` makes every negative fraction fail).
pub(crate) fn is_json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if !f.is_finite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    if f == f.trunc() {
        return true;
    }
    if f < 0.0 {
        return false;
    }
    let g = f.trunc();
    if g == 0.0 {
        return false;
    }
    (f - g) / (f + g) < 1e-9
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn deep_equal_should_tell_integers_from_floats() {
        assert!(deep_equal(&json!({"a": [1, "x"]}), &json!({"a": [1, "x"]})));
        assert!(!deep_equal(&json!(1), &json!(1.0)));
        assert!(!deep_equal(&json!([1]), &json!([1.0])));
    }

    #[test]
    fn enum_matches_should_convert_as_go_reflect_does() {
        assert!(enum_matches(&json!(1), &json!(1.0)));
        assert!(
            enum_matches(&json!(1.7), &json!(1)),
            "a float truncates to the enum's int64"
        );
        assert!(!enum_matches(&json!(1), &json!(1.5)));
        assert!(
            enum_matches(&json!(65), &json!("A")),
            "an int64 converts to a string as a rune"
        );
        assert!(!enum_matches(&json!("1"), &json!(1)));
        assert!(!enum_matches(&json!(true), &json!("true")));
        assert!(enum_matches(&json!({"a": 1}), &json!({"a": 1})));
    }

    #[test]
    fn is_json_integer_should_allow_what_swag_allows() {
        assert!(is_json_integer(3.0));
        assert!(is_json_integer(-3.0));
        assert!(is_json_integer(3.000_000_000_1));
        assert!(!is_json_integer(2.5));
        assert!(!is_json_integer(-3.000_000_000_1));
        assert!(!is_json_integer(1e300));
    }
}
