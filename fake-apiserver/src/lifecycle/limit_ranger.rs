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

use std::cmp::Ordering;

use serde_json::{Value, json};

use crate::semantics::quantity::Quantity;
use crate::semantics::resource_list::{ResourceList, container_resources};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;

/// The annotation naming what the plugin defaulted (`limitRangerAnnotation`).
const ANNOTATION: &str = "kubernetes.io/limit-ranger";

/// `resource.MaxMilliValue`: past it a milli-value overflows.
const MAX_MILLI_VALUE: i64 = i64::MAX / 1000;

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
                &aggregate(reasons),
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
                        reasons.extend(constraints(item, "Container", &requests, &limits));
                    }
                }
            }
            "Pod" => {
                let requests = crate::semantics::resource_list::pod_requests(spec, false);
                let limits = crate::semantics::resource_list::pod_limits(spec, false);
                reasons.extend(constraints(item, "Pod", &requests, &limits));
            }
            _ => {}
        }
    }
    reasons
}

/// The item's `min`, `max` and `maxLimitRequestRatio` against a container's or a pod's requests
/// and limits.
fn constraints(item: &Value, kind: &str, requests: &ResourceList, limits: &ResourceList) -> Vec<String> {
    let mut reasons = Vec::new();
    for (name, enforced) in ResourceList::from_json(item.get("min")).iter() {
        reasons.extend(min_constraint(kind, name, enforced, requests, Some(limits)));
    }
    for (name, enforced) in ResourceList::from_json(item.get("max")).iter() {
        reasons.extend(max_constraint(kind, name, enforced, requests, limits));
    }
    for (name, enforced) in ResourceList::from_json(item.get("maxLimitRequestRatio")).iter() {
        reasons.extend(ratio_constraint(kind, name, enforced, requests, limits));
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
            let Some(request) = requests.get(name) else {
                reasons.push(format!(
                    "maximum {name} usage per {kind} is {enforced}.  No request is specified"
                ));
                continue;
            };
            let (observed, _, limit) = common_precision(request, &Quantity::from_int(0), enforced);
            if observed > limit {
                reasons.push(format!(
                    "maximum {name} usage per {kind} is {enforced}, but request is {request}"
                ));
            }
        }
    }
    reasons
}

/// `minConstraint`.
fn min_constraint(
    kind: &str,
    name: &str,
    enforced: &Quantity,
    requests: &ResourceList,
    limits: Option<&ResourceList>,
) -> Option<String> {
    let Some(request) = requests.get(name) else {
        return Some(format!(
            "minimum {name} usage per {kind} is {enforced}.  No request is specified"
        ));
    };
    let limit = limits.and_then(|l| l.get(name));
    let zero = Quantity::from_int(0);
    let (observed_request, observed_limit, min) = common_precision(request, limit.unwrap_or(&zero), enforced);
    if observed_request < min {
        return Some(format!(
            "minimum {name} usage per {kind} is {enforced}, but request is {request}"
        ));
    }
    match limit {
        Some(limit) if observed_limit < min => Some(format!(
            "minimum {name} usage per {kind} is {enforced}, but limit is {limit}"
        )),
        _ => None,
    }
}

/// `maxConstraint`: a limit is needed, and neither it nor the request may pass the maximum.
fn max_constraint(
    kind: &str,
    name: &str,
    enforced: &Quantity,
    requests: &ResourceList,
    limits: &ResourceList,
) -> Option<String> {
    let Some(limit) = limits.get(name) else {
        return Some(format!(
            "maximum {name} usage per {kind} is {enforced}.  No limit is specified"
        ));
    };
    let zero = Quantity::from_int(0);
    let request = requests.get(name);
    let (observed_request, observed_limit, max) = common_precision(request.unwrap_or(&zero), limit, enforced);
    if observed_limit > max {
        return Some(format!(
            "maximum {name} usage per {kind} is {enforced}, but limit is {limit}"
        ));
    }
    match request {
        Some(request) if observed_request > max => Some(format!(
            "maximum {name} usage per {kind} is {enforced}, but request is {request}"
        )),
        _ => None,
    }
}

/// `limitRequestRatioConstraint`: the limit over the request, at most the enforced ratio.
fn ratio_constraint(
    kind: &str,
    name: &str,
    enforced: &Quantity,
    requests: &ResourceList,
    limits: &ResourceList,
) -> Option<String> {
    let zero = Quantity::from_int(0);
    let (request, limit) = (requests.get(name), limits.get(name));
    let (observed_request, observed_limit, _) =
        common_precision(request.unwrap_or(&zero), limit.unwrap_or(&zero), enforced);
    if request.is_none() || observed_request == 0 {
        return Some(format!(
            "{name} max limit to request ratio per {kind} is {enforced}, but no request is specified or request is 0"
        ));
    }
    if limit.is_none() || observed_limit == 0 {
        return Some(format!(
            "{name} max limit to request ratio per {kind} is {enforced}, but no limit is specified or limit is 0"
        ));
    }
    let shown = observed_limit as f64 / observed_request as f64;
    let (observed, allowed) = if enforced.value() <= MAX_MILLI_VALUE {
        (shown * 1000.0, enforced.milli_value() as f64)
    } else {
        (shown, enforced.value() as f64)
    };
    (observed.partial_cmp(&allowed) == Some(Ordering::Greater)).then(|| {
        format!("{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {shown:.6}")
    })
}

/// `requestLimitEnforcedValues`: the three values in milli-units where none overflows them,
/// else in units.
fn common_precision(request: &Quantity, limit: &Quantity, enforced: &Quantity) -> (i64, i64, i64) {
    let values = (request.value(), limit.value(), enforced.value());
    if values.0 <= MAX_MILLI_VALUE && values.1 <= MAX_MILLI_VALUE && values.2 <= MAX_MILLI_VALUE {
        (request.milli_value(), limit.milli_value(), enforced.milli_value())
    } else {
        values
    }
}

/// `utilerrors.NewAggregate(...).Error()`: one reason alone, several in brackets, each once.
fn aggregate(reasons: Vec<String>) -> String {
    let mut unique: Vec<String> = Vec::new();
    for reason in reasons {
        if !unique.contains(&reason) {
            unique.push(reason);
        }
    }
    match unique.as_slice() {
        [one] => one.clone(),
        _ => format!("[{}]", unique.join(", ")),
    }
}

fn item_type(item: &Value) -> &str {
    item.get("type").and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(value: Value) -> ResourceList {
        ResourceList::from_json(Some(&value))
    }

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
    fn container_constraints_should_read_as_go_words_them() {
        let item = json!({"type": "Container", "min": {"cpu": "50m"}, "max": {"memory": "1Gi"}, "maxLimitRequestRatio": {"cpu": "4"}});
        let reasons = constraints(
            &item,
            "Container",
            &list(json!({"cpu": "10m"})),
            &list(json!({"cpu": "900m", "memory": "2Gi"})),
        );
        assert_eq!(
            reasons,
            [
                "minimum cpu usage per Container is 50m, but request is 10m",
                "maximum memory usage per Container is 1Gi, but limit is 2Gi",
                "cpu max limit to request ratio per Container is 4, but provided ratio is 90.000000",
            ]
        );
        let missing = constraints(&item, "Container", &list(json!({})), &list(json!({})));
        assert_eq!(
            missing,
            [
                "minimum cpu usage per Container is 50m.  No request is specified",
                "maximum memory usage per Container is 1Gi.  No limit is specified",
                "cpu max limit to request ratio per Container is 4, but no request is specified or request is 0",
            ]
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
        assert_eq!(aggregate(vec!["a".into()]), "a");
        assert_eq!(aggregate(vec!["a".into(), "b".into(), "a".into()]), "[a, b]");
    }
}
