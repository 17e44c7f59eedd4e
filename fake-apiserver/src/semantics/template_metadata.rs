//! The labels and annotations of a pod template's (or a claim template's) metadata, as
//! `ValidatePodTemplateSpec` of `pkg/apis/core/validation/validation.go` checks them.

use serde_json::Value;

use crate::semantics::field_error::FieldError;
use crate::semantics::names;

/// The labels and annotations part of `ValidatePodTemplateSpec` (also all a StatefulSet's
/// template gets, `ValidatePodTemplateSpecForStatefulSet`): errors on `{path}.labels` and
/// `{path}.annotations`, as Go names them.
pub(crate) fn template_metadata_errors(template: &Value, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let meta = template.get("metadata");
    for (key, value) in meta
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        for why in names::qualified_name_errors(key) {
            errors.push(FieldError::invalid(format!("{path}.labels"), key.as_str().into(), why));
        }
        let value = value.as_str().unwrap_or_default();
        for why in names::label_value_errors(value) {
            errors.push(FieldError::invalid(format!("{path}.labels"), value.into(), why));
        }
    }
    for key in meta
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
    {
        for why in names::qualified_name_errors(&key.to_lowercase()) {
            errors.push(FieldError::invalid(
                format!("{path}.annotations"),
                key.as_str().into(),
                why,
            ));
        }
    }
    errors
}
