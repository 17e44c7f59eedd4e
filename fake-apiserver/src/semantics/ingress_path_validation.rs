//! The paths and backends of an Ingress as `pkg/apis/networking/validation/validation.go`
//! checks them: `validateHTTPIngressPath` and `validateIngressBackend`.

use serde_json::Value;

use crate::semantics::field_error::FieldError;
use crate::semantics::ingress_class_validation::typed_reference_errors;
use crate::semantics::names::dns1035_label_errors;
use crate::semantics::names::port_name_errors;

/// `invalidPathSequences` and `invalidPathSuffixes`.
const INVALID_SEQUENCES: [&str; 5] = ["//", "/./", "/../", "%2f", "%2F"];
const INVALID_SUFFIXES: [&str; 2] = ["/..", "/."];

/// `supportedPathTypes.List()`: sorted.
const PATH_TYPES: [&str; 3] = ["Exact", "ImplementationSpecific", "Prefix"];

fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn is_set(object: &Value, key: &str) -> bool {
    object.get(key).is_some_and(|v| !v.is_null())
}

/// `validateHTTPIngressPath`: a path type, a path it accepts, and a backend.
pub(crate) fn http_path_errors(path: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let Some(path_type) = path.get("pathType").filter(|t| !t.is_null()) else {
        errors.push(FieldError::required(
            format!("{at}.pathType"),
            "pathType must be specified",
        ));
        return errors;
    };
    let path_type = path_type.as_str().unwrap_or_default();
    let text = text(path, "path");
    let field = format!("{at}.path");
    match path_type {
        "Exact" | "Prefix" => {
            if !text.starts_with('/') {
                errors.push(FieldError::invalid(
                    field.as_str(),
                    text.into(),
                    "must be an absolute path",
                ));
            }
            for sequence in INVALID_SEQUENCES.iter().filter(|s| text.contains(*s)) {
                errors.push(FieldError::invalid(
                    field.as_str(),
                    text.into(),
                    format!("must not contain '{sequence}'"),
                ));
            }
            for suffix in INVALID_SUFFIXES.iter().filter(|s| text.ends_with(*s)) {
                errors.push(FieldError::invalid(
                    field.as_str(),
                    text.into(),
                    format!("cannot end with '{suffix}'"),
                ));
            }
        }
        "ImplementationSpecific" => {
            if !text.is_empty() && !text.starts_with('/') {
                errors.push(FieldError::invalid(
                    field.as_str(),
                    text.into(),
                    "must be an absolute path",
                ));
            }
        }
        other => {
            let supported = PATH_TYPES.map(str::to_owned);
            errors.push(FieldError::not_supported(
                format!("{at}.pathType"),
                other.into(),
                &supported,
            ));
        }
    }
    errors.extend(backend_errors(
        path.get("backend").unwrap_or(&Value::Null),
        &format!("{at}.backend"),
    ));
    errors
}

/// `validateIngressBackend`: a resource or a service (named, with a port name or number).
pub(crate) fn backend_errors(backend: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    match (is_set(backend, "resource"), is_set(backend, "service")) {
        (true, true) => errors.push(FieldError::invalid(
            at,
            "".into(),
            "cannot set both resource and service backends",
        )),
        (true, false) => errors.extend(typed_reference_errors(&backend["resource"], &format!("{at}.resource"))),
        (false, true) => {
            let service = &backend["service"];
            let name = text(service, "name");
            if name.is_empty() {
                errors.push(FieldError::required(format!("{at}.service.name"), ""));
            } else {
                for why in dns1035_label_errors(name) {
                    errors.push(FieldError::invalid(format!("{at}.service.name"), name.into(), why));
                }
            }
            let port = service.get("port").unwrap_or(&Value::Null);
            let port_name = text(port, "name");
            let number = port.get("number").and_then(Value::as_i64).unwrap_or_default();
            match (!port_name.is_empty(), number != 0) {
                (true, true) => errors.push(FieldError::invalid(
                    at,
                    "".into(),
                    "cannot set both port name & port number",
                )),
                (true, false) => {
                    for why in port_name_errors(port_name) {
                        errors.push(FieldError::invalid(
                            format!("{at}.service.port.name"),
                            port_name.into(),
                            why,
                        ));
                    }
                }
                (false, true) => errors.extend(FieldError::port_number(format!("{at}.service.port.number"), number)),
                (false, false) => errors.push(FieldError::required(at, "port name or number is required")),
            }
        }
        (false, false) => errors.push(FieldError::invalid(
            at,
            "".into(),
            "resource or service backend is required",
        )),
    }
    errors
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    fn service(name: &str, port: Value) -> Value {
        json!({"service": {"name": name, "port": port}})
    }

    #[test]
    fn backends_should_be_one_valid_service_or_resource() {
        let both = json!({"service": {"name": "s", "port": {"number": 1}}, "resource": {"kind": "K", "name": "n"}});
        assert_eq!(
            rendered(backend_errors(&both, "b")),
            ["b: Invalid value: \"\": cannot set both resource and service backends"]
        );
        assert_eq!(
            rendered(backend_errors(&json!({}), "b")),
            ["b: Invalid value: \"\": resource or service backend is required"]
        );
        assert_eq!(
            rendered(backend_errors(&service("", json!({})), "b")),
            [
                "b.service.name: Required value",
                "b: Required value: port name or number is required"
            ]
        );
        assert_eq!(
            rendered(backend_errors(
                &service("s", json!({"name": "http", "number": 80})),
                "b"
            )),
            ["b: Invalid value: \"\": cannot set both port name & port number"]
        );
        assert!(
            rendered(backend_errors(&service("1bad", json!({"number": 1})), "b"))[0]
                .starts_with("b.service.name: Invalid value: \"1bad\": a DNS-1035 label")
        );
    }

    #[test]
    fn paths_should_be_typed_absolute_and_clean() {
        let backend = service("s", json!({"number": 80}));
        let path = |path: &str, kind: &str| json!({"path": path, "pathType": kind, "backend": backend});
        assert_eq!(
            rendered(http_path_errors(&path("/a//b/../c", "Exact"), "p")),
            [
                "p.path: Invalid value: \"/a//b/../c\": must not contain '//'",
                "p.path: Invalid value: \"/a//b/../c\": must not contain '/../'"
            ]
        );
        assert_eq!(
            rendered(http_path_errors(&path("/x/.", "Prefix"), "p")),
            ["p.path: Invalid value: \"/x/.\": cannot end with '/.'"]
        );
        assert!(http_path_errors(&path("", "ImplementationSpecific"), "p").is_empty());
        assert_eq!(
            rendered(http_path_errors(&path("/g", "Regex"), "p")),
            [
                "p.pathType: Unsupported value: \"Regex\": supported values: \"Exact\", \"ImplementationSpecific\", \"Prefix\""
            ]
        );
        assert_eq!(
            rendered(http_path_errors(&json!({"path": "/h"}), "p")),
            ["p.pathType: Required value: pathType must be specified"]
        );
    }
}
