//! The checks of the volume sources that write files into a pod, from
//! `pkg/apis/core/validation/validation.go` (v1.28.7): `validateSecretVolumeSource`,
//! `validateConfigMapVolumeSource`, `validateKeyToPath`, `validateDownwardAPIVolumeSource` and
//! `validateDownwardAPIVolumeFile` (with `validateObjectFieldSelector`,
//! `validateContainerResourceFieldSelector`, `validateContainerResourceDivisor` and
//! `ConvertDownwardAPIFieldLabel` of `pkg/apis/core/pods/helpers.go`),
//! `validateProjectedVolumeSource` and `validateProjectionSources`, and the relative paths they
//! take (`validateLocalDescendingPath`, `validateLocalNonReservedPath`).

use std::collections::HashSet;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;
use crate::semantics::pv_source_checks::text;
use crate::semantics::pv_sources::no_backsteps;
use crate::semantics::quantity::Quantity;

/// `fileModeErrorMsg`.
const FILE_MODE: &str = "must be a number between 0 and 0777 (octal), both inclusive";

/// `validVolumeDownwardAPIFieldPathExpressions`, sorted.
const VOLUME_FIELD_PATHS: [&str; 5] = [
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
];

/// `validContainerResourceFieldPathExpressions`, sorted.
const RESOURCE_FIELD_PATHS: [&str; 6] = [
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
];

/// The divisors each resource allows (`validContainerResourceDivisorFor*`), by canonical form.
const CPU_DIVISORS: [&str; 2] = ["1m", "1"];
const BYTE_DIVISORS: [&str; 13] = [
    "1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei",
];

fn items<'v>(value: &'v Value, key: &str) -> impl Iterator<Item = (usize, &'v Value)> {
    value
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
}

/// A file mode outside 0..=0777, where `key` is set.
fn mode_errors(value: &Value, key: &str, at: &str) -> Option<FieldError> {
    let mode = value.get(key).and_then(Value::as_i64)?;
    (!(0..=0o777).contains(&mode)).then(|| FieldError::invalid(format!("{at}.{key}"), BadValue::Int(mode), FILE_MODE))
}

/// `validateSecretVolumeSource` (`name_key` `secretName`) and `validateConfigMapVolumeSource`
/// (`name`).
pub(crate) fn key_file_source_errors(source: &Value, name_key: &str, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if text(source, name_key).is_empty() {
        errors.push(FieldError::required(format!("{at}.{name_key}"), ""));
    }
    errors.extend(mode_errors(source, "defaultMode", at));
    for (i, item) in items(source, "items") {
        errors.extend(key_to_path_errors(item, &format!("{at}.items[{i}]")));
    }
    errors
}

/// `validateKeyToPath`.
fn key_to_path_errors(item: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for key in ["key", "path"] {
        if text(item, key).is_empty() {
            errors.push(FieldError::required(format!("{at}.{key}"), ""));
        }
    }
    errors.extend(local_non_reserved_path_errors(
        text(item, "path"),
        &format!("{at}.path"),
    ));
    errors.extend(mode_errors(item, "mode", at));
    errors
}

/// `validateLocalDescendingPath`: relative, without `..` elements.
pub(crate) fn local_descending_path_errors(path: &str, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if path.starts_with('/') {
        errors.push(FieldError::invalid(at, path.into(), "must be a relative path"));
    }
    errors.extend(no_backsteps(path, at));
    errors
}

/// `validateLocalNonReservedPath`: also not starting with `..` (unless `../`, reported already).
fn local_non_reserved_path_errors(path: &str, at: &str) -> Vec<FieldError> {
    let mut errors = local_descending_path_errors(path, at);
    if path.starts_with("..") && !path.starts_with("../") {
        errors.push(FieldError::invalid(at, path.into(), "must not start with '..'"));
    }
    errors
}

/// `validateDownwardAPIVolumeSource`; its files' errors are on the source's path, as Go's are.
pub(crate) fn downward_api_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let mut errors: Vec<FieldError> = mode_errors(source, "defaultMode", at).into_iter().collect();
    for (_, file) in items(source, "items") {
        errors.extend(downward_api_file_errors(file, at));
    }
    errors
}

/// `validateDownwardAPIVolumeFile`.
fn downward_api_file_errors(file: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let path = text(file, "path");
    if path.is_empty() {
        errors.push(FieldError::required(format!("{at}.path"), ""));
    }
    errors.extend(local_non_reserved_path_errors(path, &format!("{at}.path")));
    let set = |key: &str| file.get(key).is_some_and(|v| !v.is_null());
    if set("fieldRef") {
        errors.extend(object_field_selector_errors(
            &file["fieldRef"],
            &VOLUME_FIELD_PATHS,
            &format!("{at}.fieldRef"),
        ));
        if set("resourceFieldRef") {
            errors.push(FieldError::invalid(
                at,
                "resource".into(),
                "fieldRef and resourceFieldRef can not be specified simultaneously",
            ));
        }
    } else if set("resourceFieldRef") {
        errors.extend(resource_field_selector_errors(
            &file["resourceFieldRef"],
            &format!("{at}.resourceFieldRef"),
            true,
        ));
    } else {
        errors.push(FieldError::required(
            at,
            "one of fieldRef and resourceFieldRef is required",
        ));
    }
    errors.extend(mode_errors(file, "mode", at));
    errors
}

/// `fieldpath.SplitMaybeSubscriptedPath`: `path['subscript']`.
fn split_subscript(path: &str) -> Option<(&str, &str)> {
    let inner = path.strip_suffix("']")?;
    let (head, subscript) = inner.split_once("['")?;
    (!head.is_empty()).then_some((head, subscript))
}

/// `ConvertDownwardAPIFieldLabel` for a pod: the label Go accepts (`spec.host` is the node's
/// name), or why not.
fn convert_field_label(version: &str, label: &str) -> Result<String, String> {
    if version != "v1" {
        return Err(format!("unsupported pod version: {version}"));
    }
    if let Some((path, _)) = split_subscript(label) {
        return match path {
            "metadata.annotations" | "metadata.labels" => Ok(label.to_owned()),
            _ => Err(format!("field label does not support subscript: {label}")),
        };
    }
    match label {
        "metadata.annotations"
        | "metadata.labels"
        | "metadata.name"
        | "metadata.namespace"
        | "metadata.uid"
        | "spec.nodeName"
        | "spec.restartPolicy"
        | "spec.serviceAccountName"
        | "spec.schedulerName"
        | "status.phase"
        | "status.hostIP"
        | "status.hostIPs"
        | "status.podIP"
        | "status.podIPs" => Ok(label.to_owned()),
        "spec.host" => Ok("spec.nodeName".to_owned()),
        _ => Err(format!("field label not supported: {label}")),
    }
}

/// `validateObjectFieldSelector` against the field paths `expressions` allows (sorted).
pub(crate) fn object_field_selector_errors(selector: &Value, expressions: &[&str], at: &str) -> Vec<FieldError> {
    let (version, label) = (text(selector, "apiVersion"), text(selector, "fieldPath"));
    if version.is_empty() {
        return vec![FieldError::required(format!("{at}.apiVersion"), "")];
    }
    if label.is_empty() {
        return vec![FieldError::required(format!("{at}.fieldPath"), "")];
    }
    let internal = match convert_field_label(version, label) {
        Ok(internal) => internal,
        Err(why) => {
            return vec![FieldError::invalid(
                format!("{at}.fieldPath"),
                label.into(),
                format!("error converting fieldPath: {why}"),
            )];
        }
    };
    match split_subscript(&internal) {
        Some((path, subscript)) => {
            let key = match path {
                "metadata.annotations" => subscript.to_lowercase(),
                "metadata.labels" => subscript.to_owned(),
                _ => return vec![FieldError::invalid(at, path.into(), "does not support subscript")],
            };
            names::qualified_name_errors(&key)
                .into_iter()
                .map(|why| FieldError::invalid(at, key.as_str().into(), why))
                .collect()
        }
        None if !expressions.contains(&internal.as_str()) => {
            let supported: Vec<String> = expressions.iter().map(|e| (*e).to_owned()).collect();
            vec![FieldError::not_supported(
                format!("{at}.fieldPath"),
                internal.as_str().into(),
                &supported,
            )]
        }
        None => Vec::new(),
    }
}

/// `validateContainerResourceFieldSelector` (a volume's must name its container) with
/// `validateContainerResourceDivisor`; huge pages are accepted by prefix.
pub(crate) fn resource_field_selector_errors(selector: &Value, at: &str, volume: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let resource = text(selector, "resource");
    let huge_pages = resource.starts_with("requests.hugepages-") || resource.starts_with("limits.hugepages-");
    if volume && text(selector, "containerName").is_empty() {
        errors.push(FieldError::required(format!("{at}.containerName"), ""));
    } else if resource.is_empty() {
        errors.push(FieldError::required(format!("{at}.resource"), ""));
    } else if !RESOURCE_FIELD_PATHS.contains(&resource) && !huge_pages {
        let supported: Vec<String> = RESOURCE_FIELD_PATHS.iter().map(|e| (*e).to_owned()).collect();
        errors.push(FieldError::not_supported(
            format!("{at}.resource"),
            resource.into(),
            &supported,
        ));
    }
    let divisor = selector
        .get("divisor")
        .and_then(Value::as_str)
        .and_then(|d| Quantity::parse(d).ok())
        .filter(|d| d.cmp_value(&Quantity::from_int(0)).is_ne());
    let Some(divisor) = divisor else { return errors };
    let canonical = divisor.to_string();
    let (allowed, what): (&[&str], &str) = match resource {
        "limits.cpu" | "requests.cpu" => (&CPU_DIVISORS, "cpu"),
        "limits.memory" | "requests.memory" => (&BYTE_DIVISORS, "memory"),
        "limits.ephemeral-storage" | "requests.ephemeral-storage" => (&BYTE_DIVISORS, "local ephemeral storage"),
        _ if huge_pages => (&BYTE_DIVISORS, "hugepages"),
        _ => return errors,
    };
    if !allowed.contains(&canonical.as_str()) {
        let why = if what == "cpu" {
            "only divisor's values 1m and 1 are supported with the cpu resource".to_owned()
        } else {
            format!(
                "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the {what} resource"
            )
        };
        errors.push(FieldError::invalid(format!("{at}.divisor"), resource.into(), why));
    }
    errors
}

/// `validateProjectedVolumeSource` with `validateProjectionSources` (1.28: no trust bundles,
/// which 1.31 drops with their gate off).
pub(crate) fn projected_errors(source: &Value, at: &str) -> Vec<FieldError> {
    let mut errors: Vec<FieldError> = mode_errors(source, "defaultMode", at).into_iter().collect();
    let mut paths: HashSet<String> = HashSet::new();
    let mut claim = |path: &str, errors: &mut Vec<FieldError>, value: BadValue| {
        if !path.is_empty() && !paths.insert(path.to_owned()) {
            errors.push(FieldError::invalid(at, value, "conflicting duplicate paths"));
        }
    };
    for (i, projection) in items(source, "sources") {
        let source_at = format!("{at}.sources[{i}]");
        let mut kinds = 0;
        let part = |key: &str| projection.get(key).filter(|v| !v.is_null());
        for (key, name_key) in [("secret", "name"), ("configMap", "name")] {
            let Some(files) = part(key) else { continue };
            kinds += 1;
            let part_at = format!("{source_at}.{key}");
            if text(files, name_key).is_empty() {
                errors.push(FieldError::required(format!("{part_at}.name"), ""));
            }
            for (j, item) in items(files, "items") {
                errors.extend(key_to_path_errors(item, &format!("{part_at}.items[{j}]")));
                claim(text(item, "path"), &mut errors, text(files, name_key).into());
            }
        }
        if let Some(downward) = part("downwardAPI") {
            kinds += 1;
            for (_, file) in items(downward, "items") {
                errors.extend(downward_api_file_errors(file, &format!("{source_at}.downwardAPI")));
                claim(text(file, "path"), &mut errors, text(file, "path").into());
            }
        }
        if let Some(token) = part("serviceAccountToken") {
            kinds += 1;
            let expiration = token.get("expirationSeconds").and_then(Value::as_i64).unwrap_or(0);
            let field = format!("{source_at}.serviceAccountToken.expirationSeconds");
            if expiration < 600 {
                let why = "may not specify a duration less than 10 minutes";
                errors.push(FieldError::invalid(&field, BadValue::Int(expiration), why));
            }
            if expiration > 1 << 32 {
                let why = "may not specify a duration larger than 2^32 seconds";
                errors.push(FieldError::invalid(&field, BadValue::Int(expiration), why));
            }
            if text(token, "path").is_empty() {
                errors.push(FieldError::required(format!("{at}.path"), ""));
            }
        }
        if kinds > 1 {
            errors.push(FieldError::forbidden(
                source_at,
                "may not specify more than 1 volume type",
            ));
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
    fn key_paths_should_be_relative_and_never_climb() {
        let source = json!({"items": [{"key": "a", "path": ".."}, {"key": "b", "path": "/x", "mode": 512}]});
        assert_eq!(
            rendered(key_file_source_errors(&source, "secretName", "s")),
            [
                "s.secretName: Required value",
                "s.items[0].path: Invalid value: \"..\": must not contain '..'",
                "s.items[0].path: Invalid value: \"..\": must not start with '..'",
                "s.items[1].path: Invalid value: \"/x\": must be a relative path",
                "s.items[1].mode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive",
            ]
        );
    }

    #[test]
    fn downward_api_files_should_name_one_supported_reference() {
        let source = json!({"items": [
            {"path": "a", "fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}},
            {"path": "b", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels['ok']"}},
            {"path": "c", "resourceFieldRef": {"containerName": "c", "resource": "limits.cpu", "divisor": "3m"}}]});
        let errors = rendered(downward_api_errors(&source, "d"));
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].starts_with("d.fieldRef.fieldPath: Unsupported value: \"spec.nodeName\""));
        assert!(errors[1].starts_with("d.resourceFieldRef.divisor: Invalid value: \"limits.cpu\""));
    }

    #[test]
    fn projections_should_refuse_two_kinds_in_a_source_and_duplicate_paths() {
        let source = json!({"sources": [
            {"configMap": {"name": "a", "items": [{"key": "k", "path": "p"}]}, "secret": {"name": "b"}},
            {"downwardAPI": {"items": [{"path": "p", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.uid"}}]}},
            {"serviceAccountToken": {"path": "", "expirationSeconds": 60}}]});
        assert_eq!(
            crate::semantics::field_error::reasons(projected_errors(&source, "v")),
            [
                "FieldValueForbidden v.sources[0]",
                "FieldValueInvalid v",
                "FieldValueInvalid v.sources[2].serviceAccountToken.expirationSeconds",
                "FieldValueRequired v.path",
            ]
        );
    }
}
