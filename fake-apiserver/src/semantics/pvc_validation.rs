//! PersistentVolumeClaims as `pkg/apis/core/validation/validation.go` validates them:
//! `ValidatePersistentVolumeClaim` (`ValidatePersistentVolumeClaimSpec`, `validateDataSource`,
//! `validateDataSourceRef`), with the options `ValidationOptionsForPersistentVolumeClaim`
//! derives from the stored claim; what an update may change is `pvc_update_validation`'s.

use std::cmp::Ordering;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::label_selector_validation::label_selector_errors;
use crate::semantics::names;
use crate::semantics::quantity::Quantity;
use crate::semantics::quantity_validation::resource_quantity_errors;

/// `core.BetaStorageClassAnnotation`.
pub(crate) const BETA_STORAGE_CLASS: &str = "volume.beta.kubernetes.io/storage-class";

/// `isNotPositiveErrorMsg`.
const NOT_POSITIVE: &str = "must be greater than zero";

/// `supportedAccessModes` with `ReadWriteOncePod` (on by default in 1.28, always from 1.29),
/// sorted as `sets.List` gives them.
const ACCESS_MODES: [&str; 4] = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];

/// `supportedVolumeModes`, sorted.
pub(crate) const VOLUME_MODES: [&str; 2] = ["Block", "Filesystem"];

/// `PersistentVolumeClaimSpecValidationOptions`, less what is on in every minor served.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ClaimOptions {
    /// `AllowInvalidLabelValueInSelector`: the stored selector was already invalid.
    pub(crate) lenient_selector: bool,
    /// `AllowInvalidAPIGroupInDataSourceOrRef` (1.31): the stored claim named an API group.
    pub(crate) lenient_api_group: bool,
    /// `EnableRecoverFromExpansionFailure`: the gate is off, but a stored claim with allocated
    /// resources keeps it on.
    pub(crate) recover_expansion: bool,
    /// The Kubernetes minor (1.29 added the API group checks).
    pub(crate) minor: u32,
}

impl ClaimOptions {
    /// `ValidationOptionsForPersistentVolumeClaim(pvc, old)` (also the claim templates' options
    /// with `old` a template).
    pub(crate) fn for_claim(old: Option<&Value>, minor: u32) -> Self {
        let mut options = Self {
            minor,
            ..Self::default()
        };
        let Some(old) = old else {
            return options;
        };
        let spec = field(old, "spec");
        options.lenient_selector = !label_selector_errors(field(spec, "selector"), "", false).is_empty();
        options.lenient_api_group = ["dataSource", "dataSourceRef"]
            .iter()
            .any(|key| !field(field(spec, key), "apiGroup").is_null());
        let status = field(old, "status");
        options.recover_expansion = ["allocatedResources", "allocatedResourceStatuses"]
            .iter()
            .any(|key| field(status, key).as_object().is_some_and(|m| !m.is_empty()));
        options
    }
}

pub(super) fn field<'v>(value: &'v Value, key: &str) -> &'v Value {
    value.get(key).unwrap_or(&Value::Null)
}

pub(super) fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `ValidatePersistentVolumeClaim` less the object metadata (checked for every kind).
pub(crate) fn claim_errors(claim: &Value, options: ClaimOptions) -> Vec<FieldError> {
    claim_spec_errors(field(claim, "spec"), "spec", options)
}

/// `ValidatePersistentVolumeClaimSpec` of the spec at `path`.
pub(crate) fn claim_spec_errors(spec: &Value, path: &str, options: ClaimOptions) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let modes: Vec<&str> = spec
        .get("accessModes")
        .and_then(Value::as_array)
        .map(|m| m.iter().map(|v| v.as_str().unwrap_or_default()).collect())
        .unwrap_or_default();
    if modes.is_empty() {
        errors.push(FieldError::required(
            format!("{path}.accessModes"),
            "at least 1 access mode is required",
        ));
    }
    let selector = field(spec, "selector");
    if !selector.is_null() {
        errors.extend(label_selector_errors(
            selector,
            &format!("{path}.selector"),
            options.lenient_selector,
        ));
    }
    errors.extend(access_mode_errors(&modes, &format!("{path}.accessModes")));
    let storage_path = format!("{path}.resources[storage]");
    match spec.pointer("/resources/requests/storage").and_then(Value::as_str) {
        None => errors.push(FieldError::required(storage_path, "")),
        Some(storage) => match Quantity::parse(storage) {
            Ok(quantity) if quantity.cmp_value(&Quantity::from_int(0)) != Ordering::Greater => {
                errors.push(FieldError::invalid(
                    storage_path,
                    quantity.to_string().as_str().into(),
                    NOT_POSITIVE,
                ));
            }
            _ => errors.extend(resource_quantity_errors("storage", storage, &storage_path)),
        },
    }
    errors.extend(class_name_errors(spec, "storageClassName", path));
    if let Some(mode) = spec.get("volumeMode").and_then(Value::as_str)
        && !VOLUME_MODES.contains(&mode)
    {
        errors.push(FieldError::not_supported(
            format!("{path}.volumeMode"),
            mode.into(),
            &VOLUME_MODES.map(str::to_owned),
        ));
    }
    let source = spec.get("dataSource").filter(|s| !s.is_null());
    let reference = spec.get("dataSourceRef").filter(|s| !s.is_null());
    if let Some(source) = source {
        errors.extend(data_source_errors(
            source,
            &format!("{path}.dataSource"),
            false,
            options,
        ));
    }
    if let Some(reference) = reference {
        errors.extend(data_source_errors(
            reference,
            &format!("{path}.dataSourceRef"),
            true,
            options,
        ));
    }
    let dotted_path = BadValue::Raw(go_path("dataSource"));
    if reference.is_some_and(|r| !text(r, "namespace").is_empty()) {
        if source.is_some() {
            errors.push(FieldError::invalid(
                path,
                dotted_path,
                "may not be specified when dataSourceRef.namespace is specified",
            ));
        }
    } else if let (Some(source), Some(reference)) = (source, reference)
        && !(field(source, "apiGroup") == field(reference, "apiGroup")
            && text(source, "kind") == text(reference, "kind")
            && text(source, "name") == text(reference, "name"))
    {
        errors.push(FieldError::invalid(path, dotted_path, "must match dataSourceRef"));
    }
    errors
}

/// Go prints the `*field.Path` a data source error carries as its struct (`%#v`); the parent
/// pointer is an address, so any stands for it.
fn go_path(child: &str) -> String {
    format!("field.Path{{name:\"{child}\", index:\"\", parent:(*field.Path)(0xc000100000)}}")
}

/// The access modes' checks: each supported, and `ReadWriteOncePod` alone.
fn access_mode_errors(modes: &[&str], path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let (mut once_pod, mut other) = (false, false);
    for mode in modes {
        if !ACCESS_MODES.contains(mode) {
            errors.push(FieldError::not_supported(
                path,
                (*mode).into(),
                &ACCESS_MODES.map(str::to_owned),
            ));
        }
        if *mode == "ReadWriteOncePod" {
            once_pod = true;
        } else if ACCESS_MODES.contains(mode) {
            other = true;
        }
    }
    if once_pod && other {
        errors.push(FieldError::forbidden(
            path,
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
    errors
}

/// `ValidateClassName` of a set, non-empty class name at `{path}.{key}`.
pub(crate) fn class_name_errors(spec: &Value, key: &str, path: &str) -> Vec<FieldError> {
    let name = text(spec, key);
    if name.is_empty() {
        return Vec::new();
    }
    names::dns1123_subdomain_errors(name)
        .into_iter()
        .map(|why| FieldError::invalid(format!("{path}.{key}"), name.into(), why))
        .collect()
}

/// `validateDataSource` (`reference`: `validateDataSourceRef`, which also checks a namespace).
fn data_source_errors(source: &Value, path: &str, reference: bool, options: ClaimOptions) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if text(source, "name").is_empty() {
        errors.push(FieldError::required(format!("{path}.name"), ""));
    }
    let kind = text(source, "kind");
    if kind.is_empty() {
        errors.push(FieldError::required(format!("{path}.kind"), ""));
    }
    let group = text(source, "apiGroup");
    if group.is_empty() && kind != "PersistentVolumeClaim" {
        errors.push(FieldError::invalid(
            path,
            kind.into(),
            "must be 'PersistentVolumeClaim' when referencing the default apiGroup",
        ));
    }
    if options.minor >= 29 && !group.is_empty() && !options.lenient_api_group {
        for why in names::dns1123_subdomain_errors(group) {
            errors.push(FieldError::invalid(format!("{path}.apiGroup"), group.into(), why));
        }
    }
    let namespace = text(source, "namespace");
    if reference && !namespace.is_empty() {
        for why in names::dns1123_label_errors(namespace) {
            errors.push(FieldError::invalid(format!("{path}.namespace"), namespace.into(), why));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    fn claim() -> Value {
        json!({"metadata": {"name": "c"}, "spec": {"accessModes": ["ReadWriteOnce"], "volumeMode": "Filesystem",
            "resources": {"requests": {"storage": "1Gi"}}}, "status": {"phase": "Pending"}})
    }

    #[test]
    fn a_claim_should_need_modes_and_positive_storage() {
        let options = ClaimOptions::for_claim(None, 28);
        assert!(claim_errors(&claim(), options).is_empty());
        let bad = json!({"spec": {"accessModes": ["ReadWriteOncePod", "ReadWriteOnce"], "resources": {"requests": {"storage": "0"}},
            "dataSource": {"kind": "ConfigMap", "name": "x"}}});
        assert_eq!(
            rendered(&claim_errors(&bad, options)),
            [
                "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
                "spec.resources[storage]: Invalid value: \"0\": must be greater than zero",
                "spec.dataSource: Invalid value: \"ConfigMap\": must be 'PersistentVolumeClaim' when referencing the default apiGroup",
            ]
        );
    }
}
