//! RuntimeClasses as kube-apiserver serves them: `ValidateRuntimeClass` and
//! `ValidateRuntimeClassUpdate` (`pkg/apis/node/validation/validation.go`: `validateOverhead`
//! through core's `ValidateResourceRequirements` of the pod's fixed overhead as limits,
//! `validateScheduling`, `validateTolerations`), and `GetWarningsForRuntimeClass`
//! (`pkg/api/node/util.go`), which the strategy (`pkg/registry/node/runtimeclass/strategy.go`)
//! gives on create and update.

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names::dns1123_label_errors;
use crate::semantics::node_label_warnings::deprecated_message;
use crate::semantics::quantity::Quantity;
use crate::semantics::quantity_validation::resource_quantity_errors;
use crate::semantics::resource_names;
use crate::semantics::service_port_validation::label_errors;
use crate::semantics::toleration_validation::{toleration_errors, toleration_go};

const HUGE_PAGES: &str = "hugepages-";

/// `ValidateRuntimeClass` less metadata: a DNS label handler, a valid overhead and scheduling.
pub(crate) fn create_errors(class: &Value, minor: u32) -> Vec<FieldError> {
    let handler = class.get("handler").and_then(Value::as_str).unwrap_or_default();
    let mut errors: Vec<FieldError> = dns1123_label_errors(handler)
        .into_iter()
        .map(|why| FieldError::invalid("handler", handler.into(), why))
        .collect();
    if let Some(overhead) = class.get("overhead").filter(|o| !o.is_null()) {
        let empty = Map::new();
        let fixed = overhead.get("podFixed").and_then(Value::as_object).unwrap_or(&empty);
        errors.extend(overhead_errors(fixed, minor));
    }
    if let Some(scheduling) = class.get("scheduling").filter(|s| !s.is_null()) {
        if let Some(selector) = scheduling.get("nodeSelector").and_then(Value::as_object) {
            errors.extend(label_errors(selector, "scheduling.nodeSelector"));
        }
        errors.extend(tolerations_errors(scheduling.get("tolerations")));
    }
    errors
}

/// The strategy's `ValidateUpdate`: the class as on create, then an unchanged handler.
pub(crate) fn update_errors(class: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = create_errors(class, minor);
    let handler = |class: &Value| {
        class
            .get("handler")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let new_handler = handler(class);
    if new_handler != handler(old) {
        errors.push(FieldError::invalid(
            "handler",
            BadValue::Str(new_handler),
            "field is immutable",
        ));
    }
    errors
}

/// `GetWarningsForRuntimeClass`: the deprecated node labels its node selector uses.
pub(crate) fn warnings(class: &Value, minor: u32) -> Vec<String> {
    let selector = class.pointer("/scheduling/nodeSelector").and_then(Value::as_object);
    selector
        .into_iter()
        .flat_map(|s| s.keys())
        .filter_map(|key| deprecated_message(key, minor))
        .map(|why| format!("scheduling.nodeSelector: {why}"))
        .collect()
}

/// `validateTolerations`: `ValidateTolerations` (under the path Go doubles) and each
/// toleration's key, operator, value and effect once.
fn tolerations_errors(tolerations: Option<&Value>) -> Vec<FieldError> {
    let mut errors = toleration_errors(tolerations, "scheduling.tolerations.tolerations");
    let mut seen: Vec<[&str; 4]> = Vec::new();
    for (i, toleration) in tolerations.and_then(Value::as_array).into_iter().flatten().enumerate() {
        let text = |key: &str| toleration.get(key).and_then(Value::as_str).unwrap_or_default();
        let list_key = [text("key"), text("operator"), text("value"), text("effect")];
        if seen.contains(&list_key) {
            errors.push(FieldError::duplicate(
                format!("scheduling.tolerations[{i}]"),
                toleration_go(toleration),
            ));
        } else {
            seen.push(list_key);
        }
    }
    errors
}

/// `ValidateResourceRequirements` of the fixed overhead as limits: container resource names,
/// quantities, whole huge pages, and huge pages only with cpu or memory.
fn overhead_errors(limits: &Map<String, Value>, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let (mut cpu_or_memory, mut huge_pages) = (false, false);
    for (resource, value) in limits {
        let at = format!("overhead.limits[{resource}]");
        errors.extend(resource_names::container_resource_name_errors(resource, &at, minor));
        let text = value.as_str().unwrap_or_default();
        errors.extend(resource_quantity_errors(resource, text, &at));
        if resource.starts_with(HUGE_PAGES) {
            huge_pages = true;
            if let Ok(quantity) = Quantity::parse(text)
                && !huge_page_divisible(resource, &quantity)
            {
                let shown = quantity.to_string();
                let why = format!("{shown} is not positive integer multiple of {resource}");
                errors.push(FieldError::invalid(at.as_str(), BadValue::Str(shown), why));
            }
        }
        cpu_or_memory |= matches!(resource.as_str(), "cpu" | "memory");
    }
    if huge_pages && !cpu_or_memory {
        errors.push(FieldError::forbidden("overhead", "HugePages require cpu or memory"));
    }
    errors
}

/// `IsHugePageResourceValueDivisible`: a whole positive page size, of which the quantity is a
/// whole multiple (`Value()` rounds up).
fn huge_page_divisible(resource: &str, quantity: &Quantity) -> bool {
    let Ok(page) = Quantity::parse(&resource[HUGE_PAGES.len()..]) else {
        return false;
    };
    let page_milli = ceil_scaled(&page, 3);
    if page_milli <= 0 || page_milli % 1000 != 0 {
        return false;
    }
    ceil_scaled(quantity, 0) % ceil_scaled(&page, 0) == 0
}

/// The quantity times `10^extra`, rounded up to an integer (`Value()`, `MilliValue()`).
fn ceil_scaled(quantity: &Quantity, extra: i32) -> i128 {
    let (mantissa, scale, _) = quantity.amount();
    let scale = scale + extra;
    if scale >= 0 {
        return mantissa.saturating_mul(10i128.saturating_pow(scale.unsigned_abs()));
    }
    let divisor = 10i128.saturating_pow(scale.unsigned_abs());
    let quotient = mantissa / divisor;
    if mantissa % divisor > 0 { quotient + 1 } else { quotient }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn handlers_should_be_dns_labels_and_immutable() {
        assert!(create_errors(&json!({"handler": "runc"}), 28).is_empty());
        assert_eq!(create_errors(&json!({}), 28).len(), 1);
        let errors = rendered(update_errors(
            &json!({"handler": "kata"}),
            &json!({"handler": "runc"}),
            28,
        ));
        assert_eq!(errors, ["handler: Invalid value: \"kata\": field is immutable"]);
    }

    #[test]
    fn overhead_should_name_container_resources_in_whole_pages() {
        let class = json!({"handler": "runc", "overhead": {"podFixed": {"nonstandard": "1", "hugepages-2Mi": "1Mi", "pods": "1"}}});
        assert_eq!(
            rendered(create_errors(&class, 28)),
            [
                "overhead.limits[hugepages-2Mi]: Invalid value: \"1Mi\": 1Mi is not positive integer multiple of hugepages-2Mi",
                "overhead.limits[nonstandard]: Invalid value: \"nonstandard\": must be a standard resource type or fully qualified",
                "overhead.limits[nonstandard]: Invalid value: \"nonstandard\": must be a standard resource for containers",
                "overhead.limits[pods]: Invalid value: \"pods\": must be a standard resource for containers",
                "overhead: Forbidden: HugePages require cpu or memory",
            ]
        );
        let fine = json!({"handler": "runc", "overhead": {"podFixed": {"cpu": "250m", "hugepages-2Mi": "4Mi", "example.com/foo": "1"}}});
        assert!(create_errors(&fine, 28).is_empty());
    }

    #[test]
    fn tolerations_should_be_distinct() {
        let toleration = json!({"key": "a", "operator": "Equal", "value": "b", "effect": "NoSchedule"});
        let class = json!({"handler": "runc", "scheduling": {"tolerations": [toleration, toleration]}});
        assert_eq!(
            rendered(create_errors(&class, 28)),
            [
                "scheduling.tolerations[1]: Duplicate value: core.Toleration{Key:\"a\", Operator:\"Equal\", Value:\"b\", Effect:\"NoSchedule\", TolerationSeconds:(*int64)(nil)}"
            ]
        );
    }

    #[test]
    fn deprecated_node_labels_should_warn() {
        let class = json!({"scheduling": {"nodeSelector": {"beta.kubernetes.io/os": "linux", "pool": "a"}}});
        assert_eq!(
            warnings(&class, 28),
            ["scheduling.nodeSelector: deprecated since v1.14; use \"kubernetes.io/os\" instead"]
        );
    }
}
