//! PATCH in its four flavours (JSON patch, JSON merge patch, strategic merge patch, server-side
//! apply), of an object or of its `/scale` (written through `scale`).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::semantics::decoding::{self, Decoded};
use crate::semantics::field_error::go_quote;
use crate::semantics::shape::Shape;
use crate::semantics::{go_json, go_json_writer, scale_view};
use crate::semantics::{strategic, validation};
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
const BUILTIN_PATCH_TYPES: [&str; 4] = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    APPLY_PATCH,
];
const CUSTOM_PATCH_TYPES: [&str; 3] = [
    "application/json-patch+json",
    "application/merge-patch+json",
    APPLY_PATCH,
];

/// Decodes a request body; apply configurations may be YAML.
pub(crate) fn decode_body(body: &[u8], yaml: bool) -> Result<Value, ApiStatus> {
    match serde_json::from_slice(body) {
        Ok(value) => Ok(value),
        Err(_) if yaml => {
            serde_saphyr::from_slice(body).map_err(|e| ApiStatus::bad_request(format!("error decoding YAML: {e}")))
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
    let patched = patch_value(media, target, &patch.value, Shape::of(decoded_as))?;
    let mut decoded = Decoded {
        value: patched,
        duplicates: patch.duplicates,
        raw: None,
    };
    // The refusal quotes the patched object as it was before decoding dropped anything.
    let quoted = (request.opts.validation == FieldValidation::Strict)
        .then(|| String::from_utf8_lossy(&go_json_writer::to_vec(&decoded.value)).into_owned());
    let findings = decoding::strict_findings(decoded_as, &mut decoded, state.options.minor());
    let patched = decoded.value;
    decoding::enforce(findings, request.opts, |why| {
        let cause = (
            "patch".to_owned(),
            format!("Invalid value: {}: {why}", go_quote(&quoted.unwrap_or_default())),
        );
        ApiStatus::invalid_kind("", "", "", &[cause])
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
            Ownership::Update,
        )?,
        false,
    ))
}

/// Decodes a JSON or merge patch as kube-apiserver does: strictly (noting duplicate keys) unless
/// `fieldValidation=Ignore`, with Go's wording for what is not a patch.
fn decode_patch(media: &str, body: &[u8], validation: FieldValidation) -> Result<Decoded, ApiStatus> {
    let json_patch = media == "application/json-patch+json";
    if validation == FieldValidation::Ignore {
        return match decoding::decode(body) {
            Ok(decoded) if !json_patch || decoded.value.is_array() || decoded.value.is_null() => Ok(decoded),
            Ok(decoded) => Err(ApiStatus::bad_request(format!(
                "json: cannot unmarshal {} into Go value of type jsonpatch.Patch",
                go_json::type_name(&decoded.value)
            ))),
            Err(why) if json_patch => Err(ApiStatus::bad_request(why.to_string())),
            Err(_) => Err(ApiStatus::bad_request("Invalid JSON Patch")),
        };
    }
    let decoded =
        decoding::decode(body).map_err(|why| ApiStatus::bad_request(format!("error decoding patch: {why}")))?;
    if json_patch && !decoded.value.is_array() && !decoded.value.is_null() {
        return Err(ApiStatus::bad_request(format!(
            "error decoding patch: json: cannot unmarshal {} into Go value of type []handlers.jsonPatchOp",
            go_json::type_name(&decoded.value)
        )));
    }
    Ok(decoded)
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
        "application/json-patch+json" => {
            // An operation Go cannot carry out (unknown op, missing path) is a failed patch too.
            let operations: json_patch::Patch = serde_json::from_value(patch.clone()).map_err(|_| rejected())?;
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
        "application/merge-patch+json" => json_patch::merge(&mut target, patch),
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
