//! A CRD's names (`spec.names`, `status.acceptedNames`) as apiextensions checks them
//! (`ValidateCustomResourceDefinitionNames`): DNS-1035 labels, kinds of any case, and a list
//! kind other than the kind.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names as validation_names;

/// `ValidateCustomResourceDefinitionNames` (also used on `status.acceptedNames`).
pub(crate) fn errors(names_value: Option<&Value>, path: &str) -> Vec<FieldError> {
    let text = |key: &str| {
        names_value
            .and_then(|n| n.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let list = |key: &str| -> Vec<&str> {
        names_value
            .and_then(|n| n.get(key))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|v| v.as_str().unwrap_or_default())
            .collect()
    };
    let dns1035 = |value: &str| validation_names::object_name_errors("Service", value);
    let mut errors = Vec::new();
    for key in ["plural", "singular"] {
        let value = text(key);
        if let reasons @ [_, ..] = &dns1035(value)[..]
            && !value.is_empty()
        {
            errors.push(FieldError::invalid(
                format!("{path}.{key}"),
                BadValue::from(value),
                reasons.join(","),
            ));
        }
    }
    for key in ["kind", "listKind"] {
        let value = text(key);
        if let reasons @ [_, ..] = &dns1035(&value.to_lowercase())[..]
            && !value.is_empty()
        {
            let why = format!("may have mixed case, but should otherwise match: {}", reasons.join(","));
            errors.push(FieldError::invalid(format!("{path}.{key}"), BadValue::from(value), why));
        }
    }
    for (i, short) in list("shortNames").into_iter().enumerate() {
        if let reasons @ [_, ..] = &dns1035(short)[..] {
            errors.push(FieldError::invalid(
                format!("{path}.shortNames[{i}]"),
                BadValue::from(short),
                reasons.join(","),
            ));
        }
    }
    if !text("kind").is_empty() && text("kind") == text("listKind") {
        errors.push(FieldError::invalid(
            format!("{path}.listKind"),
            BadValue::from(text("listKind")),
            "kind and listKind may not be the same",
        ));
    }
    for (i, category) in list("categories").into_iter().enumerate() {
        if let reasons @ [_, ..] = &dns1035(category)[..] {
            errors.push(FieldError::invalid(
                format!("{path}.categories[{i}]"),
                BadValue::from(category),
                reasons.join(","),
            ));
        }
    }
    errors
}
