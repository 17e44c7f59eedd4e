//! The pod fields of feature gates that are off, dropped before validation as
//! `DropDisabledPodFields` and `DropDisabledTemplateFields` (`pkg/api/pod/util.go`,
//! `dropDisabledFields`) drop them from a Pod and from every pod template (Deployments,
//! ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs, ReplicationControllers,
//! PodTemplates): a field stays when the stored object already uses it.
//!
//! The gates' defaults per minor come from `pkg/features/kube_features.go` of v1.28.7 and
//! v1.31.2; a gate on by default on a minor drops nothing there, and a field the minor's types
//! do not have never reaches this point (`minor_fields`). Off on both minors:
//! UserNamespacesSupport (`hostUsers`), ProcMountType (a `procMount` is forced to `Default`),
//! DynamicResourceAllocation (resource claims), InPlacePodVerticalScaling (resize policies);
//! off on 1.28 only: SidecarContainers (an init container's `restartPolicy`); 1.31's alpha
//! SupplementalGroupsPolicy, ClusterTrustBundleProjection and ImageVolume (image volumes and
//! their mounts).

use serde_json::Value;

use crate::storage::resource::ResourceInfo;

/// The three container lists of a pod spec.
const CONTAINER_LISTS: [&str; 3] = ["containers", "initContainers", "ephemeralContainers"];

/// Where a kind keeps its pod spec (a JSON pointer), if it has one.
fn pod_spec_pointer(info: &ResourceInfo) -> Option<&'static str> {
    if !info.builtin {
        return None;
    }
    match (info.group.as_str(), info.kind.as_str()) {
        ("", "Pod") => Some("/spec"),
        ("", "PodTemplate") => Some("/template/spec"),
        ("", "ReplicationController")
        | ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet")
        | ("batch", "Job") => Some("/spec/template/spec"),
        ("batch", "CronJob") => Some("/spec/jobTemplate/spec/template/spec"),
        _ => None,
    }
}

/// Whether `info`'s objects hold a pod spec whose gated fields are dropped.
pub(crate) fn concerns(info: &ResourceInfo) -> bool {
    pod_spec_pointer(info).is_some()
}

/// `dropDisabledFields` of `new`'s pod spec, against `old`'s (an update's stored object), on
/// the Kubernetes `minor`.
pub(crate) fn drop_disabled(info: &ResourceInfo, new: &mut Value, old: Option<&Value>, minor: u32) {
    let Some(pointer) = pod_spec_pointer(info) else { return };
    let old_spec = old.and_then(|o| o.pointer(pointer));
    let Some(spec) = new.pointer_mut(pointer).filter(|s| s.is_object()) else {
        return;
    };
    let in_use = |test: fn(&Value) -> bool| old_spec.is_some_and(test);
    // The internal type keeps `hostUsers` in the pod's security context; v1 has it on the spec.
    if !in_use(|s| s.get("hostUsers").is_some_and(|h| !h.is_null())) {
        remove(Some(&mut *spec), "hostUsers");
    }
    if minor >= 31 && !in_use(|s| s.pointer("/securityContext/supplementalGroupsPolicy").is_some()) {
        remove(spec.pointer_mut("/securityContext"), "supplementalGroupsPolicy");
    }
    // The field was once forced to a value: it is set to the default, never dropped.
    if !in_use(|s| containers(s).any(|c| proc_mount(c).is_some_and(|m| m != "Default"))) {
        for container in containers_mut(spec) {
            if proc_mount(container).is_some() {
                container["securityContext"]["procMount"] = Value::from("Default");
            }
        }
    }
    if !in_use(|s| {
        s.get("resourceClaims")
            .and_then(Value::as_array)
            .is_some_and(|c| !c.is_empty())
    }) {
        remove(Some(spec), "resourceClaims");
        for container in containers_mut(spec) {
            remove(container.get_mut("resources"), "claims");
        }
    }
    if minor >= 31 && !in_use(uses_trust_bundles) {
        for source in projected_sources_mut(spec) {
            remove(Some(source), "clusterTrustBundle");
        }
    }
    let resizes = |s: &Value| {
        list(s, "containers").any(|c| {
            c.get("resizePolicy")
                .and_then(Value::as_array)
                .is_some_and(|p| !p.is_empty())
        })
    };
    if !in_use(resizes) {
        for container in containers_mut(spec) {
            remove(Some(container), "resizePolicy");
        }
    }
    let restartable =
        |s: &Value| list(s, "initContainers").any(|c| c.get("restartPolicy").and_then(Value::as_str) == Some("Always"));
    if minor < 29 && !in_use(restartable) {
        for container in list_mut(spec, "initContainers") {
            remove(Some(container), "restartPolicy");
        }
    }
    if minor >= 31 && !in_use(|s| list(s, "volumes").any(|v| v.get("image").is_some_and(|i| !i.is_null()))) {
        drop_image_volumes(spec);
    }
}

/// `dropImageVolumes`: the image volumes, and every container's mounts of them.
fn drop_image_volumes(spec: &mut Value) {
    let Some(volumes) = spec.get_mut("volumes").and_then(Value::as_array_mut) else {
        return;
    };
    let mut dropped = Vec::new();
    volumes.retain(|v| {
        let image = v.get("image").is_some_and(|i| !i.is_null());
        if image {
            dropped.push(v.get("name").and_then(Value::as_str).unwrap_or_default().to_owned());
        }
        !image
    });
    if dropped.is_empty() {
        return;
    }
    for container in containers_mut(spec) {
        if let Some(mounts) = container.get_mut("volumeMounts").and_then(Value::as_array_mut) {
            mounts.retain(|m| !dropped.iter().any(|d| m.get("name").and_then(Value::as_str) == Some(d)));
        }
    }
}

fn uses_trust_bundles(spec: &Value) -> bool {
    list(spec, "volumes")
        .filter_map(|v| v.pointer("/projected/sources").and_then(Value::as_array))
        .flatten()
        .any(|s| s.get("clusterTrustBundle").is_some_and(|b| !b.is_null()))
}

fn projected_sources_mut(spec: &mut Value) -> impl Iterator<Item = &mut Value> {
    list_mut(spec, "volumes")
        .filter_map(|v| v.pointer_mut("/projected/sources").and_then(Value::as_array_mut))
        .flatten()
}

fn proc_mount(container: &Value) -> Option<&str> {
    container.pointer("/securityContext/procMount").and_then(Value::as_str)
}

/// Removes `key` from `value` when it is an object.
fn remove(value: Option<&mut Value>, key: &str) {
    if let Some(map) = value.and_then(Value::as_object_mut) {
        map.remove(key);
    }
}

fn list<'v>(spec: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    spec.get(key).and_then(Value::as_array).into_iter().flatten()
}

fn list_mut<'v>(spec: &'v mut Value, key: &str) -> impl Iterator<Item = &'v mut Value> {
    spec.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten()
}

fn containers(spec: &Value) -> impl Iterator<Item = &Value> {
    CONTAINER_LISTS.into_iter().flat_map(move |key| list(spec, key))
}

fn containers_mut(spec: &mut Value) -> impl Iterator<Item = &mut Value> {
    let Some(map) = spec.as_object_mut() else {
        return Vec::new().into_iter();
    };
    map.iter_mut()
        .filter(|(key, _)| CONTAINER_LISTS.contains(&key.as_str()))
        .filter_map(|(_, value)| value.as_array_mut())
        .flatten()
        .collect::<Vec<_>>()
        .into_iter()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod(spec: Value) -> Value {
        json!({"spec": spec})
    }

    fn info() -> ResourceInfo {
        ResourceInfo::builtin("", "v1", "Pod", "pods")
    }

    #[test]
    fn fields_of_gates_that_are_off_should_go_unless_stored() {
        let spec = json!({
            "hostUsers": false,
            "securityContext": {},
            "resourceClaims": [{"name": "gpu"}],
            "containers": [{"name": "c", "resizePolicy": [{"resourceName": "cpu"}],
                            "resources": {"claims": [{"name": "gpu"}]}, "securityContext": {"procMount": "Unmasked"}}],
            "initContainers": [{"name": "i", "restartPolicy": "Always"}],
        });
        let mut new = pod(spec.clone());
        drop_disabled(&info(), &mut new, None, 28);
        assert_eq!(
            new["spec"],
            json!({"securityContext": {}, "containers": [{"name": "c", "resources": {}, "securityContext": {"procMount": "Default"}}],
                   "initContainers": [{"name": "i"}]})
        );
        let mut kept = pod(spec.clone());
        drop_disabled(&info(), &mut kept, Some(&pod(spec.clone())), 28);
        assert_eq!(kept["spec"], spec);
        let mut sidecar = pod(spec);
        drop_disabled(&info(), &mut sidecar, None, 31);
        assert_eq!(sidecar["spec"]["initContainers"][0]["restartPolicy"], "Always");
    }

    #[test]
    fn image_volumes_and_their_mounts_should_go_on_1_31() {
        let mut new = pod(json!({
            "volumes": [{"name": "img", "image": {"reference": "busybox"}}, {"name": "data", "emptyDir": {}}],
            "containers": [{"name": "c", "volumeMounts": [{"name": "img", "mountPath": "/i"}, {"name": "data", "mountPath": "/d"}]}],
        }));
        drop_disabled(&info(), &mut new, None, 31);
        assert_eq!(new["spec"]["volumes"], json!([{"name": "data", "emptyDir": {}}]));
        assert_eq!(
            new["spec"]["containers"][0]["volumeMounts"],
            json!([{"name": "data", "mountPath": "/d"}])
        );
    }
}
