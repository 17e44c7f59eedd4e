//! The ControllerRevisions a StatefulSet or DaemonSet keeps of its templates
//! (`pkg/controller/history/controller_history.go`: `NewControllerRevision`,
//! `HashControllerRevision`, `SortControllerRevisions`, `EqualRevision`, `FindEqualRevisions`,
//! `ListControllerRevisions`, `CreateControllerRevision` with its collision loop,
//! `UpdateControllerRevision`, `AdoptControllerRevision`; and of the controllers that keep them,
//! `getPatch` and `ApplyRevision` of `statefulset/stateful_set_utils.go`, `constructHistory` and
//! `snapshot` of `daemon/update.go`).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_refs::{self, Owner};
use crate::lifecycle::writes::Writes;
use crate::semantics::go_json_writer;
use crate::semantics::go_marshal;
use crate::semantics::go_types::pod_template_types;
use crate::semantics::label_selector_validation::as_selector;
use crate::semantics::selector::LabelSelector;
use crate::semantics::template_hash::{controller_revision_hash, pod_template_hash};
use crate::storage::State;
use crate::storage::object;

/// The label a revision carries its hash in (`ControllerRevisionHashLabel`).
pub(crate) const HASH_LABEL: &str = "controller.kubernetes.io/hash";
/// The label a DaemonSet's revisions and pods carry its hash in (`DefaultDaemonSetUniqueLabelKey`).
const DAEMONSET_HASH_LABEL: &str = "controller-revision-hash";

/// A revision's number (`.revision`).
pub(crate) fn number(revision: &Value) -> i64 {
    revision.get("revision").and_then(Value::as_i64).unwrap_or(0)
}

/// The bytes of a revision's data, as `Data.Raw` holds them (encoding/json's compact form).
fn data_bytes(revision: &Value) -> Vec<u8> {
    go_json_writer::to_vec(revision.get("data").unwrap_or(&Value::Null))
}

/// `ListControllerRevisions`: the revisions of the owner's namespace its selector selects that it
/// controls or nothing controls, sorted by `SortControllerRevisions` (number, then creation
/// time, then name).
pub(crate) fn list(state: &State, owner: &Value, selector: &LabelSelector) -> Vec<Arc<Value>> {
    let mut revisions: Vec<Arc<Value>> = state
        .objects_in("apps", "controllerrevisions", object::namespace(owner))
        .into_iter()
        .filter(|revision| selector.matches(object::labels(revision)))
        .filter(|revision| controller_refs::controller_uid(revision).is_none_or(|uid| uid == object::uid(owner)))
        .collect();
    revisions.sort_by(|a, b| {
        let created = |r: &Value| {
            r.pointer("/metadata/creationTimestamp")
                .and_then(Value::as_str)
                .and_then(object::timestamp_seconds)
                .unwrap_or(0)
        };
        number(a)
            .cmp(&number(b))
            .then_with(|| created(a).cmp(&created(b)))
            .then_with(|| object::name(a).cmp(object::name(b)))
    });
    revisions
}

/// `AdoptControllerRevision` of each revision nothing controls; the adopted ones replace them.
pub(crate) fn adopt_orphans(state: &mut State, owner: &Owner<'_>, revisions: &mut [Arc<Value>]) {
    let info = state.info("apps", "v1", "controllerrevisions");
    for revision in revisions
        .iter_mut()
        .filter(|r| controller_refs::controller_of(r).is_none())
    {
        let mut adopted = (**revision).clone();
        let mut references = object::owner_references(revision).to_vec();
        references.push(owner.controller_ref());
        object::meta_mut(&mut adopted).insert("ownerReferences".to_owned(), Value::Array(references));
        if let Ok(stored) = state.update_object(&info, revision.clone(), adopted, Some(CONTROLLER_MANAGER), None) {
            *revision = stored;
        }
    }
}

/// `NewControllerRevision`: the owner's revision `number` of `data`, labelled with the
/// template's labels and the hash, named `<owner>-<hash>`.
pub(crate) fn new_revision(
    owner: &Owner<'_>,
    template_labels: Option<&Map<String, Value>>,
    data: Value,
    number: i64,
    collision_count: i64,
) -> Value {
    let mut revision = json!({
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": { "ownerReferences": [owner.controller_ref()] },
        "data": data,
        "revision": number,
    });
    let mut labels = template_labels.cloned().unwrap_or_default();
    let hash = controller_revision_hash(&data_bytes(&revision), collision_count);
    labels.insert(HASH_LABEL.to_owned(), json!(hash));
    let meta = object::meta_mut(&mut revision);
    meta.insert(
        "name".to_owned(),
        json!(format!("{}-{hash}", object::name(owner.object))),
    );
    meta.insert("labels".to_owned(), Value::Object(labels));
    revision
}

/// `getPatch` of a StatefulSet or DaemonSet: its template as encoding/json writes it, marked to
/// be put back whole.
pub(crate) fn template_patch(owner: &Value, minor: u32) -> Value {
    let template = owner.pointer("/spec/template").cloned().unwrap_or_else(|| json!({}));
    let mut encoded = go_marshal::encode(pod_template_types(minor), &template);
    if let Some(fields) = encoded.as_object_mut() {
        fields.insert("$patch".to_owned(), json!("replace"));
    }
    json!({"spec": {"template": encoded}})
}

/// `ApplyRevision`: the set with the revision's template.
pub(crate) fn apply_revision(set: &Value, revision: &Value) -> Value {
    let mut applied = set.clone();
    if let Some(template) = revision.pointer("/data/spec/template") {
        let mut template = strip_nulls(template);
        if let Some(fields) = template.as_object_mut() {
            fields.remove("$patch");
        }
        applied["spec"]["template"] = template;
    }
    applied
}

/// A decode into the Go type and back: a `null` is the zero value, left out.
fn strip_nulls(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), strip_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_nulls).collect()),
        other => other.clone(),
    }
}

/// `EqualRevision`: the same data bytes (the hash labels are not numbers, so never compared).
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    data_bytes(a) == data_bytes(b)
}

/// `CreateControllerRevision`: created under the hash of `collision_count`; a name taken by other
/// data counts a collision and tries the next hash, one taken by the same data is that revision.
pub(crate) fn create(
    state: &mut State,
    owner: &Value,
    revision: &Value,
    collision_count: &mut i64,
) -> Option<Arc<Value>> {
    let info = state.info("apps", "v1", "controllerrevisions");
    let namespace = object::namespace(owner).to_owned();
    loop {
        let hash = controller_revision_hash(&data_bytes(revision), *collision_count);
        let mut attempt = revision.clone();
        object::meta_mut(&mut attempt).insert("name".to_owned(), json!(format!("{}-{hash}", object::name(owner))));
        match state.create_object(&info, Some(&namespace), attempt.clone(), Some(CONTROLLER_MANAGER)) {
            Ok(created) => return Some(created),
            Err(status) if status.code == 409 => {
                let existing = state.object(&info, Some(&namespace), object::name(&attempt))?;
                if equal(&existing, revision) {
                    return Some(existing);
                }
                *collision_count += 1;
            }
            Err(status) => {
                tracing::debug!(%status, "could not create the revision");
                return None;
            }
        }
    }
}

/// The DaemonSet controller's `constructHistory` and `snapshot` (`pkg/controller/daemon/update.go`),
/// as far as a revision for the current template: found by its data, or created as revision
/// `max + 1` named by the template's `ComputeHash`, with the DaemonSet's annotations.
pub(crate) fn daemonset_revision(state: &mut State, daemonset: &Value) {
    let Some(selector) = as_selector(daemonset.pointer("/spec/selector")) else {
        return;
    };
    let minor = state.options.minor();
    let data = template_patch(daemonset, minor);
    let revisions = list(state, daemonset, &selector);
    let wanted = json!({"data": data});
    if revisions.iter().any(|r| equal(r, &wanted)) {
        return;
    }
    let collision_count = daemonset.pointer("/status/collisionCount").and_then(Value::as_i64);
    let hash = pod_template_hash(
        daemonset.pointer("/spec/template").unwrap_or(&Value::Null),
        collision_count,
        minor,
    );
    let mut labels = object::labels(daemonset.pointer("/spec/template").unwrap_or(&Value::Null))
        .cloned()
        .unwrap_or_default();
    labels.insert(DAEMONSET_HASH_LABEL.to_owned(), json!(hash));
    let owner = Owner {
        api_version: "apps/v1",
        kind: "DaemonSet",
        object: daemonset,
    };
    let mut revision = json!({
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": format!("{}-{hash}", object::name(daemonset)),
            "labels": labels,
            "ownerReferences": [owner.controller_ref()],
        },
        "data": data,
        "revision": revisions.iter().map(|r| number(r)).max().unwrap_or(0) + 1,
    });
    if let Some(annotations) = object::annotations(daemonset).filter(|a| !a.is_empty()) {
        object::meta_mut(&mut revision).insert("annotations".to_owned(), Value::Object(annotations.clone()));
    }
    let info = state.info("apps", "v1", "controllerrevisions");
    if let Err(status) = state.create_object(
        &info,
        Some(object::namespace(daemonset)),
        revision,
        Some(CONTROLLER_MANAGER),
    ) {
        tracing::debug!(%status, "could not create the DaemonSet's revision");
    }
}

/// `UpdateControllerRevision`: the revision renumbered (a rollback to it).
pub(crate) fn renumber(state: &mut State, revision: &Arc<Value>, number: i64) -> Arc<Value> {
    if self::number(revision) == number {
        return revision.clone();
    }
    let info = state.info("apps", "v1", "controllerrevisions");
    let mut updated = (**revision).clone();
    updated["revision"] = json!(number);
    state
        .update_object(&info, revision.clone(), updated, Some(CONTROLLER_MANAGER), None)
        .unwrap_or_else(|_| revision.clone())
}

/// `DeleteControllerRevision`.
pub(crate) fn delete(state: &mut State, revision: &Value) {
    let info = state.info("apps", "v1", "controllerrevisions");
    state.delete_object(&info, Some(object::namespace(revision)), object::name(revision), None);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The revisions kube-controller-manager v1.28.7 and v1.31.2 named for holdout-24's
    /// StatefulSet, before and after its template's annotation changed.
    #[test]
    fn a_statefulset_revision_should_be_named_as_kube_controller_manager_names_it() {
        let template = |note: &str| {
            json!({
                "metadata": {"creationTimestamp": null, "labels": {"app": "web"}, "annotations": {"note": note}},
                "spec": {
                    "containers": [{
                        "name": "main", "image": "registry.example/web:1", "resources": {},
                        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                        "imagePullPolicy": "IfNotPresent",
                    }],
                    "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                    "securityContext": {}, "schedulerName": "default-scheduler",
                },
            })
        };
        for minor in [28, 31] {
            for (note, name) in [("one", "web-5b4b64bf67"), ("two", "web-5df976b7cc")] {
                let set = json!({"metadata": {"name": "web", "uid": "u"}, "spec": {"template": template(note)}});
                let owner = Owner {
                    api_version: "apps/v1",
                    kind: "StatefulSet",
                    object: &set,
                };
                let revision = new_revision(&owner, None, template_patch(&set, minor), 1, 0);
                assert_eq!(object::name(&revision), name, "1.{minor}, note {note}");
            }
        }
    }
}
