//! `spec.conversion` as apiextensions validates it (`validateCustomResourceConversion`,
//! `validateConversionReviewVersions`), with the webhook's URL and service checked as
//! `k8s.io/apiserver/pkg/util/webhook/validation.go` checks them.

use serde_json::Value;

use super::Options;
use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::names;

/// The ConversionReview versions this server understands.
const ACCEPTED_REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];

/// The errors of `spec.conversion` (v1 JSON, defaulted to `{strategy: None}` when absent);
/// `pruning` is false when `spec.preserveUnknownFields` is true.
pub(crate) fn errors(conversion: Option<&Value>, pruning: bool, opts: &Options) -> Vec<FieldError> {
    let Some(conversion) = conversion.filter(|c| !c.is_null()) else {
        return Vec::new();
    };
    let path = "spec.conversion";
    let strategy = conversion.get("strategy").and_then(Value::as_str).unwrap_or_default();
    let mut errors = Vec::new();
    if strategy != "None" && !pruning {
        errors.push(FieldError::invalid(
            format!("{path}.strategy"),
            BadValue::from(strategy),
            "must be None if spec.preserveUnknownFields is true",
        ));
    }
    errors.extend(FieldError::enum_string(
        &format!("{path}.strategy"),
        strategy,
        &["None", "Webhook"],
    ));
    let webhook = conversion.get("webhook").filter(|w| !w.is_null());
    let client_config = webhook.and_then(|w| w.get("clientConfig")).filter(|c| !c.is_null());
    let review_versions = webhook
        .and_then(|w| w.get("conversionReviewVersions"))
        .and_then(Value::as_array);
    let config_path = format!("{path}.webhookClientConfig");
    if strategy == "Webhook" {
        match client_config {
            None => errors.push(FieldError::required(
                &config_path,
                "required when strategy is set to Webhook",
            )),
            Some(config) => {
                let url = config.get("url").and_then(Value::as_str);
                let service = config.get("service").filter(|s| !s.is_null());
                match (url, service) {
                    (Some(url), None) => errors.extend(url_errors(url, &format!("{config_path}.url"))),
                    (None, Some(service)) => errors.extend(service_errors(service, &format!("{config_path}.service"))),
                    _ => errors.push(FieldError::required(
                        &config_path,
                        "exactly one of url or service is required",
                    )),
                }
            }
        }
        errors.extend(review_version_errors(
            review_versions,
            opts,
            &format!("{path}.conversionReviewVersions"),
        ));
    } else {
        if client_config.is_some() {
            errors.push(FieldError::forbidden(
                &config_path,
                "should not be set when strategy is not set to Webhook",
            ));
        }
        if review_versions.is_some_and(|v| !v.is_empty()) {
            errors.push(FieldError::forbidden(
                format!("{path}.conversionReviewVersions"),
                "should not be set when strategy is not set to Webhook",
            ));
        }
    }
    errors
}

/// `validateConversionReviewVersions`.
fn review_version_errors(versions: Option<&Vec<Value>>, opts: &Options, path: &str) -> Vec<FieldError> {
    let versions: Vec<&str> = versions
        .into_iter()
        .flatten()
        .map(|v| v.as_str().unwrap_or_default())
        .collect();
    if versions.is_empty() {
        return vec![FieldError::required(path, "")];
    }
    let mut errors = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, version) in versions.iter().enumerate() {
        if seen.contains(version) {
            errors.push(FieldError::invalid(
                format!("{path}[{i}]"),
                BadValue::from(*version),
                "duplicate version",
            ));
            continue;
        }
        seen.push(version);
        for why in names::object_name_errors("Service", version) {
            errors.push(FieldError::invalid(
                format!("{path}[{i}]"),
                BadValue::from(*version),
                why,
            ));
        }
    }
    if opts.require_recognized_conversion_review && !versions.iter().any(|v| ACCEPTED_REVIEW_VERSIONS.contains(v)) {
        let value = BadValue::Strings(versions.iter().map(|v| (*v).to_owned()).collect());
        let why = format!("must include at least one of {}", ACCEPTED_REVIEW_VERSIONS.join(", "));
        errors.push(FieldError::invalid(path, value, why));
    }
    errors
}

/// `ValidateWebhookURL` with https forced.
pub(crate) fn url_errors(url: &str, path: &str) -> Vec<FieldError> {
    const FORM: &str = "; desired format: https://host[/path]";
    let (scheme, rest) = url
        .split_once(':')
        .filter(|(s, _)| !s.contains('/'))
        .unwrap_or(("", url));
    let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let authority = rest
        .strip_prefix("//")
        .map_or("", |a| a.split('/').next().unwrap_or_default());
    let (user, host) = authority
        .rsplit_once('@')
        .map_or((None, authority), |(u, h)| (Some(u), h));
    let mut errors = Vec::new();
    if scheme != "https" {
        errors.push(FieldError::invalid(
            path,
            BadValue::from(scheme),
            format!("'https' is the only allowed URL scheme{FORM}"),
        ));
    }
    if host.is_empty() {
        errors.push(FieldError::invalid(
            path,
            BadValue::from(host),
            format!("host must be specified{FORM}"),
        ));
    }
    if let Some(user) = user {
        errors.push(FieldError::invalid(
            path,
            BadValue::from(user),
            "user information is not permitted in the URL",
        ));
    }
    if !fragment.is_empty() {
        errors.push(FieldError::invalid(
            path,
            BadValue::from(fragment),
            "fragments are not permitted in the URL",
        ));
    }
    if !query.is_empty() {
        errors.push(FieldError::invalid(
            path,
            BadValue::from(query),
            "query parameters are not permitted in the URL",
        ));
    }
    errors
}

/// `ValidateWebhookService` (the port defaults to 443).
pub(crate) fn service_errors(service: &Value, path: &str) -> Vec<FieldError> {
    let text = |key: &str| service.get(key).and_then(Value::as_str).unwrap_or_default();
    let mut errors = Vec::new();
    if text("name").is_empty() {
        errors.push(FieldError::required(format!("{path}.name"), "service name is required"));
    }
    if text("namespace").is_empty() {
        errors.push(FieldError::required(
            format!("{path}.namespace"),
            "service namespace is required",
        ));
    }
    let port = service.get("port").and_then(Value::as_i64).unwrap_or(443);
    if !(1..=65535).contains(&port) {
        errors.push(FieldError::invalid(
            format!("{path}.port"),
            BadValue::Int(port),
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    let url_path = text("path");
    if url_path.is_empty() || url_path == "/" {
        return errors;
    }
    if url_path == "//" {
        errors.push(FieldError::invalid(
            format!("{path}.path"),
            BadValue::from(url_path),
            "segment[0] may not be empty",
        ));
        return errors;
    }
    if !url_path.starts_with('/') {
        errors.push(FieldError::invalid(
            format!("{path}.path"),
            BadValue::from(url_path),
            "must start with a '/'",
        ));
    }
    let trimmed = url_path.get(1..).unwrap_or_default();
    let trimmed = trimmed.strip_suffix('/').unwrap_or(trimmed);
    for (i, step) in trimmed.split('/').enumerate() {
        if step.is_empty() {
            errors.push(FieldError::invalid(
                format!("{path}.path"),
                BadValue::from(url_path),
                format!("segment[{i}] may not be empty"),
            ));
            continue;
        }
        for why in names::object_name_errors("CustomResourceDefinition", step) {
            errors.push(FieldError::invalid(
                format!("{path}.path"),
                BadValue::from(url_path),
                format!("segment[{i}]: {why}"),
            ));
        }
    }
    errors
}
