//! A Deployment's update strategy, as kube-apiserver v1.28 validates it
//! (`pkg/apis/apps/validation/validation.go`: `ValidateDeploymentStrategy`,
//! `ValidateRollingUpdateDeployment`, `ValidatePositiveIntOrPercent`, `IsNotMoreThan100Percent`):
//! a Recreate strategy has no rolling update, a rolling update's surge and unavailability are
//! non-negative counts or percentages, not both zero, unavailability at most 100%.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, nonnegative};

/// `validation.IsValidPercent`'s message.
const NOT_PERCENT: &str = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/// `ValidateDeploymentStrategy`.
pub(crate) fn strategy_errors(strategy: &Value) -> Vec<FieldError> {
    let rolling = strategy.get("rollingUpdate").filter(|r| !r.is_null());
    let kind = strategy.get("type").and_then(Value::as_str).unwrap_or_default();
    match (kind, rolling) {
        ("Recreate", None) => Vec::new(),
        ("Recreate", Some(_)) => vec![FieldError::forbidden(
            "spec.strategy.rollingUpdate",
            "may not be specified when strategy `type` is 'Recreate'",
        )],
        ("RollingUpdate", None) => vec![FieldError::required(
            "spec.strategy.rollingUpdate",
            "this should be defaulted and never be nil",
        )],
        ("RollingUpdate", Some(rolling)) => rolling_update_errors(rolling),
        (other, rolling) => {
            // Go prints the internal struct; its pointer is an address, so only nil is exact.
            let pointer = if rolling.is_some() {
                "(*apps.RollingUpdateDeployment)(0xc000000000)"
            } else {
                "(*apps.RollingUpdateDeployment)(nil)"
            };
            let shown = format!(
                "apps.DeploymentStrategy{{Type:{}, RollingUpdate:{pointer}}}",
                crate::semantics::field_error::go_quote(other)
            );
            let supported = ["Recreate".to_owned(), "RollingUpdate".to_owned()];
            vec![FieldError::not_supported(
                "spec.strategy",
                BadValue::Raw(shown),
                &supported,
            )]
        }
    }
}

/// `ValidateRollingUpdateDeployment`: both bounds non-negative ints or percentages, not both
/// zero, at most 100% unavailable.
fn rolling_update_errors(rolling: &Value) -> Vec<FieldError> {
    let path = "spec.strategy.rollingUpdate";
    let unavailable = rolling.get("maxUnavailable").unwrap_or(&Value::Null);
    let surge = rolling.get("maxSurge").unwrap_or(&Value::Null);
    let mut errors = int_or_percent_errors(unavailable, &format!("{path}.maxUnavailable"));
    errors.extend(int_or_percent_errors(surge, &format!("{path}.maxSurge")));
    if int_or_percent_value(unavailable) == 0 && int_or_percent_value(surge) == 0 {
        errors.push(FieldError::invalid(
            format!("{path}.maxUnavailable"),
            int_or_string_go(unavailable),
            "may not be 0 when `maxSurge` is 0",
        ));
    }
    if let Some(percent) = percent_value(unavailable)
        && percent > 100
    {
        errors.push(FieldError::invalid(
            format!("{path}.maxUnavailable"),
            int_or_string_go(unavailable),
            "must not be greater than 100%",
        ));
    }
    errors
}

/// `ValidatePositiveIntOrPercent`.
pub(crate) fn int_or_percent_errors(value: &Value, path: &str) -> Vec<FieldError> {
    match value {
        Value::String(_) if percent_value(value).is_none() => {
            vec![FieldError::invalid(path, int_or_string_go(value), NOT_PERCENT)]
        }
        Value::String(_) => Vec::new(),
        other => nonnegative(other.as_i64().unwrap_or(0), path),
    }
}

/// `getPercentValue`: the number of a valid percentage (`[0-9]+%`).
pub(crate) fn percent_value(value: &Value) -> Option<i64> {
    let digits = value.as_str()?.strip_suffix('%')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Go's Atoi overflows to an error and then 0.
    Some(digits.parse().unwrap_or(0))
}

/// `getIntOrPercentValue`: a percentage's number, else `IntValue()` (a string that is no
/// number counts as 0).
pub(crate) fn int_or_percent_value(value: &Value) -> i64 {
    match value {
        Value::String(s) => percent_value(value).unwrap_or_else(|| s.parse().unwrap_or(0)),
        other => other.as_i64().unwrap_or(0),
    }
}

/// Go's `%#v` of an `intstr.IntOrString`.
pub(crate) fn int_or_string_go(value: &Value) -> BadValue {
    BadValue::Raw(match value {
        Value::String(s) => format!(
            "intstr.IntOrString{{Type:1, IntVal:0, StrVal:{}}}",
            crate::semantics::field_error::go_quote(s)
        ),
        other => format!(
            "intstr.IntOrString{{Type:0, IntVal:{}, StrVal:\"\"}}",
            other.as_i64().unwrap_or(0)
        ),
    })
}
