//! A pod's binding to a node, through `pods/<name>/binding` or the `bindings` collection
//! (`pkg/registry/core/pod/storage/storage.go`: `BindingREST.Create`, `assignPod`,
//! `setPodHostAndAnnotations`, `LegacyBindingREST`; `ValidatePodBinding` of
//! `pkg/apis/core/validation/validation.go`): the node name and the binding's annotations are
//! written straight into the stored pod with its `PodScheduled` condition, without the pod's
//! strategy or field manager, as the registry's `GuaranteedUpdate` does.

use serde_json::{Value, json};

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::pod_condition::update_pod_condition;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::key::etcd_key;
use crate::storage::object;
use crate::verbs::authentication;

/// Whether a create on `info` through `subresource` is a binding.
pub(crate) fn concerns(info: &crate::storage::resource::ResourceInfo, subresource: Option<&str>) -> bool {
    info.builtin
        && info.group.is_empty()
        && match subresource {
            Some("binding") => info.kind == "Pod",
            None => info.plural == "bindings",
            Some(_) => false,
        }
}

/// POST of a Binding body: `name` is the pod's name from the path, or `None` through the
/// `bindings` collection, which takes the binding's own name.
pub(crate) fn bind(
    state: &mut State,
    namespace: &str,
    name: Option<&str>,
    body: &[u8],
    dry_run: bool,
) -> Result<Value, ApiStatus> {
    let binding = authentication::decode(body, "", "Binding")?;
    let sent_name = binding
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let sent_namespace = binding
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !sent_namespace.is_empty() && sent_namespace != namespace {
        return Err(ApiStatus::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    let name = name.unwrap_or(sent_name);
    if name != sent_name {
        return Err(ApiStatus::bad_request(
            "name in URL does not match name in Binding object",
        ));
    }
    let errors = binding_errors(&binding);
    if !errors.is_empty() {
        // `errs.ToAggregate()` is a plain error: a 500 without a reason.
        return Err(ApiStatus::new(500, "", aggregate(&errors)));
    }
    let node = binding
        .pointer("/target/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    assign(state, namespace, name, &binding, node, dry_run)?;
    Ok(json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}))
}

/// `ValidatePodBinding`.
fn binding_errors(binding: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let kind = binding
        .pointer("/target/kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !kind.is_empty() && kind != "Node" {
        let supported = ["Node".to_owned(), "<empty>".to_owned()];
        errors.push(FieldError::not_supported(
            "target.kind",
            BadValue::Str(kind.to_owned()),
            &supported,
        ));
    }
    let node = binding
        .pointer("/target/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if node.is_empty() {
        errors.push(FieldError::required("target.name", ""));
    }
    errors
}

/// `utilerrors.NewAggregate(errs).Error()`: one message, or the distinct ones in brackets.
fn aggregate(errors: &[FieldError]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for line in errors.iter().map(ToString::to_string) {
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    match &lines[..] {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// `assignPod`: the pod's preconditions (the binding's uid and resourceVersion), then the node
/// and annotations written; a refusal of the update function is a Conflict on `pods/binding`.
fn assign(
    state: &mut State,
    namespace: &str,
    name: &str,
    binding: &Value,
    node: &str,
    dry_run: bool,
) -> Result<(), ApiStatus> {
    let pods = state.info("", "v1", "pods");
    let current = state
        .object(&pods, Some(namespace), name)
        .ok_or_else(|| ApiStatus::not_found(&pods, name))?;
    let wanted = |key: &str| {
        binding
            .pointer(&format!("/metadata/{key}"))
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
    };
    let key = etcd_key(&pods, Some(namespace), name);
    let precondition = |what: &str, sent: &str, stored: &str| {
        // The storage's invalid-object error, which `InterpretUpdateError` makes a Conflict.
        let why = format!(
            "StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: {what} in precondition: {sent}, {what} in object meta: {stored}"
        );
        ApiStatus::conflict(&pods, name, &why)
    };
    if let Some(uid) = wanted("uid").filter(|uid| *uid != object::uid(&current)) {
        return Err(precondition("UID", uid, object::uid(&current)));
    }
    let stored_rv = current
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if let Some(rv) = wanted("resourceVersion").filter(|rv| *rv != stored_rv) {
        return Err(precondition("ResourceVersion", rv, stored_rv));
    }
    let refused = |why: String| {
        let mut status = ApiStatus::new(
            409,
            "Conflict",
            format!("Operation cannot be fulfilled on pods/binding {name:?}: {why}"),
        );
        status.details = Some(json!({"name": name, "kind": "pods/binding"}));
        status
    };
    if current
        .pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null())
    {
        return Err(refused(format!(
            "pod {name} is being deleted, cannot be assigned to a host"
        )));
    }
    let assigned = current
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !assigned.is_empty() {
        return Err(refused(format!("pod {name} is already assigned to node {assigned:?}")));
    }
    if current
        .pointer("/spec/schedulingGates")
        .and_then(Value::as_array)
        .is_some_and(|g| !g.is_empty())
    {
        return Err(refused(format!("pod {name} has non-empty .spec.schedulingGates")));
    }
    if dry_run {
        return Ok(());
    }
    let mut pod = (*current).clone();
    pod["spec"]["nodeName"] = json!(node);
    if let Some(annotations) = binding.pointer("/metadata/annotations").and_then(Value::as_object) {
        let meta = object::meta_mut(&mut pod);
        let stored = meta.entry("annotations").or_insert_with(|| json!({}));
        for (key, value) in annotations {
            stored[key] = value.clone();
        }
    }
    update_pod_condition(&mut pod, json!({"type": "PodScheduled", "status": "True"}));
    state.store.put(&pods.storage_key(), pod);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_are_checked_as_validate_pod_binding_does() {
        let refused = binding_errors(&json!({"target": {"kind": "Pod"}}));
        assert_eq!(
            aggregate(&refused),
            "[target.kind: Unsupported value: \"Pod\": supported values: \"Node\", \"<empty>\", target.name: Required value]"
        );
        assert!(binding_errors(&json!({"target": {"name": "n1"}})).is_empty());
    }

    #[test]
    fn a_condition_keeps_its_transition_time_while_its_status_holds() {
        let mut pod = json!({"status": {"conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2020-01-01T00:00:00Z"}
        ]}});
        update_pod_condition(&mut pod, json!({"type": "PodScheduled", "status": "True"}));
        assert_eq!(
            pod["status"]["conditions"][0]["lastTransitionTime"],
            "2020-01-01T00:00:00Z"
        );
        update_pod_condition(&mut pod, json!({"type": "DisruptionTarget", "status": "True"}));
        assert_eq!(pod["status"]["conditions"].as_array().map(Vec::len), Some(2));
    }
}
