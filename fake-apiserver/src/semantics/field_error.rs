//! Field errors as apimachinery's `field.Error` carries and words them
//! (`k8s.io/apimachinery/pkg/util/validation/field/errors.go`): a type, the field's path, the bad
//! value and a detail, rendered as `<field>: <Type text>: <value>: <detail>` with the value
//! printed as Go's `fmt` prints its dynamic type.

use std::fmt;

use serde_json::Value;

use crate::semantics::names::go_syntax;

/// `field.ErrorType` (the types schema admission reports): the cause reason of a `Status` and
/// the words its message starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorType {
    Required,
    Duplicate,
    Invalid,
    NotSupported,
    Forbidden,
    TooLong,
    TooMany,
    TypeInvalid,
    Internal,
    NotFound,
}

impl ErrorType {
    /// The cause `reason` (`FieldValueInvalid`, …).
    pub(crate) fn reason(self) -> &'static str {
        match self {
            Self::Required => "FieldValueRequired",
            Self::Duplicate => "FieldValueDuplicate",
            Self::Invalid => "FieldValueInvalid",
            Self::NotSupported => "FieldValueNotSupported",
            Self::Forbidden => "FieldValueForbidden",
            Self::TooLong => "FieldValueTooLong",
            Self::TooMany => "FieldValueTooMany",
            Self::TypeInvalid => "FieldValueTypeInvalid",
            Self::Internal => "InternalError",
            Self::NotFound => "FieldValueNotFound",
        }
    }

    /// `ErrorType.String()`: a type error reads like an invalid value.
    fn text(self) -> &'static str {
        match self {
            Self::Required => "Required value",
            Self::Duplicate => "Duplicate value",
            Self::Invalid | Self::TypeInvalid => "Invalid value",
            Self::NotSupported => "Unsupported value",
            Self::Forbidden => "Forbidden",
            Self::TooLong => "Too long",
            Self::TooMany => "Too many",
            Self::Internal => "Internal error",
            Self::NotFound => "Not found",
        }
    }
}

/// The bad value of a field error, as the Go value it was.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum BadValue {
    /// `field.omitValue`: the message shows no value.
    Omit,
    /// A Go `int64` (or `int`), printed with `%v`.
    Int(i64),
    /// A Go `float64`, printed with `%v`.
    Float(f64),
    /// A Go `string`, printed with `%q`.
    Str(String),
    /// A Go `[]string`, printed with `%#v` (`[]string{"a", "b"}`; empty is a nil slice,
    /// `[]string(nil)`).
    Strings(Vec<String>),
    /// An unstructured JSON value (`map[string]interface{}`, `[]interface{}`, a scalar or nil),
    /// printed as Go prints its dynamic type.
    Json(Value),
    /// A Go value already printed as `%#v` prints it (a struct of the internal API).
    Raw(String),
}

impl BadValue {
    /// Go's `ErrorBody` formatting of the value (`%v`, `%q` or `%#v` by type).
    fn render(&self) -> String {
        match self {
            Self::Omit => String::new(),
            Self::Int(n) => n.to_string(),
            Self::Float(f) => go_float(*f),
            Self::Str(s) => go_quote(s),
            Self::Strings(items) if items.is_empty() => "[]string(nil)".to_owned(),
            Self::Strings(items) => {
                let quoted: Vec<String> = items.iter().map(|s| go_quote(s)).collect();
                format!("[]string{{{}}}", quoted.join(", "))
            }
            Self::Json(value) => match value {
                // Go replaces a nil value by the string "null", which `%q` then quotes.
                Value::Null => go_quote("null"),
                Value::Bool(b) => b.to_string(),
                Value::String(s) => go_quote(s),
                Value::Number(n) => match n.as_i64() {
                    Some(i) => i.to_string(),
                    None => go_float(n.as_f64().unwrap_or_default()),
                },
                Value::Array(_) | Value::Object(_) => go_syntax(value),
            },
            Self::Raw(printed) => printed.clone(),
        }
    }
}

impl From<&str> for BadValue {
    /// A Go string.
    fn from(value: &str) -> Self {
        Self::Str(value.to_owned())
    }
}

/// One `field.Error`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FieldError {
    pub(crate) kind: ErrorType,
    /// The path as `field.Path.String()` writes it (`spec.ports[0].name`; `<nil>` for none).
    pub(crate) field: String,
    pub(crate) value: BadValue,
    pub(crate) detail: String,
}

impl FieldError {
    fn new(kind: ErrorType, field: impl Into<String>, value: BadValue, detail: impl Into<String>) -> Self {
        Self {
            kind,
            field: field.into(),
            value,
            detail: detail.into(),
        }
    }

    /// `field.Invalid`.
    pub(crate) fn invalid(field: impl Into<String>, value: BadValue, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Invalid, field, value, detail)
    }

    /// `field.TypeInvalid`.
    pub(crate) fn type_invalid(field: impl Into<String>, value: BadValue, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::TypeInvalid, field, value, detail)
    }

    /// `field.Required`.
    pub(crate) fn required(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Required, field, BadValue::Str(String::new()), detail)
    }

    /// `field.Forbidden`.
    pub(crate) fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Forbidden, field, BadValue::Str(String::new()), detail)
    }

    /// `field.InternalError`: an error the validation itself ran into.
    pub(crate) fn internal(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Internal, field, BadValue::Omit, detail)
    }

    /// `field.NotFound`.
    pub(crate) fn not_found(field: impl Into<String>, value: BadValue) -> Self {
        Self::new(ErrorType::NotFound, field, value, "")
    }

    /// `field.Duplicate`.
    pub(crate) fn duplicate(field: impl Into<String>, value: BadValue) -> Self {
        Self::new(ErrorType::Duplicate, field, value, "")
    }

    /// `field.NotSupported`: the supported values quoted, in the order given.
    pub(crate) fn not_supported(field: impl Into<String>, value: BadValue, supported: &[String]) -> Self {
        let quoted: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
        let detail = if quoted.is_empty() {
            String::new()
        } else {
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(ErrorType::NotSupported, field, value, detail)
    }

    /// apiextensions' `validateEnumStrings` with `required`: absent is Required, anything but
    /// `accepted` NotSupported.
    pub(crate) fn enum_string(field: &str, value: &str, accepted: &[&str]) -> Option<Self> {
        if value.is_empty() {
            Some(Self::required(field, ""))
        } else {
            Self::unless_one_of(field, value, accepted)
        }
    }

    /// A set value checked against a set (`sets.Has`): anything else, even empty, NotSupported.
    pub(crate) fn unless_one_of(field: impl Into<String>, value: &str, accepted: &[&str]) -> Option<Self> {
        let listed: Vec<String> = accepted.iter().map(|s| (*s).to_owned()).collect();
        (!accepted.contains(&value)).then(|| Self::not_supported(field, value.into(), &listed))
    }

    /// `validation.IsValidPortNum` as a field error: a port outside 1–65535.
    pub(crate) fn port_number(field: impl Into<String>, port: i64) -> Option<Self> {
        (!(1..=65535).contains(&port))
            .then(|| Self::invalid(field, BadValue::Int(port), "must be between 1 and 65535, inclusive"))
    }

    /// `field.TooLong`: a length in bytes.
    pub(crate) fn too_long(field: impl Into<String>, value: BadValue, max: i64) -> Self {
        Self::new(
            ErrorType::TooLong,
            field,
            value,
            format!("must have at most {max} bytes"),
        )
    }

    /// `field.TooLongMaxLength`.
    pub(crate) fn too_long_max_length(field: impl Into<String>, value: BadValue, max: i64) -> Self {
        let detail = if max >= 0 {
            format!("may not be longer than {max}")
        } else {
            "value is too long".to_owned()
        };
        Self::new(ErrorType::TooLong, field, value, detail)
    }

    /// `field.TooMany`: the actual count is shown when known.
    pub(crate) fn too_many(field: impl Into<String>, actual: i64, max: i64) -> Self {
        let detail = if max >= 0 {
            format!("must have at most {max} items")
        } else {
            "has too many items".to_owned()
        };
        let value = if actual >= 0 {
            BadValue::Int(actual)
        } else {
            BadValue::Omit
        };
        Self::new(ErrorType::TooMany, field, value, detail)
    }

    /// `ErrorBody()`: the message without the field.
    pub(crate) fn body(&self) -> String {
        // Go leaves the value out of Required, Forbidden, TooLong and Internal errors.
        let shows_value = !matches!(
            self.kind,
            ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal
        ) && self.value != BadValue::Omit;
        let mut body = if shows_value {
            format!("{}: {}", self.kind.text(), self.value.render())
        } else {
            self.kind.text().to_owned()
        };
        if !self.detail.is_empty() {
            body.push_str(": ");
            body.push_str(&self.detail);
        }
        body
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// Go's `strconv.Quote`: printable characters as they are, the rest escaped as Go escapes them.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => {
                let n = c as u32;
                if n < 0x10000 {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `%v` of a `float64` (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest digits, in
/// exponent form when the exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`).
pub(crate) fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, as Go's shortest formatting does; 'g'
    // with the shortest precision decides the form with a precision of 6 (strconv/ftoa.go).
    let sci = format!("{f:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exponent.abs());
    }
    format!("{f}")
}

/// `ValidateNonnegativeField`: a negative count is invalid.
pub(crate) fn nonnegative(value: i64, path: &str) -> Vec<FieldError> {
    if value < 0 {
        vec![FieldError::invalid(
            path,
            BadValue::Int(value),
            "must be greater than or equal to 0",
        )]
    } else {
        Vec::new()
    }
}

/// Test helper: field errors as Go prints them (`field: body`).
#[cfg(test)]
pub(crate) fn rendered(errors: impl AsRef<[FieldError]>) -> Vec<String> {
    errors.as_ref().iter().map(ToString::to_string).collect()
}

/// Test helper: field errors as their cause reason and field, as a Status lists them.
#[cfg(test)]
pub(crate) fn reasons(errors: impl AsRef<[FieldError]>) -> Vec<String> {
    errors
        .as_ref()
        .iter()
        .map(|e| format!("{} {}", e.kind.reason(), e.field))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn body_should_print_the_value_as_go_prints_its_type() {
        let e = FieldError::invalid("spec.replicas", BadValue::Int(-1), "should be a non-negative integer");
        assert_eq!(
            e.to_string(),
            "spec.replicas: Invalid value: -1: should be a non-negative integer"
        );
        let e = FieldError::type_invalid("spec.size", BadValue::Str("integer".into()), "x");
        assert_eq!(e.to_string(), "spec.size: Invalid value: \"integer\": x");
        assert_eq!(e.kind.reason(), "FieldValueTypeInvalid");
        let e = FieldError::invalid("spec.m", BadValue::Json(json!({"b": 1, "a": "x"})), "d");
        assert_eq!(
            e.to_string(),
            "spec.m: Invalid value: map[string]interface {}{\"a\":\"x\", \"b\":1}: d"
        );
        let e = FieldError::invalid("spec.n", BadValue::Json(Value::Null), "d");
        assert_eq!(e.to_string(), "spec.n: Invalid value: \"null\": d");
    }

    #[test]
    fn body_should_leave_the_value_out_where_go_does() {
        assert_eq!(
            FieldError::required("spec.size", "").to_string(),
            "spec.size: Required value"
        );
        let e = FieldError::too_long_max_length("spec.s", BadValue::Str("abcd".into()), 3);
        assert_eq!(e.to_string(), "spec.s: Too long: may not be longer than 3");
        assert_eq!(
            FieldError::too_many("spec.l", 4, 3).to_string(),
            "spec.l: Too many: 4: must have at most 3 items"
        );
        assert_eq!(
            FieldError::too_many("spec.l", -1, 3).to_string(),
            "spec.l: Too many: must have at most 3 items"
        );
        let e = FieldError::not_supported("spec.size", BadValue::Str("huge".into()), &["small".into(), "2".into()]);
        assert_eq!(
            e.to_string(),
            "spec.size: Unsupported value: \"huge\": supported values: \"small\", \"2\""
        );
    }

    #[test]
    fn go_float_should_switch_to_exponents_where_go_does() {
        assert_eq!(go_float(1.5), "1.5");
        assert_eq!(go_float(1.0), "1");
        assert_eq!(go_float(100000.0), "100000");
        assert_eq!(go_float(1000000.0), "1e+06");
        assert_eq!(go_float(123456789.0), "1.23456789e+08");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(0.0001), "0.0001");
        assert_eq!(go_float(0.00001), "1e-05");
        assert_eq!(go_float(-2.5e-7), "-2.5e-07");
    }

    #[test]
    fn go_quote_should_escape_as_strconv_quote() {
        assert_eq!(go_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(go_quote("tab\there\u{1}"), "\"tab\\there\\x01\"");
        assert_eq!(go_quote("héllo"), "\"héllo\"");
    }
}
