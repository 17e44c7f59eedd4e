//! ControllerRevisions validated as kube-apiserver validates them
//! (`pkg/apis/apps/validation/validation.go`: `ValidateControllerRevision`,
//! `ValidateControllerRevisionUpdate`; the name is checked with every kind's metadata).

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, nonnegative};
use crate::semantics::go_json_writer;

/// `ValidateControllerRevision` less its metadata: `data` is mandatory (a JSON null decodes to
/// no data) and `revision` not negative.
pub(crate) fn controller_revision_errors(revision: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if revision.get("data").is_none_or(Value::is_null) {
        errors.push(FieldError::required("data", "data is mandatory"));
    }
    let number = revision.get("revision").and_then(Value::as_i64).unwrap_or_default();
    errors.extend(nonnegative(number, "revision"));
    errors
}

/// `ValidateControllerRevisionUpdate` less its metadata: the create's rules, then `data` is
/// immutable.
///
/// Go compares the raw bytes of the two `runtime.Unknown`s; this server keeps decoded JSON,
/// not the bytes a client sent, so it compares the values (what a client that writes compact
/// JSON, as client-go does, also sees).
pub(crate) fn controller_revision_update_errors(revision: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = controller_revision_errors(revision);
    let data = revision.get("data").filter(|d| !d.is_null());
    if data != old.get("data").filter(|d| !d.is_null()) {
        errors.push(FieldError::invalid(
            "data",
            raw_extension_go(data),
            "field is immutable",
        ));
    }
    errors
}

/// Go's `%#v` of the `runtime.Unknown` a v1 `RawExtension` converts to (the pointer is
/// dereferenced by the field error): its bytes as Go's encoder writes the value.
fn raw_extension_go(data: Option<&Value>) -> BadValue {
    let (raw, content_type) = match data {
        Some(value) => {
            let bytes = go_json_writer::to_vec(value);
            let shown: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
            (format!("[]uint8{{{}}}", shown.join(", ")), "application/json")
        }
        None => ("[]uint8(nil)".to_owned(), ""),
    };
    BadValue::Raw(format!(
        "runtime.Unknown{{TypeMeta:runtime.TypeMeta{{APIVersion:\"\", Kind:\"\"}}, Raw:{raw}, ContentEncoding:\"\", ContentType:\"{content_type}\"}}"
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn a_revision_needs_data_and_a_nonnegative_revision() {
        assert_eq!(
            rendered(controller_revision_errors(&json!({"revision": -1}))),
            [
                "data: Required value: data is mandatory",
                "revision: Invalid value: -1: must be greater than or equal to 0"
            ]
        );
        assert!(controller_revision_errors(&json!({"data": "x"})).is_empty());
        assert_eq!(controller_revision_errors(&json!({"data": null})).len(), 1);
    }

    #[test]
    fn changed_data_is_immutable_and_printed_as_go_prints_raw_bytes() {
        let old = json!({"data": {"a": 1}, "revision": 1});
        assert!(controller_revision_update_errors(&json!({"data": {"a": 1}, "revision": 2}), &old).is_empty());
        let errors = controller_revision_update_errors(&json!({"data": {}, "revision": 1}), &old);
        assert_eq!(
            rendered(errors),
            [
                "data: Invalid value: runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:\"\", Kind:\"\"}, Raw:[]uint8{0x7b, 0x7d}, ContentEncoding:\"\", ContentType:\"application/json\"}: field is immutable"
            ]
        );
    }
}
