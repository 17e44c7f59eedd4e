//! What a write through `pods/status` may store, as `ValidatePodStatusUpdate` checks it
//! (`pkg/apis/core/validation/validation.go`): the annotations fixed at creation, custom
//! condition types, the node name, the nominated node's name, containers that may not leave
//! the terminated state, and the pod's and host's IPs.

use std::collections::HashSet;

use serde_json::Value;

use crate::semantics::field_error::{BadValue, FieldError, go_quote};
use crate::semantics::names::{dns1123_subdomain_errors, qualified_name_errors};
use crate::semantics::pod_annotation_validation::{allows_invalid_cost, pod_annotation_update_errors};
use crate::semantics::service_ip_validation::parse_ip;
use crate::storage::object::text;

/// `IsValidIP`'s message.
const NOT_AN_IP: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
/// The condition types the kubelet owns, whose names are not checked.
const SYSTEM_CONDITIONS: [&str; 3] = ["PodScheduled", "Ready", "Initialized"];

/// `ValidatePodStatusUpdate` of `pod` over `old` on the Kubernetes `minor` (less the checks of
/// resource claim statuses and of 1.31's container users and allocated resources).
pub(crate) fn pod_status_update_errors(pod: &Value, old: &Value, minor: u32) -> Vec<FieldError> {
    let mut errors = pod_annotation_update_errors(pod, old, allows_invalid_cost(Some(old)));
    for (i, condition) in items(pod.pointer("/status/conditions")).iter().enumerate() {
        let kind = text(condition.get("type"));
        if !SYSTEM_CONDITIONS.contains(&kind) {
            for why in qualified_name_errors(kind) {
                errors.push(FieldError::invalid(
                    format!("metadata.conditions[{i}].Type"),
                    kind.into(),
                    why,
                ));
            }
        }
    }
    if pod.pointer("/spec/nodeName") != old.pointer("/spec/nodeName") {
        errors.push(FieldError::forbidden("status.nodeName", "may not be changed directly"));
    }
    let nominated = text(pod.pointer("/status/nominatedNodeName"));
    if !nominated.is_empty() && nominated != text(old.pointer("/status/nominatedNodeName")) {
        for why in dns1123_subdomain_errors(nominated) {
            errors.push(FieldError::invalid("status.nominatedNodeName", nominated.into(), why));
        }
    }
    let policy = text(old.pointer("/spec/restartPolicy"));
    let never_restarted = |_: &str| false;
    // 1.31's `ValidateInitContainerStateTransition`: a restartable (sidecar) init container may.
    let restartable_init = |name: &str| {
        minor >= 29
            && items(old.pointer("/spec/initContainers"))
                .iter()
                .find(|c| text(c.get("name")) == name)
                .is_some_and(|c| text(c.get("restartPolicy")) == "Always")
    };
    errors.extend(state_transition_errors(
        pod,
        old,
        "containerStatuses",
        policy,
        never_restarted,
    ));
    errors.extend(state_transition_errors(
        pod,
        old,
        "initContainerStatuses",
        policy,
        restartable_init,
    ));
    errors.extend(state_transition_errors(
        pod,
        old,
        "ephemeralContainerStatuses",
        "Never",
        never_restarted,
    ));
    errors.extend(ip_errors(pod, "podIPs"));
    if let Some(first) = items(pod.pointer("/status/hostIPs")).first() {
        let first = text(first.get("ip"));
        if first != text(pod.pointer("/status/hostIP")) {
            errors.push(FieldError::invalid(
                "status.hostIPs[0].ip",
                first.into(),
                "must be equal to `hostIP`",
            ));
        }
        errors.extend(ip_errors(pod, "hostIPs"));
    }
    errors
}

/// `ValidateContainerStateTransition`: unless the pod always restarts its containers, one that
/// terminated (successfully, under `OnFailure`) may not leave that state.
fn state_transition_errors(
    pod: &Value,
    old: &Value,
    list: &str,
    policy: &str,
    restartable: impl Fn(&str) -> bool,
) -> Vec<FieldError> {
    if policy == "Always" {
        return Vec::new();
    }
    let new_statuses = items(pod.pointer(&format!("/status/{list}")));
    let mut errors = Vec::new();
    for (i, before) in items(old.pointer(&format!("/status/{list}"))).iter().enumerate() {
        let Some(terminated) = before.pointer("/state/terminated").filter(|t| !t.is_null()) else {
            continue;
        };
        let exit_code = terminated.get("exitCode").and_then(Value::as_i64).unwrap_or(0);
        let name = text(before.get("name"));
        if (exit_code != 0 && policy == "OnFailure") || restartable(name) {
            continue;
        }
        for now in new_statuses.iter().filter(|s| text(s.get("name")) == name) {
            if now.pointer("/state/terminated").is_none_or(Value::is_null) {
                let why = "may not be transitioned to non-terminated state";
                errors.push(FieldError::forbidden(format!("status.{list}[{i}].state"), why));
            }
        }
    }
    errors
}

/// `validatePodIPs` and the part `validateHostIPs` shares with it (which reports duplicates
/// before the family check): valid IPs, at most one of each family, no duplicates.
fn ip_errors(pod: &Value, list: &str) -> Vec<FieldError> {
    let host = list == "hostIPs";
    let entries = items(pod.pointer(&format!("/status/{list}")));
    let ips: Vec<&str> = entries.iter().map(|entry| text(entry.get("ip"))).collect();
    let field = format!("status.{list}");
    let mut errors: Vec<FieldError> = ips
        .iter()
        .enumerate()
        .filter(|(_, ip)| parse_ip(ip).is_none())
        .map(|(i, ip)| FieldError::invalid(format!("{field}[{i}]"), (*ip).into(), NOT_AN_IP))
        .collect();
    if ips.len() < 2 {
        return errors;
    }
    let mut seen = HashSet::new();
    let duplicates: Vec<FieldError> = ips
        .iter()
        .enumerate()
        .filter(|(_, ip)| !seen.insert(**ip))
        .map(|(i, ip)| FieldError::duplicate(format!("{field}[{i}]"), BadValue::Raw(go_ip(list, ip))))
        .collect();
    if host {
        errors.extend(duplicates.iter().cloned());
    }
    // `IsDualStackIPStrings`: an unparsable IP fails the check itself.
    let parsed: Vec<_> = ips.iter().map(|ip| parse_ip(ip)).collect();
    if let Some(i) = parsed.iter().position(Option::is_none) {
        let why = format!("failed to check for dual stack with error:invalid IP[{i}]: {}", ips[i]);
        errors.push(FieldError::internal(field.clone(), why));
    }
    // `IPFamilyOf`: an IPv4-mapped IPv6 address is IPv4.
    let v4_family = |ip: &std::net::IpAddr| match ip {
        std::net::IpAddr::V4(_) => true,
        std::net::IpAddr::V6(v6) => v6.to_ipv4_mapped().is_some(),
    };
    let v4 = parsed.iter().flatten().any(v4_family);
    let v6 = parsed.iter().flatten().any(|ip| !v4_family(ip));
    let dual = parsed.iter().all(Option::is_some) && v4 && v6;
    if !dual || ips.len() > 2 {
        let all: Vec<String> = ips.iter().map(|ip| go_ip(list, ip)).collect();
        let value = format!("[]core.{}{{{}}}", ip_type(list), all.join(", "));
        errors.push(FieldError::invalid(
            field,
            BadValue::Raw(value),
            "may specify no more than one IP for each IP family",
        ));
    }
    if !host {
        errors.extend(duplicates);
    }
    errors
}

/// The Go type of the items of `list`.
fn ip_type(list: &str) -> &'static str {
    if list == "podIPs" { "PodIP" } else { "HostIP" }
}

/// A `core.PodIP` or `core.HostIP` as `%#v` prints it.
fn go_ip(list: &str, ip: &str) -> String {
    format!("core.{}{{IP:{}}}", ip_type(list), go_quote(ip))
}

/// The items of a JSON list (none when absent).
fn items(value: Option<&Value>) -> &[Value] {
    value.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::field_error::rendered;

    fn pod(status: Value) -> Value {
        json!({"spec": {"restartPolicy": "Never", "nodeName": "n"}, "status": status})
    }

    #[test]
    fn ips_should_be_valid_and_one_per_family() {
        let old = pod(json!({}));
        let two_v4 = pod(json!({"podIP": "10.0.0.5", "podIPs": [{"ip": "10.0.0.5"}, {"ip": "10.0.0.7"}]}));
        assert_eq!(
            rendered(pod_status_update_errors(&two_v4, &old, 28)),
            [
                "status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:\"10.0.0.5\"}, core.PodIP{IP:\"10.0.0.7\"}}: may specify no more than one IP for each IP family"
            ]
        );
        let bad_host = pod(json!({"hostIP": "nope", "hostIPs": [{"ip": "nope"}]}));
        assert_eq!(
            rendered(pod_status_update_errors(&bad_host, &old, 28)),
            [format!("status.hostIPs[0]: Invalid value: \"nope\": {NOT_AN_IP}")]
        );
    }

    #[test]
    fn a_terminated_container_should_stay_terminated_unless_the_pod_restarts_it() {
        let old = pod(json!({"containerStatuses": [{"name": "app", "state": {"terminated": {"exitCode": 1}}}]}));
        let running = pod(json!({"containerStatuses": [{"name": "app", "state": {"running": {}}}]}));
        assert_eq!(
            rendered(pod_status_update_errors(&running, &old, 28)),
            ["status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state"]
        );
        let mut on_failure = old.clone();
        on_failure["spec"]["restartPolicy"] = json!("OnFailure");
        assert!(pod_status_update_errors(&running, &on_failure, 28).is_empty());
    }

    #[test]
    fn custom_conditions_and_nominated_nodes_should_be_names() {
        let old = pod(json!({}));
        let bad =
            pod(json!({"conditions": [{"type": "Ready"}, {"type": "bad type"}], "nominatedNodeName": "Not_A_Node"}));
        let errors = rendered(pod_status_update_errors(&bad, &old, 28));
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].starts_with("metadata.conditions[1].Type: Invalid value: \"bad type\""));
        assert!(errors[1].starts_with("status.nominatedNodeName: Invalid value: \"Not_A_Node\""));
    }
}
