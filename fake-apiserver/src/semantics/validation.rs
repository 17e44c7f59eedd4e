//! The checks every write makes on an object: type meta, namespace, server-owned fields,
//! metadata validation, and whether anything changed at all.

use serde_json::{Value, json};

use crate::semantics::decoding::{self, Decoded};
use crate::semantics::field_error::go_quote;
use crate::semantics::names;
use crate::semantics::namespace_validation;
use crate::semantics::registered_kinds;
use crate::semantics::schema::object_meta;
use crate::status::ApiStatus;
use crate::storage::object::{self, meta_mut};
use crate::storage::resource::{Lifecycle, ResourceInfo};

/// Checks `apiVersion` and `kind` as kube-apiserver's decoders do, then fills them in: objects
/// are stored under the served version.
///
/// A custom resource is decoded by the unstructured scheme, which needs both (400 without
/// `kind` or with another group, 422 for another kind); a built-in kind's typed decoder defaults
/// absent ones and refuses others (400).
pub(crate) fn check_type_meta(decoded: &mut Decoded, info: &ResourceInfo) -> Result<(), ApiStatus> {
    let body = &mut decoded.value;
    // A null body decodes into an empty object; anything else that is no object stops the
    // serializer reading its type meta.
    if body.is_null() {
        *body = json!({});
    }
    if let Some(why) = decoding::interpret_error(body) {
        let raw = decoded.raw.clone().unwrap_or_else(|| body.to_string().into());
        return Err(decoding::unrecognized(info, &why, &raw));
    }
    let map = body.as_object().expect("checked object");
    let expected = info.api_version();
    let api_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = map.get("kind").and_then(Value::as_str).unwrap_or_default();
    if info.lifecycle == Lifecycle::CustomResource {
        if kind.is_empty() {
            let raw = decoded.raw.clone().unwrap_or_else(|| body.to_string().into());
            let why = format!("Object 'Kind' is missing in '{}'", String::from_utf8_lossy(&raw));
            return Err(decoding::unrecognized(info, &why, &raw));
        }
        // The decoder's coercer reads the metadata alone as an `ObjectMeta`, before the handler
        // compares the body's version with its own (`unstructuredSchemaCoercer.apply`).
        if let Some(why) = map.get("metadata").and_then(object_meta::decode_error) {
            let version = api_version.rsplit_once('/').map_or(api_version, |(_, version)| version);
            return Err(ApiStatus::bad_request(format!(
                "{kind} in version {version:?} cannot be handled as a {}: {why}",
                info.kind
            )));
        }
        // The custom resource handler decodes into the request's version, and only that one.
        if api_version != expected {
            return Err(ApiStatus::bad_request(format!(
                "the API version in the data ({api_version}) does not match the expected API version ({expected})"
            )));
        }
        if kind != info.kind {
            let cause = (
                "kind".to_owned(),
                format!("Invalid value: {kind:?}: must be {}", info.kind),
            );
            return Err(ApiStatus::invalid_kind(kind, &info.group, object::name(body), &[cause]));
        }
    } else if let Some((subject, why)) = registered_kinds::builtin_type_meta_error(info, body) {
        return Err(ApiStatus::bad_request(format!(
            "{subject} cannot be handled as a {}: {why}",
            info.kind
        )));
    }
    let map = body.as_object_mut().expect("checked object");
    map.insert("apiVersion".to_owned(), json!(expected));
    map.insert("kind".to_owned(), json!(info.kind));
    Ok(())
}

/// Puts the object in the request's namespace, or refuses a different one.
pub(crate) fn set_namespace(body: &mut Value, info: &ResourceInfo, namespace: Option<&str>) -> Result<(), ApiStatus> {
    let meta = meta_mut(body);
    match namespace {
        Some(ns) if info.namespaced => {
            match meta.get("namespace").and_then(Value::as_str) {
                Some(own) if !own.is_empty() && own != ns => {
                    return Err(ApiStatus::bad_request(
                        "the namespace of the provided object does not match the namespace sent on the request",
                    ));
                }
                _ => meta.insert("namespace".to_owned(), json!(ns)),
            };
        }
        _ => {
            meta.remove("namespace");
        }
    }
    Ok(())
}

/// `checkName` of kube-apiserver's update and patch handlers (`endpoints/handlers/rest.go`):
/// the object sent (or the patched one, or its Scale) must carry the name on the URL.
pub(crate) fn check_name(body: &Value, name: &str) -> Result<(), ApiStatus> {
    match object::name(body) {
        "" => Err(ApiStatus::bad_request(format!(
            "the name of the object ({name} based on URL) was undeterminable: name must be provided"
        ))),
        own if own != name => Err(ApiStatus::bad_request(format!(
            "the name of the object ({own}) does not match the name on the URL ({name})"
        ))),
        _ => Ok(()),
    }
}

/// Name, namespace and uid cannot change: a write (typically a patch) that sets them to other
/// values is Invalid; leaving them out keeps them. kube-apiserver checks the metadata update
/// twice, in `rest.BeforeUpdate`'s common checks and in the strategy's `ValidateUpdate`, and
/// answers with both causes.
pub(crate) fn check_identity_unchanged(info: &ResourceInfo, old: &Value, new: &Value) -> Result<(), ApiStatus> {
    let mut causes = Vec::new();
    for field in ["name", "namespace", "uid"] {
        let (before, after) = (object::meta_str(old, field), object::meta_str(new, field));
        if !after.is_empty() && after != before {
            causes.push((
                format!("metadata.{field}"),
                format!("Invalid value: {after:?}: field is immutable"),
            ));
        }
    }
    if causes.is_empty() {
        Ok(())
    } else {
        let twice: Vec<_> = causes.iter().chain(&causes).cloned().collect();
        Err(ApiStatus::invalid(info, object::name(old), &twice))
    }
}

/// Keeps what only the server may set.
pub(crate) fn preserve_system_fields(old: &Value, new: &mut Value) {
    let old_meta = old
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let meta = meta_mut(new);
    for field in [
        "name",
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
        "namespace",
        "resourceVersion",
    ] {
        match old_meta.get(field) {
            Some(value) => meta.insert(field.to_owned(), value.clone()),
            None => meta.remove(field),
        };
    }
    meta.remove("selfLink");
}

/// Metadata shape checks kube-apiserver's validation makes.
pub(crate) fn validate_metadata(info: &ResourceInfo, object: &Value) -> Result<(), ApiStatus> {
    let causes = metadata_causes(info, object);
    if causes.is_empty() {
        Ok(())
    } else {
        Err(ApiStatus::invalid(info, object::name(object), &causes))
    }
}

/// The causes of `validate_metadata`'s refusal, for validations that report them with the
/// kind's own (`ValidateObjectMeta` runs first in every strategy's `Validate`).
pub(crate) fn metadata_causes(info: &ResourceInfo, object: &Value) -> Vec<(String, String)> {
    let name = object::name(object);
    let mut causes = Vec::new();
    // A CRD's name is checked with its spec, in one answer (`crd_validation`).
    if info.lifecycle != Lifecycle::CustomResourceDefinition {
        // `ValidateObjectMeta`: the prefix first, a trailing dash standing for a character
        // (`maskTrailingDash`), then the generated name. A path-segment name takes any prefix.
        let prefix = object::meta_str(object, "generateName");
        if !prefix.is_empty() && !names::takes_path_segment_names(&info.kind) {
            // Go cuts bytes: half a character before the dash leaves a byte no name may hold.
            let masked = match prefix.len() > 1 && prefix.ends_with('-') {
                true => format!("{}a", String::from_utf8_lossy(&prefix.as_bytes()[..prefix.len() - 2])),
                false => prefix.to_owned(),
            };
            for why in names::object_name_errors(&info.kind, &masked) {
                causes.push((
                    "metadata.generateName".to_owned(),
                    format!("Invalid value: {prefix:?}: {why}"),
                ));
            }
        }
        for why in names::object_name_errors(&info.kind, name) {
            causes.push(("metadata.name".to_owned(), format!("Invalid value: {name:?}: {why}")));
        }
    }
    for map in ["labels", "annotations"] {
        if let Some(values) = object.pointer(&format!("/metadata/{map}"))
            && !values.as_object().is_some_and(|m| m.values().all(Value::is_string))
        {
            causes.push((
                format!("metadata.{map}"),
                "Invalid value: must be a map of strings".to_owned(),
            ));
        }
    }
    causes.extend(names::metadata_errors(object));
    causes.extend(owner_reference_errors(object::owner_references(object)));
    // Core's `ValidateObjectMeta`: a finalizer without a domain must be a standard one.
    if uses_core_object_meta(info) {
        let finalizers = object.pointer("/metadata/finalizers").and_then(Value::as_array);
        for (i, finalizer) in finalizers.into_iter().flatten().enumerate() {
            let Some(name) = finalizer.as_str() else { continue };
            for error in namespace_validation::kube_finalizer_errors(name, &format!("metadata.finalizers[{i}]")) {
                causes.push((error.field.clone(), error.body()));
            }
        }
    }
    causes
}

/// Whether the kind's validation checks its metadata with core's `ValidateObjectMeta`
/// (`pkg/apis/core/validation`), which adds `validateKubeFinalizerName`, rather than
/// apimachinery's alone: custom resources and CRDs, the admission registration kinds, Leases,
/// RuntimeClasses and APIServices call apimachinery's, the reviews validate no metadata, and a PodDisruptionBudget's strategy
/// checks no metadata (`rest.BeforeCreate`'s apimachinery check is all).
fn uses_core_object_meta(info: &ResourceInfo) -> bool {
    let apimachinery_only = matches!(
        info.group.as_str(),
        "admissionregistration.k8s.io"
            | "coordination.k8s.io"
            | "node.k8s.io"
            | "apiregistration.k8s.io"
            | "authentication.k8s.io"
            | "authorization.k8s.io"
    ) || (info.group == "policy" && info.kind == "PodDisruptionBudget");
    info.builtin && info.lifecycle != Lifecycle::CustomResourceDefinition && !apimachinery_only
}

/// apimachinery's `ValidateOwnerReferences`: its field paths name the list, not the element.
fn owner_reference_errors(owners: &[Value]) -> Vec<(String, String)> {
    let field = "metadata.ownerReferences";
    let mut causes = Vec::new();
    let mut first_controller: Option<String> = None;
    for owner in owners {
        let text = |key: &str| owner.get(key).and_then(Value::as_str).unwrap_or_default();
        // `schema.FromAPIVersionAndKind`: an apiVersion `ParseGroupVersion` refuses (more than one
        // `/`) has no version.
        let version = match text("apiVersion").split('/').collect::<Vec<_>>().as_slice() {
            [version] | [_, version] => *version,
            _ => "",
        };
        let checks = [
            ("apiVersion", version, "version must not be empty"),
            ("kind", text("kind"), "kind must not be empty"),
            ("name", text("name"), "name must not be empty"),
            ("uid", text("uid"), "uid must not be empty"),
        ];
        for (key, value, why) in checks {
            if value.is_empty() {
                causes.push((format!("{field}.{key}"), names::invalid(&text(key).into(), why)));
            }
        }
        if owner.get("controller").and_then(Value::as_bool) == Some(true) {
            let this = format!("{}/{}", text("kind"), text("name"));
            match &first_controller {
                Some(first) => causes.push((
                    field.to_owned(),
                    format!(
                        "Invalid value: {}: Only one reference can have Controller set to true. Found \"true\" in references for {first} and {this}",
                        go_owner_references(owners)
                    ),
                )),
                None => first_controller = Some(this),
            }
        }
    }
    causes
}

/// Go's `%#v` of a `[]metav1.OwnerReference`, as `ValidateOwnerReferences` prints the list.
fn go_owner_references(owners: &[Value]) -> String {
    let shown: Vec<String> = owners
        .iter()
        .map(|owner| {
            let text = |key: &str| go_quote(owner.get(key).and_then(Value::as_str).unwrap_or_default());
            format!(
                "v1.OwnerReference{{APIVersion:{}, Kind:{}, Name:{}, UID:{}, Controller:{}, BlockOwnerDeletion:{}}}",
                text("apiVersion"),
                text("kind"),
                text("name"),
                text("uid"),
                names::go_pointer("bool", owner.get("controller")),
                names::go_pointer("bool", owner.get("blockOwnerDeletion")),
            )
        })
        .collect();
    format!("[]v1.OwnerReference{{{}}}", shown.join(", "))
}

/// Whether a write would change nothing a client can see besides managed-field timestamps.
pub(crate) fn unchanged(old: &Value, new: &Value) -> bool {
    same_members(old, new, |key, old, new| match key {
        "metadata" => same_members(old, new, |key, old, new| match (key, old, new) {
            ("managedFields", Value::Array(old), Value::Array(new)) => {
                old.len() == new.len() && old.iter().zip(new).all(|(old, new)| same_but_time(old, new))
            }
            _ => old == new,
        }),
        _ => old == new,
    })
}

/// Whether two objects have the same keys, and `same` holds for the values of each; other
/// values compare with `==`.
fn same_members(old: &Value, new: &Value, same: impl Fn(&str, &Value, &Value) -> bool) -> bool {
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => object::same_maps(old, new, |_| false, same),
        _ => old == new,
    }
}

/// Whether two managed-field entries are equal but for their `time`, which either may lack.
fn same_but_time(old: &Value, new: &Value) -> bool {
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => object::same_maps(old, new, |key| key == "time", |_, a, b| a == b),
        _ => old == new,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unchanged_should_ignore_managed_field_times_only() {
        let object = |time: Option<&str>, replicas: i64, manager: &str| {
            let mut entry = json!({"manager": manager, "operation": "Update", "fieldsV1": {"f:spec": {}}});
            if let Some(time) = time {
                entry["time"] = json!(time);
            }
            json!({"metadata": {"name": "a", "managedFields": [entry]}, "spec": {"replicas": replicas}})
        };
        let base = object(Some("t1"), 1, "m");
        assert!(unchanged(&base, &object(Some("t2"), 1, "m")), "another time");
        assert!(unchanged(&base, &object(None, 1, "m")), "no time");
        assert!(!unchanged(&base, &object(Some("t1"), 2, "m")), "another spec");
        assert!(!unchanged(&base, &object(Some("t1"), 1, "n")), "another manager");
        let mut labelled = base.clone();
        labelled["metadata"]["labels"] = json!({"a": "b"});
        assert!(
            !unchanged(&base, &labelled) && !unchanged(&labelled, &base),
            "a new label"
        );
        let mut two = base.clone();
        two["metadata"]["managedFields"]
            .as_array_mut()
            .unwrap()
            .push(json!({"manager": "x"}));
        assert!(!unchanged(&base, &two), "another entry");
        assert!(
            !unchanged(&json!({"time": "a"}), &json!({"time": "b"})),
            "time counts outside managedFields"
        );
    }
}
