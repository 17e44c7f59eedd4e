//! `pods/<name>/log` without kubelets: what kube-apiserver answers before it would dial one
//! (`LogREST.Get` of `pkg/registry/core/pod/rest/log.go`, `ValidatePodLogOptions`, and
//! `LogLocation` and `validateContainer` of `pkg/registry/core/pod/strategy.go`): the options
//! checked, the pod and its container found; a pod on no node has no log location, answered
//! 204 with nothing; a pod on a node would be read from its kubelet, which this server does not
//! run.

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::resource::ResourceInfo;
use crate::verbs::options::LogOptions;
use crate::verbs::{connect, read};

/// GET `pods/<name>/log`: `Ok(())` for the empty answer of a pod on no node.
pub(crate) fn get(
    state: &State,
    info: &ResourceInfo,
    namespace: Option<&str>,
    name: &str,
    options: &LogOptions,
) -> Result<(), ApiStatus> {
    let errors = option_errors(options);
    if !errors.is_empty() {
        let kind = ResourceInfo {
            kind: "PodLogOptions".to_owned(),
            ..ResourceInfo::builtin("", "v1", "PodLogOptions", "pods")
        };
        return Err(ApiStatus::invalid_fields(&kind, name, &errors));
    }
    let pod = read::get(state, info, namespace, name)?;
    connect::validate_container(&pod, name, options.container.as_deref())?;
    match pod
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
    {
        None => Ok(()),
        Some(node) => {
            let address = connect::node_address(state, info, node)?;
            Err(ApiStatus::service_unavailable(format!(
                "the logs of pod {name} are on the kubelet at {address}, and this in-memory server runs no kubelets"
            )))
        }
    }
}

/// `ValidatePodLogOptions`.
fn option_errors(options: &LogOptions) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(lines) = options.tail_lines.filter(|l| *l < 0) {
        errors.push(FieldError::invalid(
            "tailLines",
            BadValue::Int(lines),
            "must be greater than or equal to 0",
        ));
    }
    if let Some(bytes) = options.limit_bytes.filter(|b| *b < 1) {
        errors.push(FieldError::invalid(
            "limitBytes",
            BadValue::Int(bytes),
            "must be greater than 0",
        ));
    }
    match (options.since_seconds, &options.since_time) {
        (Some(_), Some(_)) => errors.push(FieldError::forbidden(
            "",
            "at most one of `sinceTime` or `sinceSeconds` may be specified",
        )),
        (Some(seconds), None) if seconds < 1 => {
            errors.push(FieldError::invalid(
                "sinceSeconds",
                BadValue::Int(seconds),
                "must be greater than 0",
            ));
        }
        _ => {}
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_options_are_checked_as_validate_pod_log_options_does() {
        let options = LogOptions {
            tail_lines: Some(-1),
            since_seconds: Some(5),
            since_time: Some("2026-01-01T00:00:00Z".into()),
            ..LogOptions::default()
        };
        let fields: Vec<String> = option_errors(&options).iter().map(|e| e.field.clone()).collect();
        assert_eq!(fields, ["tailLines", ""]);
    }
}
