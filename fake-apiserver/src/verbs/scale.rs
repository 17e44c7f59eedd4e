//! The `/scale` subresource: an object's `autoscaling/v1` Scale view, its replicas written
//! through the resource's paths by a PUT or a patch, and server-side apply of a Scale, with
//! ownership of the replicas field moved between the object's managed fields and the Scale's own
//! view of them, as kube-apiserver's `ScaleHandler` does (`ToSubresource`, then `ToParent`).

use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock};

use serde_json::Value;

use crate::semantics::decoding::{self, Decoded};
use crate::semantics::fieldpath::{FieldPath, value_at};
use crate::semantics::managed_fields::{self, ManagedEntry};
use crate::semantics::scale_view::view;
use crate::semantics::validation;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;
use crate::verbs::applied_config::{check_applied, check_name};
use crate::verbs::apply::{ApplyRequest, Conflict, conflict_status};
use crate::verbs::options::{Ownership, WriteOpts};
use crate::verbs::write::Checked;
use crate::verbs::{read, write};

/// The group and version of every Scale.
const SCALE_API_VERSION: &str = "autoscaling/v1";

/// The type a `/scale` body is decoded and checked as, whatever the resource: kube-apiserver's
/// scale endpoints read and write `autoscaling/v1` Scales.
pub(crate) static BODY_TYPE: LazyLock<ResourceInfo> =
    LazyLock::new(|| ResourceInfo::builtin("autoscaling", "v1", "Scale", "scale"));

/// PATCH `/scale` with `application/apply-patch+yaml`: returns the Scale after the write.
pub(crate) fn apply(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    config: &Value,
    request: &ApplyRequest<'_>,
) -> Result<(Arc<Value>, bool), ApiStatus> {
    let paths = info.scale.as_ref().expect("route checked the scale subresource");
    // The endpoint's kind is Scale, and a Scale is what the fields are checked against.
    check_applied(config, SCALE_API_VERSION, "Scale")?;
    check_name(object::name(config), request.name)?;
    let findings = decoding::strict_findings(&BODY_TYPE, &mut Decoded::from(config.clone()), state.options.minor());
    decoding::enforce(findings, request.opts, ApiStatus::bad_request)?;
    let applied_replicas = match config.pointer("/spec/replicas") {
        None | Some(Value::Null) => None,
        Some(replicas) if replicas.is_i64() || replicas.is_u64() => Some(replicas.clone()),
        Some(other) => {
            let causes = [(
                "spec.replicas".to_owned(),
                format!("Invalid value: {other}: must be an integer"),
            )];
            return Err(ApiStatus::invalid(info, request.name, &causes));
        }
    };
    let old = parent(state, info, request.namespace, request.name)?;
    let replicas_in_object = field_path(&paths.spec_replicas);
    let parent_entries = managed_fields::read(&old);
    if !info.builtin && !parent_entries.iter().any(|e| e.fields.contains(&replicas_in_object)) {
        // With no manager of the replicas, the Scale has no managed fields, and the field
        // manager first records the live Scale as an update (`skipNonAppliedManager.Apply`),
        // which the custom resources' converter cannot convert: kube-apiserver answers a 500.
        return Err(ApiStatus::new(
            500,
            "",
            "failed to create manager for existing fields: failed to convert live object (/; autoscaling/v1, Kind=Scale) \
             to proper version: request to convert CR to an invalid group/version: autoscaling/v1",
        ));
    }
    write::check_resource_version(info, request.name, object::resource_version(config), &old)?;
    if let Some(replicas) = &applied_replicas {
        check_scale(info, request.name, replicas)?;
    }

    let replicas_in_scale = field_path(".spec.replicas");
    let parent = parent_entries;
    // ToSubresource: every manager of the object's replicas owns the Scale's.
    let mut scale_entries: Vec<ManagedEntry> = parent
        .iter()
        .filter(|e| e.fields.contains(&replicas_in_object))
        .map(|e| ManagedEntry {
            api_version: SCALE_API_VERSION.to_owned(),
            fields: BTreeSet::from([replicas_in_scale.clone()]),
            ..e.clone()
        })
        .collect();
    let own = |e: &ManagedEntry| {
        e.manager == request.manager && e.operation == "Apply" && e.subresource.as_deref() == Some("scale")
    };

    let current = view(info, &old);
    let applied: BTreeSet<FieldPath> = applied_replicas.iter().map(|_| replicas_in_scale.clone()).collect();
    let changes = |r: &Value| value_at(&current, &replicas_in_scale) != Some(r);
    if applied_replicas.as_ref().is_some_and(changes) {
        let conflicts: Vec<Conflict> = scale_entries
            .iter()
            .filter(|e| !own(e))
            .map(|e| Conflict::new(e, &replicas_in_scale))
            .collect();
        if !conflicts.is_empty() && !request.force {
            return Err(conflict_status(conflicts));
        }
        // Forced: the others let go of the replicas.
        scale_entries.retain(own);
    }
    // A replicas field the manager stops applying, which nobody else owns, is removed from the
    // Scale: its replicas become zero, and so do the object's.
    let released = scale_entries.iter().any(own) && applied.is_empty() && !scale_entries.iter().any(|e| !own(e));
    let replicas = match (&applied_replicas, released) {
        (Some(replicas), _) => Some(replicas.clone()),
        (None, true) => Some(Value::from(0)),
        (None, false) => None,
    };
    let mut new = (*old).clone();
    if let Some(replicas) = replicas {
        object::set_field(&mut new, &paths.spec_replicas, replicas);
    }
    let previous_time = scale_entries
        .iter()
        .find(|e| own(e))
        .map(|e| e.time.clone())
        .unwrap_or_default();
    let time = if new == *old { previous_time } else { object::now() };
    scale_entries.retain(|e| !own(e));
    if !applied.is_empty() {
        scale_entries.push(ManagedEntry {
            manager: request.manager.to_owned(),
            operation: "Apply".to_owned(),
            api_version: SCALE_API_VERSION.to_owned(),
            subresource: Some("scale".to_owned()),
            time,
            fields: applied,
        });
    }
    let entries = to_parent(&parent, &scale_entries, &replicas_in_object, &info.api_version());
    managed_fields::write(&mut new, &entries);
    let opts = WriteOpts {
        manager: None,
        ..request.opts.clone()
    };
    let stored = write::commit_update(state, info, old, new, Some("scale"), &opts, Ownership::Applied)?;
    Ok((Arc::new(view(info, &stored)), false))
}

/// The object whose `/scale` is asked for. A built-in kind's scale storage names itself in its
/// 404 (`deployments/scale.apps "x" not found`); a custom resource's names the resource.
pub(crate) fn parent(
    state: &State,
    info: &ResourceInfo,
    namespace: Option<&str>,
    name: &str,
) -> Result<Arc<Value>, ApiStatus> {
    read::get(state, info, namespace, name).map_err(|status| {
        if status.code != 404 || !info.builtin {
            return status;
        }
        let scale = ResourceInfo {
            plural: format!("{}/scale", info.plural),
            ..info.clone()
        };
        ApiStatus::not_found(&scale, name)
    })
}

/// PUT on `/scale`, of a body checked as a Scale ([`BODY_TYPE`]).
pub(crate) fn update(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    namespace: Option<&str>,
    name: &str,
    scale: Checked,
    opts: &WriteOpts,
) -> Result<Arc<Value>, ApiStatus> {
    let mut scale = scale.into_value();
    validation::set_namespace(&mut scale, info, namespace)?;
    validation::check_name(&scale, name)?;
    // The update goes to the parent's storage, whose 404 names the parent's resource.
    let old = read::get(state, info, namespace, name)?;
    write::check_resource_version(info, name, object::resource_version(&scale), &old)?;
    write(state, info, old, &scale, opts)
}

/// Writes the replicas of `scale` into `old` (a PUT, or what a patch of the Scale made).
pub(crate) fn write(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    old: Arc<Value>,
    scale: &Value,
    opts: &WriteOpts,
) -> Result<Arc<Value>, ApiStatus> {
    let paths = info.scale.as_ref().expect("route checked the scale subresource");
    let Some(replicas) = scale.pointer("/spec/replicas").filter(|r| r.is_i64() || r.is_u64()) else {
        let causes = [(
            "spec.replicas".to_owned(),
            "Required value: must be an integer".to_owned(),
        )];
        return Err(ApiStatus::invalid(info, object::name(&old), &causes));
    };
    check_scale(info, object::name(&old), replicas)?;
    let mut new = (*old).clone();
    object::set_field(&mut new, &paths.spec_replicas, replicas.clone());
    // The scale writer's managed-fields entry is its own (`subresource: scale`).
    let stored = write::commit_update(state, info, old, new, Some("scale"), opts, Ownership::Update)?;
    Ok(Arc::new(view(info, &stored)))
}

/// `ValidateScale` of the Scale a built-in kind's scale storage was sent: its replicas must not
/// be negative (its metadata is the parent's). Custom resources' replicas are checked by
/// their schema instead.
fn check_scale(info: &ResourceInfo, name: &str, replicas: &Value) -> Result<(), ApiStatus> {
    match replicas.as_i64() {
        Some(count) if info.builtin && count < 0 => {
            let cause = (
                "spec.replicas".to_owned(),
                format!("Invalid value: {count}: must be greater than or equal to 0"),
            );
            Err(ApiStatus::invalid_kind("Scale", "autoscaling", name, &[cause]))
        }
        _ => Ok(()),
    }
}

/// A dotted path (`.spec.replicas`) as FieldsV1 segments.
fn field_path(dotted: &str) -> FieldPath {
    dotted
        .trim_start_matches('.')
        .split('.')
        .filter(|s| !s.is_empty())
        .map(|s| format!("f:{s}"))
        .collect()
}

/// Who an entry is, whatever its fields and time.
fn same_manager(a: &ManagedEntry, b: &ManagedEntry) -> bool {
    (a.manager.as_str(), a.operation.as_str(), &a.subresource)
        == (b.manager.as_str(), b.operation.as_str(), &b.subresource)
}

/// ToParent: the object's entries after the Scale's changed. An entry whose manager no longer
/// owns the Scale's replicas loses the object's (and goes when nothing is left); a manager that
/// newly owns them gets an entry of its own in the object's version.
fn to_parent(
    parent: &[ManagedEntry],
    scale: &[ManagedEntry],
    replicas: &FieldPath,
    api_version: &str,
) -> Vec<ManagedEntry> {
    let mut entries = Vec::new();
    let mut placed = vec![false; scale.len()];
    for entry in parent {
        if !entry.fields.contains(replicas) {
            entries.push(entry.clone());
            continue;
        }
        match scale.iter().position(|s| same_manager(s, entry)) {
            // Kept as it is, its time too: `ToParent` takes every time from the parent's
            // entries, so a scale write never moves one.
            Some(i) => {
                placed[i] = true;
                entries.push(entry.clone());
            }
            None => {
                let mut kept = entry.clone();
                kept.fields.remove(replicas);
                if !kept.fields.is_empty() {
                    entries.push(kept);
                }
            }
        }
    }
    // A manager new to the parent gets the time the parent had for it: none.
    for (entry, _) in scale.iter().zip(placed).filter(|(_, placed)| !placed) {
        let time = parent.iter().find(|p| same_manager(p, entry)).map(|p| p.time.clone());
        entries.push(ManagedEntry {
            api_version: api_version.to_owned(),
            fields: BTreeSet::from([replicas.clone()]),
            time: time.unwrap_or_default(),
            ..entry.clone()
        });
    }
    entries
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_built_in_scale_refuses_negative_replicas_as_a_scale() {
        let statefulsets = ResourceInfo::builtin("apps", "v1", "StatefulSet", "statefulsets");
        let status = check_scale(&statefulsets, "s1", &json!(-1)).unwrap_err();
        assert_eq!(
            (status.code, status.message.as_str()),
            (
                422,
                "Scale.autoscaling \"s1\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
            )
        );
        assert!(check_scale(&statefulsets, "s1", &json!(0)).is_ok());
    }

    #[test]
    fn a_scale_write_should_keep_the_parent_times() {
        let replicas = field_path("spec.replicas");
        let entry = |manager: &str, subresource: Option<&str>, time: &str| ManagedEntry {
            manager: manager.to_owned(),
            operation: "Apply".to_owned(),
            api_version: "apps/v1".to_owned(),
            subresource: subresource.map(str::to_owned),
            time: time.to_owned(),
            fields: BTreeSet::from([replicas.clone()]),
        };
        let parent = [entry("old-scaler", Some("scale"), "2026-01-01T00:00:00Z")];
        let scale = [
            entry("old-scaler", Some("scale"), "2026-02-02T00:00:00Z"),
            entry("new-scaler", Some("scale"), "2026-02-02T00:00:00Z"),
        ];
        let entries = to_parent(&parent, &scale, &replicas, "apps/v1");
        let times: Vec<(&str, &str)> = entries.iter().map(|e| (e.manager.as_str(), e.time.as_str())).collect();
        assert_eq!(times, [("old-scaler", "2026-01-01T00:00:00Z"), ("new-scaler", "")]);
    }
}
