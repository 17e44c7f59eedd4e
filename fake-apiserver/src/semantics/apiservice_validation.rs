//! Validation of APIServices as kube-aggregator's
//! `staging/src/k8s.io/kube-aggregator/pkg/apis/apiregistration/validation/validation.go` has
//! it: `ValidateAPIService` (the name is `version.group`, the group a DNS subdomain and the
//! version a DNS-1035 label, the priorities in range, a local APIService without TLS settings,
//! a remote one with a whole Service reference) on create and update, and
//! `ValidateAPIServiceStatus` (condition statuses) on a `/status` write.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;

/// `ValidateAPIService`, less the object metadata checked for every kind (the name's path
/// segment rules among them).
pub(crate) fn api_service_errors(service: &Value) -> Vec<FieldError> {
    let text = |pointer: &str| service.pointer(pointer).and_then(Value::as_str).unwrap_or_default();
    let int = |pointer: &str| service.pointer(pointer).and_then(Value::as_i64).unwrap_or_default();
    let (group, version) = (text("/spec/group"), text("/spec/version"));
    let mut errors = Vec::new();
    let name = text("/metadata/name");
    let required = format!("{version}.{group}");
    if names::object_name_errors("APIService", name).is_empty() && name != required {
        errors.push(FieldError::invalid(
            "metadata.name",
            name.into(),
            format!("must be `spec.version+\".\"+spec.group`: {required:?}"),
        ));
    }
    if group.is_empty() && version != "v1" {
        errors.push(FieldError::required(
            "spec.group",
            "only v1 may have an empty group and it better be legacy kube",
        ));
    }
    if !group.is_empty() {
        for why in names::dns1123_subdomain_errors(group) {
            errors.push(FieldError::invalid("spec.group", group.into(), why));
        }
    }
    for why in names::dns1035_label_errors(version) {
        errors.push(FieldError::invalid("spec.version", version.into(), why));
    }
    let group_priority = int("/spec/groupPriorityMinimum");
    if !(1..=20000).contains(&group_priority) {
        errors.push(FieldError::invalid(
            "spec.groupPriorityMinimum",
            BadValue::Int(group_priority),
            "must be positive and less than 20000",
        ));
    }
    let version_priority = int("/spec/versionPriority");
    if !(1..=1000).contains(&version_priority) {
        errors.push(FieldError::invalid(
            "spec.versionPriority",
            BadValue::Int(version_priority),
            "must be positive and less than 1000",
        ));
    }
    // `caBundle` is base64 of bytes; kube-aggregator counts the bytes.
    let ca_bytes = text("/spec/caBundle").trim_end_matches('=').len() * 3 / 4;
    let skip_tls = service.pointer("/spec/insecureSkipTLSVerify").and_then(Value::as_bool) == Some(true);
    let Some(reference) = service.pointer("/spec/service").filter(|s| s.is_object()) else {
        if ca_bytes != 0 {
            errors.push(FieldError::invalid(
                "spec.caBundle",
                BadValue::Str(format!("{ca_bytes} bytes")),
                "local APIServices may not have a caBundle",
            ));
        }
        if skip_tls {
            errors.push(FieldError::invalid(
                "spec.insecureSkipTLSVerify",
                BadValue::Json(Value::Bool(true)),
                "local APIServices may not have insecureSkipTLSVerify",
            ));
        }
        return errors;
    };
    for field in ["namespace", "name"] {
        if reference
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .is_empty()
        {
            errors.push(FieldError::required(format!("spec.service.{field}"), ""));
        }
    }
    let port = reference.get("port").and_then(Value::as_i64).unwrap_or_default();
    if !(1..=65535).contains(&port) {
        errors.push(FieldError::invalid(
            "spec.service.port",
            BadValue::Int(port),
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    if skip_tls && ca_bytes > 0 {
        errors.push(FieldError::invalid(
            "spec.insecureSkipTLSVerify",
            BadValue::Json(Value::Bool(true)),
            "may not be true if caBundle is present",
        ));
    }
    errors
}

/// `ValidateAPIServiceStatus`: each condition's status is True, False or Unknown.
pub(crate) fn api_service_status_errors(service: &Value) -> Vec<FieldError> {
    let conditions = service.pointer("/status/conditions").and_then(Value::as_array);
    let supported = ["True".to_owned(), "False".to_owned(), "Unknown".to_owned()];
    conditions
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, condition)| {
            let status = condition.get("status").and_then(Value::as_str).unwrap_or_default();
            (!supported.iter().any(|s| s == status))
                .then(|| FieldError::not_supported(format!("status.conditions[{i}].status"), status.into(), &supported))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_api_service_should_be_named_and_ranked_as_kube_aggregator_requires() {
        let bad = json!({"metadata": {"name": "v1.wrong"}, "spec": {"group": "g", "version": "v1",
            "groupPriorityMinimum": 0, "versionPriority": 1001, "caBundle": "Zm9v"}});
        let errors: Vec<String> = api_service_errors(&bad).iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            [
                "metadata.name: Invalid value: \"v1.wrong\": must be `spec.version+\".\"+spec.group`: \"v1.g\"",
                "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
                "spec.versionPriority: Invalid value: 1001: must be positive and less than 1000",
                "spec.caBundle: Invalid value: \"3 bytes\": local APIServices may not have a caBundle",
            ]
        );
        let core = json!({"metadata": {"name": "v1."}, "spec": {"version": "v1", "groupPriorityMinimum": 18000, "versionPriority": 1}});
        assert!(api_service_errors(&core).is_empty());
        let status = json!({"status": {"conditions": [{"status": "Maybe"}]}});
        assert_eq!(api_service_status_errors(&status).len(), 1);
    }
}
