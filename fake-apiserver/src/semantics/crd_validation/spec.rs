//! `validateCustomResourceDefinitionSpec` and the checks it calls for names, versions,
//! subresources and printer columns (`apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`).

use serde_json::Value;

use super::internal::{Spec, Version, has_keyword, has_status};
use super::selectable_fields::{self, Scope};
use super::{Options, conversion, definition_names, go_dump, openapi};
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;

const PRINTER_COLUMN_TYPES: &str = "boolean,date,integer,number,string";
const PRINTER_COLUMN_FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";

/// The spec's errors, in kube-apiserver's order.
pub(crate) fn errors(spec: &Spec<'_>, opts: &Options) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let group = spec.text("group");
    if group.is_empty() {
        errors.push(FieldError::required("spec.group", ""));
    } else if let reasons @ [_, ..] = &names::object_name_errors("CustomResourceDefinition", group)[..] {
        errors.push(FieldError::invalid(
            "spec.group",
            BadValue::from(group),
            reasons.join(","),
        ));
    } else if !group.contains('.') {
        errors.push(FieldError::invalid(
            "spec.group",
            BadValue::from(group),
            "should be a domain with at least one dot",
        ));
    }
    errors.extend(FieldError::enum_string(
        "spec.scope",
        spec.text("scope"),
        &["Cluster", "Namespaced"],
    ));
    let mut opts = opts.clone();
    // v1's field is a plain bool, so the internal pointer is never nil.
    let pruning = spec.preserve_unknown_fields() != Some(true);
    if pruning {
        opts.require_structural = true;
    }
    if spec.validation.and_then(|v| v.get("openAPIV3Schema")).is_none() {
        for (i, version) in spec.versions.iter().enumerate() {
            let has_schema = version.schema.and_then(|s| s.get("openAPIV3Schema")).is_some();
            let path = format!("spec.versions[{i}].schema.openAPIV3Schema");
            if opts.require_open_api_schema && !has_schema {
                errors.push(FieldError::required(path, "schemas are required"));
            } else if !opts.require_open_api_schema && pruning && version.served && !has_schema {
                errors.push(FieldError::required(path, "because otherwise all fields are pruned"));
            }
        }
    }
    if spec.schemas().any(|s| has_keyword(s, &|s| s.get("default").is_some())) {
        opts.require_structural = true;
        if !pruning {
            errors.push(FieldError::invalid(
                "spec.preserveUnknownFields",
                BadValue::Json(Value::Bool(true)),
                "must be false in order to use defaults in the schema",
            ));
        }
    }
    if spec.schemas().any(|s| has_keyword(s, &has_kubernetes_extension)) {
        opts.require_structural = true;
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut unique = true;
    for (i, version) in spec.versions.iter().enumerate() {
        if seen.contains(&version.name) {
            unique = false;
        } else {
            seen.push(version.name);
        }
        let path = format!("spec.versions[{i}]");
        if let reasons @ [_, ..] = &names::object_name_errors("Service", version.name)[..] {
            errors.push(FieldError::invalid(
                format!("{path}.name"),
                BadValue::from(version.name),
                reasons.join(","),
            ));
        }
        let status = has_status(spec.subresources_of(version.name));
        errors.extend(version_errors(version, &path, status, &opts));
    }
    let listed = spec.raw.get("versions").is_some_and(|v| !v.is_null());
    let versions_value = || {
        BadValue::Raw(go_dump::versions(
            listed.then_some(spec.versions.as_slice()),
            opts.minor,
        ))
    };
    let per_version = |pick: fn(&Version<'_>) -> bool| spec.versions.iter().any(pick);
    if spec.validation.is_some() && per_version(|v| v.schema.is_some()) {
        errors.push(FieldError::forbidden(
            "spec.validation",
            "top-level and per-version schemas are mutually exclusive",
        ));
    }
    if spec.subresources.is_some() && per_version(|v| v.subresources.is_some()) {
        errors.push(FieldError::forbidden(
            "spec.subresources",
            "top-level and per-version subresources are mutually exclusive",
        ));
    }
    if !unique {
        errors.push(FieldError::invalid(
            "spec.versions",
            versions_value(),
            "must contain unique version names",
        ));
    }
    if spec.versions.iter().filter(|v| v.storage).count() != 1 {
        errors.push(FieldError::invalid(
            "spec.versions",
            versions_value(),
            "must have exactly one version marked as storage version",
        ));
    }
    // The internal spec's `version` is the first version's name, and is checked again.
    if let Some(first) = spec.versions.first().map(|v| v.name).filter(|n| !n.is_empty())
        && let reasons @ [_, ..] = &names::object_name_errors("Service", first)[..]
    {
        errors.push(FieldError::invalid(
            "spec.version",
            BadValue::from(first),
            reasons.join(","),
        ));
    }
    for key in ["plural", "singular", "kind", "listKind"] {
        if spec.name(key).is_empty() {
            errors.push(FieldError::required(format!("spec.names.{key}"), ""));
        }
    }
    errors.extend(definition_names::errors(spec.raw.get("names"), "spec.names"));
    errors.extend(openapi::validation_errors(
        spec.validation,
        spec.any_status(),
        &opts,
        "spec.validation",
    ));
    errors.extend(subresource_errors(spec.subresources, "spec.subresources"));
    for (i, column) in spec.columns.into_iter().flatten().enumerate() {
        errors.extend(column_errors(column, &format!("spec.additionalPrinterColumns[{i}]")));
    }
    if let Some(fields) = spec.selectable {
        errors.extend(selectable_fields::errors(
            fields,
            spec.validation,
            "spec.selectableFields",
            Scope::Spec,
        ));
    }
    errors.extend(conversion::errors(spec.raw.get("conversion"), pruning, &opts));
    errors
}

/// `validateCustomResourceDefinitionVersion`.
fn version_errors(version: &Version<'_>, path: &str, status: bool, opts: &Options) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let deprecated = version.raw.get("deprecated").and_then(Value::as_bool) == Some(true);
    let warning = version.raw.get("deprecationWarning").and_then(Value::as_str);
    for why in deprecation_warning_errors(deprecated, warning) {
        let value = warning.map_or(BadValue::Json(Value::Null), BadValue::from);
        errors.push(FieldError::invalid(format!("{path}.deprecationWarning"), value, why));
    }
    errors.extend(openapi::validation_errors(
        version.schema,
        status,
        opts,
        &format!("{path}.schema"),
    ));
    errors.extend(subresource_errors(
        version.subresources,
        &format!("{path}.subresources"),
    ));
    for (i, column) in version.columns.into_iter().flatten().enumerate() {
        errors.extend(column_errors(column, &format!("{path}.additionalPrinterColumns[{i}]")));
    }
    if let Some(fields) = version.selectable {
        errors.extend(selectable_fields::errors(
            fields,
            version.schema,
            &format!("{path}.selectableFields"),
            Scope::Version,
        ));
    }
    errors
}

/// `validateDeprecationWarning`.
fn deprecation_warning_errors(deprecated: bool, warning: Option<&str>) -> Vec<String> {
    let Some(warning) = warning else { return Vec::new() };
    if !deprecated {
        return vec!["can only be set for deprecated versions".to_owned()];
    }
    let mut errors = Vec::new();
    if warning.len() > 256 {
        errors.push("must be <= 256 characters long".to_owned());
    }
    if warning.is_empty() {
        errors.push("must not be an empty string".to_owned());
    }
    if let Some((i, _)) = warning.char_indices().find(|(_, c)| c.is_control()) {
        errors.push(format!(
            "must only contain printable UTF-8 characters; non-printable character found at index {i}"
        ));
    }
    errors
}

/// `ValidateCustomResourceColumnDefinition`.
fn column_errors(column: &Value, path: &str) -> Vec<FieldError> {
    let text = |key: &str| column.get(key).and_then(Value::as_str).unwrap_or_default();
    let mut errors = Vec::new();
    if text("name").is_empty() {
        errors.push(FieldError::required(format!("{path}.name"), ""));
    }
    let types_detail = format!("must be one of {PRINTER_COLUMN_TYPES}");
    match text("type") {
        "" => errors.push(FieldError::required(format!("{path}.type"), types_detail)),
        t if !PRINTER_COLUMN_TYPES.split(',').any(|k| k == t) => {
            errors.push(FieldError::invalid(
                format!("{path}.type"),
                BadValue::from(t),
                types_detail,
            ));
        }
        _ => {}
    }
    let format = text("format");
    if !format.is_empty() && !PRINTER_COLUMN_FORMATS.split(',').any(|k| k == format) {
        let why = format!("must be one of {PRINTER_COLUMN_FORMATS}");
        errors.push(FieldError::invalid(
            format!("{path}.format"),
            BadValue::from(format),
            why,
        ));
    }
    match text("jsonPath") {
        "" => errors.push(FieldError::required(format!("{path}.JSONPath"), "")),
        json_path => errors.extend(simple_json_path_errors(json_path, &format!("{path}.JSONPath"))),
    }
    errors
}

/// `ValidateCustomResourceDefinitionSubresources`: the scale paths.
fn subresource_errors(subresources: Option<&Value>, path: &str) -> Vec<FieldError> {
    let Some(scale) = subresources.and_then(|s| s.get("scale")).filter(|s| !s.is_null()) else {
        return Vec::new();
    };
    let text = |key: &str| scale.get(key).and_then(Value::as_str).unwrap_or_default();
    let mut errors = Vec::new();
    for (key, prefix, under) in [
        ("specReplicasPath", ".spec.", ".spec"),
        ("statusReplicasPath", ".status.", ".status"),
    ] {
        let field = format!("{path}.scale.{key}");
        match text(key) {
            "" => errors.push(FieldError::required(field, "")),
            value => match &simple_json_path_errors(value, &field)[..] {
                [] if !value.starts_with(prefix) => {
                    errors.push(FieldError::invalid(
                        field,
                        BadValue::from(value),
                        format!("should be a json path under {under}"),
                    ));
                }
                found => errors.extend(found.iter().cloned()),
            },
        }
    }
    let selector = text("labelSelectorPath");
    if !selector.is_empty() {
        let field = format!("{path}.scale.labelSelectorPath");
        match &simple_json_path_errors(selector, &field)[..] {
            [] if !selector.starts_with(".spec.") && !selector.starts_with(".status.") => {
                errors.push(FieldError::invalid(
                    field,
                    BadValue::from(selector),
                    "should be a json path under either .spec or .status",
                ))
            }
            found => errors.extend(found.iter().cloned()),
        }
    }
    errors
}

/// `validateSimpleJSONPath`.
fn simple_json_path_errors(path_value: &str, field: &str) -> Vec<FieldError> {
    if path_value.is_empty() {
        vec![FieldError::invalid(
            field,
            BadValue::from(path_value),
            "must not be empty",
        )]
    } else if !path_value.starts_with('.') {
        vec![FieldError::invalid(
            field,
            BadValue::from(path_value),
            "must be a simple json path starting with .",
        )]
    } else {
        Vec::new()
    }
}

/// `schemaHasKubernetesExtensions`.
fn has_kubernetes_extension(schema: &Value) -> bool {
    ["x-kubernetes-int-or-string", "x-kubernetes-embedded-resource"]
        .into_iter()
        .any(|k| schema.get(k).and_then(Value::as_bool) == Some(true))
        || schema.get("x-kubernetes-preserve-unknown-fields").is_some()
        || [
            "x-kubernetes-list-type",
            "x-kubernetes-map-type",
            "x-kubernetes-list-map-keys",
        ]
        .into_iter()
        .any(|k| schema.get(k).is_some())
}
