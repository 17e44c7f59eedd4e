//! The `SetDefaults_<Type>` functions of `pkg/apis/core/v1/defaults.go` (v1.28.7; in v1.31.2
//! the volume sources' moved to `+default` markers in `types.go`, same values) by the name of
//! the type's OpenAPI definition, for `walker` to call on each value of that type.

use serde_json::{Map, Value, json};

use super::{default, default_text};
use crate::semantics::image_reference;
use crate::semantics::pv_source_checks::text;
use crate::semantics::quantity::Quantity;

/// `v1.SecretVolumeSourceDefaultMode` and the other file modes (0644).
const DEFAULT_MODE: i64 = 0o644;

/// Applies the defaults of the type named `definition` to `value`, one of its values; a value
/// of another JSON type (refused by decoding) is left alone.
pub(super) fn set_defaults(definition: &str, value: &mut Value, _minor: u32) {
    let Some(name) = definition.strip_prefix("io.k8s.api.core.v1.") else {
        return;
    };
    if !value.is_object() {
        return;
    }
    match name {
        "Pod" => pod(value),
        "PodSpec" => pod_spec(value),
        "Volume" => volume(value),
        // `HostPathUnset`: the type is "" rather than absent.
        "HostPathVolumeSource" => default(value, "type", json!("")),
        "SecretVolumeSource" | "ConfigMapVolumeSource" | "DownwardAPIVolumeSource" | "ProjectedVolumeSource" => {
            default(value, "defaultMode", json!(DEFAULT_MODE));
        }
        "ISCSIVolumeSource" | "ISCSIPersistentVolumeSource" => default_text(value, "iscsiInterface", "default"),
        "RBDVolumeSource" | "RBDPersistentVolumeSource" => {
            default_text(value, "pool", "rbd");
            default_text(value, "user", "admin");
            default_text(value, "keyring", "/etc/ceph/keyring");
        }
        "AzureDiskVolumeSource" => {
            default(value, "cachingMode", json!("ReadWrite"));
            default(value, "kind", json!("Shared"));
            default(value, "fsType", json!("ext4"));
            default(value, "readOnly", json!(false));
        }
        "ScaleIOVolumeSource" | "ScaleIOPersistentVolumeSource" => {
            default_text(value, "storageMode", "ThinProvisioned");
            default_text(value, "fsType", "xfs");
        }
        // An hour.
        "ServiceAccountTokenProjection" => default(value, "expirationSeconds", json!(3600)),
        "ObjectFieldSelector" => default_text(value, "apiVersion", "v1"),
        // Not defaults but Go's encoding: the two `ContainerState` structs, which `omitempty`
        // never omits, and the fields without `omitempty`, written at their zero values.
        "ContainerStatus" => {
            for key in ["state", "lastState"] {
                default(value, key, json!({}));
            }
            default(value, "ready", json!(false));
            default(value, "restartCount", json!(0));
            for key in ["image", "imageID"] {
                default(value, key, json!(""));
            }
        }
        // Not a default but Go's encoding: the divisor is a `resource.Quantity` struct, which
        // `omitempty` never omits, so its zero value is written, "0".
        "ResourceFieldSelector" => default(value, "divisor", json!("0")),
        "PersistentVolumeClaim" => phase(value, "Pending"),
        "PersistentVolumeClaimSpec" => default(value, "volumeMode", json!("Filesystem")),
        "PersistentVolume" => {
            phase(value, "Pending");
            if let Some(spec) = value.get_mut("spec").filter(|s| s.is_object()) {
                default_text(spec, "persistentVolumeReclaimPolicy", "Retain");
                default(spec, "volumeMode", json!("Filesystem"));
            }
        }
        // `SetDefaults_EphemeralContainer` is the container's, on its common fields.
        "Container" | "EphemeralContainer" => container(value),
        // The `+default="TCP"` marker.
        "ContainerPort" => default_text(value, "protocol", "TCP"),
        // The `+default=""` marker of a pointer: an absent service becomes "".
        "GRPCAction" => default(value, "service", json!("")),
        "Probe" => {
            for (key, zero_means) in [
                ("timeoutSeconds", 1),
                ("periodSeconds", 10),
                ("successThreshold", 1),
                ("failureThreshold", 3),
            ] {
                default_number(value, key, zero_means);
            }
        }
        "HTTPGetAction" => {
            default_text(value, "path", "/");
            default_text(value, "scheme", "HTTP");
        }
        _ => {}
    }
}

/// `SetDefaults_ResourceList`: every quantity rounded up to a thousandth; Go writes the result
/// in its canonical form. What does not parse is validation's to refuse.
pub(super) fn resource_list(list: &mut Value) {
    let Some(list) = list.as_object_mut() else { return };
    for value in list.values_mut() {
        if let Some(mut quantity) = value.as_str().and_then(|text| Quantity::parse(text).ok()) {
            quantity.round_up(-3);
            *value = json!(quantity.to_string());
        }
    }
}

/// `SetDefaults_Pod`: requests defaulted to limits (a pod's, not a template's), service links
/// on, host-network pods' container ports published on the host; and the v1 conversion's
/// deprecated `serviceAccount`, kept equal to `serviceAccountName`.
fn pod(pod: &mut Value) {
    let Some(spec) = pod.get_mut("spec").filter(|s| s.is_object()) else {
        return;
    };
    for list in ["containers", "initContainers"] {
        for container in containers(spec, list) {
            let Some(resources) = container.get_mut("resources").filter(|r| r.is_object()) else {
                continue;
            };
            let Some(limits) = resources.get("limits").and_then(Value::as_object).cloned() else {
                continue;
            };
            default(resources, "requests", json!({}));
            for (resource, quantity) in limits {
                default(&mut resources["requests"], &resource, quantity);
            }
        }
    }
    default(spec, "enableServiceLinks", json!(true));
    if spec.get("hostNetwork").and_then(Value::as_bool) == Some(true) {
        for list in ["containers", "initContainers"] {
            host_network_ports(spec, list);
        }
    }
    let account = spec
        .get("serviceAccountName")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let deprecated = spec.get("serviceAccount").and_then(Value::as_str).unwrap_or_default();
    let name = if account.is_empty() { deprecated } else { account }.to_owned();
    if let Some(fields) = spec.as_object_mut() {
        if name.is_empty() {
            fields.remove("serviceAccount");
            fields.remove("serviceAccountName");
        } else {
            fields.insert("serviceAccountName".to_owned(), json!(name));
            fields.insert("serviceAccount".to_owned(), json!(name));
        }
    }
}

/// `SetDefaults_PodSpec`. Its host-network ports belong to `DefaultHostNetworkHostPortsInPodTemplates`,
/// off in 1.28 (deprecated) and gone by 1.31, so a template's ports keep no host port.
fn pod_spec(spec: &mut Value) {
    default_text(spec, "dnsPolicy", "ClusterFirst");
    default_text(spec, "restartPolicy", "Always");
    default(spec, "securityContext", json!({}));
    default(spec, "terminationGracePeriodSeconds", json!(30));
    default_text(spec, "schedulerName", "default-scheduler");
}

/// `SetDefaults_Volume`: a volume without a source is an empty directory.
fn volume(volume: &mut Value) {
    let sourced = volume
        .as_object()
        .is_some_and(|fields| fields.iter().any(|(key, source)| key != "name" && !source.is_null()));
    if !sourced {
        volume["emptyDir"] = json!({});
    }
}

/// `SetDefaults_Container`: the pull policy from the image's tag (`Always` for `latest`; an
/// image that does not parse reads as untagged), the termination message's path and policy.
fn container(container: &mut Value) {
    if text(container, "imagePullPolicy").is_empty() {
        let image = text(container, "image");
        let policy = if image_reference::tag(image).as_deref() == Some("latest") {
            "Always"
        } else {
            "IfNotPresent"
        };
        container["imagePullPolicy"] = json!(policy);
    }
    default_text(container, "terminationMessagePath", "/dev/termination-log");
    default_text(container, "terminationMessagePolicy", "File");
    // Not a default: `resources` is a struct without omitempty, always encoded.
    default(container, "resources", json!({}));
}

/// `defaultHostNetworkPorts`: a port without a host port gets its container port.
fn host_network_ports(spec: &mut Value, list: &str) {
    for container in containers(spec, list) {
        for port in container
            .get_mut("ports")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
            .filter(|p| p.is_object())
        {
            if port.get("hostPort").and_then(Value::as_i64).unwrap_or(0) == 0 {
                port["hostPort"] = port.get("containerPort").cloned().unwrap_or(json!(0));
            }
        }
    }
}

fn containers<'v>(spec: &'v mut Value, list: &str) -> impl Iterator<Item = &'v mut Value> {
    spec.get_mut(list)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter(|c| c.is_object())
}

/// A status phase, on the status struct Go always has.
fn phase(object: &mut Value, phase: &str) {
    default(object, "status", Value::Object(Map::new()));
    if let Some(status) = object.get_mut("status").filter(|s| s.is_object()) {
        default_text(status, "phase", phase);
    }
}

/// An integer Go defaults when zero.
fn default_number(map: &mut Value, key: &str, value: i64) {
    if map.get(key).is_none_or(|v| v.is_null() || v.as_i64() == Some(0)) {
        map[key] = json!(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_network_pod_should_publish_its_ports_and_copy_limits() {
        let mut pod = json!({"spec": {"hostNetwork": true, "containers": [{"name": "c",
            "ports": [{"containerPort": 80}, {"containerPort": 81, "hostPort": 9}],
            "resources": {"limits": {"cpu": "1"}, "requests": {"memory": "1Mi"}}}]}});
        set_defaults("io.k8s.api.core.v1.Pod", &mut pod, 28);
        let container = &pod["spec"]["containers"][0];
        assert_eq!(container["ports"][0]["hostPort"], 80);
        assert_eq!(container["ports"][1]["hostPort"], 9);
        assert_eq!(container["resources"]["requests"], json!({"cpu": "1", "memory": "1Mi"}));
        assert_eq!(pod["spec"]["enableServiceLinks"], true);
    }

    #[test]
    fn sources_should_get_their_defaults_only_where_unset() {
        let mut rbd = json!({"pool": "", "user": "me"});
        set_defaults("io.k8s.api.core.v1.RBDVolumeSource", &mut rbd, 31);
        assert_eq!(
            rbd,
            json!({"pool": "rbd", "user": "me", "keyring": "/etc/ceph/keyring"})
        );
        let mut secret = json!({"defaultMode": 0});
        set_defaults("io.k8s.api.core.v1.SecretVolumeSource", &mut secret, 28);
        assert_eq!(secret["defaultMode"], 0, "a pointer's zero is a value");
        let mut probe = json!({"periodSeconds": 0, "failureThreshold": 5});
        set_defaults("io.k8s.api.core.v1.Probe", &mut probe, 28);
        assert_eq!(
            probe,
            json!({"periodSeconds": 10, "failureThreshold": 5, "timeoutSeconds": 1, "successThreshold": 1})
        );
        let mut sourced = json!({"name": "v", "secret": {}});
        set_defaults("io.k8s.api.core.v1.Volume", &mut sourced, 28);
        assert!(sourced.get("emptyDir").is_none());
    }
}
