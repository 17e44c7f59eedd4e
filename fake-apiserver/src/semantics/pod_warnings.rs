//! The warnings of kube-apiserver's `pkg/api/pod/warnings.go` for a pod or a pod template.
//!
//! What differs between the minors: from 1.30 a repeated env var "may be dropped when using
//! apply" (kubernetes#122126 merged after 1.29 was cut) and a pod template's container AppArmor
//! annotation without the field is deprecated (the field came with 1.30); the deprecated node
//! labels grow in 1.31 (`node_label_warnings`). Go reads neither the old spec nor the old
//! metadata it is given, so neither is taken here.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::semantics::field_error::go_quote;
use crate::semantics::names;
use crate::semantics::node_label_warnings::{deprecated_message, node_selector_term_warnings};
use crate::semantics::quantity::Quantity;
use crate::storage::object;

/// `api.SeccompPodAnnotationKey`.
const SECCOMP_POD: &str = "seccomp.security.alpha.kubernetes.io/pod";
/// `api.SeccompContainerAnnotationKeyPrefix`.
const SECCOMP_CONTAINER: &str = "container.seccomp.security.alpha.kubernetes.io/";
/// `api.DeprecatedAppArmorAnnotationKeyPrefix`.
const APPARMOR_CONTAINER: &str = "container.apparmor.security.beta.kubernetes.io/";

/// `deprecatedAnnotations`, in Go's order (none of them has a prefix, so Go's random walk over
/// the annotations for a prefix never runs).
const DEPRECATED_ANNOTATIONS: [(&str, &str); 3] = [
    (
        "scheduler.alpha.kubernetes.io/critical-pod",
        r#"non-functional in v1.16+; use the "priorityClassName" field instead"#,
    ),
    (
        "security.alpha.kubernetes.io/sysctls",
        r#"non-functional in v1.11+; use the "sysctls" field instead"#,
    ),
    (
        "security.alpha.kubernetes.io/unsafe-sysctls",
        r#"non-functional in v1.11+; use the "sysctls" field instead"#,
    ),
];

/// The deprecated volume plugins: the v1 JSON key, the name Go's path gives it, the message.
const DEPRECATED_VOLUMES: [(&str, &str, &str); 7] = [
    (
        "photonPersistentDisk",
        "photonPersistentDisk",
        "deprecated in v1.11, non-functional in v1.16+",
    ),
    ("gitRepo", "gitRepo", "deprecated in v1.11"),
    ("scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "flocker", "deprecated in v1.22, non-functional in v1.25+"),
    (
        "storageos",
        "storageOS",
        "deprecated in v1.22, non-functional in v1.25+",
    ),
    ("quobyte", "quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    (
        "glusterfs",
        "glusterfs",
        "deprecated in v1.25, non-functional in v1.26+",
    ),
];

/// The volume plugins deprecated in 1.28, checked after an ephemeral volume's claim.
const DEPRECATED_IN_28: [&str; 2] = ["cephfs", "rbd"];

/// The pod strategy's `WarningsOnCreate` on the Kubernetes `minor`: a name that is no DNS label
/// (it becomes the hostname), then `GetWarningsForPod`.
pub(crate) fn pod_create_warnings(pod: &Value, minor: u32) -> Vec<String> {
    let mut warnings = Vec::new();
    let why = names::dns1123_label_errors(object::name(pod));
    if !why.is_empty() {
        warnings.push(format!(
            "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [{}]",
            why.join(" ")
        ));
    }
    warnings.extend(pod_warnings(pod, minor));
    warnings
}

/// `GetWarningsForPod`: the paths start at the pod (`spec.…`, `metadata.…`).
pub(crate) fn pod_warnings(pod: &Value, minor: u32) -> Vec<String> {
    spec_and_meta_warnings(None, field(pod, "spec"), field(pod, "metadata"), minor)
}

/// `GetWarningsForPodTemplate` of the template at `at` (`spec.template`), absent or not (Go
/// is handed the template struct, so an absent one warns of nothing rather than failing).
pub(crate) fn pod_template_warnings(template: Option<&Value>, at: &str, minor: u32) -> Vec<String> {
    let template = template.unwrap_or(&Value::Null);
    spec_and_meta_warnings(Some(at), field(template, "spec"), field(template, "metadata"), minor)
}

/// `GetWarningsForPersistentVolumeClaimSpec` (`pkg/api/persistentvolumeclaim/util.go`): a
/// fractional storage request or limit, `at` naming the claim spec.
pub(crate) fn claim_spec_warnings(spec: &Value, at: &str) -> Vec<String> {
    let resources = field(spec, "resources");
    ["requests", "limits"]
        .into_iter()
        .filter_map(|list| fractional(field(resources, list), "storage", &format!("{at}.resources.{list}")))
        .collect()
}

/// `warningsForPodSpecAndMeta`, `root` naming the template (`None` for a pod).
fn spec_and_meta_warnings(root: Option<&str>, spec: &Value, meta: &Value, minor: u32) -> Vec<String> {
    let at = |rest: &str| root.map_or_else(|| rest.to_owned(), |root| format!("{root}.{rest}"));
    let empty = Map::new();
    let annotations = field(meta, "annotations").as_object().unwrap_or(&empty);
    let mut warnings = Vec::new();

    // Go walks the node selector map in random order; sorted here to be stable.
    let selector = field(spec, "nodeSelector").as_object().unwrap_or(&empty);
    let mut keys: Vec<&String> = selector.keys().collect();
    keys.sort();
    for key in keys {
        if let Some(message) = deprecated_message(key, minor) {
            warnings.push(format!("{}[{key}]: {message}", at("spec.nodeSelector")));
        }
    }
    let node_affinity = spec.pointer("/affinity/nodeAffinity").unwrap_or(&Value::Null);
    let required = at("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
    let terms = node_affinity.pointer("/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms");
    for (i, term) in items(terms).iter().enumerate() {
        warnings.extend(node_selector_term_warnings(term, &format!("{required}[{i}]"), minor));
    }
    let preferred = at("spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution");
    for (i, term) in items(node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))
        .iter()
        .enumerate()
    {
        let at = format!("{preferred}[{i}].preference");
        warnings.extend(node_selector_term_warnings(field(term, "preference"), &at, minor));
    }
    for (i, constraint) in items(spec.get("topologySpreadConstraints")).iter().enumerate() {
        let here = format!("{}[{i}]", at("spec.topologySpreadConstraints"));
        let key = text(constraint, "topologyKey");
        if let Some(message) = deprecated_message(key, minor) {
            warnings.push(format!("{here}.topologyKey: {key} is {message}"));
        }
        if !is_set(constraint.get("labelSelector")) {
            warnings.push(format!(
                "{here}.labelSelector: a null labelSelector results in matching no pod"
            ));
        }
    }

    for (key, message) in DEPRECATED_ANNOTATIONS {
        if annotations.contains_key(key) {
            warnings.push(format!("{}[{key}]: {message}", at("metadata.annotations")));
        }
    }

    for (i, volume) in items(spec.get("volumes")).iter().enumerate() {
        let here = format!("{}[{i}]", at("spec.volumes"));
        for (key, name, message) in DEPRECATED_VOLUMES {
            if is_set(volume.get(key)) {
                warnings.push(format!("{here}.{name}: {message}"));
            }
        }
        if let Some(claim) = volume
            .pointer("/ephemeral/volumeClaimTemplate")
            .filter(|c| !c.is_null())
        {
            let at = format!("{here}.ephemeral.volumeClaimTemplate.spec");
            warnings.extend(claim_spec_warnings(field(claim, "spec"), &at));
        }
        for key in DEPRECATED_IN_28 {
            if is_set(volume.get(key)) {
                warnings.push(format!("{here}.{key}: deprecated in v1.28, non-functional in v1.31+"));
            }
        }
    }

    let aliases = items(spec.get("hostAliases"));
    warnings.extend(repeats(aliases, "ip", &at("spec.hostAliases"), "duplicate ip"));
    let secrets = items(spec.get("imagePullSecrets"));
    warnings.extend(repeats(secrets, "name", &at("spec.imagePullSecrets"), "duplicate name"));
    for (i, secret) in secrets.iter().enumerate() {
        if text(secret, "name").is_empty() {
            warnings.push(format!(
                "{}[{i}].name: invalid empty name \"\"",
                at("spec.imagePullSecrets")
            ));
        }
    }

    let overhead = field(spec, "overhead");
    for resource in ["memory", "ephemeral-storage"] {
        warnings.extend(fractional(overhead, resource, &at("spec.overhead")));
    }

    let seccomp = "non-functional in v1.27+; use the \"seccompProfile\" field instead";
    if !is_set(spec.pointer("/securityContext/seccompProfile")) && annotations.contains_key(SECCOMP_POD) {
        warnings.push(format!("{}[{SECCOMP_POD}]: {seccomp}", at("metadata.annotations")));
    }
    let pod_apparmor = is_set(spec.pointer("/securityContext/appArmorProfile"));
    let containers = containers(spec, &at("spec"));
    for (path, container) in &containers {
        let name = text(container, "name");
        let key = format!("{SECCOMP_CONTAINER}{name}");
        if !is_set(container.pointer("/securityContext/seccompProfile")) && annotations.contains_key(&key) {
            warnings.push(format!("{}[{key}]: {seccomp}", at("metadata.annotations")));
        }
        // A pod's AppArmor annotations are synced into fields (and warned of) by its strategy.
        let apparmor = pod_apparmor || is_set(container.pointer("/securityContext/appArmorProfile"));
        let key = format!("{APPARMOR_CONTAINER}{name}");
        if minor >= 30 && root.is_some() && !apparmor && annotations.contains_key(&key) {
            warnings.push(format!(
                "{}[{key}]: deprecated since v1.30; use the \"appArmorProfile\" field instead",
                at("metadata.annotations")
            ));
        }
        let resources = field(container, "resources");
        for (resource, list) in [
            ("memory", "limits"),
            ("memory", "requests"),
            ("ephemeral-storage", "limits"),
            ("ephemeral-storage", "requests"),
        ] {
            warnings.extend(fractional(
                field(resources, list),
                resource,
                &format!("{path}.resources.{list}"),
            ));
        }
        warnings.extend(env_warnings(items(container.get("env")), path, minor));
    }
    warnings.extend(port_warnings(&containers));

    if spec
        .get("terminationGracePeriodSeconds")
        .and_then(Value::as_i64)
        .is_some_and(|s| s < 0)
    {
        warnings.push(format!(
            "{}: must be >= 0; negative values are invalid and will be treated as 1",
            at("spec.terminationGracePeriodSeconds")
        ));
    }
    for kind in ["podAffinity", "podAntiAffinity"] {
        let Some(affinity) = spec.get("affinity").and_then(|a| a.get(kind)).filter(|a| !a.is_null()) else {
            continue;
        };
        let required = at(&format!(
            "spec.affinity.{kind}.requiredDuringSchedulingIgnoredDuringExecution"
        ));
        for (i, term) in items(affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))
            .iter()
            .enumerate()
        {
            if !is_set(term.get("labelSelector")) {
                warnings.push(format!(
                    "{required}[{i}].labelSelector: a null labelSelector results in matching no pod"
                ));
            }
        }
        let preferred = at(&format!(
            "spec.affinity.{kind}.preferredDuringSchedulingIgnoredDuringExecution"
        ));
        for (i, term) in items(affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))
            .iter()
            .enumerate()
        {
            if !is_set(term.pointer("/podAffinityTerm/labelSelector")) {
                warnings.push(format!(
                    "{preferred}[{i}].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod"
                ));
            }
        }
    }
    warnings
}

/// The repeats of `key` among `list` (Go looks only when there are two or more).
fn repeats(list: &[Value], key: &str, at: &str, what: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut warnings = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let value = text(item, key);
        if list.len() > 1 && !seen.insert(value) {
            warnings.push(format!("{at}[{i}].{key}: {what} {}", go_quote(value)));
        }
    }
    warnings
}

/// A repeated env var that hides the earlier one rather than building on it (`X=$(X)…`).
fn env_warnings(env: &[Value], at: &str, minor: u32) -> Vec<String> {
    let dropped = if minor >= 30 {
        ", which may be dropped when using apply"
    } else {
        ""
    };
    let mut seen = HashSet::new();
    let mut warnings = Vec::new();
    for (i, item) in env.iter().enumerate() {
        let name = text(item, "name");
        if env.len() < 2 || seen.insert(name) {
            continue;
        }
        let reference = format!("$({name})");
        let value = text(item, "value");
        if is_set(item.get("valueFrom")) || value == reference || !value.contains(&reference) {
            warnings.push(format!(
                "{at}.env[{i}]: hides previous definition of {}{dropped}",
                go_quote(name)
            ));
        }
    }
    warnings
}

/// A port set where another of the same number and protocol is (or may be) already.
struct PortBlock {
    field: String,
    host_ip: String,
    host_port: i64,
}

/// The ports of all containers: a host IP without a host port, and ports that repeat, overlap
/// or are ambiguous with an earlier one.
fn port_warnings(containers: &[(String, &Value)]) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut taken: HashMap<String, Vec<PortBlock>> = HashMap::new();
    for (path, container) in containers {
        for (i, port) in items(container.get("ports")).iter().enumerate() {
            let here = format!("{path}.ports[{i}]");
            let (host_ip, host_port) = (text(port, "hostIP"), int(port, "hostPort"));
            let (number, protocol) = (int(port, "containerPort"), text(port, "protocol"));
            if !host_ip.is_empty() && host_port == 0 {
                // Go prints the internal `api.ContainerPort` with `%+v`.
                warnings.push(format!(
                    "{here}: hostIP set without hostPort: {{Name:{} HostPort:{host_port} ContainerPort:{number} Protocol:{protocol} HostIP:{host_ip}}}",
                    text(port, "name")
                ));
            }
            let others = taken.entry(format!("{number}/{protocol}")).or_default();
            for other in others.iter() {
                let relation = if host_ip == other.host_ip && host_port == other.host_port {
                    "duplicate"
                } else if host_port == 0 || other.host_port == 0 {
                    "overlapping"
                } else if host_port == other.host_port && (host_ip.is_empty() != other.host_ip.is_empty()) {
                    "dangerously ambiguous"
                } else {
                    continue;
                };
                warnings.push(format!("{here}: {relation} port definition with {}", other.field));
            }
            others.push(PortBlock {
                field: here,
                host_ip: host_ip.to_owned(),
                host_port,
            });
        }
    }
    warnings
}

/// `pods.VisitContainersWithPath`: init containers, containers, ephemeral containers, each with
/// its path under `spec_at`.
fn containers<'a>(spec: &'a Value, spec_at: &str) -> Vec<(String, &'a Value)> {
    ["initContainers", "containers", "ephemeralContainers"]
        .into_iter()
        .flat_map(|key| {
            items(spec.get(key))
                .iter()
                .enumerate()
                .map(move |(i, c)| (format!("{spec_at}.{key}[{i}]"), c))
        })
        .collect()
}

/// The warning of a memory or storage quantity that is not a whole number of bytes
/// (`MilliValue() % 1000 != 0`), printed in Go's `Quantity.String()` form.
fn fractional(list: &Value, resource: &str, at: &str) -> Option<String> {
    let text = match list.get(resource)? {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        _ => return None,
    };
    let quantity = Quantity::parse(&text).ok()?;
    (!quantity.is_whole()).then(|| {
        let shown = go_quote(&quantity.to_string());
        format!("{at}[{resource}]: fractional byte value {shown} is invalid, must be an integer")
    })
}

/// A member of an object, `null` when absent (what Go's zero value reads as here).
fn field<'a>(value: &'a Value, key: &str) -> &'a Value {
    value.get(key).unwrap_or(&Value::Null)
}

/// The items of a list, none when absent.
fn items(value: Option<&Value>) -> &[Value] {
    value.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// A string member, empty when absent.
fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// An integer member, 0 when absent.
fn int(value: &Value, key: &str) -> i64 {
    value.get(key).and_then(Value::as_i64).unwrap_or_default()
}

/// Whether a pointer field is set: present and not null.
fn is_set(value: Option<&Value>) -> bool {
    value.is_some_and(|v| !v.is_null())
}

#[cfg(test)]
pub(crate) mod tests {
    use serde_json::json;

    use super::*;

    /// A pod template whose one container has `extra`.
    pub(crate) fn template(extra: Value) -> Value {
        let mut container = json!({"name": "c", "image": "nginx"});
        if let (Some(container), Some(extra)) = (container.as_object_mut(), extra.as_object()) {
            container.extend(extra.clone());
        }
        json!({"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [container]}})
    }

    #[test]
    fn a_repeated_env_var_should_be_worded_as_the_minor_words_it() {
        let repeated = template(json!({"env": [
            {"name": "A", "value": "1"},
            {"name": "A", "value": "2"},
            {"name": "B", "value": "3"},
            {"name": "B", "value": "$(B)-more"},
            {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        ]}));
        let at = "spec.template";
        assert_eq!(
            pod_template_warnings(Some(&repeated), at, 28),
            [
                r#"spec.template.spec.containers[0].env[1]: hides previous definition of "A""#,
                r#"spec.template.spec.containers[0].env[4]: hides previous definition of "B""#,
            ]
        );
        assert_eq!(
            pod_template_warnings(Some(&repeated), at, 29)[0],
            pod_template_warnings(Some(&repeated), at, 28)[0]
        );
        for minor in [30, 31, 33] {
            assert_eq!(
                pod_template_warnings(Some(&repeated), at, minor)[0],
                r#"spec.template.spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply"#
            );
        }
    }

    #[test]
    fn ports_should_be_warned_of_as_go_prints_them() {
        let repeated = template(json!({"ports": [
            {"containerPort": 80, "protocol": "TCP"},
            {"containerPort": 80, "name": "http", "protocol": "TCP"},
        ]}));
        let expected = [
            "spec.template.spec.containers[0].ports[1]: duplicate port definition with spec.template.spec.containers[0].ports[0]",
        ];
        for minor in [28, 31] {
            assert_eq!(pod_template_warnings(Some(&repeated), "spec.template", minor), expected);
        }
        let pod = json!({"metadata": {"name": "p"}, "spec": {"containers": [
            {"name": "a", "ports": [{"containerPort": 80, "protocol": "TCP", "hostIP": "1.2.3.4"}]},
            {"name": "b", "ports": [{"containerPort": 80, "protocol": "TCP", "hostPort": 8080}]},
            {"name": "c", "ports": [{"containerPort": 80, "protocol": "TCP", "hostPort": 8080, "hostIP": "10.0.0.1"}]},
            {"name": "d", "ports": [{"containerPort": 80, "protocol": "UDP"}]},
        ]}});
        assert_eq!(
            pod_create_warnings(&pod, 28),
            [
                "spec.containers[0].ports[0]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:80 Protocol:TCP HostIP:1.2.3.4}",
                "spec.containers[1].ports[0]: overlapping port definition with spec.containers[0].ports[0]",
                "spec.containers[2].ports[0]: overlapping port definition with spec.containers[0].ports[0]",
                "spec.containers[2].ports[0]: dangerously ambiguous port definition with spec.containers[1].ports[0]",
            ]
        );
    }

    #[test]
    fn fractional_bytes_should_be_shown_in_canonical_form() {
        let fractional = template(json!({"resources": {
            "limits": {"memory": "1.5", "cpu": "0.5"},
            "requests": {"memory": "1Gi", "ephemeral-storage": "100m"},
        }}));
        assert_eq!(
            pod_template_warnings(Some(&fractional), "spec.template", 31),
            [
                r#"spec.template.spec.containers[0].resources.limits[memory]: fractional byte value "1500m" is invalid, must be an integer"#,
                r#"spec.template.spec.containers[0].resources.requests[ephemeral-storage]: fractional byte value "100m" is invalid, must be an integer"#,
            ]
        );
        let claim = json!({"resources": {"requests": {"storage": "0.5Ki"}, "limits": {"storage": "2.5"}}});
        assert_eq!(
            claim_spec_warnings(&claim, "spec.volumeClaimTemplates[0].Spec"),
            [
                r#"spec.volumeClaimTemplates[0].Spec.resources.limits[storage]: fractional byte value "2500m" is invalid, must be an integer"#
            ]
        );
    }

    #[test]
    fn deprecated_labels_annotations_and_volumes_should_be_named_in_order() {
        let mut pod = json!({
            "metadata": {"name": "a.b", "annotations": {
                "security.alpha.kubernetes.io/sysctls": "x",
                "seccomp.security.alpha.kubernetes.io/pod": "runtime/default",
                "container.apparmor.security.beta.kubernetes.io/c": "runtime/default",
            }},
            "spec": {
                "nodeSelector": {"beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64"},
                "topologySpreadConstraints": [{"topologyKey": "failure-domain.beta.kubernetes.io/zone"}],
                "volumes": [{"name": "v", "gitRepo": {"repository": "r"}}],
                "imagePullSecrets": [{"name": "s"}, {"name": "s"}, {}],
                "terminationGracePeriodSeconds": -1,
                "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "podAffinityTerm": {"topologyKey": "k"}},
                ]}},
                "containers": [{"name": "c"}],
            },
        });
        let warnings = pod_create_warnings(&pod, 31);
        assert!(warnings[0].starts_with("metadata.name: this is used in the Pod's hostname"));
        assert_eq!(
            warnings[1..],
            [
                r#"spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead"#,
                r#"spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead"#,
                r#"spec.topologySpreadConstraints[0].topologyKey: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use "topology.kubernetes.io/zone" instead"#,
                "spec.topologySpreadConstraints[0].labelSelector: a null labelSelector results in matching no pod",
                r#"metadata.annotations[security.alpha.kubernetes.io/sysctls]: non-functional in v1.11+; use the "sysctls" field instead"#,
                "spec.volumes[0].gitRepo: deprecated in v1.11",
                r#"spec.imagePullSecrets[1].name: duplicate name "s""#,
                r#"spec.imagePullSecrets[2].name: invalid empty name """#,
                r#"metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead"#,
                "spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1",
                "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector: a null labelSelector results in matching no pod",
            ]
        );
        // A template's AppArmor annotation without the field is deprecated from 1.30.
        pod["metadata"]["name"] = json!("p");
        let apparmor = r#"spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/c]: deprecated since v1.30; use the "appArmorProfile" field instead"#;
        assert!(pod_template_warnings(Some(&pod), "spec.template", 30).contains(&apparmor.to_owned()));
        assert!(!pod_template_warnings(Some(&pod), "spec.template", 29).contains(&apparmor.to_owned()));
        pod["spec"]["securityContext"] = json!({"appArmorProfile": {"type": "RuntimeDefault"}});
        assert!(!pod_template_warnings(Some(&pod), "spec.template", 31).contains(&apparmor.to_owned()));
    }
}
