//! The validation of resource quantities (`ValidateResourceQuantityValue` and
//! `helper.IsIntegerResourceName` of `pkg/apis/core`): never negative, and whole for the
//! resources counted in units.

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::quantity::Quantity;

/// `ValidateResourceQuantityValue`: a quantity of `resource` at `field` must not be negative,
/// and a whole number for integer resources (pods, services, extended resources…). A value that
/// does not parse was refused when the body was decoded.
pub(crate) fn resource_quantity_errors(resource: &str, text: &str, field: &str) -> Vec<FieldError> {
    let Ok(quantity) = Quantity::parse(text) else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    if quantity.is_negative() {
        let shown = BadValue::Str(quantity.to_string());
        errors.push(FieldError::invalid(field, shown, "must be greater than or equal to 0"));
    }
    if is_integer_resource(resource) && !quantity.is_whole() {
        errors.push(FieldError::invalid(
            field,
            BadValue::Raw(quantity.go_syntax()),
            "must be an integer",
        ));
    }
    errors
}

/// `helper.IsIntegerResourceName`: the counted resources, and extended resources (a qualified
/// name outside `kubernetes.io/` that is no `requests.` quota name).
fn is_integer_resource(name: &str) -> bool {
    const COUNTED: &[&str] = &[
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    ];
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    let extended = !native
        && !name.starts_with("requests.")
        && names::qualified_name_errors(&format!("requests.{name}")).is_empty();
    COUNTED.contains(&name) || extended
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_quantities_should_be_checked_as_kube_apiserver_checks_them() {
        let errors = resource_quantity_errors("pods", "1.5", "status.allocatable.pods");
        assert_eq!(errors.len(), 1);
        assert!(errors[0].to_string().ends_with("must be an integer"));
        let errors = resource_quantity_errors("cpu", "-1", "status.capacity.cpu");
        assert_eq!(
            errors[0].to_string(),
            "status.capacity.cpu: Invalid value: \"-1\": must be greater than or equal to 0"
        );
        assert!(resource_quantity_errors("cpu", "1.5", "c").is_empty());
        assert!(is_integer_resource("example.com/gpu"));
        assert!(!is_integer_resource("kubernetes.io/gpu"));
    }
}
