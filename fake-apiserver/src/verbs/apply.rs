//! Server-side apply: the applied configuration is merged into the live object, fields the manager
//! stopped applying are removed, and fields owned by other managers with other values conflict
//! unless `force` is set.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::semantics::decoding::{self, Decoded};
use crate::semantics::fieldpath::{self, FieldPath, merge_into, prune, value_at, walked_paths};
use crate::semantics::managed_fields::{self, ManagedEntry};
use crate::semantics::schema_typing::{self, Undeclared};
use crate::semantics::shape::Shape;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;
use crate::verbs::applied_config::{check_applied, check_name};
use crate::verbs::options::{Ownership, WriteOpts};
use crate::verbs::{read, write};

/// One server-side apply request.
pub(crate) struct ApplyRequest<'a> {
    pub(crate) namespace: Option<&'a str>,
    pub(crate) name: &'a str,
    pub(crate) subresource: Option<&'a str>,
    pub(crate) manager: &'a str,
    pub(crate) force: bool,
    /// The request's dry run, field validation and warnings.
    pub(crate) opts: &'a WriteOpts,
}

/// PATCH with `application/apply-patch+yaml`; returns the object and whether it was created.
pub(crate) fn apply(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    mut config: Value,
    request: &ApplyRequest<'_>,
) -> Result<(Arc<Value>, bool), ApiStatus> {
    check_applied(&config, &info.api_version(), &info.kind)?;
    let config_name = object::name(&config).to_owned();
    // kube-apiserver names the applied object as it was sent in a typed-patch error.
    let sent = format!("{}/{}", object::namespace(&config), object::name(&config));
    let rv = object::resource_version(&config).to_owned();
    let meta = object::meta_mut(&mut config);
    meta.insert("name".to_owned(), json!(request.name));
    for field in ["managedFields", "resourceVersion"] {
        meta.remove(field);
    }
    scope_to_subresource(info, &mut config, request.subresource);
    // A built-in kind's applied configuration is made a typed value first, which fails on any
    // field its type lacks, whatever `fieldValidation` says.
    if info.schema.is_none() {
        let mut probe = Decoded::from(config.clone());
        let undeclared: Vec<String> = decoding::strict_findings(info, &mut probe, state.options.minor())
            .iter()
            .filter_map(|finding| {
                finding
                    .strip_prefix("unknown field \"")?
                    .strip_suffix('"')
                    .map(str::to_owned)
            })
            .map(|path| format!(".{path}: field not declared in schema"))
            .collect();
        if !undeclared.is_empty() {
            return Err(typed_patch_error(info, &sent, &undeclared));
        }
    }
    // The applied configuration loses what the kind does not know before anyone owns it.
    let mut decoded = Decoded::from(config);
    let findings = decoding::strict_findings(info, &mut decoded, state.options.minor());
    decoding::enforce(findings, request.opts, ApiStatus::bad_request)?;
    let config = decoded.value;
    let now = object::now();
    let shape = Shape::of(info);
    typed_patch(&config, info, &sent, state.options.minor())?;
    // structured-merge-diff's field set of the configuration, each member with whether it has
    // members below it (a keyed item with fields), which only conflicts through them.
    let applied_nodes = fieldpath::applied_set(&config, shape);
    let applied: BTreeSet<FieldPath> = applied_nodes.keys().cloned().collect();
    let own = |e: &ManagedEntry| {
        e.manager == request.manager && e.operation == "Apply" && e.subresource.as_deref() == request.subresource
    };
    let opts = WriteOpts {
        manager: None,
        ..request.opts.clone()
    };
    let Ok(old) = read::get(state, info, request.namespace, request.name) else {
        if request.subresource.is_some() {
            return Err(ApiStatus::not_found(info, request.name));
        }
        check_name(&config_name, request.name)?;
        let mut config = config;
        let entry = entry(request, &info.api_version(), &now, applied);
        managed_fields::write(&mut config, &[entry]);
        let checked = write::check(info, config, &opts, state.options.minor())?;
        return Ok((write::create(state, info, request.namespace, checked, &opts)?, true));
    };
    let mut entries = managed_fields::read(&old);
    if entries.is_empty() {
        entries = before_first_apply(info, &old, request.subresource, &now);
    }
    let mut new = (*old).clone();
    merge_into(&mut new, &config, shape, &[]);
    // `Updater.update`: another manager's member conflicts when the merge added or changed it.
    let changed = |p: &FieldPath| {
        let before = value_at(&old, p);
        before.is_none() || (applied_nodes.get(p) == Some(&false) && before != value_at(&new, p))
    };
    // Each manager's conflicting paths as structured-merge-diff walks and reports them
    // (overwritten by their siblings before SMD v4.3.0, which kube-apiserver 1.28 vendors).
    let aliased = state.options.minor() <= 28;
    let conflicts: Vec<Conflict> = entries
        .iter()
        .filter(|e| !own(e))
        .flat_map(|e| {
            let set: BTreeSet<FieldPath> = e
                .fields
                .intersection(&applied)
                .filter(|p| changed(p))
                .cloned()
                .collect();
            walked_paths(&set, aliased)
                .into_iter()
                .map(|(path, shown)| Conflict::new(e, &path).shown_as(shown))
                .collect::<Vec<_>>()
        })
        .collect();
    // Moving from client-side to server-side apply takes over the fields kubectl last
    // applied without conflict, as kube-apiserver's last-applied manager allows.
    let last_applied = last_applied_configuration(&old);
    let (upgraded, conflicts): (Vec<_>, Vec<_>) = conflicts.into_iter().partition(|c| {
        c.manager == CLIENT_SIDE_APPLY && last_applied.as_ref().is_some_and(|l| value_at(l, &c.path).is_some())
    });
    if !conflicts.is_empty() && !request.force {
        return Err(conflict_status(conflicts));
    }
    check_name(&config_name, request.name)?;
    // The storage compares the resourceVersion once the apply has made the object.
    write::check_resource_version(info, request.name, &rv, &old)?;
    let taken: BTreeSet<&FieldPath> = conflicts.iter().chain(&upgraded).map(|c| &c.path).collect();
    if !taken.is_empty() {
        for e in entries.iter_mut().filter(|e| !own(e)) {
            e.fields.retain(|p| !taken.contains(p));
        }
    }
    let last: BTreeSet<FieldPath> = entries
        .iter()
        .filter(|e| own(e))
        .flat_map(|e| e.fields.clone())
        .collect();
    let managed: BTreeSet<FieldPath> = entries
        .iter()
        .filter(|e| !own(e))
        .flat_map(|e| e.fields.iter().cloned())
        .chain(applied.iter().cloned())
        .collect();
    prune(&mut new, &last, &managed);
    // What the apply removed leaves every other set (`compare.Removed`).
    for e in entries.iter_mut().filter(|e| !own(e)) {
        e.fields
            .retain(|p| value_at(&new, p).is_some() || value_at(&old, p).is_none());
    }
    // The manager's time moves only when its apply changed the object (kube-apiserver's
    // managed-fields updater): an apply of values already there records no time.
    let previous_time = entries
        .iter()
        .find(|e| own(e))
        .map(|e| e.time.clone())
        .unwrap_or_default();
    let time = if without_managed_fields(&new) != without_managed_fields(&old) {
        now
    } else {
        previous_time
    };
    entries.retain(|e| !own(e));
    entries.push(entry(request, &info.api_version(), &time, applied));
    managed_fields::write(&mut new, &entries);
    let stored = write::commit_update(state, info, old, new, request.subresource, &opts, Ownership::Applied)?;
    Ok((stored, false))
}

/// `skipNonAppliedManager.Apply` (`managedfields/internal/skipnonapplied.go`): the first apply
/// to an object that tracks no fields (created without a manager, or stripped when a version
/// could not type it) first records an update from an empty object to the live one by
/// `before-first-apply`, which then owns everything already there and conflicts as any manager.
fn before_first_apply(info: &ResourceInfo, old: &Value, subresource: Option<&str>, now: &str) -> Vec<ManagedEntry> {
    let mut live = old.clone();
    // The write's reset fields are not the subresource's to own (`IgnoredFields`).
    let reset = match subresource {
        Some("status") => Some("spec"),
        None if info.status_subresource => Some("status"),
        _ => None,
    };
    if let (Some(field), Some(fields)) = (reset, live.as_object_mut()) {
        fields.remove(field);
    }
    managed_fields::record_update(None, &mut live, info, BEFORE_FIRST_APPLY, subresource, now);
    managed_fields::read(&live)
}

/// The manager `skipNonAppliedManager` records an object's fields under before its first apply.
const BEFORE_FIRST_APPLY: &str = "before-first-apply";

/// structured-merge-diff's typed conversion of the applied configuration (`ObjectToTyped` in
/// `structuredmerge.go`'s `Apply`): lists whose items it cannot name or that name one twice, and
/// a custom resource's values of another type than its schema's, refuse it with a 500 that names
/// the object as sent and its group, version and kind.
fn typed_patch(config: &Value, info: &ResourceInfo, sent: &str, minor: u32) -> Result<(), ApiStatus> {
    let mut errors: Vec<String> = fieldpath::list_errors(config, Shape::of(info))
        .iter()
        .map(ToString::to_string)
        .collect();
    if let Some(schema) = &info.schema {
        errors.extend(schema_typing::errors(schema, config, minor, Undeclared::Allowed));
    }
    if errors.is_empty() {
        return Ok(());
    }
    Err(typed_patch_error(info, sent, &errors))
}

/// structured-merge-diff's refusal to make the applied configuration a typed value, with its
/// `errors` (one, or a list).
fn typed_patch_error(info: &ResourceInfo, sent: &str, errors: &[String]) -> ApiStatus {
    let reason = match errors {
        [only] => only.clone(),
        _ => format!("errors:\n  {}", errors.join("\n  ")),
    };
    let gvk = format!("{}/{}, Kind={}", info.group, info.version, info.kind);
    ApiStatus::new(
        500,
        "",
        format!("failed to create typed patch object ({sent}; {gvk}): {reason}"),
    )
}

fn without_managed_fields(object: &Value) -> Value {
    let mut object = object.clone();
    object::meta_mut(&mut object).remove("managedFields");
    object
}

/// The field manager of `kubectl apply` without `--server-side`.
const CLIENT_SIDE_APPLY: &str = "kubectl-client-side-apply";

/// The object kubectl's client-side apply recorded in its annotation, if any.
fn last_applied_configuration(object: &Value) -> Option<Value> {
    let text = object
        .pointer("/metadata/annotations")?
        .get("kubectl.kubernetes.io/last-applied-configuration")?
        .as_str()?;
    serde_json::from_str(text).ok()
}

/// With a status subresource, the main resource's apply ignores status and `/status` applies
/// only status.
fn scope_to_subresource(info: &ResourceInfo, config: &mut Value, subresource: Option<&str>) {
    let map = config.as_object_mut().expect("checked object");
    match subresource {
        Some("status") => map.retain(|key, _| matches!(key.as_str(), "apiVersion" | "kind" | "metadata" | "status")),
        _ if info.status_subresource => {
            map.remove("status");
        }
        _ => {}
    }
    if subresource == Some("status") {
        // Only the identifying metadata stays in a status apply.
        let meta = object::meta_mut(config);
        meta.retain(|key, _| matches!(key.as_str(), "name" | "namespace"));
    }
}

fn entry(request: &ApplyRequest<'_>, api_version: &str, now: &str, applied: BTreeSet<FieldPath>) -> ManagedEntry {
    ManagedEntry {
        manager: request.manager.to_owned(),
        operation: "Apply".to_owned(),
        api_version: api_version.to_owned(),
        subresource: request.subresource.map(str::to_owned),
        time: now.to_owned(),
        fields: applied,
    }
}

/// A field that another manager owns with another value than the applied one.
pub(crate) struct Conflict {
    manager: String,
    /// The owner as kube-apiserver prints it: `"name"`, then ` with subresource "status"` and,
    /// for an update, ` using apps/v1`.
    printed: String,
    /// kube-apiserver's manager identifier (the entry's JSON without time and fields), by which
    /// a message with several conflicts groups and sorts them.
    identifier: String,
    path: FieldPath,
    /// The path the answer names: `path`, but for kube-apiserver 1.28's overwritten ones.
    shown: FieldPath,
}

impl Conflict {
    pub(crate) fn new(owner: &ManagedEntry, path: &FieldPath) -> Self {
        let mut printed = format!("{:?}", owner.manager);
        let mut identifier = json!({ "manager": owner.manager, "operation": owner.operation });
        if owner.operation == "Update" {
            identifier["apiVersion"] = json!(owner.api_version);
        }
        if let Some(subresource) = &owner.subresource {
            printed.push_str(&format!(" with subresource {subresource:?}"));
            identifier["subresource"] = json!(subresource);
        }
        if owner.operation == "Update" {
            printed.push_str(&format!(" using {}", owner.api_version));
        }
        Self {
            manager: owner.manager.clone(),
            printed,
            identifier: identifier.to_string(),
            path: path.clone(),
            shown: path.clone(),
        }
    }

    /// The conflict named in the answer by `shown` rather than its own path.
    fn shown_as(self, shown: FieldPath) -> Self {
        Self { shown, ..self }
    }
}

/// kube-apiserver's `NewConflictError`: one cause per conflicting field, a message grouped by
/// manager, and details that name no object.
pub(crate) fn conflict_status(mut conflicts: Vec<Conflict>) -> ApiStatus {
    let causes: Vec<Value> = conflicts
        .iter()
        .map(|c| {
            json!({ "reason": "FieldManagerConflict", "message": format!("conflict with {}", c.printed),
                    "field": fieldpath::display(&c.shown) })
        })
        .collect();
    let message = if let [only] = &conflicts[..] {
        format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            only.printed,
            fieldpath::display(&only.shown)
        )
    } else {
        let count = conflicts.len();
        conflicts.sort_by(|a, b| a.identifier.cmp(&b.identifier));
        let mut lines = Vec::new();
        for (i, c) in conflicts.iter().enumerate() {
            if i == 0 || conflicts[i - 1].identifier != c.identifier {
                lines.push(format!("conflicts with {}:", c.printed));
            }
            lines.push(format!("- {}", fieldpath::display(&c.shown)));
        }
        format!("Apply failed with {count} conflicts: {}", lines.join("\n"))
    };
    let mut status = ApiStatus::new(409, "Conflict", message);
    status.details = Some(json!({ "causes": causes }));
    status
}
