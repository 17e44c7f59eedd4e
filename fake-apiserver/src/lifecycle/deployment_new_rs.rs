//! The Deployment controller's new ReplicaSet (`pkg/controller/deployment/sync.go`:
//! `getAllReplicaSetsAndSyncRevision`, `getNewReplicaSet`): the ReplicaSet of the current template
//! found and its annotations kept up to date, or made — named after the template's
//! `pod-template-hash` (`semantics/template_hash.rs`), with the collision count raised when
//! another ReplicaSet holds the name — and the Deployment's revision and conditions with it.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::controller_refs::{self, Owner};
use crate::lifecycle::deployment_sync::{
    self, Conflict, DeploymentSync, has_progress_deadline, set_status, status_of, write_status,
};
use crate::lifecycle::deployment_util as util;
use crate::lifecycle::writes::Writes;
use crate::semantics::template_hash::pod_template_hash;
use crate::storage::State;
use crate::storage::object;

/// The new ReplicaSet, if any, and all the others.
pub(super) type Sets = (Option<Arc<Value>>, Vec<Arc<Value>>);

/// `getAllReplicaSetsAndSyncRevision`: the new ReplicaSet (made when `create` and missing) and
/// all the others.
pub(super) fn new_and_old(
    state: &mut State,
    sync: &mut DeploymentSync,
    sets: &[Arc<Value>],
    create: bool,
) -> Result<Sets, Conflict> {
    let found = util::find_new(&sync.deployment, sets);
    let old: Vec<Arc<Value>> = sets
        .iter()
        .filter(|rs| found.as_ref().is_none_or(|new| object::uid(new) != object::uid(rs)))
        .cloned()
        .collect();
    let new_revision = old.iter().map(|rs| util::revision(rs)).max().unwrap_or(0) + 1;
    let new_rs = match found {
        Some(existing) => Some(sync_existing(state, sync, existing, new_revision)?),
        None if create => create_new(state, sync, &old, new_revision)?,
        None => None,
    };
    Ok((new_rs, old))
}

/// `getNewReplicaSet` for a ReplicaSet that exists: its annotations and `minReadySeconds` brought
/// up to date, else the Deployment's revision and a `FoundNewReplicaSet` condition.
fn sync_existing(
    state: &mut State,
    sync: &mut DeploymentSync,
    existing: Arc<Value>,
    revision: i64,
) -> Result<Arc<Value>, Conflict> {
    let mut copy = (*existing).clone();
    let annotations_changed = util::set_new_rs_annotations(&sync.deployment, &mut copy, revision, true);
    let min_ready = |object: &Value| {
        object
            .pointer("/spec/minReadySeconds")
            .and_then(Value::as_i64)
            .unwrap_or(0)
    };
    let wanted = min_ready(&sync.deployment);
    if annotations_changed || min_ready(&copy) != wanted {
        copy["spec"]["minReadySeconds"] = json!(wanted);
        return state
            .update_object(&sync.replica_sets, existing, copy, Some(CONTROLLER_MANAGER), None)
            .map_err(|_| Conflict);
    }
    let rs_revision = util::annotation(&existing, util::REVISION)
        .unwrap_or_default()
        .to_owned();
    let mut needs_update = set_revision(&mut sync.deployment, &rs_revision);
    let mut status = status_of(&sync.deployment);
    if has_progress_deadline(&sync.deployment) && util::condition(&status, "Progressing").is_none() {
        let message = format!("Found new replica set {:?}", object::name(&existing));
        util::set_condition(
            &mut status,
            util::new_condition("Progressing", "True", "FoundNewReplicaSet", &message),
        );
        set_status(&mut sync.deployment, status);
        needs_update = true;
    }
    if needs_update {
        write_status(state, sync)?;
    }
    Ok(existing)
}

/// `SetDeploymentRevision`: whether the annotation changed.
fn set_revision(deployment: &mut Value, revision: &str) -> bool {
    if util::annotation(deployment, util::REVISION) == Some(revision) {
        return false;
    }
    let meta = object::meta_mut(deployment);
    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
    annotations[util::REVISION] = json!(revision);
    true
}

/// `getNewReplicaSet` creating the ReplicaSet of the current template, sized as the strategy
/// allows, with the events and the `NewReplicaSetCreated` condition Go records.
fn create_new(
    state: &mut State,
    sync: &mut DeploymentSync,
    old: &[Arc<Value>],
    revision: i64,
) -> Result<Option<Arc<Value>>, Conflict> {
    let deployment = &sync.deployment;
    let collisions = deployment.pointer("/status/collisionCount").and_then(Value::as_i64);
    let mut template = deployment
        .pointer("/spec/template")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let hash = pod_template_hash(&template, collisions, state.options.minor());
    object::meta_mut(&mut template)
        .entry("labels")
        .or_insert_with(|| json!({}))[util::HASH_LABEL] = json!(hash);
    let mut selector = deployment
        .pointer("/spec/selector")
        .cloned()
        .unwrap_or_else(|| json!({}));
    if let Some(selector) = selector.as_object_mut() {
        selector.entry("matchLabels").or_insert_with(|| json!({}))[util::HASH_LABEL] = json!(hash);
    }
    let owner = Owner {
        api_version: "apps/v1",
        kind: "Deployment",
        object: deployment,
    };
    let name = format!("{}-{hash}", object::name(deployment));
    let mut spec = json!({"replicas": 0, "selector": selector, "template": template.clone()});
    if let Some(seconds) = deployment.pointer("/spec/minReadySeconds") {
        spec["minReadySeconds"] = seconds.clone();
    }
    let mut new_rs = json!({
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": object::namespace(deployment),
            "ownerReferences": [owner.controller_ref()], "labels": template["metadata"]["labels"]},
        "spec": spec,
    });
    let all: Vec<Arc<Value>> = old.iter().cloned().chain([Arc::new(new_rs.clone())]).collect();
    let size = util::new_rs_replicas(deployment, &all, &new_rs);
    new_rs["spec"]["replicas"] = json!(size);
    util::set_new_rs_annotations(deployment, &mut new_rs, revision, false);
    let namespace = object::namespace(deployment).to_owned();
    let (created, already) =
        match state.create_object(&sync.replica_sets, Some(&namespace), new_rs, Some(CONTROLLER_MANAGER)) {
            Ok(created) => (created, false),
            Err(status) if status.code == 409 => (adopt_existing(state, sync, &name)?, true),
            Err(status) => {
                let message = format!("Failed to create new replica set {name:?}: {}", status.message);
                if has_progress_deadline(&sync.deployment) {
                    let mut current = status_of(&sync.deployment);
                    util::set_condition(
                        &mut current,
                        util::new_condition("Progressing", "False", "ReplicaSetCreateError", &message),
                    );
                    set_status(&mut sync.deployment, current);
                    let _ = write_status(state, sync);
                }
                deployment_sync::event(state, sync, "Warning", "ReplicaSetCreateError", &message);
                return Err(Conflict);
            }
        };
    if !already && size > 0 {
        let message = format!("Scaled up replica set {} to {size}", object::name(&created));
        deployment_sync::event(state, sync, "Normal", "ScalingReplicaSet", &message);
    }
    let mut needs_update = set_revision(&mut sync.deployment, &revision.to_string());
    if !already && has_progress_deadline(&sync.deployment) {
        let message = format!("Created new replica set {:?}", object::name(&created));
        let mut status = status_of(&sync.deployment);
        util::set_condition(
            &mut status,
            util::new_condition("Progressing", "True", "NewReplicaSetCreated", &message),
        );
        set_status(&mut sync.deployment, status);
        needs_update = true;
    }
    if needs_update {
        write_status(state, sync)?;
    }
    Ok(Some(created))
}

/// A ReplicaSet of that name exists: it is the new one if the Deployment controls it with the
/// same template; else the hash collided and the collision count goes up.
fn adopt_existing(state: &mut State, sync: &mut DeploymentSync, name: &str) -> Result<Arc<Value>, Conflict> {
    let namespace = object::namespace(&sync.deployment).to_owned();
    let existing = state
        .object(&sync.replica_sets, Some(&namespace), name)
        .ok_or(Conflict)?;
    let template = sync.deployment.pointer("/spec/template").unwrap_or(&Value::Null);
    if controller_refs::controller_uid(&existing) == Some(object::uid(&sync.deployment))
        && util::equal_ignore_hash(existing.pointer("/spec/template").unwrap_or(&Value::Null), template)
    {
        return Ok(existing);
    }
    let mut status = status_of(&sync.deployment);
    let count = status.get("collisionCount").and_then(Value::as_i64).unwrap_or(0) + 1;
    status.insert("collisionCount".to_owned(), json!(count));
    set_status(&mut sync.deployment, status);
    let _ = write_status(state, sync);
    Err(Conflict)
}
