//! Admission of custom resources against their CRD's structural schema, in kube-apiserver's
//! order: decoding prunes unknown fields, drops the `null`s the schema neither allows nor
//! defaults, and applies defaults (`apiextensions-apiserver/pkg/apiserver/customresource_handler.go`:
//! `unstructuredSchemaCoercer.apply`, then `unstructuredDefaulter`); the strategy then validates
//! against the schema, the embedded resources' metadata, the list types and the scale fields
//! (`pkg/registry/customresource/{strategy,validator,status_strategy}.go`), all errors in one
//! answer.

pub(crate) mod correlation;
mod defaulting;
mod embedded;
pub(crate) mod formats;
mod go_value;
pub(crate) mod object_meta;
mod openapi_errors;
mod outcome;
mod pruning;
mod scalars;
pub(crate) mod structural;
mod validator;

use std::borrow::Cow;

use serde_json::Value;

use self::correlation::Correlated;
use crate::semantics::cel;
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::{list_types, scale_checks};
use crate::status::ApiStatus;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// What a write validates: the whole object, or (a `/status` write) its status, whose schema
/// errors kube-apiserver names relative to `status` up to 1.30 and under `status.` from 1.31
/// (the minor the server reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    Object,
    Status { minor: u32 },
}

/// Prunes, defaults and validates `object` when `info` carries a schema; Invalid lists every
/// violation found, in kube-apiserver's order: the schema's, the scale fields', the embedded
/// resources', the list types'. An update (`old` given) is refused for its list types only when
/// the old object kept them (ratcheting). From 1.30 (`CRDValidationRatcheting`) an update of
/// the object (not of `/status`) ratchets: schema errors and rule failures (of rules that do
/// not read `oldSelf`) in parts left unchanged are dropped, the rule failures into `warnings`.
/// Unknown fields are dropped silently here: the decoder has already reported them
/// ([`prune_unknown`]).
pub(crate) fn admit(
    info: &ResourceInfo,
    object: &mut Value,
    scope: Scope,
    old: Option<&Value>,
    minor: u32,
    warnings: &mut Vec<String>,
) -> Result<(), ApiStatus> {
    let Some(schema) = &info.schema else { return Ok(()) };
    decode(info, schema, object)?;
    let ratchet = old.filter(|_| scope == Scope::Object && minor >= 30);
    let mut errors = validate(info, schema, object, scope, ratchet);
    if old.is_none_or(|old| list_types::duplicates(schema, old, "").is_empty()) {
        errors.extend(list_types::duplicates(schema, object, ""));
    }
    if let Some(rules) = info.rules.validator(schema) {
        // `hasBlockingErr`: rules would read values of the wrong shape.
        if rules.blocked_by(&errors) {
            errors.push(FieldError::invalid(
                "<nil>",
                BadValue::Json(Value::Null),
                "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ));
        } else {
            let ratchet = match ratchet {
                Some(old) => cel::Ratchet::Current(Correlated::root(object, old, schema)),
                None => cel::Ratchet::Off,
            };
            let found = rules.validate(&cel::At {
                path: "<nil>".into(),
                schema,
                value: object,
                old,
                ratchet,
            });
            errors.extend(found.errors);
            warnings.extend(found.ratcheted.iter().map(ToString::to_string));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ApiStatus::invalid_fields(info, object::name(object), &errors))
    }
}

/// Removes the fields of a custom resource its schema does not know (pruning, part of
/// decoding); returns their paths as the strict decoder reports them: the pruned ones sorted,
/// then those of embedded resources' metadata. Embedded type meta of the wrong type is left to
/// [`admit`] to refuse.
pub(crate) fn prune_unknown(info: &ResourceInfo, object: &mut Value) -> Vec<String> {
    let Some(schema) = &info.schema else { return Vec::new() };
    let mut unknown = pruning::prune_resource(schema, object);
    unknown.extend(embedded::coerce(schema, object).unwrap_or_default());
    unknown
}

/// A stored custom resource as kube-apiserver serves it: decoded from storage with the schema
/// of the version it is stored in (`stored_schema`), which prunes what the schema no longer
/// specifies and applies the defaults it has gained (the storage decoder is the request
/// decoder, dropping what does not decode). An object written after `info`'s schema took
/// effect, in `info`'s own version, was decoded with it then, and is served as it is.
pub(crate) fn on_read<'a>(info: &ResourceInfo, stored_schema: Option<&Value>, shown: Cow<'a, Value>) -> Cow<'a, Value> {
    // An object written through another version of a multi-version CRD was decoded with that
    // version's schema, not with the one it is stored in: only a single version's objects are
    // known to be decoded already.
    let own_version = stored_schema == info.schema.as_ref() && info.version_schemas.len() <= 1;
    let written_since = object::resource_version(&shown)
        .parse::<u64>()
        .is_ok_and(|rv| rv > info.schema_since);
    if own_version && written_since {
        return shown;
    }
    match stored_schema {
        Some(schema) if !pruning::is_pruned(schema, &shown) || !defaulting::is_complete(&shown, schema) => {
            let mut owned = shown.into_owned();
            pruning::prune_resource(schema, &mut owned);
            pruning::prune_non_nullable_nulls(&mut owned, Some(schema));
            defaulting::apply(&mut owned, schema);
            Cow::Owned(owned)
        }
        _ => shown,
    }
}

/// What converting a custom resource to a version does beyond its `apiVersion`
/// (`unstructuredSchemaCoercer.apply` after every conversion): fields the target version's
/// schema does not specify are pruned, `null`s it does not allow dropped. No defaults.
pub(crate) fn coerce(schema: &Value, object: &mut Value) {
    pruning::prune_resource(schema, object);
    pruning::prune_non_nullable_nulls(object, Some(schema));
}

/// `ValidateDefaults`' checks of the `default` of the schema node `node`, named `path`: pruned
/// already (with `require_pruned`), valid embedded resource metadata where `resource` (the node
/// is a resource root or an embedded resource), and valid against the node's own schema.
pub(crate) fn default_errors(
    node: &Value,
    default: &Value,
    resource: bool,
    path: &str,
    require_pruned: bool,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if require_pruned {
        let mut pruned = default.clone();
        pruning::prune_value(node, &mut pruned, resource);
        if !go_value::deep_equal(&pruned, default) {
            errors.push(FieldError::invalid(
                path,
                BadValue::Json(default.clone()),
                "must not have unknown fields",
            ));
        }
    }
    let mut coerced = default.clone();
    if let Err(error) = embedded::coerce_at(node, &mut coerced, path, resource) {
        errors.push(error);
        return errors;
    }
    match &embedded::validate_at(node, default, path, resource)[..] {
        [] => {
            let found = validator::validate(node, default, "").errors;
            errors.extend(openapi_errors::to_field_errors(&found, Some(path)));
        }
        found => errors.extend(found.iter().cloned()),
    }
    errors
}

/// What decoding does to a custom resource: prune, drop disallowed `null`s, coerce embedded
/// resources (a failure refuses the body as undecodable), default.
fn decode(info: &ResourceInfo, schema: &Value, object: &mut Value) -> Result<(), ApiStatus> {
    pruning::prune_resource(schema, object);
    pruning::prune_non_nullable_nulls(object, Some(schema));
    embedded::coerce(schema, object).map_err(|error| ApiStatus::cannot_handle(info, &error.to_string()))?;
    defaulting::apply(object, schema);
    Ok(())
}

/// The strategy's checks of a decoded custom resource; schema errors ratchet against `ratchet`,
/// the old object, when given.
fn validate(
    info: &ResourceInfo,
    schema: &Value,
    object: &Value,
    scope: Scope,
    ratchet: Option<&Value>,
) -> Vec<FieldError> {
    let mut errors = match scope {
        Scope::Object => {
            let found = match ratchet {
                Some(old) => validator::validate_update(schema, object, old),
                None => validator::validate(schema, object, ""),
            };
            openapi_errors::to_field_errors(&found.errors, None)
        }
        Scope::Status { minor } => {
            let status_schema = structural::property(schema, "status");
            let base = (minor >= 31).then_some("status");
            match (status_schema, object.get("status")) {
                (Some(status_schema), Some(status)) => {
                    openapi_errors::to_field_errors(&validator::validate(status_schema, status, "").errors, base)
                }
                _ => Vec::new(),
            }
        }
    };
    if let Some(scale) = &info.scale {
        errors.extend(scale_checks::errors(scale, object, scope == Scope::Object));
    }
    if scope == Scope::Object {
        errors.extend(embedded::validate(schema, object));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn info() -> ResourceInfo {
        let mut info = ResourceInfo::builtin("cloudnative.tw", "v1alpha1", "VirtualMachine", "virtualmachines");
        info.schema = Some(json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "required": ["cpu"],
                    "properties": {
                        "cpu": { "type": "integer", "minimum": 1 },
                        "memory": { "type": "string", "default": "1Gi" },
                        "mode": { "type": "string", "enum": ["fast", "slow"] },
                        "labels": { "type": "object", "additionalProperties": { "type": "string" } }
                    }
                },
                "status": { "type": "object", "x-kubernetes-preserve-unknown-fields": true }
            }
        }));
        info
    }

    fn causes(status: &ApiStatus) -> Vec<(String, String)> {
        let details = status.details.as_ref().expect("details");
        details["causes"]
            .as_array()
            .expect("causes")
            .iter()
            .map(|c| {
                (
                    c["reason"].as_str().unwrap_or_default().to_owned(),
                    c["field"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn admit_should_prune_unknown_fields_and_apply_defaults() {
        let mut object = json!({
            "metadata": { "name": "vm" },
            "spec": { "cpu": 2, "bogus": true, "labels": { "a": "b" } },
            "status": { "anything": 1 },
            "extra": 1
        });
        admit(&info(), &mut object, Scope::Object, None, 31, &mut Vec::new()).unwrap();
        assert_eq!(
            object["spec"],
            json!({ "cpu": 2, "memory": "1Gi", "labels": { "a": "b" } })
        );
        assert_eq!(object["status"], json!({ "anything": 1 }));
        assert!(object.get("extra").is_none());
    }

    #[test]
    fn updates_should_ratchet_unchanged_values_from_1_30_only() {
        // Stored before `mode` learnt its enum: still "medium", and a zero cpu.
        let old = json!({ "metadata": { "name": "vm" }, "spec": { "cpu": 0, "mode": "medium", "labels": {} } });
        let relabelled = || {
            let mut new = old.clone();
            new["spec"]["labels"] = json!({ "a": "b" });
            new
        };
        let refused = |minor| {
            admit(
                &info(),
                &mut relabelled(),
                Scope::Object,
                Some(&old),
                minor,
                &mut Vec::new(),
            )
        };
        assert!(refused(31).is_ok(), "the unchanged cpu and mode ratchet");
        assert_eq!(
            causes(&refused(28).unwrap_err()),
            [
                ("FieldValueInvalid".to_owned(), "spec.cpu".to_owned()),
                ("FieldValueNotSupported".to_owned(), "spec.mode".to_owned())
            ]
        );
        let mut changed = relabelled();
        changed["spec"]["mode"] = json!("other");
        let status = admit(&info(), &mut changed, Scope::Object, Some(&old), 31, &mut Vec::new()).unwrap_err();
        assert_eq!(
            causes(&status),
            [("FieldValueNotSupported".to_owned(), "spec.mode".to_owned())]
        );
        let status_write = admit(
            &info(),
            &mut relabelled(),
            Scope::Status { minor: 31 },
            Some(&old),
            31,
            &mut Vec::new(),
        );
        assert!(status_write.is_ok(), "a /status write validates the status alone");
    }

    #[test]
    fn prune_unknown_should_name_what_the_decoder_drops() {
        let mut object = json!({ "metadata": { "name": "vm" }, "spec": { "cpu": 2, "bogus": true },
                                 "status": { "kept": 1 }, "extra": 1 });
        let unknown = prune_unknown(&info(), &mut object);
        assert_eq!(unknown, ["extra", "spec.bogus"]);
        assert_eq!(
            object,
            json!({ "metadata": { "name": "vm" }, "spec": { "cpu": 2 }, "status": { "kept": 1 } })
        );
    }

    #[test]
    fn admit_should_report_every_violation_with_its_cause_type() {
        let mut object = json!({ "metadata": { "name": "vm" }, "spec": { "cpu": "two", "mode": "medium" } });
        let status = admit(&info(), &mut object, Scope::Object, None, 31, &mut Vec::new()).unwrap_err();
        assert_eq!(status.code, 422);
        assert_eq!(
            causes(&status),
            [
                ("FieldValueTypeInvalid".to_owned(), "spec.cpu".to_owned()),
                ("FieldValueNotSupported".to_owned(), "spec.mode".to_owned()),
            ]
        );
        assert!(
            status
                .message
                .contains("spec.cpu in body must be of type integer: \"string\""),
            "{}",
            status.message
        );
        let mut zero = json!({ "metadata": { "name": "vm" }, "spec": { "cpu": 0 } });
        let message = admit(&info(), &mut zero, Scope::Object, None, 31, &mut Vec::new())
            .unwrap_err()
            .message;
        assert!(
            message.contains("spec.cpu: Invalid value: 0: spec.cpu in body should be greater than or equal to 1"),
            "{message}"
        );
        let mut missing = json!({ "metadata": { "name": "vm" }, "spec": {} });
        let message = admit(&info(), &mut missing, Scope::Object, None, 31, &mut Vec::new())
            .unwrap_err()
            .message;
        assert!(message.contains("spec.cpu: Required value"), "{message}");
    }

    #[test]
    fn admit_should_drop_nulls_the_schema_does_not_allow_before_validating() {
        let mut object = json!({ "metadata": { "name": "vm" }, "spec": { "cpu": 1, "mode": null, "memory": null } });
        admit(&info(), &mut object, Scope::Object, None, 31, &mut Vec::new()).unwrap();
        assert_eq!(object["spec"], json!({ "cpu": 1, "memory": "1Gi" }));
    }
}
