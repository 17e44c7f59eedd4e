//! Ingress validation as in `pkg/apis/networking/validation/validation.go`:
//! `ValidateIngressCreate`, `ValidateIngressUpdate`, `ValidateIngressStatusUpdate`,
//! `ValidateIngressSpec`, `validateIngressRules`, `validateIngressRuleValue`,
//! `validateIngressTLS`, `ValidateIngressLoadBalancerStatus` and the update options
//! (`allowInvalidSecretName`, `allowInvalidWildcardHostRule`); paths and backends are
//! `ingress_path_validation`'s, the IngressClass checks `ingress_class_validation`'s.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::semantics::ingress_path_validation::{backend_errors, http_path_errors};
use crate::semantics::names::dns1123_subdomain_errors;
use crate::semantics::service_ip_validation::parse_ip;
use crate::storage::object::is_label_shaped;

/// The annotation that named an Ingress's class before `spec.ingressClassName`.
pub(crate) const CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";

/// `IsWildcardDNS1123Subdomain`'s regex error.
const WILDCARD: &str = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// `IngressValidationOptions`: what an update tolerates of what the stored object already had.
#[derive(Clone, Copy, Default)]
struct Options {
    allow_invalid_secret_name: bool,
    allow_invalid_wildcard_host_rule: bool,
}

fn items<'v>(object: &'v Value, key: &str) -> &'v [Value] {
    object.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn is_set(object: &Value, key: &str) -> bool {
    object.get(key).is_some_and(|v| !v.is_null())
}

/// `ValidateIngressCreate` less metadata: the spec, and a class annotation that contradicts
/// `ingressClassName`.
pub(crate) fn create_errors(ingress: &Value) -> Vec<FieldError> {
    let spec = ingress.get("spec").unwrap_or(&Value::Null);
    let mut errors = spec_errors(spec, Options::default());
    let annotation = ingress
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(CLASS_ANNOTATION))
        .and_then(Value::as_str);
    if let (Some(annotation), Some(class)) = (annotation, spec.get("ingressClassName").and_then(Value::as_str))
        && annotation != class
    {
        errors.push(FieldError::invalid(
            format!("annotations.{CLASS_ANNOTATION}"),
            annotation.into(),
            "must match `ingressClassName` when both are specified",
        ));
    }
    errors
}

/// `ValidateIngressUpdate` less metadata: the spec, tolerating the invalid secret names and
/// wildcard rules the stored Ingress already had.
pub(crate) fn update_errors(ingress: &Value, old: &Value) -> Vec<FieldError> {
    let old_spec = old.get("spec").unwrap_or(&Value::Null);
    let options = Options {
        allow_invalid_secret_name: items(old_spec, "tls")
            .iter()
            .any(|tls| !secret_name_errors(text(tls, "secretName")).is_empty()),
        allow_invalid_wildcard_host_rule: items(old_spec, "rules")
            .iter()
            .any(|rule| text(rule, "host").contains('*') && !rule_value_errors(rule, "").is_empty()),
    };
    spec_errors(ingress.get("spec").unwrap_or(&Value::Null), options)
}

/// `ValidateIngressStatusUpdate` less metadata: `ValidateIngressLoadBalancerStatus`. From 1.31
/// a bad IP is worded as `IsValidIP` words it.
pub(crate) fn status_update_errors(ingress: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let status = ingress.pointer("/status/loadBalancer").unwrap_or(&Value::Null);
    for (i, point) in items(status, "ingress").iter().enumerate() {
        let at = format!("status.loadBalancer.ingress[{i}]");
        let ip = text(point, "ip");
        if !ip.is_empty() && parse_ip(ip).is_none() {
            let why = if minor >= 31 {
                "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
            } else {
                "must be a valid IP address"
            };
            errors.push(FieldError::invalid(format!("{at}.ip"), ip.into(), why));
        }
        let hostname = text(point, "hostname");
        if !hostname.is_empty() {
            for why in dns1123_subdomain_errors(hostname) {
                errors.push(FieldError::invalid(format!("{at}.hostname"), hostname.into(), why));
            }
            if parse_ip(hostname).is_some() {
                errors.push(FieldError::invalid(
                    format!("{at}.hostname"),
                    hostname.into(),
                    "must be a DNS name, not an IP address",
                ));
            }
        }
    }
    errors
}

/// `ValidateIngressSpec`.
fn spec_errors(spec: &Value, options: Options) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let rules = items(spec, "rules");
    if rules.is_empty() && !is_set(spec, "defaultBackend") {
        // Go prints the rules it has: a nil slice, or an empty one.
        let shown = match spec.get("rules") {
            Some(Value::Array(_)) => "[]networking.IngressRule{}",
            _ => "[]networking.IngressRule(nil)",
        };
        errors.push(FieldError::invalid(
            "spec",
            BadValue::Raw(shown.to_owned()),
            "either `defaultBackend` or `rules` must be specified",
        ));
    }
    if is_set(spec, "defaultBackend") {
        errors.extend(backend_errors(&spec["defaultBackend"], "spec.defaultBackend"));
    }
    for (i, rule) in rules.iter().enumerate() {
        let at = format!("spec.rules[{i}]");
        let host = text(rule, "host");
        let mut wildcard = false;
        if !host.is_empty() {
            if parse_ip(host).is_some() {
                errors.push(FieldError::invalid(
                    format!("{at}.host"),
                    host.into(),
                    "must be a DNS name, not an IP address",
                ));
            }
            wildcard = host.contains('*');
            for why in host_errors(host) {
                errors.push(FieldError::invalid(format!("{at}.host"), host.into(), why));
            }
        }
        if !wildcard || !options.allow_invalid_wildcard_host_rule {
            errors.extend(rule_value_errors(rule, &at));
        }
    }
    for (i, tls) in items(spec, "tls").iter().enumerate() {
        let at = format!("spec.tls[{i}]");
        for (j, host) in items(tls, "hosts").iter().enumerate() {
            let host = host.as_str().unwrap_or_default();
            for why in host_errors(host) {
                errors.push(FieldError::invalid(format!("{at}.hosts[{j}]"), host.into(), why));
            }
        }
        if !options.allow_invalid_secret_name {
            let secret = text(tls, "secretName");
            for why in secret_name_errors(secret) {
                errors.push(FieldError::invalid(format!("{at}.secretName"), secret.into(), why));
            }
        }
    }
    if let Some(class) = spec.get("ingressClassName").and_then(Value::as_str) {
        for why in dns1123_subdomain_errors(class) {
            errors.push(FieldError::invalid("spec.ingressClassName", class.into(), why));
        }
    }
    errors
}

/// A rule's or a TLS entry's host: a wildcard subdomain when it has a `*`, else a subdomain.
fn host_errors(host: &str) -> Vec<String> {
    if !host.contains('*') {
        return dns1123_subdomain_errors(host);
    }
    let mut errors = Vec::new();
    if host.len() > 253 {
        errors.push("must be no more than 253 characters".to_owned());
    }
    let shaped = host
        .strip_prefix("*.")
        .is_some_and(|rest| rest.split('.').all(is_label_shaped));
    if !shaped {
        errors.push(WILDCARD.to_owned());
    }
    errors
}

/// `validateTLSSecretName`: empty, or a Secret's name.
fn secret_name_errors(name: &str) -> Vec<String> {
    if name.is_empty() {
        return Vec::new();
    }
    dns1123_subdomain_errors(name)
}

/// `validateIngressRuleValue`: an HTTP rule's paths (`at` is the rule's path).
fn rule_value_errors(rule: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let Some(http) = rule.get("http").filter(|h| !h.is_null()) else {
        return errors;
    };
    let at = if at.is_empty() {
        "http".to_owned()
    } else {
        format!("{at}.http")
    };
    let paths = items(http, "paths");
    if paths.is_empty() {
        errors.push(FieldError::required(format!("{at}.paths"), ""));
    }
    for (i, path) in paths.iter().enumerate() {
        errors.extend(http_path_errors(path, &format!("{at}.paths[{i}]")));
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(errors: &[FieldError]) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    fn service(name: &str, port: Value) -> Value {
        json!({"service": {"name": name, "port": port}})
    }

    #[test]
    fn an_ingress_needs_a_backend_or_rules() {
        assert_eq!(
            rendered(&create_errors(&json!({"spec": {}}))),
            [
                "spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified"
            ]
        );
        let ok = json!({"spec": {"defaultBackend": service("web", json!({"number": 80}))}});
        assert!(create_errors(&ok).is_empty());
    }

    #[test]
    fn rules_should_name_dns_hosts_and_valid_paths() {
        let backend = service("s", json!({"number": 80}));
        let spec = json!({"spec": {"rules": [{"host": "1.2.3.4", "http": {"paths": [
            {"path": "/a//b/../c", "pathType": "Exact", "backend": backend},
            {"path": "/x/.", "pathType": "Prefix", "backend": backend},
            {"path": "rel", "pathType": "ImplementationSpecific", "backend": backend},
            {"path": "", "pathType": "ImplementationSpecific", "backend": backend},
            {"path": "/g", "pathType": "Regex", "backend": backend},
            {"path": "/h", "backend": {}},
        ]}}, {"host": "*.*.example.com", "http": {"paths": []}}]}});
        let errors = rendered(&create_errors(&spec));
        assert_eq!(
            errors[..7],
            [
                "spec.rules[0].host: Invalid value: \"1.2.3.4\": must be a DNS name, not an IP address",
                "spec.rules[0].http.paths[0].path: Invalid value: \"/a//b/../c\": must not contain '//'",
                "spec.rules[0].http.paths[0].path: Invalid value: \"/a//b/../c\": must not contain '/../'",
                "spec.rules[0].http.paths[1].path: Invalid value: \"/x/.\": cannot end with '/.'",
                "spec.rules[0].http.paths[2].path: Invalid value: \"rel\": must be an absolute path",
                "spec.rules[0].http.paths[4].pathType: Unsupported value: \"Regex\": supported values: \"Exact\", \"ImplementationSpecific\", \"Prefix\"",
                "spec.rules[0].http.paths[5].pathType: Required value: pathType must be specified",
            ]
        );
        assert!(errors[7].starts_with("spec.rules[1].host: Invalid value: \"*.*.example.com\": a wildcard DNS-1123"));
        assert_eq!(errors[8], "spec.rules[1].http.paths: Required value");
    }

    #[test]
    fn updates_should_keep_tolerating_stored_invalid_values() {
        let bad_wildcard = json!({"spec": {"tls": [{"secretName": "Bad_Secret"}], "rules": [{"host": "*.a.com", "http": {"paths": []}}]}});
        assert_eq!(create_errors(&bad_wildcard).len(), 2);
        assert!(update_errors(&bad_wildcard, &bad_wildcard).is_empty());
    }

    #[test]
    fn the_class_annotation_should_match_the_class_name() {
        let ingress = json!({"metadata": {"annotations": {CLASS_ANNOTATION: "nginx"}}, "spec": {
            "ingressClassName": "other", "defaultBackend": service("s", json!({"number": 1})),
        }});
        assert_eq!(
            rendered(&create_errors(&ingress)),
            [
                "annotations.kubernetes.io/ingress.class: Invalid value: \"nginx\": must match `ingressClassName` when both are specified"
            ]
        );
    }

    #[test]
    fn load_balancer_points_should_be_ips_and_dns_names() {
        let ingress = json!({"status": {"loadBalancer": {"ingress": [{"ip": "nope"}, {"hostname": "1.2.3.4"}, {"ip": "10.0.0.1", "hostname": "lb.example.com"}]}}});
        assert_eq!(
            rendered(&status_update_errors(&ingress, 28)),
            [
                "status.loadBalancer.ingress[0].ip: Invalid value: \"nope\": must be a valid IP address",
                "status.loadBalancer.ingress[1].hostname: Invalid value: \"1.2.3.4\": must be a DNS name, not an IP address",
            ]
        );
        assert!(rendered(&status_update_errors(&ingress, 31))[0].ends_with("(e.g. 10.9.8.7 or 2001:db8::ffff)"));
    }
}
