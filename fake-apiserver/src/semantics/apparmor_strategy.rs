//! What 1.31's pod strategy does to a new pod's AppArmor settings before validating it
//! (`pkg/registry/core/pod/strategy.go`: `PrepareForCreate` calls `applyAppArmorVersionSkew`,
//! with `appArmorAnnotationForField` and `apparmorFieldForAnnotation`; 1.28 has no AppArmor
//! fields). Each container of a pod that does not run Windows gets the deprecated annotation
//! `container.apparmor.security.beta.kubernetes.io/<name>` from its own profile field or else
//! the pod's; a container with the annotation and no field gets the field from it, unless it
//! equals the pod's profile, and the annotation is warned of as deprecated.

use serde_json::{Map, Value, json};

use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The prefix of the deprecated per-container annotation.
const ANNOTATION_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";

/// The prefix of a localhost profile's annotation value.
const LOCALHOST_PREFIX: &str = "localhost/";

/// Longest localhost profile name `ValidateAppArmorProfileField` accepts (`PATH_MAX - 1`).
const MAX_LOCALHOST_PROFILE: usize = 4095;

/// `applyAppArmorVersionSkew` of a new pod on the Kubernetes `minor`: the warnings it adds.
pub(crate) fn prepare_create(info: &ResourceInfo, pod: &mut Value, minor: u32) -> Vec<String> {
    let is_pod = info.builtin && info.group.is_empty() && info.kind == "Pod";
    if !is_pod || minor < 31 || pod.pointer("/spec/os/name").and_then(Value::as_str) == Some("windows") {
        return Vec::new();
    }
    let pod_profile = pod
        .pointer("/spec/securityContext/appArmorProfile")
        .filter(|p| !p.is_null())
        .cloned();
    let mut annotations = object::annotations(pod).cloned().unwrap_or_default();
    let mut warnings = Vec::new();
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        let Some(containers) = pod.pointer_mut(&format!("/spec/{list}")).and_then(Value::as_array_mut) else {
            continue;
        };
        for container in containers.iter_mut() {
            let name = container.get("name").and_then(Value::as_str).unwrap_or_default();
            let key = format!("{ANNOTATION_PREFIX}{name}");
            let own = container
                .pointer("/securityContext/appArmorProfile")
                .filter(|p| !p.is_null())
                .cloned();
            match (annotations.get(&key).and_then(Value::as_str).map(str::to_owned), own) {
                (None, own) => {
                    let annotation = own.as_ref().or(pod_profile.as_ref()).map(annotation_for_field);
                    if let Some(annotation) = annotation.filter(|a| !a.is_empty()) {
                        annotations.insert(key, json!(annotation));
                    }
                }
                (Some(annotation), None) => {
                    let field = field_for_annotation(&annotation).filter(is_valid_field);
                    let mut deprecated = field.is_none();
                    if let Some(field) = field.filter(|f| Some(f) != pod_profile.as_ref()) {
                        set_container_profile(container, field);
                        deprecated = true;
                    }
                    if deprecated {
                        warnings.push(format!(
                            "metadata.annotations[{key}]: deprecated since v1.30; use the \"appArmorProfile\" field instead"
                        ));
                    }
                }
                (Some(_), Some(_)) => {}
            }
        }
    }
    if !annotations.is_empty() {
        object::meta_mut(pod).insert("annotations".to_owned(), Value::Object(annotations));
    }
    warnings
}

/// `appArmorAnnotationForField`: the annotation value of a profile field (empty for a
/// localhost profile without a name, or a type it does not know).
fn annotation_for_field(profile: &Value) -> String {
    let localhost = profile.get("localhostProfile").and_then(Value::as_str);
    match (profile.get("type").and_then(Value::as_str), localhost) {
        (Some("Unconfined"), _) => "unconfined".to_owned(),
        (Some("RuntimeDefault"), _) => "runtime/default".to_owned(),
        (Some("Localhost"), Some(name)) => format!("{LOCALHOST_PREFIX}{name}"),
        _ => String::new(),
    }
}

/// `apparmorFieldForAnnotation`: the profile field an annotation value stands for.
fn field_for_annotation(annotation: &str) -> Option<Value> {
    match annotation {
        "unconfined" => Some(json!({"type": "Unconfined"})),
        "runtime/default" => Some(json!({"type": "RuntimeDefault"})),
        _ => annotation
            .strip_prefix(LOCALHOST_PREFIX)
            .filter(|name| !name.is_empty())
            .map(|name| json!({"type": "Localhost", "localhostProfile": name})),
    }
}

/// Whether `ValidateAppArmorProfileField` accepts a field made from an annotation: a localhost
/// profile name must not be blank, padded or too long.
fn is_valid_field(field: &Value) -> bool {
    match field.get("localhostProfile").and_then(Value::as_str) {
        Some(name) => !name.trim().is_empty() && name.trim() == name && name.len() <= MAX_LOCALHOST_PROFILE,
        None => true,
    }
}

/// Sets a container's `securityContext.appArmorProfile`, creating the security context.
fn set_container_profile(container: &mut Value, profile: Value) {
    let Some(fields) = container.as_object_mut() else {
        return;
    };
    let context = fields
        .entry("securityContext")
        .or_insert_with(|| Value::Object(Map::new()));
    if !context.is_object() {
        *context = Value::Object(Map::new());
    }
    context["appArmorProfile"] = profile;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pods() -> ResourceInfo {
        ResourceInfo::builtin("", "v1", "Pod", "pods")
    }

    #[test]
    fn fields_become_annotations_and_annotations_fields() {
        let mut pod = json!({
            "metadata": {"name": "p", "annotations": {"container.apparmor.security.beta.kubernetes.io/b": "unconfined"}},
            "spec": {
                "securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}},
                "containers": [
                    {"name": "a", "securityContext": {"appArmorProfile": {"type": "Localhost", "localhostProfile": "x"}}},
                    {"name": "b"},
                    {"name": "c"}
                ]
            }
        });
        let warnings = prepare_create(&pods(), &mut pod, 31);
        assert_eq!(
            pod["metadata"]["annotations"],
            json!({
                "container.apparmor.security.beta.kubernetes.io/a": "localhost/x",
                "container.apparmor.security.beta.kubernetes.io/b": "unconfined",
                "container.apparmor.security.beta.kubernetes.io/c": "runtime/default"
            })
        );
        assert_eq!(
            pod["spec"]["containers"][1]["securityContext"]["appArmorProfile"],
            json!({"type": "Unconfined"})
        );
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with(
            "metadata.annotations[container.apparmor.security.beta.kubernetes.io/b]: deprecated since v1.30"
        ));
    }

    #[test]
    fn an_annotation_equal_to_the_pod_profile_or_invalid_only_warns() {
        let mut pod = json!({
            "metadata": {"annotations": {
                "container.apparmor.security.beta.kubernetes.io/a": "runtime/default",
                "container.apparmor.security.beta.kubernetes.io/b": "localhost/ padded"
            }},
            "spec": {"securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}}, "containers": [{"name": "a"}, {"name": "b"}]}
        });
        let warnings = prepare_create(&pods(), &mut pod, 31);
        assert!(pod["spec"]["containers"][0].get("securityContext").is_none());
        assert!(pod["spec"]["containers"][1].get("securityContext").is_none());
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("/b]"));
    }

    #[test]
    fn older_minors_and_windows_pods_are_left_alone() {
        let mut pod = json!({"spec": {"securityContext": {"appArmorProfile": {"type": "Unconfined"}}, "containers": [{"name": "a"}]}});
        let before = pod.clone();
        assert!(prepare_create(&pods(), &mut pod, 28).is_empty());
        pod["spec"]["os"] = json!({"name": "windows"});
        let windows = pod.clone();
        prepare_create(&pods(), &mut pod, 31);
        assert_eq!(pod, windows);
        assert_ne!(before, pod);
    }
}
