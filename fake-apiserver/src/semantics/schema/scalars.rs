//! kube-openapi's validators of scalar values (`validate/validator.go`: `stringValidator`,
//! `formatValidator`, `numberValidator`, and `values.go` for each check): lengths and patterns,
//! formats, and numbers compared in their own Go type.

use serde_json::Value;

use super::formats;
use super::go_value::{self, Number};
use super::openapi_errors::{Limit, SchemaError};
use super::outcome::Outcome;
use super::structural;
use crate::semantics::field_error::BadValue;
use crate::semantics::go_regexp;

/// `stringValidator`: lengths in characters, then the pattern; the first failure only.
pub(super) fn check_string(schema: &Value, text: &str, path: &str) -> Outcome {
    let mut out = Outcome::default();
    let length = text.chars().count() as i64;
    if let Some(max) = structural::int(schema, "maxLength").filter(|max| length > *max) {
        out.add(SchemaError::too_long(path, max, text));
    } else if let Some(min) = structural::int(schema, "minLength").filter(|min| length < *min) {
        out.add(SchemaError::too_short(path, min, text));
    } else if let Some(pattern) = schema.get("pattern").and_then(Value::as_str).filter(|p| !p.is_empty()) {
        match go_regexp::is_match(pattern, text) {
            Ok(true) => {}
            Ok(false) => out.add(SchemaError::pattern(path, pattern, text)),
            Err(why) => out.add(SchemaError::pattern(
                path,
                &format!("{pattern}, but pattern is invalid: {why}"),
                text,
            )),
        }
    }
    out
}

/// `formatValidator`: formats kube-apiserver keeps, checked on strings.
pub(super) fn check_format(format: &str, text: &str, path: &str) -> Outcome {
    let mut out = Outcome::default();
    if formats::validates(format, text) == Some(false) {
        out.add(SchemaError::invalid_type(path, format, BadValue::Str(text.to_owned())));
    }
    out
}

/// `numberValidator`: `multipleOf`, `minimum`, `maximum`, compared in the value's own Go type
/// (an integer against bounds truncated to integers, as `MinimumNativeType` does).
pub(super) fn check_number(schema: &Value, number: Number, path: &str) -> Outcome {
    let mut out = Outcome::default();
    let value = number.bad_value();
    if let Some(factor) = structural::float(schema, "multipleOf") {
        let failed = match number {
            Number::Int(n) => {
                let factor = factor as i64;
                if factor <= 0 {
                    Some(SchemaError::multiple_of_must_be_positive(path, Limit::Int(factor)))
                } else {
                    (n % factor != 0).then(|| SchemaError::not_multiple_of(path, Limit::Int(factor), value.clone()))
                }
            }
            Number::Float(_) if factor <= 0.0 => {
                Some(SchemaError::multiple_of_must_be_positive(path, Limit::Float(factor)))
            }
            Number::Float(f) => {
                let quotient = if factor < 1.0 { 1.0 / factor * f } else { f / factor };
                (!go_value::is_json_integer(quotient))
                    .then(|| SchemaError::not_multiple_of(path, Limit::Float(factor), value.clone()))
            }
        };
        if let Some(error) = failed {
            out.add(error);
        }
    }
    let mut bound = |key: &str, exclusive_key: &str, is_max: bool| {
        let Some(limit) = structural::float(schema, key) else {
            return;
        };
        let exclusive = structural::flag(schema, exclusive_key);
        let (broken, shown) = match number {
            Number::Int(n) => {
                let limit = limit as i64;
                let broken = if is_max {
                    n > limit || (exclusive && n == limit)
                } else {
                    n < limit || (exclusive && n == limit)
                };
                (broken, Limit::Int(limit))
            }
            Number::Float(f) => {
                let broken = if is_max {
                    f > limit || (exclusive && f == limit)
                } else {
                    f < limit || (exclusive && f == limit)
                };
                (broken, Limit::Float(limit))
            }
        };
        if broken {
            out.add(if is_max {
                SchemaError::exceeds_maximum(path, shown, exclusive, value.clone())
            } else {
                SchemaError::exceeds_minimum(path, shown, exclusive, value.clone())
            });
        }
    };
    // kube-openapi merges multipleOf, then minimum, then maximum.
    bound("minimum", "exclusiveMinimum", false);
    bound("maximum", "exclusiveMaximum", true);
    out.matches += 1;
    out
}
