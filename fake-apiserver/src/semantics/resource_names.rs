//! The resource name rules of `pkg/apis/core/validation/validation.go`
//! (`validateResourceName`, `validateContainerResourceName`, `ValidateResourceQuotaResourceName`)
//! over the name sets of `pkg/apis/core/helper/helpers.go` (`IsStandardResourceName`,
//! `IsStandardContainerResourceName`, `IsStandardQuotaResourceName`, `IsNativeResource`,
//! `IsExtendedResourceName`, `IsOvercommitAllowed`), shared by quotas and limit ranges.

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;

/// `standardResources`.
const STANDARD: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
];

/// `standardQuotaResources`: the standard resources but `storage`.
fn is_standard_quota(name: &str) -> bool {
    (name != "storage" && STANDARD.contains(&name)) || is_quota_huge_pages(name)
}

/// `IsQuotaHugePageResourceName`.
fn is_quota_huge_pages(name: &str) -> bool {
    name.starts_with("hugepages-") || name.starts_with("requests.hugepages-")
}

/// `IsStandardResourceName`.
fn is_standard(name: &str) -> bool {
    STANDARD.contains(&name) || is_quota_huge_pages(name)
}

/// `IsNativeResource`: unprefixed or in `kubernetes.io/`.
pub(crate) fn is_native(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `IsExtendedResourceName`.
pub(crate) fn is_extended(name: &str) -> bool {
    !is_native(name)
        && !name.starts_with("requests.")
        && names::qualified_name_errors(&format!("requests.{name}")).is_empty()
}

/// `IsOvercommitAllowed`: native resources but huge pages.
pub(crate) fn overcommit_allowed(name: &str) -> bool {
    is_native(name) && !name.starts_with("hugepages-")
}

/// A resource name as its field errors print it: 1.28's validators pass it as a `string`
/// (quoted); 1.31's as a `core.ResourceName`, whose `String()` prints it bare. The minors
/// between were not recorded: 1.31's form is taken from 1.31 on.
fn shown(name: &str, minor: u32) -> BadValue {
    if minor >= 31 {
        BadValue::Raw(name.to_owned())
    } else {
        name.into()
    }
}

/// `validateResourceName`: a qualified name, and a standard one when unprefixed.
pub(crate) fn resource_name_errors(name: &str, at: &str, minor: u32) -> Vec<FieldError> {
    let errors: Vec<FieldError> = names::qualified_name_errors(name)
        .into_iter()
        .map(|why| FieldError::invalid(at, shown(name, minor), why))
        .collect();
    if !errors.is_empty() {
        return errors;
    }
    if !name.contains('/') && !is_standard(name) {
        return vec![FieldError::invalid(
            at,
            shown(name, minor),
            "must be a standard resource type or fully qualified",
        )];
    }
    Vec::new()
}

/// `validateContainerResourceName`: a resource name, standard for containers when unprefixed
/// (cpu, memory, ephemeral storage, huge pages), an extended resource when prefixed outside
/// `kubernetes.io/`.
pub(crate) fn container_resource_name_errors(name: &str, at: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = resource_name_errors(name, at, minor);
    if !name.contains('/') {
        let container = matches!(name, "cpu" | "memory" | "ephemeral-storage") || name.starts_with("hugepages-");
        if !container {
            errors.push(FieldError::invalid(
                at,
                shown(name, minor),
                "must be a standard resource for containers",
            ));
        }
    } else if !is_native(name) && !is_extended(name) {
        errors.push(FieldError::invalid(
            at,
            shown(name, minor),
            "doesn't follow extended resource name standard",
        ));
    }
    errors
}

/// `ValidateResourceQuotaResourceName`: a resource name, standard for quotas when unprefixed.
pub(crate) fn quota_resource_name_errors(name: &str, at: &str, minor: u32) -> Vec<FieldError> {
    let mut errors = resource_name_errors(name, at, minor);
    if !name.contains('/') && !is_standard_quota(name) {
        errors.push(FieldError::invalid(
            at,
            shown(name, minor),
            "must be a standard resource for quota",
        ));
    }
    errors
}

/// `IsStandardQuotaResourceName`, for the scope rules.
pub(crate) fn is_standard_quota_resource(name: &str) -> bool {
    is_standard_quota(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bodies(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(FieldError::body).collect()
    }

    #[test]
    fn quota_names_should_be_standard_or_qualified() {
        assert!(quota_resource_name_errors("count/deployments.apps", "k", 28).is_empty());
        assert_eq!(
            bodies(&quota_resource_name_errors("storage", "k", 28)),
            ["Invalid value: \"storage\": must be a standard resource for quota"]
        );
        assert_eq!(quota_resource_name_errors("foo", "k", 28).len(), 2);
        assert!(quota_resource_name_errors("requests.hugepages-2Mi", "k", 28).is_empty());
    }

    #[test]
    fn container_names_should_be_compute_resources() {
        assert!(container_resource_name_errors("cpu", "k", 28).is_empty());
        assert_eq!(
            bodies(&container_resource_name_errors("storage", "k", 28)),
            ["Invalid value: \"storage\": must be a standard resource for containers"]
        );
        assert!(container_resource_name_errors("example.com/gpu", "k", 28).is_empty());
    }
}
