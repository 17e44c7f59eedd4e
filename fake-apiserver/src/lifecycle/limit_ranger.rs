//! The LimitRanger admission plugin (`plugin/pkg/admission/limitranger/admission.go`), over the
//! LimitRanges of the object's namespace (in name order; Go's lister has none). Mutating, for a
//! new pod only (`PodMutateLimitFunc`): each container and init container gets the `Container`
//! items' `default` limits and `defaultRequest` requests it lacks, and the pod the
//! `kubernetes.io/limit-ranger` annotation naming them. Validating, for a new pod
//! (`PodValidateLimitFunc`: each container's `min`, `max` and `maxLimitRequestRatio`, the same
//! for the whole pod's requests and limits) and for a claim created or updated
//! (`PersistentVolumeClaimValidateLimitFunc`: its storage request): the first LimitRange a
//! request breaks refuses it with 403 and all that range's reasons. Subresources, pod updates and
//! objects being deleted pass.

use serde_json::{Value, json};

use crate::auth::rbac::go_aggregate;
use crate::lifecycle::limit_constraints::{item_constraints, max_request_constraint, min_constraint};
use crate::semantics::quantity::Quantity;
use crate::semantics::resource_list::{ResourceList, container_resources, pod_limits, pod_requests};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The annotation naming what the plugin defaulted (`limitRangerAnnotation`).
const ANNOTATION: &str = "kubernetes.io/limit-ranger";

/// Whether the plugin looks at `info`'s objects: pods and claims.
pub(super) fn concerns(info: &ResourceInfo) -> bool {
    info.builtin && info.group.is_empty() && matches!(info.plural.as_str(), "pods" | "persistentvolumeclaims")
}

/// `Admit` of a new pod in `namespace`: the containers' defaults and the annotation.
pub(super) fn mutate_create(state: &State, namespace: &str, pod: &mut Value) {
    for range in limit_ranges(state, namespace) {
        let (requests, limits) = container_defaults(&range);
        let mut set = Vec::new();
        for (list, what) in [("containers", "container"), ("initContainers", "init container")] {
            let Some(containers) = pod.pointer_mut(&format!("/spec/{list}")).and_then(Value::as_array_mut) else {
                continue;
            };
            for container in containers {
                set.extend(merge_defaults(container, &requests, &limits, what));
            }
        }
        if !set.is_empty() {
            let value = format!("LimitRanger plugin set: {}", set.join("; "));
            let meta = &mut pod["metadata"];
            if !meta.get("annotations").is_some_and(Value::is_object) {
                meta["annotations"] = json!({});
            }
            meta["annotations"][ANNOTATION] = json!(value);
        }
    }
}

/// `Validate` of a new pod or a claim created or updated (`old`: the stored one) in `namespace`,
/// refused as `admission.NewForbidden` refuses.
pub(super) fn validate(
    state: &State,
    info: &ResourceInfo,
    namespace: &str,
    object: &Value,
    old: Option<&Value>,
) -> Result<(), ApiStatus> {
    let is_pod = info.plural == "pods";
    if (is_pod && old.is_some()) || old.is_some_and(object::is_deleting) {
        return Ok(());
    }
    for range in limit_ranges(state, namespace) {
        let reasons = if is_pod {
            pod_reasons(&range, object)
        } else {
            claim_reasons(&range, object)
        };
        if !reasons.is_empty() {
            return Err(ApiStatus::forbidden_object(
                info,
                object::name(object),
                &go_aggregate(&reasons),
            ));
        }
    }
    Ok(())
}

/// The namespace's LimitRanges' items (`spec.limits`), one list per range.
fn limit_ranges(state: &State, namespace: &str) -> Vec<Vec<Value>> {
    let info = state.info("", "v1", "limitranges");
    state
        .store
        .iter(&info.storage_key(), Some(namespace))
        .map(|(_, range)| {
            range
                .pointer("/spec/limits")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

/// `defaultContainerResourceRequirements`: the requests and limits the `Container` items give.
fn container_defaults(items: &[Value]) -> (ResourceList, ResourceList) {
    let (mut requests, mut limits) = (ResourceList::default(), ResourceList::default());
    for item in items.iter().filter(|i| item_type(i) == "Container") {
        for (name, quantity) in ResourceList::from_json(item.get("defaultRequest")).iter() {
            requests.insert(name, quantity.clone());
        }
        for (name, quantity) in ResourceList::from_json(item.get("default")).iter() {
            limits.insert(name, quantity.clone());
        }
    }
    (requests, limits)
}

/// `mergeContainerResources`: sets what the container lacks, and says what it set (`what` names
/// the kind of container).
fn merge_defaults(container: &mut Value, requests: &ResourceList, limits: &ResourceList, what: &str) -> Vec<String> {
    let name = container
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let set_limits = fill(container, "limits", limits);
    let set_requests = fill(container, "requests", requests);
    let mut said = Vec::new();
    for (set, kind) in [(set_requests, "request"), (set_limits, "limit")] {
        if !set.is_empty() {
            said.push(format!("{} {kind} for {what} {name}", set.join(", ")));
        }
    }
    said
}

/// Adds the quantities of `defaults` that `container.resources.<which>` lacks; the names set,
/// sorted.
fn fill(container: &mut Value, which: &str, defaults: &ResourceList) -> Vec<String> {
    let current = container_resources(container, which);
    let missing: Vec<(&str, &Quantity)> = defaults.iter().filter(|(name, _)| !current.contains(name)).collect();
    if missing.is_empty() {
        return Vec::new();
    }
    if !container.get("resources").is_some_and(Value::is_object) {
        container["resources"] = json!({});
    }
    let resources = &mut container["resources"];
    if !resources.get(which).is_some_and(Value::is_object) {
        resources[which] = json!({});
    }
    for (name, quantity) in &missing {
        resources[which][*name] = json!(quantity.to_string());
    }
    missing.into_iter().map(|(name, _)| name.to_owned()).collect()
}

/// `PodValidateLimitFunc`: why a pod breaks the items.
fn pod_reasons(items: &[Value], pod: &Value) -> Vec<String> {
    let empty = json!({});
    let spec = pod.get("spec").unwrap_or(&empty);
    let mut reasons = Vec::new();
    for item in items {
        match item_type(item) {
            "Container" => {
                for list in ["containers", "initContainers"] {
                    for container in spec.get(list).and_then(Value::as_array).into_iter().flatten() {
                        let requests = container_resources(container, "requests");
                        let limits = container_resources(container, "limits");
                        reasons.extend(item_constraints(item, "Container", &requests, &limits));
                    }
                }
            }
            "Pod" => {
                let requests = pod_requests(spec, false);
                let limits = pod_limits(spec, false);
                reasons.extend(item_constraints(item, "Pod", &requests, &limits));
            }
            _ => {}
        }
    }
    reasons
}

/// `PersistentVolumeClaimValidateLimitFunc`: the claim's storage request against the
/// `PersistentVolumeClaim` items (its limits are not a user's input).
fn claim_reasons(items: &[Value], claim: &Value) -> Vec<String> {
    let requests = ResourceList::from_json(claim.pointer("/spec/resources/requests"));
    let kind = "PersistentVolumeClaim";
    let mut reasons = Vec::new();
    for item in items.iter().filter(|i| item_type(i) == kind) {
        for (name, enforced) in ResourceList::from_json(item.get("min")).iter() {
            reasons.extend(min_constraint(kind, name, enforced, &requests, None));
        }
        for (name, enforced) in ResourceList::from_json(item.get("max")).iter() {
            reasons.extend(max_request_constraint(kind, name, enforced, &requests));
        }
    }
    reasons
}

fn item_type(item: &Value) -> &str {
    item.get("type").and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_should_fill_only_what_a_container_lacks_and_say_so() {
        let items = vec![
            json!({"type": "Container", "default": {"cpu": "400m", "memory": "200Mi"}, "defaultRequest": {"cpu": "200m"}}),
        ];
        let (requests, limits) = container_defaults(&items);
        let mut container =
            json!({"name": "main", "resources": {"limits": {"memory": "300Mi"}, "requests": {"memory": "300Mi"}}});
        let said = merge_defaults(&mut container, &requests, &limits, "container");
        assert_eq!(said, ["cpu request for container main", "cpu limit for container main"]);
        assert_eq!(
            container["resources"],
            json!({"limits": {"cpu": "400m", "memory": "300Mi"}, "requests": {"cpu": "200m", "memory": "300Mi"}})
        );
    }

    #[test]
    fn claims_should_keep_their_storage_request_within_range() {
        let items =
            vec![json!({"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "max": {"storage": "5Gi"}})];
        let claim = |storage: &str| json!({"spec": {"resources": {"requests": {"storage": storage}}}});
        assert_eq!(
            claim_reasons(&items, &claim("500Mi")),
            ["minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi"]
        );
        assert_eq!(
            claim_reasons(&items, &claim("10Gi")),
            ["maximum storage usage per PersistentVolumeClaim is 5Gi, but request is 10Gi"]
        );
        assert!(claim_reasons(&items, &claim("2Gi")).is_empty());
    }

    #[test]
    fn several_reasons_should_be_bracketed_once_each() {
        assert_eq!(go_aggregate(&["a".into()]), "a");
        assert_eq!(go_aggregate(&["a".into(), "b".into(), "a".into()]), "[a, b]");
    }
}
