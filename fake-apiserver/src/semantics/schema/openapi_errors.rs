//! The errors of kube-openapi's schema validator (`k8s.io/kube-openapi/pkg/validation/errors`,
//! `schema.go`: codes, names and message templates) and their conversion into field errors by
//! apiextensions' `kubeOpenAPIResultToFieldErrors` (`apiextensions-apiserver/pkg/apiserver/validation/validation.go`).

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, go_float, go_quote};

/// `errors.Validation`'s code, or `Composite` for the plain `apiError`s of `allOf`/`anyOf`/
/// `oneOf`/`not`, which carry no field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Code {
    InvalidType,
    Required,
    TooLong,
    TooShort,
    Pattern,
    Enum,
    MultipleOf,
    Max,
    Min,
    Unique,
    MaxItems,
    MinItems,
    TooFewProperties,
    TooManyProperties,
    MultipleOfMustBePositive,
    Composite,
}

/// One error of the validator: where (`name`, the validator's path), the offending value, the
/// limit it broke, and the message.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SchemaError {
    pub(crate) code: Code,
    pub(crate) name: String,
    /// `Validation.Value`; `None` is Go's nil.
    pub(crate) value: Option<BadValue>,
    /// `Validation.Valid`, the limit, where Go sets it to an `int64`.
    pub(crate) valid: Option<i64>,
    /// `Validation.Values`: the allowed values of an enum.
    pub(crate) values: Vec<Value>,
    pub(crate) message: String,
}

/// A number in a message, printed with `%v` as Go prints the type it had.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Limit {
    Int(i64),
    Float(f64),
}

impl Limit {
    fn render(self) -> String {
        match self {
            Self::Int(n) => n.to_string(),
            Self::Float(f) => go_float(f),
        }
    }
}

impl SchemaError {
    fn new(code: Code, name: &str, value: Option<BadValue>, message: String) -> Self {
        Self {
            code,
            name: name.to_owned(),
            value,
            valid: None,
            values: Vec::new(),
            message,
        }
    }

    /// `errors.InvalidType`: a string value is quoted into the message.
    pub(crate) fn invalid_type(name: &str, type_name: &str, value: BadValue) -> Self {
        let message = match &value {
            BadValue::Str(s) => format!("{name} in body must be of type {type_name}: {}", go_quote(s)),
            _ => format!("{name} in body must be of type {type_name}"),
        };
        Self::new(Code::InvalidType, name, Some(value), message)
    }

    /// `errors.Required`.
    pub(crate) fn required(name: &str) -> Self {
        Self::new(Code::Required, name, None, format!("{name} in body is required"))
    }

    /// `errors.TooLong` (maxLength).
    pub(crate) fn too_long(name: &str, max: i64, value: &str) -> Self {
        let message = format!("{name} in body should be at most {max} chars long");
        let mut error = Self::new(Code::TooLong, name, Some(BadValue::Str(value.to_owned())), message);
        error.valid = Some(max);
        error
    }

    /// `errors.TooShort` (minLength).
    pub(crate) fn too_short(name: &str, min: i64, value: &str) -> Self {
        let message = format!("{name} in body should be at least {min} chars long");
        let mut error = Self::new(Code::TooShort, name, Some(BadValue::Str(value.to_owned())), message);
        error.valid = Some(min);
        error
    }

    /// `errors.FailedPattern`.
    pub(crate) fn pattern(name: &str, pattern: &str, value: &str) -> Self {
        let message = format!("{name} in body should match '{pattern}'");
        Self::new(Code::Pattern, name, Some(BadValue::Str(value.to_owned())), message)
    }

    /// `errors.EnumFail`; its message is not shown (the field error lists the values itself).
    pub(crate) fn enum_fail(name: &str, value: &Value, values: &[Value]) -> Self {
        let mut error = Self::new(
            Code::Enum,
            name,
            (!value.is_null()).then(|| BadValue::Json(value.clone())),
            format!("{name} in body should be one of {values:?}"),
        );
        error.values = values.to_vec();
        error
    }

    /// `errors.NotMultipleOf`.
    pub(crate) fn not_multiple_of(name: &str, factor: Limit, value: BadValue) -> Self {
        let message = format!("{name} in body should be a multiple of {}", factor.render());
        Self::new(Code::MultipleOf, name, Some(value), message)
    }

    /// `errors.MultipleOfMustBePositive`.
    pub(crate) fn multiple_of_must_be_positive(name: &str, factor: Limit) -> Self {
        let value = match factor {
            Limit::Int(n) => BadValue::Int(n),
            Limit::Float(f) => BadValue::Float(f),
        };
        let message = format!(
            "factor MultipleOf declared for {name} must be positive: {}",
            factor.render()
        );
        Self::new(Code::MultipleOfMustBePositive, name, Some(value), message)
    }

    /// `errors.ExceedsMaximum*`.
    pub(crate) fn exceeds_maximum(name: &str, max: Limit, exclusive: bool, value: BadValue) -> Self {
        let relation = if exclusive {
            "less than"
        } else {
            "less than or equal to"
        };
        let message = format!("{name} in body should be {relation} {}", max.render());
        Self::new(Code::Max, name, Some(value), message)
    }

    /// `errors.ExceedsMinimum*`.
    pub(crate) fn exceeds_minimum(name: &str, min: Limit, exclusive: bool, value: BadValue) -> Self {
        let relation = if exclusive {
            "greater than"
        } else {
            "greater than or equal to"
        };
        let message = format!("{name} in body should be {relation} {}", min.render());
        Self::new(Code::Min, name, Some(value), message)
    }

    /// `errors.DuplicateItems`: no value.
    pub(crate) fn duplicate_items(name: &str) -> Self {
        Self::new(
            Code::Unique,
            name,
            None,
            format!("{name} in body shouldn't contain duplicates"),
        )
    }

    /// `errors.TooManyItems`, with the size as its value.
    pub(crate) fn too_many_items(name: &str, max: i64, size: i64) -> Self {
        let message = format!("{name} in body should have at most {max} items");
        let mut error = Self::new(Code::MaxItems, name, Some(BadValue::Int(size)), message);
        error.valid = Some(max);
        error
    }

    /// `errors.TooFewItems`, with the size as its value.
    pub(crate) fn too_few_items(name: &str, min: i64, size: i64) -> Self {
        let message = format!("{name} in body should have at least {min} items");
        let mut error = Self::new(Code::MinItems, name, Some(BadValue::Int(size)), message);
        error.valid = Some(min);
        error
    }

    /// `errors.TooFewProperties`.
    pub(crate) fn too_few_properties(name: &str, min: i64, size: i64) -> Self {
        let message = format!("{name} in body should have at least {min} properties");
        let mut error = Self::new(Code::TooFewProperties, name, Some(BadValue::Int(size)), message);
        error.valid = Some(min);
        error
    }

    /// `errors.TooManyProperties`.
    pub(crate) fn too_many_properties(name: &str, max: i64, size: i64) -> Self {
        let message = format!("{name} in body should have at most {max} properties");
        let mut error = Self::new(Code::TooManyProperties, name, Some(BadValue::Int(size)), message);
        error.valid = Some(max);
        error
    }

    /// The composition failures (`schema_messages.go`): plain errors with no field.
    pub(crate) fn composite(message: String) -> Self {
        Self::new(Code::Composite, "", None, message)
    }
}

/// `kubeOpenAPIResultToFieldErrors` with a nil base path: each error becomes the field error
/// kube-apiserver reports, named by the validator's path without its leading dot.
pub(crate) fn to_field_errors(errors: &[SchemaError], base: Option<&str>) -> Vec<FieldError> {
    errors.iter().map(|error| to_field_error(error, base)).collect()
}

fn to_field_error(error: &SchemaError, base: Option<&str>) -> FieldError {
    let no_field = || base.map_or_else(|| "<nil>".to_owned(), str::to_owned);
    if error.code == Code::Composite {
        return FieldError::invalid(no_field(), BadValue::Str(String::new()), &error.message);
    }
    let field = if error.name.is_empty() || error.name == "." {
        no_field()
    } else {
        let name = error.name.strip_prefix('.').unwrap_or(&error.name);
        match base {
            Some(base) => format!("{base}.{name}"),
            None => name.to_owned(),
        }
    };
    let value_or_empty = || error.value.clone().unwrap_or(BadValue::Str(String::new()));
    let count = |value: &Option<BadValue>| match value {
        Some(BadValue::Int(n)) => *n,
        _ => -1,
    };
    match error.code {
        Code::Required => FieldError::required(field, ""),
        Code::Enum => {
            let values: Vec<String> = error
                .values
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .collect();
            let value = error.value.clone().unwrap_or(BadValue::Json(Value::Null));
            FieldError::not_supported(field, value, &values)
        }
        Code::TooLong => FieldError::too_long_max_length(field, value_or_empty(), error.valid.unwrap_or(-1)),
        Code::MaxItems | Code::TooManyProperties => {
            FieldError::too_many(field, count(&error.value), error.valid.unwrap_or(-1))
        }
        Code::InvalidType => FieldError::type_invalid(field, value_or_empty(), &error.message),
        _ => FieldError::invalid(field, value_or_empty(), &error.message),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn to_field_errors_should_word_each_code_as_kube_apiserver() {
        let errors = [
            SchemaError::required(".spec.size"),
            SchemaError::invalid_type("spec.replicas", "integer", BadValue::Str("string".into())),
            SchemaError::enum_fail("spec.size", &json!("huge"), &[json!("small"), json!(2)]),
            SchemaError::too_long("spec.name", 3, "abcd"),
            SchemaError::too_many_items("spec.tags", 2, 3),
            SchemaError::exceeds_minimum("spec.replicas", Limit::Int(0), false, BadValue::Int(-1)),
            SchemaError::composite(format!(
                "{} must validate at least one schema (anyOf)",
                go_quote("spec.x")
            )),
        ];
        let shown: Vec<String> = to_field_errors(&errors, None).iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "spec.size: Required value",
                "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"",
                "spec.size: Unsupported value: \"huge\": supported values: \"small\", \"2\"",
                "spec.name: Too long: may not be longer than 3",
                "spec.tags: Too many: 3: must have at most 2 items",
                "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0",
                "<nil>: Invalid value: \"\": \"spec.x\" must validate at least one schema (anyOf)",
            ]
        );
    }

    #[test]
    fn to_field_errors_should_name_status_errors_below_their_base() {
        let errors = [SchemaError::required(".phase"), SchemaError::composite("x".into())];
        let shown: Vec<String> = to_field_errors(&errors, Some("status"))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            shown,
            ["status.phase: Required value", "status: Invalid value: \"\": x"]
        );
    }
}
