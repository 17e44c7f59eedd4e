//! PATCH in its four flavours (JSON patch, JSON merge patch, strategic merge patch, server-side
//! apply), and the `/scale` subresource that reads and writes replicas through its paths.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::semantics::selector::label_selector_text;
use crate::semantics::strategic;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;
use crate::verbs::apply::{self, ApplyRequest};
use crate::verbs::options::{APPLY_PATCH, Ownership, WriteOpts};
use crate::verbs::{read, write};

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
    pub(crate) dry_run: bool,
    pub(crate) strict: bool,
}

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
    if media == APPLY_PATCH {
        if !request.explicit_manager {
            return Err(ApiStatus::bad_request("fieldManager must be set for apply requests"));
        }
        if request.subresource == Some("scale") {
            return Err(ApiStatus::unsupported_media_type(media));
        }
        let config = decode_body(request.body, true)?;
        let apply = ApplyRequest {
            namespace: request.namespace,
            name: request.name,
            subresource: request.subresource,
            manager: request.manager,
            force: request.force,
            dry_run: request.dry_run,
            strict: request.strict,
        };
        return apply::apply(state, info, config, &apply);
    }
    let patch = decode_body(request.body, false)?;
    let old = read::get(state, info, request.namespace, request.name)?;
    let target = if request.subresource == Some("scale") {
        scale_of(info, &old)
    } else {
        (*old).clone()
    };
    let patched = patch_value(info, media, target, &patch)?;
    let rv = object::resource_version(&patched);
    if !rv.is_empty() && rv != object::resource_version(&old) {
        return Err(ApiStatus::stale(info, request.name));
    }
    let opts = WriteOpts {
        manager: Some(request.manager.to_owned()),
        dry_run: request.dry_run,
        strict: request.strict,
    };
    if request.subresource == Some("scale") {
        return Ok((write_scale(state, info, old, &patched, &opts)?, false));
    }
    Ok((
        write::commit_update(state, info, old, patched, request.subresource, &opts, Ownership::Update)?,
        false,
    ))
}

/// PUT on `/scale`.
pub(crate) fn update_scale(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    namespace: Option<&str>,
    name: &str,
    scale: &Value,
    opts: &WriteOpts,
) -> Result<Arc<Value>, ApiStatus> {
    let old = read::get(state, info, namespace, name)?;
    let rv = object::resource_version(scale);
    if !rv.is_empty() && rv != object::resource_version(&old) {
        return Err(ApiStatus::stale(info, name));
    }
    write_scale(state, info, old, scale, opts)
}

fn write_scale(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    old: Arc<Value>,
    scale: &Value,
    opts: &WriteOpts,
) -> Result<Arc<Value>, ApiStatus> {
    let paths = info.scale.as_ref().expect("route checked the scale subresource");
    let Some(replicas) = scale.pointer("/spec/replicas").filter(|r| r.is_i64() || r.is_u64()) else {
        let causes = [(
            "spec.replicas".to_owned(),
            "Required value: must be an integer".to_owned(),
        )];
        return Err(ApiStatus::invalid(info, object::name(&old), &causes));
    };
    let mut new = (*old).clone();
    object::set_field(&mut new, &paths.spec_replicas, replicas.clone());
    // The scale writer's managed-fields entry is its own (`subresource: scale`).
    let stored = write::commit_update(state, info, old, new, Some("scale"), opts, Ownership::Update)?;
    Ok(Arc::new(scale_of(info, &stored)))
}

/// Applies a non-apply patch to `target`.
fn patch_value(info: &ResourceInfo, media: &str, mut target: Value, patch: &Value) -> Result<Value, ApiStatus> {
    let invalid = |why: String| {
        ApiStatus::new(
            422,
            "Invalid",
            format!("the server rejected our request due to an error in our request: {why}"),
        )
    };
    match media {
        "application/json-patch+json" => {
            let operations: json_patch::Patch = serde_json::from_value(patch.clone())
                .map_err(|e| ApiStatus::bad_request(format!("invalid JSON patch: {e}")))?;
            for operation in operations.0 {
                // kube-apiserver's JSON patch treats a missing path as null in `test`, which is
                // what kube-runtime's finalizer helper relies on; RFC 6902 would fail instead.
                if let json_patch::PatchOperation::Test(test) = &operation
                    && test.value.is_null()
                    && target.pointer(test.path.as_str()).is_none()
                {
                    continue;
                }
                json_patch::patch(&mut target, &[operation]).map_err(|e| invalid(e.to_string()))?;
            }
        }
        "application/merge-patch+json" => json_patch::merge(&mut target, patch),
        "application/strategic-merge-patch+json" if info.builtin => {
            strategic::apply(&mut target, patch).map_err(|e| invalid(e.to_string()))?;
        }
        other => return Err(ApiStatus::unsupported_media_type(other)),
    }
    Ok(target)
}

/// The `autoscaling/v1` `Scale` view of an object.
pub(crate) fn scale_of(info: &ResourceInfo, object: &Value) -> Value {
    let paths = info.scale.as_ref().expect("route checked the scale subresource");
    let replicas = |path: &str| object::field(object, path).cloned().unwrap_or(json!(0));
    let selector = paths
        .label_selector
        .as_deref()
        .and_then(|p| object::field(object, p))
        .map(label_selector_text);
    let meta = object.get("metadata").cloned().unwrap_or_default();
    let pick = |key: &str| meta.get(key).cloned().unwrap_or(Value::Null);
    let mut scale = json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            "name": pick("name"), "namespace": pick("namespace"), "uid": pick("uid"),
            "resourceVersion": pick("resourceVersion"), "creationTimestamp": pick("creationTimestamp"),
        },
        "spec": { "replicas": replicas(&paths.spec_replicas) },
        "status": { "replicas": replicas(&paths.status_replicas) },
    });
    if let Some(selector) = selector {
        scale["status"]["selector"] = json!(selector);
    }
    // `ScaleSpec.replicas` is omitempty: zero replicas are an empty spec.
    if scale["spec"]["replicas"] == json!(0) {
        scale["spec"] = json!({});
    }
    scale
}
