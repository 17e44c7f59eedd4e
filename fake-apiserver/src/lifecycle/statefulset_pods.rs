//! A StatefulSet's pods and their claims (`pkg/controller/statefulset/stateful_set_utils.go`:
//! the pod's identity, storage and revision, `newVersionedStatefulSetPod`,
//! `getPersistentVolumeClaims`, the claim retention policy's owner references;
//! `stateful_pod_control.go`: `CreateStatefulPod`, `UpdateStatefulPod`, `DeleteStatefulPod`,
//! `createPersistentVolumeClaims`, `PodClaimIsStale`, with their events).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_refs::Owner;
use crate::lifecycle::events;
use crate::lifecycle::pod_control;
use crate::lifecycle::writes::Writes;
use crate::storage::State;
use crate::storage::object;

/// The event source of the controller's recorder.
pub(crate) const COMPONENT: &str = "statefulset-controller";
/// The label a pod carries its revision in (`StatefulSetRevisionLabel`).
pub(crate) const REVISION_LABEL: &str = "controller-revision-hash";
const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

/// The StatefulSet as the owner of what it makes.
pub(crate) fn owner(set: &Value) -> Owner<'_> {
    Owner {
        api_version: "apps/v1",
        kind: "StatefulSet",
        object: set,
    }
}

/// `getParentNameAndOrdinal`: the name before the last `-<digits>` and those digits (-1 when
/// they are not an int32; `None` without them).
pub(crate) fn parent_and_ordinal(pod: &Value) -> Option<(&str, i64)> {
    let name = object::name(pod);
    let digits = name.len() - name.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == name.len() || digits == 0 || !name[..digits].ends_with('-') {
        return None;
    }
    let ordinal = name[digits..].parse::<i32>().map_or(-1, i64::from);
    Some((&name[..digits - 1], ordinal))
}

/// `getOrdinal`: -1 for a name without one.
pub(crate) fn ordinal(pod: &Value) -> i64 {
    parent_and_ordinal(pod).map_or(-1, |(_, ordinal)| ordinal)
}

/// `isMemberOf`: the pod's name is the set's and an ordinal.
pub(crate) fn is_member_of(set: &Value, pod: &Value) -> bool {
    parent_and_ordinal(pod).is_some_and(|(parent, _)| parent == object::name(set))
}

/// `getStartOrdinal`: `spec.ordinals.start`, or 0.
pub(crate) fn start_ordinal(set: &Value) -> i64 {
    set.pointer("/spec/ordinals/start").and_then(Value::as_i64).unwrap_or(0)
}

/// `spec.replicas`, defaulted to 1.
pub(crate) fn replicas(set: &Value) -> i64 {
    set.pointer("/spec/replicas").and_then(Value::as_i64).unwrap_or(1)
}

/// `podInOrdinalRange`.
pub(crate) fn in_ordinal_range(set: &Value, pod: &Value) -> bool {
    let ordinal = ordinal(pod);
    ordinal >= start_ordinal(set) && ordinal < start_ordinal(set) + replicas(set)
}

fn pod_name(set: &Value, ordinal: i64) -> String {
    format!("{}-{ordinal}", object::name(set))
}

fn claim_templates(set: &Value) -> &[Value] {
    set.pointer("/spec/volumeClaimTemplates")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn claim_name(set: &Value, template: &Value, ordinal: i64) -> String {
    format!("{}-{}-{ordinal}", object::name(template), object::name(set))
}

/// `getPodRevision`: the revision label, or "".
pub(crate) fn revision_of(pod: &Value) -> &str {
    object::labels(pod)
        .and_then(|labels| labels.get(REVISION_LABEL))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// `identityMatches`: name, namespace and pod-name label of its ordinal in the set.
pub(crate) fn identity_matches(set: &Value, pod: &Value) -> bool {
    let ordinal = ordinal(pod);
    let label = object::labels(pod)
        .and_then(|l| l.get(POD_NAME_LABEL))
        .and_then(Value::as_str);
    ordinal >= 0
        && is_member_of(set, pod)
        && object::name(pod) == pod_name(set, ordinal)
        && object::namespace(pod) == object::namespace(set)
        && label == Some(object::name(pod))
}

/// `storageMatches`: a volume of each claim template, of the ordinal's claim.
pub(crate) fn storage_matches(set: &Value, pod: &Value) -> bool {
    let ordinal = ordinal(pod);
    let volumes = pod.pointer("/spec/volumes").and_then(Value::as_array);
    ordinal >= 0
        && claim_templates(set).iter().all(|template| {
            let volume = volumes
                .into_iter()
                .flatten()
                .find(|v| v.get("name").and_then(Value::as_str) == Some(object::name(template)));
            volume
                .and_then(|v| v.pointer("/persistentVolumeClaim/claimName"))
                .and_then(Value::as_str)
                == Some(claim_name(set, template, ordinal).as_str())
        })
}

/// `getPersistentVolumeClaims`: each template's claim for the pod's ordinal, labelled with the
/// selector's `matchLabels`.
fn claims_for(set: &Value, ordinal: i64) -> Vec<Value> {
    let match_labels = set.pointer("/spec/selector/matchLabels").and_then(Value::as_object);
    claim_templates(set)
        .iter()
        .map(|template| {
            let mut claim = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim"});
            claim["metadata"] = template.get("metadata").cloned().unwrap_or_else(|| json!({}));
            claim["spec"] = template.get("spec").cloned().unwrap_or_else(|| json!({}));
            let name = claim_name(set, template, ordinal);
            let meta = object::meta_mut(&mut claim);
            meta.insert("name".to_owned(), json!(name));
            meta.insert("namespace".to_owned(), json!(object::namespace(set)));
            let labels = meta.entry("labels").or_insert_with(|| json!({}));
            if let (Some(labels), Some(wanted)) = (labels.as_object_mut(), match_labels) {
                labels.extend(wanted.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            claim
        })
        .collect()
}

/// `updateIdentity`: name, namespace, and the pod-name and pod-index labels.
fn update_identity(set: &Value, pod: &mut Value) {
    let ordinal = ordinal(pod);
    let name = pod_name(set, ordinal);
    let meta = object::meta_mut(pod);
    meta.insert("name".to_owned(), json!(name));
    meta.insert("namespace".to_owned(), json!(object::namespace(set)));
    let labels = meta.entry("labels").or_insert_with(|| json!({}));
    if let Some(labels) = labels.as_object_mut() {
        labels.insert(POD_NAME_LABEL.to_owned(), json!(name));
        labels.insert(POD_INDEX_LABEL.to_owned(), json!(ordinal.to_string()));
    }
}

/// `updateStorage`: a volume for each claim first, then the pod's other volumes.
fn update_storage(set: &Value, pod: &mut Value) {
    let ordinal = ordinal(pod);
    let templates: Vec<&str> = claim_templates(set).iter().map(object::name).collect();
    let mut volumes: Vec<Value> = claim_templates(set)
        .iter()
        .map(|template| {
            json!({"name": object::name(template), "persistentVolumeClaim": {"claimName": claim_name(set, template, ordinal)}})
        })
        .collect();
    let current = pod
        .pointer("/spec/volumes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    volumes.extend(
        current
            .into_iter()
            .filter(|v| !templates.contains(&v.get("name").and_then(Value::as_str).unwrap_or(""))),
    );
    if !volumes.is_empty() {
        pod["spec"]["volumes"] = Value::Array(volumes);
    }
}

/// `newStatefulSetPod` of `set` (whose template is a revision's) at `ordinal`, labelled with
/// `revision`: `GetPodFromTemplate`, then identity (hostname, subdomain) and storage.
pub(crate) fn new_pod(set: &Value, ordinal: i64, revision: &str) -> Value {
    let template = set.pointer("/spec/template").cloned().unwrap_or_default();
    let mut pod = pod_control::pod_from_template(&template, &owner(set));
    object::meta_mut(&mut pod).insert("name".to_owned(), json!(pod_name(set, ordinal)));
    update_identity(set, &mut pod);
    pod["spec"]["hostname"] = json!(pod_name(set, ordinal));
    if let Some(service) = set
        .pointer("/spec/serviceName")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    {
        pod["spec"]["subdomain"] = json!(service);
    }
    update_storage(set, &mut pod);
    let labels = object::meta_mut(&mut pod).entry("labels").or_insert_with(|| json!({}));
    if let Some(labels) = labels.as_object_mut() {
        labels.insert(REVISION_LABEL.to_owned(), json!(revision));
    }
    pod
}

/// The set's events about a pod (`recordPodEvent`) or a claim (`recordClaimEvent`).
fn record(state: &mut State, set: &Value, verb: &str, what: &str, failure: Option<&str>) {
    let info = state.info("apps", "v1", "statefulsets");
    let title = format!("{}{}", verb[..1].to_uppercase(), &verb[1..]);
    let set_name = object::name(set);
    let (kind, reason, message) = match failure {
        None if what.starts_with("Claim") => (
            "Normal",
            format!("Successful{title}"),
            format!("{verb} {what} in StatefulSet {set_name} success"),
        ),
        None => (
            "Normal",
            format!("Successful{title}"),
            format!("{verb} {what} in StatefulSet {set_name} successful"),
        ),
        Some(error) => (
            "Warning",
            format!("Failed{title}"),
            format!("{verb} {what} in StatefulSet {set_name} failed error: {error}"),
        ),
    };
    events::record(state, &info, set, kind, &reason, &message, COMPONENT);
}

/// `createPersistentVolumeClaims`: the pod's missing claims created; a claim being deleted is an
/// error.
pub(crate) fn create_claims(state: &mut State, set: &Value, pod: &Value) -> Result<(), String> {
    let info = state.info("", "v1", "persistentvolumeclaims");
    let mut errors = Vec::new();
    for claim in claims_for(set, ordinal(pod)) {
        let name = object::name(&claim).to_owned();
        match state.object(&info, Some(object::namespace(set)), &name) {
            Some(existing) if object::is_deleting(&existing) => errors.push(format!("pvc {name} is being deleted")),
            Some(_) => {}
            None => {
                let what = format!("Claim {name} Pod {}", object::name(pod));
                match state.create_object(&info, Some(object::namespace(set)), claim, Some(CONTROLLER_MANAGER)) {
                    Ok(_) => record(state, set, "create", &what, None),
                    Err(status) => {
                        let error = format!("failed to create PVC {name}: {}", status.message);
                        if status.code != 409 {
                            record(
                                state,
                                set,
                                "create",
                                &format!("Claim {name} for Pod {}", object::name(pod)),
                                Some(&status.message),
                            );
                        }
                        errors.push(error);
                    }
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join(", "))
    }
}

/// `CreateStatefulPod`: its claims, then the pod (the caller gives the claims their owners by
/// the retention policy, which needs the pod's uid). The pod made.
pub(crate) fn create_pod(state: &mut State, set: &Value, pod: Value) -> Result<Arc<Value>, String> {
    let what = format!("Pod {}", object::name(&pod));
    if let Err(error) = create_claims(state, set, &pod) {
        record(state, set, "create", &what, Some(&error));
        return Err(error);
    }
    let info = state.info("", "v1", "pods");
    match state.create_object(&info, Some(object::namespace(set)), pod, Some(CONTROLLER_MANAGER)) {
        Ok(created) => {
            record(state, set, "create", &what, None);
            Ok(created)
        }
        Err(status) if status.code == 409 => Err(status.message),
        Err(status) => {
            record(state, set, "create", &what, Some(&status.message));
            Err(status.message)
        }
    }
}

/// `UpdateStatefulPod`: identity and storage put right (missing claims created); the caller
/// puts the claims' owners right first.
pub(crate) fn update_pod(state: &mut State, set: &Value, pod: &Arc<Value>) -> Result<(), String> {
    let mut updated = (**pod).clone();
    if !identity_matches(set, pod) {
        update_identity(set, &mut updated);
    }
    if !storage_matches(set, pod) {
        update_storage(set, &mut updated);
        create_claims(state, set, &updated)?;
    }
    if updated == **pod {
        return Ok(());
    }
    let info = state.info("", "v1", "pods");
    let what = format!("Pod {}", object::name(pod));
    match state.update_object(&info, pod.clone(), updated, Some(CONTROLLER_MANAGER), None) {
        Ok(_) => {
            record(state, set, "update", &what, None);
            Ok(())
        }
        Err(status) => {
            record(state, set, "update", &what, Some(&status.message));
            Err(status.message)
        }
    }
}

/// `DeleteStatefulPod`.
pub(crate) fn delete_pod(state: &mut State, set: &Value, pod: &Value) {
    let info = state.info("", "v1", "pods");
    state.delete_object(&info, Some(object::namespace(pod)), object::name(pod), None);
    record(state, set, "delete", &format!("Pod {}", object::name(pod)), None);
}

/// The labels of the set's template, which its revisions carry.
pub(crate) fn template_labels(set: &Value) -> Option<&Map<String, Value>> {
    set.pointer("/spec/template/metadata/labels").and_then(Value::as_object)
}
