//! The warnings a kind's strategy returns for a write that passed validation
//! (`WarningsOnCreate`/`WarningsOnUpdate` of the `pkg/registry/*/strategy.go` files), by kind:
//! `rest.BeforeCreate` and `rest.BeforeUpdate` add them to the response after validating.

use serde_json::Value;

use super::apps_set_strategy::semantic_equal;
use super::cronjob_strategy;
use super::defaults::apps_sets::template_generation;
use super::endpointslice_strategy;
use super::ingress_validation::CLASS_ANNOTATION;
use super::job_strategy;
use super::names::dns1123_label_errors;
use super::pod_warnings::{claim_spec_warnings, pod_create_warnings, pod_template_warnings};
use super::pv_validation::volume_warnings;
use super::pvc_validation::BETA_STORAGE_CLASS;
use super::runtimeclass;
use super::service_warnings::service_warnings;
use super::storage_warnings::{csi_storage_capacity_warnings, storage_class_warnings};
use super::tls_key_pair;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The path of a workload's pod template.
const TEMPLATE: &str = "spec.template";

/// `WarningsOnCreate` of the kind's strategy on the Kubernetes `minor`.
pub(crate) fn on_create(info: &ResourceInfo, object: &Value, minor: u32) -> Vec<String> {
    if !info.builtin {
        return custom_finalizer_warnings(object, None, minor);
    }
    match (info.group.as_str(), info.kind.as_str()) {
        ("", "Service") => service_warnings(object),
        ("", "Secret") => tls_key_pair::secret_warnings(object),
        ("", "Pod") => pod_create_warnings(object, minor),
        ("", "PersistentVolumeClaim") => claim_warnings(object),
        ("", "PersistentVolume") => volume_warnings(object, minor),
        ("", "PodTemplate") => pod_template_warnings(object.get("template"), "template", minor),
        ("", "ReplicationController") => {
            let mut warnings = name_label_warnings(object);
            warnings.extend(template_warnings(object, minor));
            warnings
        }
        ("apps", "Deployment" | "ReplicaSet") => {
            let mut warnings = job_strategy::create_warnings(object);
            warnings.extend(template_warnings(object, minor));
            warnings
        }
        ("apps", "StatefulSet") => {
            let mut warnings = template_warnings(object, minor);
            // On create Go names each claim template's spec by the template alone.
            warnings.extend(claim_template_warnings(object, ""));
            warnings
        }
        ("apps", "DaemonSet") => template_warnings(object, minor),
        ("batch", "Job") => {
            let mut warnings = job_strategy::create_warnings(object);
            warnings.extend(job_strategy::job_spec_warnings(spec(object), "spec", minor));
            warnings
        }
        ("batch", "CronJob") => cronjob_strategy::create_warnings(info, object, minor),
        ("networking.k8s.io", "Ingress") => ingress_create_warnings(object),
        ("discovery.k8s.io", "EndpointSlice") => endpointslice_strategy::create_warnings(object),
        ("node.k8s.io", "RuntimeClass") => runtimeclass::warnings(object, minor),
        ("storage.k8s.io", "StorageClass") => storage_class_warnings(object, minor),
        ("storage.k8s.io", "CSIStorageCapacity") => csi_storage_capacity_warnings(object, minor),
        _ => Vec::new(),
    }
}

/// `WarningsOnUpdate` of the kind's strategy on the Kubernetes `minor`, or of its status
/// strategy for `/status` (which returns none for the kinds here). `/scale` writes through the
/// main strategy, so it warns as an update does. A pod warns of nothing on update (Go skips it
/// on that busy path), nor through `/ephemeralcontainers`.
pub(crate) fn on_update(
    info: &ResourceInfo,
    object: &Value,
    old: &Value,
    subresource: Option<&str>,
    minor: u32,
) -> Vec<String> {
    if !matches!(subresource, None | Some("scale")) {
        return Vec::new();
    }
    if !info.builtin {
        return custom_finalizer_warnings(object, Some(old), minor);
    }
    match (info.group.as_str(), info.kind.as_str()) {
        ("", "Service") if subresource.is_none() => service_warnings(object),
        ("", "Secret") => tls_key_pair::secret_warnings(object),
        ("", "PersistentVolumeClaim") => claim_warnings(object),
        ("", "PersistentVolume") => volume_warnings(object, minor),
        ("", "PodTemplate") if !semantic_equal(object.get("template"), old.get("template")) => {
            pod_template_warnings(object.get("template"), "template", minor)
        }
        ("", "ReplicationController") if generation_moves(info, object, old) => template_warnings(object, minor),
        ("apps", "Deployment" | "ReplicaSet") if generation_moves(info, object, old) => {
            template_warnings(object, minor)
        }
        ("apps", "StatefulSet") => {
            let mut warnings = Vec::new();
            if generation_moves(info, object, old) {
                warnings = template_warnings(object, minor);
            }
            // Go checks the claim templates on every update, under a path that says `Spec`.
            warnings.extend(claim_template_warnings(object, ".Spec"));
            warnings
        }
        ("apps", "DaemonSet") => {
            // The strategy moved the template generation when the template changed.
            let moved = template_generation(object).ok() != template_generation(old).ok();
            if moved {
                template_warnings(object, minor)
            } else {
                Vec::new()
            }
        }
        ("batch", "Job") if generation_moves(info, object, old) => {
            job_strategy::job_spec_warnings(spec(object), "spec", minor)
        }
        ("batch", "CronJob") => cronjob_strategy::update_warnings(info, object, old, subresource, minor),
        ("node.k8s.io", "RuntimeClass") => runtimeclass::warnings(object, minor),
        ("storage.k8s.io", "StorageClass") => storage_class_warnings(object, minor),
        ("storage.k8s.io", "CSIStorageCapacity") => csi_storage_capacity_warnings(object, minor),
        _ => Vec::new(),
    }
}

/// The replicationcontroller strategy's name warning: its pods and their hostnames are named
/// after it, so a name that is no DNS label surprises.
fn name_label_warnings(object: &Value) -> Vec<String> {
    let why = dns1123_label_errors(object::name(object));
    if why.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [{}]",
        why.join(" ")
    )]
}

/// `GetWarningsForPersistentVolumeClaim` (`pkg/api/persistentvolumeclaim/util.go`): the beta
/// storage-class annotation, and fractional storage in the spec.
fn claim_warnings(object: &Value) -> Vec<String> {
    let mut warnings = Vec::new();
    if object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(BETA_STORAGE_CLASS))
        .is_some()
    {
        warnings.push(format!(
            "metadata.annotations[{BETA_STORAGE_CLASS}]: deprecated since v1.8; use \"storageClassName\" attribute instead"
        ));
    }
    warnings.extend(claim_spec_warnings(spec(object), "spec"));
    warnings
}

/// Whether the strategy's `PrepareForUpdate` moves the generation: the spec changed
/// (`apiequality.Semantic.DeepEqual`), and for a Deployment also its annotations.
fn generation_moves(info: &ResourceInfo, object: &Value, old: &Value) -> bool {
    let changed = |pointer: &str| !semantic_equal(object.pointer(pointer), old.pointer(pointer));
    changed("/spec") || (info.kind == "Deployment" && changed("/metadata/annotations"))
}

/// The ingress strategy's `WarningsOnCreate`: the class annotation without a class name.
fn ingress_create_warnings(ingress: &Value) -> Vec<String> {
    let annotated = ingress
        .pointer("/metadata/annotations")
        .is_some_and(|a| a.get(CLASS_ANNOTATION).is_some());
    let named = spec(ingress).get("ingressClassName").is_some_and(|c| !c.is_null());
    if annotated && !named {
        vec![format!(
            "annotation {CLASS_ANNOTATION:?} is deprecated, please use 'spec.ingressClassName' instead"
        )]
    } else {
        Vec::new()
    }
}

/// The object's spec, `null` when it has none.
fn spec(object: &Value) -> &Value {
    object.get("spec").unwrap_or(&Value::Null)
}

/// `GetWarningsForPodTemplate` of a workload's `spec.template`.
fn template_warnings(object: &Value, minor: u32) -> Vec<String> {
    pod_template_warnings(spec(object).get("template"), TEMPLATE, minor)
}

/// A StatefulSet's claim templates' storage warnings, `spec.volumeClaimTemplates[i]` then
/// `suffix`.
fn claim_template_warnings(object: &Value, suffix: &str) -> Vec<String> {
    let claims = spec(object).get("volumeClaimTemplates").and_then(Value::as_array);
    let mut warnings = Vec::new();
    for (i, claim) in claims.into_iter().flatten().enumerate() {
        let at = format!("spec.volumeClaimTemplates[{i}]{suffix}");
        warnings.extend(claim_spec_warnings(claim.get("spec").unwrap_or(&Value::Null), &at));
    }
    warnings
}

/// A custom resource's strategy from 1.29 (`generateWarningsFromObj`, apiextensions-apiserver's
/// registry/customresource/strategy.go): each finalizer the write adds, in sorted order, that
/// names no domain and is not one of Kubernetes' own. Its qualified-name checks cannot fire
/// here: the metadata's validation already refused such names.
fn custom_finalizer_warnings(object: &Value, old: Option<&Value>, minor: u32) -> Vec<String> {
    const STANDARD: [&str; 3] = ["orphan", "foregroundDeletion", "kubernetes"];
    if minor < 29 {
        return Vec::new();
    }
    let before = old.map(object::finalizers).unwrap_or_default();
    let mut added: Vec<String> = object::finalizers(object)
        .into_iter()
        .filter(|name| !before.contains(name))
        .collect();
    added.sort();
    added.dedup();
    added
        .into_iter()
        .filter(|name| !name.contains('/') && !STANDARD.contains(&name.as_str()))
        .map(|name| {
            format!(
                "metadata.finalizers: {name:?}: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::semantics::pod_warnings::tests::template;

    #[test]
    fn pod_warnings_should_follow_the_strategies() {
        let repeated = template(json!({"env": [{"name": "A"}, {"name": "A"}]}));
        let env = r#"spec.template.spec.containers[0].env[1]: hides previous definition of "A""#;
        let deployments = ResourceInfo::builtin("apps", "v1", "Deployment", "deployments");
        let spec = |replicas: i64| json!({"replicas": replicas, "template": repeated});
        let old = json!({"metadata": {"name": "a.b"}, "spec": spec(1)});
        let created = on_create(&deployments, &old, 28);
        assert_eq!(created.len(), 2);
        assert!(created[0].starts_with("metadata.name: this is used in Pod names and hostnames"));
        assert_eq!(created[1], env);
        // On update only when the generation moves: the spec, or a Deployment's annotations.
        let scaled = json!({"metadata": {"name": "a.b"}, "spec": spec(2)});
        assert_eq!(on_update(&deployments, &scaled, &old, None, 28), [env]);
        assert_eq!(on_update(&deployments, &scaled, &old, Some("scale"), 28), [env]);
        assert!(on_update(&deployments, &scaled, &old, Some("status"), 28).is_empty());
        let labelled = json!({"metadata": {"name": "a.b", "labels": {"x": "y"}}, "spec": spec(1)});
        assert!(on_update(&deployments, &labelled, &old, None, 28).is_empty());
        let annotated = json!({"metadata": {"name": "a.b", "annotations": {"x": "y"}}, "spec": spec(1)});
        assert_eq!(on_update(&deployments, &annotated, &old, None, 28), [env]);
        let replica_sets = ResourceInfo::builtin("apps", "v1", "ReplicaSet", "replicasets");
        assert!(on_update(&replica_sets, &annotated, &old, None, 28).is_empty());
        // A StatefulSet checks its claim templates on every update, a DaemonSet its template
        // when the template generation moved.
        let stateful_sets = ResourceInfo::builtin("apps", "v1", "StatefulSet", "statefulsets");
        let claim = json!({"spec": {"resources": {"requests": {"storage": "1.5"}}}});
        let mut set =
            json!({"metadata": {"name": "s"}, "spec": {"template": repeated, "volumeClaimTemplates": [claim]}});
        let fractional = r#"fractional byte value "1500m" is invalid, must be an integer"#;
        assert_eq!(
            on_create(&stateful_sets, &set, 31)[1],
            format!("spec.volumeClaimTemplates[0].resources.requests[storage]: {fractional}")
        );
        assert_eq!(
            on_update(&stateful_sets, &set, &set, None, 31),
            [format!(
                "spec.volumeClaimTemplates[0].Spec.resources.requests[storage]: {fractional}"
            )]
        );
        let daemon_sets = ResourceInfo::builtin("apps", "v1", "DaemonSet", "daemonsets");
        let old_set = set.clone();
        set["metadata"]["annotations"] = json!({"deprecated.daemonset.template.generation": "2"});
        assert!(on_update(&daemon_sets, &old_set, &old_set, None, 28).is_empty());
        assert_eq!(on_update(&daemon_sets, &set, &old_set, None, 28), [env]);
        // A Job's template is `spec.template` too, after the job's own warnings.
        let jobs = ResourceInfo::builtin("batch", "v1", "Job", "jobs");
        assert_eq!(on_create(&jobs, &labelled, 28)[1], env);
        assert_eq!(on_update(&jobs, &scaled, &old, None, 28), [env]);
        assert!(on_update(&jobs, &labelled, &old, None, 28).is_empty());
        // A pod warns on create only.
        let pods = ResourceInfo::builtin("", "v1", "Pod", "pods");
        let pod = json!({"metadata": {"name": "p"}, "spec": repeated["spec"]});
        let expected = [r#"spec.containers[0].env[1]: hides previous definition of "A""#];
        assert_eq!(on_create(&pods, &pod, 28), expected);
        assert!(on_update(&pods, &pod, &json!({}), None, 28).is_empty());
    }
}
