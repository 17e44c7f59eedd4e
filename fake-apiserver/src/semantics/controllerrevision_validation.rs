//! ControllerRevisions validated as kube-apiserver validates them
//! (`pkg/apis/apps/validation/validation.go`: `ValidateControllerRevision` on 1.28,
//! `ValidateControllerRevisionCreate` on 1.31, `ValidateControllerRevisionUpdate`; the name is
//! checked with every kind's metadata).

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, nonnegative};
use crate::semantics::go_json_writer;

/// `ValidateControllerRevision` (1.28) or `ValidateControllerRevisionCreate` (1.31) less its
/// metadata: `data` is mandatory (a JSON null decodes to no data) and `revision` not negative;
/// 1.31 checks the revision first and wants the data to be a JSON object.
pub(crate) fn controller_revision_errors(revision: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let data = revision.get("data").filter(|d| !d.is_null());
    if minor >= 31 {
        errors.extend(revision_errors(revision));
    }
    match data {
        None => errors.push(FieldError::required("data", "data is mandatory")),
        Some(data) if minor >= 31 && !data.is_object() => {
            errors.push(FieldError::required("data", "data must be a valid JSON object"));
        }
        Some(_) => {}
    }
    if minor < 31 {
        errors.extend(revision_errors(revision));
    }
    errors
}

fn revision_errors(revision: &Value) -> Vec<FieldError> {
    nonnegative(
        revision.get("revision").and_then(Value::as_i64).unwrap_or_default(),
        "revision",
    )
}

/// `ValidateControllerRevisionUpdate` less its metadata: the create's rules on 1.28, the
/// revision alone on 1.31, then `data` is immutable.
///
/// Go compares the raw bytes of the two data; this server keeps decoded JSON, not the bytes a
/// client sent, so it compares the values (what a client that writes compact JSON, as
/// client-go does, also sees).
pub(crate) fn controller_revision_update_errors(revision: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = if minor >= 31 {
        revision_errors(revision)
    } else {
        controller_revision_errors(revision, minor)
    };
    let data = revision.get("data").filter(|d| !d.is_null());
    if data != old.get("data").filter(|d| !d.is_null()) {
        errors.push(FieldError::invalid("data", raw_go(data, minor), "field is immutable"));
    }
    errors
}

/// Go's `%#v` of the data (its bytes as Go's encoder writes the value): the `runtime.Unknown` a
/// v1 `RawExtension` converts to on 1.28 (the pointer dereferenced by the field error), the
/// `runtime.RawExtension` the internal type holds itself on 1.31.
fn raw_go(data: Option<&Value>, minor: u32) -> BadValue {
    let raw = match data {
        Some(value) => {
            let bytes = go_json_writer::to_vec(value);
            let shown: Vec<String> = bytes.iter().map(|b| format!("{b:#04x}")).collect();
            format!("[]uint8{{{}}}", shown.join(", "))
        }
        None => "[]uint8(nil)".to_owned(),
    };
    if minor >= 31 {
        return BadValue::Raw(format!("runtime.RawExtension{{Raw:{raw}, Object:runtime.Object(nil)}}"));
    }
    let content_type = if data.is_some() { "application/json" } else { "" };
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
            rendered(controller_revision_errors(&json!({"revision": -1}), 28)),
            [
                "data: Required value: data is mandatory",
                "revision: Invalid value: -1: must be greater than or equal to 0"
            ]
        );
        assert!(controller_revision_errors(&json!({"data": "x"}), 28).is_empty());
        assert_eq!(controller_revision_errors(&json!({"data": null}), 28).len(), 1);
        // 1.31 checks the revision first and wants an object.
        assert_eq!(
            rendered(controller_revision_errors(&json!({"data": "x", "revision": -1}), 31)),
            [
                "revision: Invalid value: -1: must be greater than or equal to 0",
                "data: Required value: data must be a valid JSON object"
            ]
        );
    }

    #[test]
    fn changed_data_is_immutable_and_printed_as_go_prints_raw_bytes() {
        let old = json!({"data": {"a": 1}, "revision": 1});
        assert!(controller_revision_update_errors(&json!({"data": {"a": 1}, "revision": 2}), &old, 28).is_empty());
        let errors = controller_revision_update_errors(&json!({"data": {}, "revision": 1}), &old, 28);
        assert_eq!(
            rendered(errors),
            [
                "data: Invalid value: runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:\"\", Kind:\"\"}, Raw:[]uint8{0x7b, 0x7d}, ContentEncoding:\"\", ContentType:\"application/json\"}: field is immutable"
            ]
        );
        let errors = controller_revision_update_errors(&json!({"data": {}, "revision": 1}), &old, 31);
        assert_eq!(
            rendered(errors),
            [
                "data: Invalid value: runtime.RawExtension{Raw:[]uint8{0x7b, 0x7d}, Object:runtime.Object(nil)}: field is immutable"
            ]
        );
    }
}
