//! `metav1.Condition` lists as apimachinery checks them
//! (`staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go`:
//! `ValidateConditions`, `ValidateCondition`, `isValidConditionReason`).

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names::qualified_name_errors;

/// `validConditionStatuses.List()`: sorted.
const STATUSES: [&str; 3] = ["False", "True", "Unknown"];

/// `maxReasonLen` and `maxMessageLen`.
const MAX_REASON: usize = 1024;
const MAX_MESSAGE: usize = 32 * 1024;

/// `isValidConditionReason`'s regex error.
const REASON: &str = "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')";

fn text<'v>(condition: &'v Value, key: &str) -> &'v str {
    condition.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `ValidateConditions` of the list at `path`: each type once, each condition valid.
pub(crate) fn conditions_errors(conditions: &[Value], path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, condition) in conditions.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let kind = text(condition, "type");
        if seen.contains(&kind) {
            errors.push(FieldError::duplicate(format!("{at}.type"), kind.into()));
        } else {
            seen.push(kind);
        }
        errors.extend(condition_errors(condition, &at));
    }
    errors
}

/// `ValidateCondition`: a qualified type, a known status, a non-negative observed generation,
/// a transition time, a reason in the reason format, bounded reason and message.
fn condition_errors(condition: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let kind = text(condition, "type");
    for why in qualified_name_errors(kind) {
        errors.push(FieldError::invalid(format!("{at}.type"), kind.into(), why));
    }
    let status = text(condition, "status");
    if !STATUSES.contains(&status) {
        let supported = STATUSES.map(str::to_owned);
        errors.push(FieldError::not_supported(
            format!("{at}.status"),
            status.into(),
            &supported,
        ));
    }
    let generation = condition
        .get("observedGeneration")
        .and_then(Value::as_i64)
        .unwrap_or_default();
    if generation < 0 {
        errors.push(FieldError::invalid(
            format!("{at}.observedGeneration"),
            BadValue::Int(generation),
            "must be greater than or equal to zero",
        ));
    }
    if condition.get("lastTransitionTime").is_none_or(Value::is_null) {
        errors.push(FieldError::required(format!("{at}.lastTransitionTime"), "must be set"));
    }
    let reason = text(condition, "reason");
    if reason.is_empty() {
        errors.push(FieldError::required(format!("{at}.reason"), "must be set"));
    } else {
        if !is_reason(reason) {
            errors.push(FieldError::invalid(format!("{at}.reason"), reason.into(), REASON));
        }
        if reason.len() > MAX_REASON {
            errors.push(FieldError::too_long(
                format!("{at}.reason"),
                reason.into(),
                MAX_REASON as i64,
            ));
        }
    }
    let message = text(condition, "message");
    if message.len() > MAX_MESSAGE {
        errors.push(FieldError::too_long(
            format!("{at}.message"),
            message.into(),
            MAX_MESSAGE as i64,
        ));
    }
    errors
}

/// `[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?`.
fn is_reason(reason: &str) -> bool {
    let bytes = reason.as_bytes();
    let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    first.is_ascii_alphabetic()
        && (bytes.len() == 1 || last.is_ascii_alphanumeric() || *last == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b',' | b':'))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn conditions_should_be_complete_and_distinct() {
        let conditions = [
            json!({"type": "Ready", "status": "Maybe", "observedGeneration": -1, "reason": "1bad"}),
            json!({"type": "Ready", "status": "True", "lastTransitionTime": "2024-01-01T00:00:00Z", "reason": "A,B:C_"}),
        ];
        assert_eq!(
            rendered(conditions_errors(&conditions, "status.conditions")),
            [
                "status.conditions[0].status: Unsupported value: \"Maybe\": supported values: \"False\", \"True\", \"Unknown\"",
                "status.conditions[0].observedGeneration: Invalid value: -1: must be greater than or equal to zero",
                "status.conditions[0].lastTransitionTime: Required value: must be set",
                &format!("status.conditions[0].reason: Invalid value: \"1bad\": {REASON}"),
                "status.conditions[1].type: Duplicate value: \"Ready\"",
            ]
        );
    }

    #[test]
    fn reasons_should_follow_the_reason_format() {
        assert!(is_reason("A") && is_reason("Some_Reason") && is_reason("A,B"));
        assert!(!is_reason("A,") && !is_reason("_A") && !is_reason("A B") && !is_reason(""));
    }
}
