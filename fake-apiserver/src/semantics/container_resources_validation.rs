//! A container's resource requirements as `ValidateResourceRequirements` of
//! `pkg/apis/core/validation/validation.go` checks them: each limit's and request's name
//! (`validateContainerResourceName`) and quantity, no request above its limit, requests equal to
//! limits for resources that cannot be overcommitted (extended resources, huge pages), huge
//! pages in whole pages and only beside cpu or memory. Resource claims are not checked: their
//! gate (DynamicResourceAllocation) is off on the minors emulated, and the strategy drops them.

use serde_json::{Map, Value};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::quantity::Quantity;
use crate::semantics::quantity_validation::resource_quantity_errors;
use crate::semantics::resource_names::{container_resource_name_errors, overcommit_allowed};

/// `ValidateResourceRequirements` of the `resources` at `at` (`spec.containers[0].resources`),
/// on the Kubernetes `minor`.
pub(crate) fn resources_errors(resources: Option<&Value>, at: &str, minor: u32) -> Vec<FieldError> {
    let empty = Map::new();
    let section = |key: &str| {
        resources
            .and_then(|r| r.get(key))
            .and_then(Value::as_object)
            .unwrap_or(&empty)
    };
    let (limits, requests) = (section("limits"), section("requests"));
    let (limits_path, requests_path) = (format!("{at}.limits"), format!("{at}.requests"));
    let mut errors = Vec::new();
    let mut compute = false;
    let mut huge_pages = false;
    for (name, value) in limits {
        let field = format!("{limits_path}[{name}]");
        let text = value.as_str().unwrap_or_default();
        errors.extend(entry_errors(name, text, &field, minor));
        huge_pages |= is_huge_pages(name);
        compute |= matches!(name.as_str(), "cpu" | "memory");
    }
    for (name, value) in requests {
        let field = format!("{requests_path}[{name}]");
        let text = value.as_str().unwrap_or_default();
        errors.extend(entry_errors(name, text, &field, minor));
        let request = Quantity::parse(text).ok();
        match limits
            .get(name)
            .map(|l| l.as_str().and_then(|l| Quantity::parse(l).ok()))
        {
            Some(Some(limit)) => {
                if let Some(request) = request {
                    let order = request.cmp_value(&limit);
                    let why = if order.is_ne() && !overcommit_allowed(name) {
                        Some(format!("must be equal to {name} limit of {limit}"))
                    } else if order.is_gt() {
                        Some(format!("must be less than or equal to {name} limit of {limit}"))
                    } else {
                        None
                    };
                    if let Some(why) = why {
                        // Go reports it on the requests, not on the entry.
                        errors.push(FieldError::invalid(
                            &requests_path,
                            BadValue::Str(request.to_string()),
                            why,
                        ));
                    }
                }
            }
            Some(None) => {}
            None if !overcommit_allowed(name) => errors.push(FieldError::required(
                &limits_path,
                "Limit must be set for non overcommitable resources",
            )),
            None => {}
        }
        huge_pages |= is_huge_pages(name);
        compute |= matches!(name.as_str(), "cpu" | "memory");
    }
    if huge_pages && !compute {
        errors.push(FieldError::forbidden(at, "HugePages require cpu or memory"));
    }
    errors
}

/// The checks every limit and request gets: its name, its quantity, and for huge pages a whole
/// number of pages (`validateResourceQuantityHugePageValue`).
fn entry_errors(name: &str, text: &str, field: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = container_resource_name_errors(name, field, minor);
    errors.extend(resource_quantity_errors(name, text, field));
    if is_huge_pages(name)
        && let Ok(quantity) = Quantity::parse(text)
        && !whole_pages(name, &quantity)
    {
        errors.push(FieldError::invalid(
            field,
            BadValue::Str(quantity.to_string()),
            format!("{quantity} is not positive integer multiple of {name}"),
        ));
    }
    errors
}

/// `helper.IsHugePageResourceName`.
fn is_huge_pages(name: &str) -> bool {
    name.starts_with("hugepages-")
}

/// `helper.IsHugePageResourceValueDivisible`: the page size from the name, positive and whole,
/// divides the quantity.
fn whole_pages(name: &str, quantity: &Quantity) -> bool {
    let Some(page) = name
        .strip_prefix("hugepages-")
        .and_then(|size| Quantity::parse(size).ok())
    else {
        return false;
    };
    let size = page.value();
    if size <= 0 || page.milli_value() % 1000 != 0 {
        return false;
    }
    quantity.value() % size == 0
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    fn errors(resources: Value) -> Vec<String> {
        rendered(resources_errors(Some(&resources), "r", 28))
    }

    #[test]
    fn a_request_above_its_limit_should_be_reported_on_the_requests() {
        assert!(errors(json!({"limits": {"cpu": "1"}, "requests": {"cpu": "500m"}})).is_empty());
        assert_eq!(
            errors(json!({"limits": {"cpu": "1"}, "requests": {"cpu": "2"}})),
            ["r.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1"]
        );
    }

    #[test]
    fn resources_that_cannot_be_overcommitted_should_request_their_limit() {
        assert_eq!(
            errors(json!({"requests": {"example.com/gpu": "1"}})),
            ["r.limits: Required value: Limit must be set for non overcommitable resources"]
        );
        assert_eq!(
            errors(json!({"limits": {"example.com/gpu": "2"}, "requests": {"example.com/gpu": "1"}})),
            ["r.requests: Invalid value: \"1\": must be equal to example.com/gpu limit of 2"]
        );
    }

    #[test]
    fn huge_pages_should_come_in_whole_pages_beside_cpu_or_memory() {
        assert_eq!(
            errors(json!({"limits": {"hugepages-2Mi": "3Mi"}, "requests": {"hugepages-2Mi": "3Mi"}})),
            [
                "r.limits[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi",
                "r.requests[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi",
                "r: Forbidden: HugePages require cpu or memory",
            ]
        );
        assert_eq!(
            errors(json!({"limits": {"gpu": "1"}})),
            [
                "r.limits[gpu]: Invalid value: \"gpu\": must be a standard resource type or fully qualified",
                "r.limits[gpu]: Invalid value: \"gpu\": must be a standard resource for containers",
            ]
        );
    }
}
