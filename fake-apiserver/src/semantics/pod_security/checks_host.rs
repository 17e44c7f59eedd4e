//! The baseline checks that keep a pod off the node's own namespaces, ports, files and
//! processes: `check_hostNamespaces.go`, `check_hostPorts.go`, `check_hostPathVolumes.go` and
//! `check_windowsHostProcess.go`.

use std::collections::BTreeSet;

use serde_json::Value;

use super::checks::{Check, CheckResult, Forbidden, VersionedCheck};
use super::pod_view::{bad_setters, containers, flag, items, name, named, object, pluralize, security_context};
use super::policy::Level;

/// `CheckHostNamespaces`: no host network, PID or IPC namespace.
pub(crate) const HOST_NAMESPACES: Check = Check {
    id: "hostNamespaces",
    level: Level::Baseline,
    versions: &[VersionedCheck::new(0, host_namespaces_1_0)],
};

/// `CheckHostPorts`: no container port bound on the node.
pub(crate) const HOST_PORTS: Check = Check {
    id: "hostPorts",
    level: Level::Baseline,
    versions: &[VersionedCheck::new(0, host_ports_1_0)],
};

/// `CheckHostPathVolumes`: no volume from the node's file system.
pub(crate) const HOST_PATH_VOLUMES: Check = Check {
    id: "hostPathVolumes",
    level: Level::Baseline,
    versions: &[VersionedCheck::new(0, host_path_volumes_1_0)],
};

/// `CheckWindowsHostProcess`: no Windows host process, at pod or container level.
pub(crate) const WINDOWS_HOST_PROCESS: Check = Check {
    id: "windowsHostProcess",
    level: Level::Baseline,
    versions: &[VersionedCheck::new(0, windows_host_process_1_0)],
};

fn host_namespaces_1_0(_meta: &Value, spec: &Value) -> CheckResult {
    let shared: Vec<String> = ["hostNetwork", "hostPID", "hostIPC"]
        .into_iter()
        .filter(|&field| flag(spec, field) == Some(true))
        .map(|field| format!("{field}=true"))
        .collect();
    if shared.is_empty() {
        return None;
    }
    Some(Forbidden::new("host namespaces", shared.join(", ")))
}

fn host_ports_1_0(_meta: &Value, spec: &Value) -> CheckResult {
    let mut bad = Vec::new();
    // Go keeps the ports as strings in a set, so they sort as text: "443" before "80".
    let mut ports = BTreeSet::new();
    for container in containers(spec) {
        let used: Vec<i64> = items(container, "ports")
            .filter_map(|port| port.get("hostPort").and_then(Value::as_i64))
            .filter(|&port| port != 0)
            .collect();
        if !used.is_empty() {
            bad.push(name(container));
            ports.extend(used.iter().map(i64::to_string));
        }
    }
    if bad.is_empty() {
        return None;
    }
    let ports: Vec<String> = ports.into_iter().collect();
    let detail = format!(
        "{} {} {} {}",
        named("container", "containers", &bad),
        pluralize("uses", "use", bad.len()),
        pluralize("hostPort", "hostPorts", ports.len()),
        ports.join(", ")
    );
    Some(Forbidden::new("hostPort", detail))
}

fn host_path_volumes_1_0(_meta: &Value, spec: &Value) -> CheckResult {
    let bad: Vec<&str> = items(spec, "volumes")
        .filter(|volume| object(volume, "hostPath").is_some())
        .map(name)
        .collect();
    if bad.is_empty() {
        return None;
    }
    Some(Forbidden::new("hostPath volumes", named("volume", "volumes", &bad)))
}

/// `securityContext.windowsOptions.hostProcess` of the pod spec or a container is true.
fn host_process(holder: &Value) -> bool {
    security_context(holder)
        .and_then(|context| object(context, "windowsOptions"))
        .and_then(|options| flag(options, "hostProcess"))
        == Some(true)
}

fn windows_host_process_1_0(_meta: &Value, spec: &Value) -> CheckResult {
    let bad: Vec<&str> = containers(spec)
        .filter(|container| host_process(container))
        .map(name)
        .collect();
    let setters = bad_setters(host_process(spec), &bad);
    if setters.is_empty() {
        return None;
    }
    let detail = format!(
        "{} must not set securityContext.windowsOptions.hostProcess=true",
        setters.join(" and ")
    );
    Some(Forbidden::new("hostProcess", detail))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::pod_security::checks::assert_cases;

    #[test]
    fn host_namespaces() {
        let all = json!({"hostNetwork": true, "hostIPC": true, "hostPID": true});
        let some = json!({"hostNetwork": false, "hostIPC": true});
        assert_cases(
            host_namespaces_1_0,
            &[
                (
                    "multiple host namespaces",
                    all,
                    Some(("host namespaces", "hostNetwork=true, hostPID=true, hostIPC=true")),
                ),
                ("one host namespace", some, Some(("host namespaces", "hostIPC=true"))),
                ("none", json!({"hostNetwork": false}), None),
            ],
        );
    }

    #[test]
    fn host_ports() {
        let one = json!({"containers": [
            {"name": "a", "ports": [{"hostPort": 0}]},
            {"name": "b", "ports": [{"hostPort": 0}, {"hostPort": 20}]},
        ]});
        let multiple = json!({"containers": [
            {"name": "a", "ports": [{"hostPort": 0}]},
            {"name": "b", "ports": [{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 20}]},
            {"name": "c", "ports": [{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 30}]},
        ]});
        let textual = json!({"containers": [{"name": "a", "ports": [{"hostPort": 80}, {"hostPort": 443}]}]});
        assert_cases(
            host_ports_1_0,
            &[
                (
                    "one container, one host port",
                    one,
                    Some(("hostPort", r#"container "b" uses hostPort 20"#)),
                ),
                (
                    "multiple containers, multiple host port",
                    multiple,
                    Some(("hostPort", r#"containers "b", "c" use hostPorts 10, 20, 30"#)),
                ),
                (
                    "ports sort as text",
                    textual,
                    Some(("hostPort", r#"container "a" uses hostPorts 443, 80"#)),
                ),
                (
                    "no host port",
                    json!({"containers": [{"name": "a", "ports": [{"containerPort": 80}]}]}),
                    None,
                ),
            ],
        );
    }

    #[test]
    fn host_path_volumes() {
        let spec = json!({"volumes": [
            {"name": "a", "hostPath": {}},
            {"name": "b", "hostPath": {"path": "/var"}},
            {"name": "c", "emptyDir": {}},
            {"name": "d", "hostPath": null},
        ]});
        assert_cases(
            host_path_volumes_1_0,
            &[(
                "host path volumes",
                spec,
                Some(("hostPath volumes", r#"volumes "a", "b""#)),
            )],
        );
    }

    #[test]
    fn windows_host_process() {
        let spec = json!({
            "securityContext": {"windowsOptions": {"hostProcess": true}},
            "containers": [
                {"name": "a"},
                {"name": "b", "securityContext": {}},
                {"name": "c", "securityContext": {"windowsOptions": {}}},
                {"name": "d", "securityContext": {"windowsOptions": {"hostProcess": false}}},
                {"name": "e", "securityContext": {"windowsOptions": {"hostProcess": true}}},
                {"name": "f", "securityContext": {"windowsOptions": {"hostProcess": true}}},
            ],
        });
        let detail = r#"pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true"#;
        let container_only =
            json!({"containers": [{"name": "e", "securityContext": {"windowsOptions": {"hostProcess": true}}}]});
        assert_cases(
            windows_host_process_1_0,
            &[
                ("host process", spec, Some(("hostProcess", detail))),
                (
                    "container only",
                    container_only,
                    Some((
                        "hostProcess",
                        r#"container "e" must not set securityContext.windowsOptions.hostProcess=true"#,
                    )),
                ),
            ],
        );
    }
}
