//! coordination.k8s.io/v1 Leases, as kube-apiserver v1.28 validates them
//! (`pkg/apis/coordination/validation/validation.go`: `ValidateLease`, `ValidateLeaseUpdate`,
//! `ValidateLeaseSpec`; `pkg/registry/coordination/lease/strategy.go` resets nothing). Create
//! and update check the same spec rules; the object metadata is checked for every kind
//! elsewhere.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};

/// `ValidateLeaseSpec`: a positive duration, a non-negative transition count. Both fields are
/// optional pointers: absent (or null) is not checked.
pub(crate) fn lease_errors(lease: &Value) -> Vec<FieldError> {
    let int = |key: &str| lease.pointer(&format!("/spec/{key}")).and_then(Value::as_i64);
    let mut errors = Vec::new();
    if let Some(duration) = int("leaseDurationSeconds").filter(|d| *d <= 0) {
        errors.push(FieldError::invalid(
            "spec.leaseDurationSeconds",
            BadValue::Int(duration),
            "must be greater than 0",
        ));
    }
    if let Some(transitions) = int("leaseTransitions").filter(|t| *t < 0) {
        errors.push(FieldError::invalid(
            "spec.leaseTransitions",
            BadValue::Int(transitions),
            "must be greater than or equal to 0",
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_lease_should_last_and_count_transitions_from_zero() {
        assert!(lease_errors(&json!({"spec": {"leaseDurationSeconds": 15, "leaseTransitions": 0}})).is_empty());
        assert!(lease_errors(&json!({"spec": {}})).is_empty());
        let errors = lease_errors(&json!({"spec": {"leaseDurationSeconds": 0, "leaseTransitions": -1}}));
        let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
                "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"
            ]
        );
    }
}
