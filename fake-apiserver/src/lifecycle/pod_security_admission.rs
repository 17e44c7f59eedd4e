//! kube-apiserver's PodSecurity admission plugin (`plugin/pkg/admission/security/podsecurity/
//! admission.go` over `k8s.io/pod-security-admission/admission/admission.go`), validating, with
//! the default configuration (every mode `privileged:latest`, no exemptions):
//! - a namespace's policy labels must parse (on an update, only when they changed), and raising
//!   its enforce level warns of the pods already there that would violate it
//!   (`ValidateNamespace`, `EvaluatePodsInNamespace`);
//! - a pod (and an update that adds a container or changes an image) is refused when it violates
//!   the enforce level, and warned of when it violates the warn level (`ValidatePod`);
//! - a pod template of the kinds that have one is only warned of (`ValidatePodController`).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use crate::semantics::pod_security::{self, Level, LevelVersion, Policy};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// Pod subresources the plugin lets through (`ignoredPodSubresources`): every other one (an
/// ephemeral containers update) can change what the pod runs.
const IGNORED_POD_SUBRESOURCES: &[&str] = &[
    "exec",
    "attach",
    "binding",
    "eviction",
    "log",
    "portforward",
    "proxy",
    "status",
];

/// The kinds whose objects embed a pod template, and where (`defaultPodSpecResources`,
/// `DefaultPodSpecExtractor`): group, resource, path of the template.
const POD_CONTROLLERS: &[(&str, &str, &str)] = &[
    ("", "replicationcontrollers", "/spec/template"),
    ("", "podtemplates", "/template"),
    ("apps", "replicasets", "/spec/template"),
    ("apps", "deployments", "/spec/template"),
    ("apps", "statefulsets", "/spec/template"),
    ("apps", "daemonsets", "/spec/template"),
    ("batch", "jobs", "/spec/template"),
    ("batch", "cronjobs", "/spec/jobTemplate/spec/template"),
];

/// What the plugin says of a create (`old`: none) or an update of `info`'s object `new`,
/// through `subresource`: its refusal, or the warnings it adds.
pub(super) fn validate(
    state: &State,
    info: &ResourceInfo,
    new: &Value,
    old: Option<&Value>,
    subresource: Option<&str>,
    warnings: &mut Vec<String>,
) -> Result<(), ApiStatus> {
    if !info.builtin {
        return Ok(());
    }
    let minor = state.options.minor();
    match (info.group.as_str(), info.plural.as_str()) {
        ("", "namespaces") if subresource.is_none() => validate_namespace(state, info, new, old, warnings),
        ("", "pods") if !subresource.is_some_and(|s| IGNORED_POD_SUBRESOURCES.contains(&s)) => {
            let policy = namespace_policy(state, object::namespace(new)).filter(|p| !p.fully_privileged());
            let Some(policy) = policy else {
                return Ok(());
            };
            if old.is_some_and(|old| !is_significant_update(new, old)) {
                return Ok(());
            }
            let spec = new.get("spec").unwrap_or(&Value::Null);
            let meta = new.get("metadata").unwrap_or(&Value::Null);
            let warning = evaluate(&policy, meta, spec, minor, true)
                .map_err(|why| ApiStatus::forbidden_object(info, object::name(new), &why))?;
            warnings.extend(warning);
            Ok(())
        }
        (group, plural) if subresource.is_none() => {
            let Some((_, _, path)) = POD_CONTROLLERS.iter().find(|(g, p, _)| *g == group && *p == plural) else {
                return Ok(());
            };
            let policy = namespace_policy(state, object::namespace(new));
            let Some(policy) =
                policy.filter(|p| p.warn.level != Level::Privileged || p.audit.level != Level::Privileged)
            else {
                return Ok(());
            };
            // A ReplicationController may have no template: nothing to evaluate. The other kinds
            // always have one in Go, if only an empty one.
            let template = match new.pointer(path) {
                Some(template) => template,
                None if plural == "replicationcontrollers" => return Ok(()),
                None => &Value::Null,
            };
            let spec = template.get("spec").unwrap_or(&Value::Null);
            let meta = template.get("metadata").unwrap_or(&Value::Null);
            warnings.extend(evaluate(&policy, meta, spec, minor, false).unwrap_or_default());
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The policy of `namespace` from its labels; a label that does not parse still gives one
/// (`PolicyToEvaluate`), and a namespace that cannot be read gives none.
fn namespace_policy(state: &State, namespace: &str) -> Option<Policy> {
    let info = state.info("", "v1", "namespaces");
    let stored = state.object(&info, None, namespace)?;
    Some(Policy::from_labels(&labels(&stored)).0)
}

/// `ValidateNamespace`: labels that do not parse are refused on a create, and on an update when
/// they are not the stored errors; a stricter enforce level evaluates the namespace's pods.
fn validate_namespace(
    state: &State,
    info: &ResourceInfo,
    new: &Value,
    old: Option<&Value>,
    warnings: &mut Vec<String>,
) -> Result<(), ApiStatus> {
    let name = object::name(new);
    let (policy, errors) = Policy::from_labels(&labels(new));
    let invalid = || ApiStatus::invalid_fields(info, name, &errors);
    let Some(old) = old else {
        return if errors.is_empty() { Ok(()) } else { Err(invalid()) };
    };
    let (old_policy, old_errors) = Policy::from_labels(&labels(old));
    if !errors.is_empty() && (old_errors.is_empty() || errors != old_errors) {
        return Err(invalid());
    }
    let (enforce, before) = (policy.enforce, old_policy.enforce);
    let relaxed = enforce.version == before.version && enforce.level <= before.level;
    if enforce == before || enforce.level == Level::Privileged || relaxed {
        return Ok(());
    }
    warnings.extend(pods_violating(state, name, enforce, state.options.minor()));
    Ok(())
}

/// `EvaluatePodsInNamespace`: the pods of `namespace` that `enforce` would refuse, grouped by
/// their reasons, each group named by its lexically first pod, in sorted order after a headline.
/// A controller's pods come after the first one of each controller (`prioritizePods`); every pod
/// is checked, as kube-apiserver does up to 3000 of them.
fn pods_violating(state: &State, namespace: &str, enforce: LevelVersion, minor: u32) -> Vec<String> {
    let info = state.info("", "v1", "pods");
    let mut firsts = Vec::new();
    let mut repeats = Vec::new();
    let mut controllers = HashSet::new();
    for (_, pod) in state.store.iter(&info.storage_key(), Some(namespace)) {
        let controller = object::owner_references(pod)
            .iter()
            .find(|owner| owner.get("controller").and_then(Value::as_bool) == Some(true))
            .and_then(|owner| owner.get("uid").and_then(Value::as_str));
        match controller {
            Some(uid) if !controllers.insert(uid.to_owned()) => repeats.push(pod.clone()),
            _ => firsts.push(pod.clone()),
        }
    }
    let mut reasons: Vec<String> = Vec::new();
    let mut counts: HashMap<String, (String, usize)> = HashMap::new();
    for pod in firsts.iter().chain(&repeats) {
        let spec = pod.get("spec").unwrap_or(&Value::Null);
        let meta = pod.get("metadata").unwrap_or(&Value::Null);
        let result = pod_security::evaluate(enforce, meta, spec, minor);
        if result.allowed() {
            continue;
        }
        let reason = result.forbidden_reason();
        let name = object::name(pod);
        match counts.get_mut(&reason) {
            Some((first, count)) => {
                if name < first.as_str() {
                    *first = name.to_owned();
                }
                *count += 1;
            }
            None => {
                counts.insert(reason.clone(), (name.to_owned(), 1));
                reasons.push(reason);
            }
        }
    }
    if reasons.is_empty() {
        return Vec::new();
    }
    let mut decorated: Vec<String> = reasons
        .iter()
        .map(|reason| {
            let (first, count) = &counts[reason];
            match count {
                1 => format!("{first}: {reason}"),
                2 => format!("{first} (and 1 other pod): {reason}"),
                _ => format!("{first} (and {} other pods): {reason}", count - 1),
            }
        })
        .collect();
    decorated.sort();
    let headline =
        format!("existing pods in namespace \"{namespace}\" violate the new PodSecurity enforce level \"{enforce}\"");
    std::iter::once(headline).chain(decorated).collect()
}

/// `EvaluatePod`: with `enforce`, the refusal of a pod the enforce level forbids; otherwise
/// (or when it is allowed) the warning of the warn level. Audit only annotates the audit log.
fn evaluate(policy: &Policy, meta: &Value, spec: &Value, minor: u32, enforce: bool) -> Result<Option<String>, String> {
    if enforce {
        let result = pod_security::evaluate(policy.enforce, meta, spec, minor);
        if !result.allowed() {
            return Err(format!(
                "violates PodSecurity \"{}\": {}",
                policy.enforce,
                result.forbidden_detail()
            ));
        }
    }
    let result = pod_security::evaluate(policy.warn, meta, spec, minor);
    Ok((!result.allowed()).then(|| {
        format!(
            "would violate PodSecurity \"{}\": {}",
            policy.warn,
            result.forbidden_detail()
        )
    }))
}

/// `isSignificantPodUpdate`: an update matters when it adds or removes a container or an init
/// container, changes an image, or adds an ephemeral container or changes its image.
fn is_significant_update(new: &Value, old: &Value) -> bool {
    let list = |pod: &Value, field: &str| -> Vec<Value> {
        pod.pointer(&format!("/spec/{field}"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let image = |container: &Value| {
        container
            .get("image")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    for field in ["containers", "initContainers"] {
        let (now, before) = (list(new, field), list(old, field));
        if now.len() != before.len() || now.iter().zip(&before).any(|(a, b)| image(a) != image(b)) {
            return true;
        }
    }
    let before = list(old, "ephemeralContainers");
    list(new, "ephemeralContainers").iter().any(|container| {
        let name = container.get("name");
        match before.iter().find(|old| old.get("name") == name) {
            Some(old) => image(container) != image(old),
            None => true,
        }
    })
}

/// An object's labels as strings.
fn labels(object: &Value) -> BTreeMap<String, String> {
    object::labels(object)
        .into_iter()
        .flatten()
        .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::pod_security::policy::Version;

    fn pod(images: &[&str], ephemeral: &[(&str, &str)]) -> Value {
        let containers: Vec<Value> = images.iter().map(|i| json!({"name": *i, "image": *i})).collect();
        let ephemeral: Vec<Value> = ephemeral
            .iter()
            .map(|(n, i)| json!({"name": *n, "image": *i}))
            .collect();
        json!({"spec": {"containers": containers, "ephemeralContainers": ephemeral}})
    }

    #[test]
    fn only_containers_and_images_make_an_update_significant() {
        let old = pod(&["a"], &[("dbg", "busybox")]);
        let mut relabelled = old.clone();
        relabelled["metadata"] = json!({"labels": {"x": "1"}});
        assert!(!is_significant_update(&relabelled, &old));
        assert!(is_significant_update(&pod(&["b"], &[("dbg", "busybox")]), &old));
        assert!(is_significant_update(&pod(&["a", "b"], &[("dbg", "busybox")]), &old));
        assert!(is_significant_update(
            &pod(&["a"], &[("dbg", "busybox"), ("new", "x")]),
            &old
        ));
        assert!(is_significant_update(&pod(&["a"], &[("dbg", "alpine")]), &old));
    }

    #[test]
    fn enforce_refuses_and_warn_only_warns() {
        let restricted = LevelVersion {
            level: Level::Restricted,
            version: Version::Latest,
        };
        let host = json!({"hostPID": true, "containers": [{"name": "c", "image": "i"}]});
        let enforcing = Policy {
            enforce: restricted,
            ..Policy::DEFAULT
        };
        let refused = evaluate(&enforcing, &Value::Null, &host, 28, true).unwrap_err();
        assert!(refused.starts_with("violates PodSecurity \"restricted:latest\": host namespaces (hostPID=true)"));
        // A template is never refused: the enforce level is not evaluated.
        assert_eq!(evaluate(&enforcing, &Value::Null, &host, 28, false), Ok(None));
        let warning = Policy {
            warn: restricted,
            ..Policy::DEFAULT
        };
        let warned = evaluate(&warning, &Value::Null, &host, 28, false).unwrap().unwrap();
        assert!(warned.starts_with("would violate PodSecurity \"restricted:latest\": host namespaces"));
    }
}
