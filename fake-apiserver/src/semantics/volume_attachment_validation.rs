//! VolumeAttachments as `pkg/apis/storage/validation/validation.go` validates them:
//! `ValidateVolumeAttachment` (an attacher, exactly one source — a volume name, or an inline
//! volume spec through `ValidatePersistentVolumeSpec` in its inline form —, a node name, a
//! status whose metadata and error messages fit), `ValidateVolumeAttachmentV1` (the attacher a
//! CSI driver name, the volume name a DNS subdomain; the v1 strategy runs it on create only) and
//! `ValidateVolumeAttachmentUpdate` (the spec is immutable).

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::pv_source_checks::csi_driver_name_errors;
use crate::semantics::pv_validation::{Context, spec_errors};
use crate::storage::object::present;

/// `maxAttachedVolumeMetadataSize`: 256 KiB, the limit of the metadata, which the error
/// messages' refusals print as theirs too.
const MAX_SIZE: usize = 256 * 1024;

/// `maxVolumeErrorMessageSize`.
const MAX_MESSAGE: usize = 1024;

/// Why a source is wrong when it names none or both.
const ONE_SOURCE: &str = "must specify exactly one of inlineVolumeSpec and persistentVolumeName";

/// The create strategy's `Validate`: `ValidateVolumeAttachment` and `ValidateVolumeAttachmentV1`.
pub(crate) fn create_errors(attachment: &Value) -> Vec<FieldError> {
    let mut errors = attachment_errors(attachment);
    let spec = attachment.get("spec").unwrap_or(&Value::Null);
    let attacher = text(spec, "attacher");
    errors.extend(csi_driver_name_errors(attacher, "spec.attacher"));
    if let Some(name) = spec.pointer("/source/persistentVolumeName").and_then(Value::as_str) {
        for why in names::dns1123_subdomain_errors(name) {
            errors.push(FieldError::invalid(
                "spec.source.persistentVolumeName",
                name.into(),
                why,
            ));
        }
    }
    errors
}

/// The update strategy's `ValidateUpdate` (of the main resource and of `/status`):
/// `ValidateVolumeAttachment`, then `ValidateVolumeAttachmentUpdate`, which runs it again (each
/// cause comes twice) and requires the spec unchanged.
pub(crate) fn update_errors(attachment: &Value, old: &Value) -> Vec<FieldError> {
    let mut errors = attachment_errors(attachment);
    errors.extend(attachment_errors(attachment));
    let spec = attachment.get("spec").unwrap_or(&Value::Null);
    if old.get("spec").unwrap_or(&Value::Null) != spec {
        errors.push(FieldError::invalid(
            "spec",
            BadValue::Raw(spec_go(spec)),
            "field is immutable",
        ));
    }
    errors
}

/// `ValidateVolumeAttachment` less the object metadata.
fn attachment_errors(attachment: &Value) -> Vec<FieldError> {
    let spec = attachment.get("spec").unwrap_or(&Value::Null);
    let mut errors = Vec::new();
    if text(spec, "attacher").is_empty() {
        errors.push(FieldError::required("spec.attacher", ""));
    }
    let source = spec.get("source").unwrap_or(&Value::Null);
    let name = present(source, "persistentVolumeName");
    let inline = present(source, "inlineVolumeSpec");
    match (name, inline) {
        (None, None) => errors.push(FieldError::required("spec.source", ONE_SOURCE)),
        (Some(_), Some(_)) => errors.push(FieldError::forbidden("spec.source", ONE_SOURCE)),
        (Some(name), None) => {
            if name.as_str().unwrap_or_default().is_empty() {
                errors.push(FieldError::required(
                    "spec.source.persistentVolumeName",
                    "must specify non empty persistentVolumeName",
                ));
            }
        }
        (None, Some(inline)) => {
            errors.extend(spec_errors(inline, "", Context::Inline, "spec.source.inlineVolumeSpec"));
        }
    }
    // `ValidateNodeName`: a DNS subdomain, checked even when empty.
    let node = text(spec, "nodeName");
    for why in names::dns1123_subdomain_errors(node) {
        errors.push(FieldError::invalid("spec.nodeName", node.into(), why));
    }
    let status = attachment.get("status").unwrap_or(&Value::Null);
    let metadata = status.get("attachmentMetadata").and_then(Value::as_object);
    let size: usize = metadata
        .into_iter()
        .flatten()
        .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
        .sum();
    if size > MAX_SIZE {
        errors.push(FieldError::too_long(
            "status.attachmentMetadata",
            BadValue::Omit,
            MAX_SIZE as i64,
        ));
    }
    for key in ["attachError", "detachError"] {
        let message = status.pointer(&format!("/{key}/message")).and_then(Value::as_str);
        if message.is_some_and(|m| m.len() > MAX_MESSAGE) {
            errors.push(FieldError::too_long(
                format!("status.{key}.message"),
                BadValue::Omit,
                MAX_SIZE as i64,
            ));
        }
    }
    errors
}

/// Go's `%#v` of a `storage.VolumeAttachmentSpec`, as the immutability message prints it; the
/// source's pointers print as addresses, which no two runs share.
fn spec_go(spec: &Value) -> String {
    let pointer = |key: &str, ty: &str| {
        if spec.pointer(&format!("/source/{key}")).is_some_and(|v| !v.is_null()) {
            format!("({ty})(0xc000000000)")
        } else {
            format!("({ty})(nil)")
        }
    };
    format!(
        "storage.VolumeAttachmentSpec{{Attacher:{:?}, Source:storage.VolumeAttachmentSource{{PersistentVolumeName:{}, InlineVolumeSpec:{}}}, NodeName:{:?}}}",
        text(spec, "attacher"),
        pointer("persistentVolumeName", "*string"),
        pointer("inlineVolumeSpec", "*core.PersistentVolumeSpec"),
        text(spec, "nodeName"),
    )
}

fn text<'v>(value: &'v Value, key: &str) -> &'v str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    fn attachment(source: Value) -> Value {
        json!({"spec": {"attacher": "csi.example.com", "nodeName": "node-1", "source": source}})
    }

    #[test]
    fn an_attachment_should_name_exactly_one_source() {
        assert!(create_errors(&attachment(json!({"persistentVolumeName": "pv-1"}))).is_empty());
        let errors = rendered(create_errors(&attachment(json!({}))));
        assert_eq!(errors, [format!("spec.source: Required value: {ONE_SOURCE}")]);
        let both =
            json!({"persistentVolumeName": "pv", "inlineVolumeSpec": {"csi": {"driver": "d", "volumeHandle": "h"}}});
        assert_eq!(
            rendered(create_errors(&attachment(both))),
            [format!("spec.source: Forbidden: {ONE_SOURCE}")]
        );
    }

    #[test]
    fn an_inline_spec_should_be_a_csi_volume_without_capacity() {
        let inline = json!({"inlineVolumeSpec": {"hostPath": {"path": "/x"}, "capacity": {"storage": "1Gi"}}});
        let errors = rendered(create_errors(&attachment(inline)));
        assert_eq!(
            errors,
            [
                "spec.source.inlineVolumeSpec.capacity: Forbidden: may not be specified in the context of inline volumes",
                "spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes",
                "spec.source.inlineVolumeSpec.accessModes: Required value",
            ]
        );
    }

    #[test]
    fn the_spec_should_not_change_and_the_status_should_fit() {
        let old = attachment(json!({"persistentVolumeName": "pv-1"}));
        let mut moved = old.clone();
        moved["spec"]["nodeName"] = json!("node-2");
        let errors = rendered(update_errors(&moved, &old));
        assert!(
            errors[0].starts_with("spec: Invalid value: storage.VolumeAttachmentSpec{Attacher:\"csi.example.com\"")
        );
        let mut big = old.clone();
        big["status"] = json!({"detachError": {"message": "x".repeat(MAX_MESSAGE + 1)}});
        assert_eq!(
            rendered(update_errors(&big, &old)),
            ["status.detachError.message: Too long: must have at most 262144 bytes"; 2]
        );
    }
}
