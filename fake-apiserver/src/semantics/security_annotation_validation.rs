//! The deprecated seccomp and AppArmor annotations of pods and pod templates, as
//! `pkg/apis/core/validation/validation.go` checks them: each on its own
//! (`ValidateSeccompPodAnnotations` with `ValidateSeccompProfile` and
//! `validateLocalDescendingPath`; `ValidateAppArmorPodAnnotations` with
//! `ValidateAppArmorProfileFormat` and `podSpecHasContainer`), and against the profile fields
//! they shadow when a pod or template is created (`validateSeccompAnnotationsAndFields` with
//! `validateSeccompAnnotationsAndFieldsMatch`; on 1.31, which has AppArmor fields,
//! `validateAppArmorAnnotationsAndFieldsMatchOnCreate`). Containers are visited as
//! `VisitContainersWithPath` does: init, regular, then ephemeral ones.

use serde_json::{Map, Value};

use crate::semantics::field_error::{FieldError, go_quote};
use crate::semantics::volume_file_validation::local_descending_path_errors;
use crate::storage::object::present;

/// `v1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix`.
pub(crate) const APPARMOR_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";

/// `core.SeccompPodAnnotationKey` and `core.SeccompContainerAnnotationKeyPrefix`.
const SECCOMP_POD: &str = "seccomp.security.alpha.kubernetes.io/pod";
const SECCOMP_PREFIX: &str = "container.seccomp.security.alpha.kubernetes.io/";

/// The prefix of a localhost profile in either kind of annotation.
const LOCALHOST: &str = "localhost/";

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// `ValidateSeccompPodAnnotations`: the pod's profile, then each container's, under `path` as
/// children (a dotted path).
pub(crate) fn seccomp_annotation_errors(annotations: &Map<String, Value>, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(profile) = annotations.get(SECCOMP_POD) {
        errors.extend(seccomp_profile_errors(text(profile), &format!("{path}.{SECCOMP_POD}")));
    }
    for (key, profile) in annotations.iter().filter(|(key, _)| key.starts_with(SECCOMP_PREFIX)) {
        errors.extend(seccomp_profile_errors(text(profile), &format!("{path}.{key}")));
    }
    errors
}

/// `ValidateSeccompProfile`: a known profile name, or a relative path without `..` below
/// `localhost/`.
fn seccomp_profile_errors(profile: &str, at: &str) -> Vec<FieldError> {
    match profile {
        "runtime/default" | "docker/default" | "unconfined" => Vec::new(),
        _ => match profile.strip_prefix(LOCALHOST) {
            Some(path) => local_descending_path_errors(path, at),
            None => vec![FieldError::invalid(
                at,
                profile.into(),
                "must be a valid seccomp profile",
            )],
        },
    }
}

/// `ValidateAppArmorPodAnnotations`: each container annotation names a container of `spec` and
/// a profile of a known form, under `path` by key.
pub(crate) fn apparmor_annotation_errors(
    annotations: &Map<String, Value>,
    spec: &Value,
    path: &str,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (key, profile) in annotations {
        let Some(container) = key.strip_prefix(APPARMOR_PREFIX) else {
            continue;
        };
        if !containers(spec).any(|(_, c)| name(c) == container) {
            errors.push(FieldError::invalid(
                format!("{path}[{key}]"),
                container.into(),
                "container not found",
            ));
        }
        // `ValidateAppArmorProfileFormat`.
        let profile = text(profile);
        if !matches!(profile, "" | "runtime/default" | "unconfined") && !profile.starts_with(LOCALHOST) {
            errors.push(FieldError::invalid(
                format!("{path}[{key}]"),
                profile.into(),
                format!("invalid AppArmor profile name: {}", go_quote(profile)),
            ));
        }
    }
    errors
}

/// The containers of a pod spec with their paths below the spec (`containers[0]`), as
/// `VisitContainersWithPath` visits them.
fn containers(spec: &Value) -> impl Iterator<Item = (String, &Value)> {
    ["initContainers", "containers", "ephemeralContainers"]
        .into_iter()
        .flat_map(move |list| {
            spec.get(list)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
                .map(move |(i, c)| (format!("{list}[{i}]"), c))
        })
}

fn name(container: &Value) -> &str {
    container.get("name").and_then(Value::as_str).unwrap_or_default()
}

/// How an annotation and a profile field of one kind (`seccomp`, `apparmor`) must agree.
fn mismatch(kind: &str, annotation: &str, profile: &Value, at: &str) -> Option<FieldError> {
    let forbidden = |field: &str, what: &str| {
        Some(FieldError::forbidden(
            format!("{at}.{field}"),
            format!("{kind} {what} in annotation and field must match"),
        ))
    };
    // seccomp also takes the name Docker gave the runtime's default profile.
    let runtime_default = annotation == "runtime/default" || (kind == "seccomp" && annotation == "docker/default");
    match profile.get("type").and_then(Value::as_str).unwrap_or_default() {
        "Unconfined" if annotation != "unconfined" => forbidden("type", "type"),
        "RuntimeDefault" if !runtime_default => forbidden("type", "type"),
        "Localhost" => match annotation.strip_prefix(LOCALHOST) {
            None => forbidden("type", "type"),
            Some(name) if present(profile, "localhostProfile").map(text) != Some(name) => {
                forbidden("localhostProfile", "profile")
            }
            Some(_) => None,
        },
        _ => None,
    }
}

/// `validateSeccompAnnotationsAndFields` of a pod or template (`object`) whose spec is at
/// `spec_path`: where a profile field and its annotation are both set, they agree.
pub(crate) fn seccomp_match_errors(object: &Value, spec_path: &str) -> Vec<FieldError> {
    let empty = Map::new();
    let annotations = object
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let spec = object.get("spec").unwrap_or(&Value::Null);
    let mut errors = Vec::new();
    if let (Some(profile), Some(annotation)) = (
        spec.pointer("/securityContext/seccompProfile").filter(|p| !p.is_null()),
        annotations.get(SECCOMP_POD),
    ) {
        let at = format!("{spec_path}.securityContext.seccompProfile");
        errors.extend(mismatch("seccomp", text(annotation), profile, &at));
    }
    for (path, container) in containers(spec) {
        let profile = container
            .pointer("/securityContext/seccompProfile")
            .filter(|p| !p.is_null());
        let annotation = annotations.get(&format!("{SECCOMP_PREFIX}{}", name(container)));
        if let (Some(profile), Some(annotation)) = (profile, annotation) {
            let at = format!("{spec_path}.{path}.securityContext.seccompProfile");
            errors.extend(mismatch("seccomp", text(annotation), profile, &at));
        }
    }
    errors
}

/// `validateAppArmorAnnotationsAndFieldsMatchOnCreate` (1.31) of a pod or template: a
/// container's annotation agrees with its profile, or else the pod's (named at the container's
/// field all the same). Windows pods are not checked.
pub(crate) fn apparmor_match_errors(object: &Value, spec_path: &str, minor: u32) -> Vec<FieldError> {
    let spec = object.get("spec").unwrap_or(&Value::Null);
    if minor < 30 || spec.pointer("/os/name").and_then(Value::as_str) == Some("windows") {
        return Vec::new();
    }
    let empty = Map::new();
    let annotations = object
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let pod_profile = spec
        .pointer("/securityContext/appArmorProfile")
        .filter(|p| !p.is_null());
    let mut errors = Vec::new();
    for (path, container) in containers(spec) {
        let own = container
            .pointer("/securityContext/appArmorProfile")
            .filter(|p| !p.is_null());
        let annotation = annotations.get(&format!("{APPARMOR_PREFIX}{}", name(container)));
        if let (Some(profile), Some(annotation)) = (own.or(pod_profile), annotation) {
            let at = format!("{spec_path}.{path}.securityContext.appArmorProfile");
            errors.extend(mismatch("apparmor", text(annotation), profile, &at));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    #[test]
    fn seccomp_annotations_should_name_known_profiles_or_descending_paths() {
        let annotations = json!({
            SECCOMP_POD: "bogus",
            "container.seccomp.security.alpha.kubernetes.io/c": "localhost/../escape.json",
            "container.seccomp.security.alpha.kubernetes.io/d": "localhost//abs.json",
            "container.seccomp.security.alpha.kubernetes.io/e": "docker/default",
            "container.seccomp.security.alpha.kubernetes.io/f": "localhost/a/b.json"
        });
        let annotations = annotations.as_object().cloned().unwrap_or_default();
        assert_eq!(
            rendered(seccomp_annotation_errors(&annotations, "metadata.annotations")),
            [
                "metadata.annotations.seccomp.security.alpha.kubernetes.io/pod: Invalid value: \"bogus\": must be a valid seccomp profile",
                "metadata.annotations.container.seccomp.security.alpha.kubernetes.io/c: Invalid value: \"../escape.json\": must not contain '..'",
                "metadata.annotations.container.seccomp.security.alpha.kubernetes.io/d: Invalid value: \"/abs.json\": must be a relative path",
            ]
        );
    }

    #[test]
    fn apparmor_annotations_should_name_containers_and_known_profiles() {
        let annotations = json!({
            "container.apparmor.security.beta.kubernetes.io/ghost": "runtime/default",
            "container.apparmor.security.beta.kubernetes.io/c": "enforce",
            "container.apparmor.security.beta.kubernetes.io/i": "localhost/p",
            "container.apparmor.security.beta.kubernetes.io/e": ""
        });
        let annotations = annotations.as_object().cloned().unwrap_or_default();
        let spec = json!({"initContainers": [{"name": "i"}], "containers": [{"name": "c"}], "ephemeralContainers": [{"name": "e"}]});
        assert_eq!(
            rendered(apparmor_annotation_errors(&annotations, &spec, "metadata.annotations")),
            [
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: Invalid value: \"enforce\": invalid AppArmor profile name: \"enforce\"",
                "metadata.annotations[container.apparmor.security.beta.kubernetes.io/ghost]: Invalid value: \"ghost\": container not found",
            ]
        );
    }

    #[test]
    fn seccomp_fields_should_match_their_annotations() {
        let pod = json!({
            "metadata": {"annotations": {
                SECCOMP_POD: "unconfined",
                "container.seccomp.security.alpha.kubernetes.io/c": "localhost/a.json",
                "container.seccomp.security.alpha.kubernetes.io/d": "runtime/default",
                "container.seccomp.security.alpha.kubernetes.io/e": "docker/default"
            }},
            "spec": {
                "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
                "containers": [
                    {"name": "c", "securityContext": {"seccompProfile": {"type": "Localhost", "localhostProfile": "b.json"}}},
                    {"name": "d", "securityContext": {"seccompProfile": {"type": "Unconfined"}}},
                    {"name": "e", "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}}
                ]
            }
        });
        assert_eq!(
            rendered(seccomp_match_errors(&pod, "spec")),
            [
                "spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match",
                "spec.containers[0].securityContext.seccompProfile.localhostProfile: Forbidden: seccomp profile in annotation and field must match",
                "spec.containers[1].securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match",
            ]
        );
    }

    #[test]
    fn apparmor_fields_or_the_pods_should_match_their_annotations_from_1_30() {
        let mut pod = json!({
            "metadata": {"annotations": {
                "container.apparmor.security.beta.kubernetes.io/a": "runtime/default",
                "container.apparmor.security.beta.kubernetes.io/b": "docker/default",
                "container.apparmor.security.beta.kubernetes.io/c": "localhost/x"
            }},
            "spec": {
                "securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}},
                "containers": [
                    {"name": "a", "securityContext": {"appArmorProfile": {"type": "Unconfined"}}},
                    {"name": "b"},
                    {"name": "c", "securityContext": {"appArmorProfile": {"type": "Localhost", "localhostProfile": "y"}}}
                ]
            }
        });
        assert_eq!(
            rendered(apparmor_match_errors(&pod, "spec.template.spec", 31)),
            [
                "spec.template.spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match",
                "spec.template.spec.containers[1].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match",
                "spec.template.spec.containers[2].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile in annotation and field must match",
            ]
        );
        assert!(apparmor_match_errors(&pod, "spec", 28).is_empty());
        pod["spec"]["os"] = json!({"name": "windows"});
        assert!(apparmor_match_errors(&pod, "spec", 31).is_empty());
    }
}
