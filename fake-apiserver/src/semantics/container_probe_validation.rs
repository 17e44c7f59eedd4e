//! A container's probes and lifecycle hooks as `pkg/apis/core/validation/validation.go` checks
//! them: `validateLivenessProbe`, `validateReadinessProbe`, `validateStartupProbe` over
//! `validateProbe`, and `validateLifecycle`, all through `validateHandler` (exactly one handler,
//! the later ones forbidden; `exec` with a command, `httpGet` with a path, a port and a scheme,
//! `tcpSocket` and `grpc` with a port; from 1.30 a lifecycle hook may `sleep`, within the pod's
//! termination grace period).

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, nonnegative};
use crate::semantics::names::port_name_errors;
use crate::storage::object::present;

/// `validation.IsHTTPHeaderName`'s message.
const HTTP_HEADER_NAME: &str = "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')";

/// The probe fields `validateProbe` requires to be non-negative, in its order.
const COUNTS: [&str; 5] = [
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
];

/// The three probes and the lifecycle hooks of `container` at `at`, for a pod whose termination
/// grace period is `grace_period`, on the Kubernetes `minor`.
pub(crate) fn probes_and_hooks_errors(
    container: &Value,
    at: &str,
    grace_period: Option<i64>,
    minor: u32,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(lifecycle) = present(container, "lifecycle") {
        for hook in ["postStart", "preStop"] {
            if let Some(handler) = present(lifecycle, hook) {
                let field = format!("{at}.lifecycle.{hook}");
                errors.extend(handler_errors(
                    handler,
                    &field,
                    Handlers::Lifecycle { grace_period, minor },
                ));
            }
        }
    }
    for kind in ["livenessProbe", "readinessProbe", "startupProbe"] {
        let Some(probe) = present(container, kind) else {
            continue;
        };
        let field = format!("{at}.{kind}");
        errors.extend(handler_errors(probe, &field, Handlers::Probe));
        for count in COUNTS {
            errors.extend(nonnegative(integer(probe, count), &format!("{field}.{count}")));
        }
        let grace = probe.get("terminationGracePeriodSeconds").and_then(Value::as_i64);
        if let Some(grace) = grace.filter(|g| *g <= 0) {
            errors.push(FieldError::invalid(
                format!("{field}.terminationGracePeriodSeconds"),
                BadValue::Int(grace),
                "must be greater than 0",
            ));
        }
        let success = integer(probe, "successThreshold");
        if kind != "readinessProbe" && success != 1 {
            errors.push(FieldError::invalid(
                format!("{field}.successThreshold"),
                BadValue::Int(success),
                "must be 1",
            ));
        }
        if kind == "readinessProbe"
            && let Some(grace) = grace
        {
            errors.push(FieldError::invalid(
                format!("{field}.terminationGracePeriodSeconds"),
                BadValue::Int(grace),
                "must not be set for readinessProbes",
            ));
        }
    }
    errors
}

/// Which handlers a `validateHandler` call takes: a probe's (`handlerFromProbe`) or a lifecycle
/// hook's (`handlerFromLifecycle`, with `sleep` from 1.30, when its gate is on by default).
#[derive(Clone, Copy)]
enum Handlers {
    Probe,
    Lifecycle { grace_period: Option<i64>, minor: u32 },
}

/// `validateHandler`: the first handler set is checked, every later one is forbidden, and one is
/// required.
fn handler_errors(handler: &Value, at: &str, handlers: Handlers) -> Vec<FieldError> {
    let kinds: &[&str] = match handlers {
        Handlers::Probe => &["exec", "httpGet", "tcpSocket", "grpc"],
        Handlers::Lifecycle { minor, .. } if minor >= 30 => &["exec", "httpGet", "tcpSocket", "sleep"],
        Handlers::Lifecycle { .. } => &["exec", "httpGet", "tcpSocket"],
    };
    let mut errors = Vec::new();
    let mut found = false;
    for kind in kinds {
        let Some(action) = present(handler, kind) else { continue };
        let field = format!("{at}.{kind}");
        if found {
            errors.push(FieldError::forbidden(field, "may not specify more than 1 handler type"));
            continue;
        }
        found = true;
        match *kind {
            "exec"
                if action
                    .get("command")
                    .and_then(Value::as_array)
                    .is_none_or(Vec::is_empty) =>
            {
                errors.push(FieldError::required(format!("{field}.command"), ""));
            }
            "httpGet" => errors.extend(http_get_errors(action, &field)),
            "tcpSocket" | "grpc" => errors.extend(port_errors(action.get("port"), &format!("{field}.port"))),
            "sleep" => {
                if let Handlers::Lifecycle {
                    grace_period: Some(grace),
                    ..
                } = handlers
                {
                    let seconds = integer(action, "seconds");
                    if seconds <= 0 || seconds > grace {
                        errors.push(FieldError::invalid(
                            field,
                            BadValue::Int(seconds),
                            format!("must be greater than 0 and less than terminationGracePeriodSeconds ({grace})"),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    if !found {
        errors.push(FieldError::required(at, "must specify a handler type"));
    }
    errors
}

/// `validateHTTPGetAction`: a path, a port, a supported scheme and well-formed header names.
fn http_get_errors(action: &Value, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if action
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .is_empty()
    {
        errors.push(FieldError::required(format!("{at}.path"), ""));
    }
    errors.extend(port_errors(action.get("port"), &format!("{at}.port")));
    let scheme = action.get("scheme").and_then(Value::as_str).unwrap_or_default();
    if !matches!(scheme, "HTTP" | "HTTPS") {
        errors.push(FieldError::not_supported(
            format!("{at}.scheme"),
            scheme.into(),
            &["HTTP".to_owned(), "HTTPS".to_owned()],
        ));
    }
    let headers = action.get("httpHeaders").and_then(Value::as_array);
    for header in headers.into_iter().flatten() {
        let name = header.get("name").and_then(Value::as_str).unwrap_or_default();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            errors.push(FieldError::invalid(
                format!("{at}.httpHeaders"),
                name.into(),
                HTTP_HEADER_NAME,
            ));
        }
    }
    errors
}

/// `ValidatePortNumOrName`: a number in range, or an IANA service name (an absent port is the
/// number 0).
fn port_errors(port: Option<&Value>, at: &str) -> Vec<FieldError> {
    match port {
        Some(Value::String(name)) => port_name_errors(name)
            .into_iter()
            .map(|why| FieldError::invalid(at, name.as_str().into(), why))
            .collect(),
        other => {
            let number = other.and_then(Value::as_i64).unwrap_or(0);
            FieldError::port_number(at, number).into_iter().collect()
        }
    }
}

/// An integer field, 0 when absent as Go's zero value.
fn integer(value: &Value, key: &str) -> i64 {
    value.get(key).and_then(Value::as_i64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    fn errors(container: Value, minor: u32) -> Vec<String> {
        rendered(probes_and_hooks_errors(&container, "c", Some(30), minor))
    }

    /// A probe as the defaults leave it: thresholds and periods set.
    fn probe(handler: Value) -> Value {
        let mut probe = json!({"timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3});
        if let (Some(fields), Value::Object(handler)) = (probe.as_object_mut(), handler) {
            fields.extend(handler);
        }
        probe
    }

    #[test]
    fn a_probe_should_have_exactly_one_handler() {
        assert_eq!(
            errors(json!({"livenessProbe": probe(json!({}))}), 28),
            ["c.livenessProbe: Required value: must specify a handler type"]
        );
        let two = probe(json!({"exec": {"command": ["ls"]}, "httpGet": {"port": 0}}));
        assert_eq!(
            errors(json!({"readinessProbe": two}), 28),
            ["c.readinessProbe.httpGet: Forbidden: may not specify more than 1 handler type"]
        );
        let http = probe(json!({"httpGet": {"path": "/", "port": "Web", "scheme": "FTP"}}));
        let found = errors(json!({"startupProbe": http}), 28);
        assert!(found[0].starts_with("c.startupProbe.httpGet.port: Invalid value: \"Web\""));
        assert!(
            found
                .last()
                .is_some_and(|e| e.starts_with("c.startupProbe.httpGet.scheme: Unsupported value: \"FTP\""))
        );
    }

    #[test]
    fn probe_counts_should_be_non_negative_and_liveness_succeed_once() {
        let mut bad = probe(json!({"tcpSocket": {"port": 80}}));
        bad["failureThreshold"] = json!(-1);
        bad["successThreshold"] = json!(2);
        assert_eq!(
            errors(json!({"livenessProbe": bad}), 28),
            [
                "c.livenessProbe.failureThreshold: Invalid value: -1: must be greater than or equal to 0",
                "c.livenessProbe.successThreshold: Invalid value: 2: must be 1",
            ]
        );
    }

    #[test]
    fn a_hook_should_sleep_only_where_the_minor_knows_it_and_within_the_grace_period() {
        let sleep =
            json!({"lifecycle": {"preStop": {"sleep": {"seconds": 31}}, "postStart": {"exec": {"command": []}}}});
        assert_eq!(
            errors(sleep.clone(), 31),
            [
                "c.lifecycle.postStart.exec.command: Required value",
                "c.lifecycle.preStop.sleep: Invalid value: 31: must be greater than 0 and less than terminationGracePeriodSeconds (30)",
            ]
        );
        assert_eq!(
            errors(sleep, 28)[1],
            "c.lifecycle.preStop: Required value: must specify a handler type"
        );
    }
}
