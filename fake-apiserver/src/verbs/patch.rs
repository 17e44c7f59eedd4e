//! PATCH in its four flavours (JSON patch, JSON merge patch, strategic merge patch, server-side
//! apply), of an object or of its `/scale` (written through `scale`).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::semantics::decoding::{self, Decoded};
use crate::semantics::field_error::go_quote;
use crate::semantics::schema::object_meta;
use crate::semantics::shape::Shape;
use crate::semantics::{go_json, go_json_writer, scale_view};
use crate::semantics::{
    quantity_fields, registered_kinds, strategic, strategic_error, typed, unstructured_restore, validation, yaml_body,
};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;
use crate::verbs::apply::{self, ApplyRequest};
use crate::verbs::options::{APPLY_PATCH, FieldValidation, Ownership, WriteOpts};
use crate::verbs::{read, scale, write};

/// A PATCH request.
pub(crate) struct PatchRequest<'a> {
    pub(crate) namespace: Option<&'a str>,
    pub(crate) name: &'a str,
    pub(crate) subresource: Option<&'a str>,
    pub(crate) content_type: &'a str,
    pub(crate) body: &'a [u8],
    pub(crate) manager: &'a str,
    pub(crate) explicit_manager: bool,
    pub(crate) force: bool,
    /// The request's dry run, field validation and warnings.
    pub(crate) opts: &'a WriteOpts,
}

/// The patch types kube-apiserver accepts: strategic merge patch only for built-in kinds.
const BUILTIN_PATCH_TYPES: [&str; 4] = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH];
const CUSTOM_PATCH_TYPES: [&str; 3] = [JSON_PATCH, MERGE_PATCH, APPLY_PATCH];
const JSON_PATCH: &str = "application/json-patch+json";
const MERGE_PATCH: &str = "application/merge-patch+json";
const STRATEGIC_MERGE_PATCH: &str = "application/strategic-merge-patch+json";

/// Decodes a request body; apply configurations may be YAML.
pub(crate) fn decode_body(body: &[u8], yaml: bool) -> Result<Value, ApiStatus> {
    match serde_json::from_slice(body) {
        Ok(value) => Ok(value),
        Err(_) if yaml => {
            yaml_body::parse(body).map_err(|e| ApiStatus::bad_request(format!("error decoding YAML: {e}")))
        }
        Err(e) => Err(ApiStatus::bad_request(format!(
            "error decoding the request body as JSON: {e}"
        ))),
    }
}

/// PATCH: returns the object and whether it was created (only apply creates).
pub(crate) fn patch(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    request: &PatchRequest<'_>,
) -> Result<(Arc<Value>, bool), ApiStatus> {
    let media = request.content_type.split(';').next().unwrap_or_default().trim();
    // A custom resource's subresources take the patch types of the resource itself
    // (customresource_handler.go hands serveStatus and serveScale the same list).
    let accepted: &[&str] = if info.builtin {
        &BUILTIN_PATCH_TYPES
    } else {
        &CUSTOM_PATCH_TYPES
    };
    if !accepted.contains(&media) {
        return Err(ApiStatus::unsupported_media_type(accepted));
    }
    if media == APPLY_PATCH {
        if !request.explicit_manager {
            return Err(ApiStatus::bad_request("fieldManager must be set for apply requests"));
        }
        let config = decode_body(request.body, true)?;
        let apply = ApplyRequest {
            namespace: request.namespace,
            name: request.name,
            subresource: request.subresource,
            manager: request.manager,
            force: request.force,
            opts: request.opts,
        };
        if request.subresource == Some("scale") {
            return scale::apply(state, info, &config, &apply);
        }
        return apply::apply(state, info, config, &apply);
    }
    let patch = decode_patch(media, request.body, request.opts.validation)?;
    let old = read::get(state, info, request.namespace, request.name)?;
    let target = if request.subresource == Some("scale") {
        scale_view::view(info, &old)
    } else {
        (*old).clone()
    };
    // The patched object (or Scale) is decoded as a body would be: what it does not know is
    // refused, reported or dropped as `fieldValidation` says, quoting the patched object.
    let decoded_as = if request.subresource == Some("scale") {
        &scale::BODY_TYPE
    } else {
        &**info
    };
    let mut patched = patch_value(media, target, &patch.value, Shape::of(decoded_as))?;
    if decoded_as.builtin
        && let Some((shown, why)) = decode_failure(media, decoded_as, &patch.value, &mut patched)
    {
        return Err(invalid_patch(&shown, &why));
    }
    // A custom resource's decoder reads the patched metadata alone as an `ObjectMeta`.
    if !decoded_as.builtin
        && let Some(why) = patched.get("metadata").and_then(object_meta::decode_error)
    {
        let shown = String::from_utf8_lossy(&go_json_writer::to_vec(&patched)).into_owned();
        return Err(invalid_patch(&shown, &why));
    }
    let mut decoded = Decoded {
        value: patched,
        duplicates: patch.duplicates,
        raw: None,
    };
    // The refusal quotes the patched object as it was before decoding dropped anything, or
    // for a strategic merge patch the patch itself as Go's `%+v` prints it (`applyPatchToObject`).
    let quoted = (request.opts.validation == FieldValidation::Strict).then(|| match media {
        STRATEGIC_MERGE_PATCH => strategic_error::go_text(&patch.value),
        _ => String::from_utf8_lossy(&go_json_writer::to_vec(&decoded.value)).into_owned(),
    });
    let findings = decoding::strict_findings(decoded_as, &mut decoded, state.options.minor());
    let patched = decoded.value;
    decoding::enforce(findings, request.opts, |why| {
        invalid_patch(&quoted.unwrap_or_default(), &why)
    })?;
    // `applyPatch` ends as an update's body is checked: namespace, then name.
    let mut patched = patched;
    validation::set_namespace(&mut patched, info, request.namespace)?;
    validation::check_name(&patched, request.name)?;
    write::check_resource_version(info, request.name, object::resource_version(&patched), &old)?;
    if request.subresource == Some("scale") {
        return Ok((scale::write(state, info, old, &patched, request.opts)?, false));
    }
    Ok((
        write::commit_update(
            state,
            info,
            old,
            patched,
            request.subresource,
            request.opts,
            Ownership::Patched,
        )?,
        false,
    ))
}

/// Why the patched built-in object does not decode into its type, and what the refusal quotes:
/// a JSON or merge patch's result is decoded as a body would be (`jsonPatcher`: the patched
/// JSON), a strategic merge patch's map restored by the unstructured converter (`smpPatcher`:
/// the patch as Go's `%+v` prints it). Where the type meta is wrong the decoder stops first;
/// the converter does not look at it.
fn decode_failure(media: &str, info: &ResourceInfo, patch: &Value, patched: &mut Value) -> Option<(String, String)> {
    let shown = |patched: &Value| match media {
        STRATEGIC_MERGE_PATCH => strategic_error::go_text(patch),
        _ => String::from_utf8_lossy(&go_json_writer::to_vec(patched)).into_owned(),
    };
    let why = match media {
        STRATEGIC_MERGE_PATCH => unstructured_restore::restore_error(info, patched),
        _ => decoding::interpret_error(patched)
            .or_else(|| registered_kinds::builtin_type_meta_error(info, patched).map(|(_, why)| why))
            .or_else(|| typed::decode_error(info, patched)),
    };
    if let Some(why) = why {
        return Some((shown(patched), why));
    }
    // Quantities are read as they decode, and kept in the form they are written back in.
    let why = quantity_fields::decode(info, patched).err()?;
    Some((shown(patched), why.to_string()))
}

/// `errors.NewInvalid` of a patch that does not decode: a 422 without kind or name, its one
/// cause the field `patch`.
fn invalid_patch(shown: &str, why: &str) -> ApiStatus {
    let cause = ("patch".to_owned(), format!("Invalid value: {}: {why}", go_quote(shown)));
    ApiStatus::invalid_kind("", "", "", &[cause])
}

/// Decodes a JSON or merge patch as kube-apiserver does: strictly (noting duplicate keys) unless
/// `fieldValidation=Ignore`, with Go's wording for what is not a patch (`applyJSPatch`, and
/// evanphx/json-patch's `MergePatch` for a merge patch that is not an object).
fn decode_patch(media: &str, body: &[u8], validation: FieldValidation) -> Result<Decoded, ApiStatus> {
    let json_patch = media == JSON_PATCH;
    let merge_patch = media == MERGE_PATCH;
    // `MergePatch` refuses a null patch, and (unmarshalling it as neither object nor array)
    // a scalar one.
    let bad_merge_patch = || ApiStatus::bad_request("Invalid JSON Patch");
    if validation == FieldValidation::Ignore {
        return match decoding::decode(body) {
            Ok(decoded) if merge_patch && !decoded.value.is_object() && !decoded.value.is_array() => {
                Err(bad_merge_patch())
            }
            Ok(decoded) if !json_patch || decoded.value.is_array() || decoded.value.is_null() => Ok(decoded),
            Ok(decoded) => Err(ApiStatus::bad_request(format!(
                "json: cannot unmarshal {} into Go value of type jsonpatch.Patch",
                go_json::type_name(&decoded.value)
            ))),
            Err(why) if json_patch => Err(ApiStatus::bad_request(why.to_string())),
            Err(_) => Err(bad_merge_patch()),
        };
    }
    let decoded =
        decoding::decode(body).map_err(|why| ApiStatus::bad_request(format!("error decoding patch: {why}")))?;
    let go_type = if json_patch {
        "[]handlers.jsonPatchOp"
    } else {
        "map[string]interface {}"
    };
    match &decoded.value {
        Value::Null if merge_patch => Err(bad_merge_patch()),
        Value::Null | Value::Array(_) if json_patch => Ok(decoded),
        Value::Object(_) if merge_patch => Ok(decoded),
        // A strategic merge patch that is not an object is `strategic::apply`'s to refuse.
        _ if !json_patch && !merge_patch => Ok(decoded),
        other => Err(ApiStatus::bad_request(format!(
            "error decoding patch: json: cannot unmarshal {} into Go value of type {go_type}",
            go_json::type_name(other)
        ))),
    }
}

/// Applies a non-apply patch of an accepted type to `target`.
fn patch_value(media: &str, mut target: Value, patch: &Value, shape: Shape<'_>) -> Result<Value, ApiStatus> {
    // kube-apiserver words a patch that does not apply as a generic 422: the reason is lost.
    let rejected = || {
        let mut status = ApiStatus::new(
            422,
            "Invalid",
            "the server rejected our request due to an error in our request",
        );
        status.details = Some(json!({}));
        status
    };
    match media {
        JSON_PATCH => {
            // An operation Go cannot carry out (unknown op, missing path) is a failed patch too.
            let operations: json_patch::Patch =
                serde_json::from_value(with_null_values(patch)).map_err(|_| rejected())?;
            for operation in operations.0 {
                // kube-apiserver's JSON patch treats a missing path as null in `test`, which is
                // what kube-runtime's finalizer helper relies on; RFC 6902 would fail instead.
                if let json_patch::PatchOperation::Test(test) = &operation
                    && test.value.is_null()
                    && target.pointer(test.path.as_str()).is_none()
                {
                    continue;
                }
                json_patch::patch(&mut target, &[operation]).map_err(|_| rejected())?;
            }
        }
        MERGE_PATCH => json_patch::merge(&mut target, patch),
        // `interpretStrategicMergePatchError`: format errors are a Bad Request, lists of lists
        // a generic 422, the rest passed on as they are, a bare 500.
        _ => strategic::apply(&mut target, patch, shape).map_err(|e| match e.code() {
            400 => ApiStatus::bad_request(e.to_string()),
            422 => rejected(),
            code => ApiStatus::new(code, "", e.to_string()),
        })?,
    }
    Ok(target)
}

/// evanphx/json-patch's `add` and `replace` write what `Operation.value` finds, and a missing
/// `value` is a nil node, written as null: RFC 6902 would refuse the operation instead.
fn with_null_values(patch: &Value) -> Value {
    let mut patch = patch.clone();
    for operation in patch.as_array_mut().into_iter().flatten() {
        let writes = matches!(operation.get("op").and_then(Value::as_str), Some("add" | "replace"));
        if let Some(operation) = operation.as_object_mut().filter(|_| writes) {
            operation.entry("value").or_insert(Value::Null);
        }
    }
    patch
}
