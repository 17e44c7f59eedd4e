//! The update path: PUT of an object or its status, and the tail update, patch and apply share
//! (resourceVersion preconditions, the strategy's rules, generation, managed fields, admission).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::auth::escalation;
use crate::lifecycle::{self, Admitting};
use crate::semantics::schema::{self, Scope};
use crate::semantics::strategy_warnings;
use crate::semantics::validation::{
    check_identity_unchanged, check_name, preserve_system_fields, set_namespace, unchanged,
};
use crate::semantics::{builtin_validation, defaults, managed_fields, managed_versions, names, versions};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::key::etcd_key;
use crate::storage::object::{self, meta_mut};
use crate::storage::resource::ResourceInfo;
use crate::verbs::delete;
use crate::verbs::options::{Ownership, WriteOpts};
use crate::verbs::owner_references::{self, Moment};
use crate::verbs::read;
use crate::verbs::strategy::{self, prepare_update};
use crate::verbs::write::{Checked, create, encoded};

/// PUT: replace an object, or only its status when `subresource` is `status`.
pub(crate) fn update(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    namespace: Option<&str>,
    name: &str,
    Checked(mut body): Checked,
    subresource: Option<&str>,
    opts: &WriteOpts,
) -> Result<Arc<Value>, ApiStatus> {
    // Before the field manager sees the body.
    opts.warnings.extend(owner_references::dedup(&mut body, Moment::AsSent));
    set_namespace(&mut body, info, namespace)?;
    check_name(&body, name)?;
    check_uid_precondition(state, info, namespace, name, &body)?;
    let old = read::get(state, info, namespace, name)?;
    let rv = object::resource_version(&body);
    if rv.is_empty() && !info.allow_unconditional_update {
        let cause = (
            "metadata.resourceVersion".to_owned(),
            "Invalid value: 0x0: must be specified for an update".to_owned(),
        );
        // The generic store names the resource here where the strategies name the kind.
        return Err(ApiStatus::invalid_kind(&info.plural, &info.group, name, &[cause]));
    }
    check_resource_version(info, name, rv, &old)?;
    commit_update(state, info, old, body, subresource, opts, Ownership::Update)
}

/// PUT of an object that does not exist, for a kind whose strategy's `AllowCreateOnUpdate`
/// is true: the generic store creates it (201), the name the URL's.
pub(crate) fn create_on_update(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    namespace: Option<&str>,
    name: &str,
    Checked(mut body): Checked,
    opts: &WriteOpts,
) -> Result<Arc<Value>, ApiStatus> {
    set_namespace(&mut body, info, namespace)?;
    check_name(&body, name)?;
    check_uid_precondition(state, info, namespace, name, &body)?;
    create(state, info, namespace, Checked(body), opts)
}

/// The uid a PUT's body carries is a precondition of its storage update
/// (`defaultUpdatedObjectInfo.Preconditions`), checked against the stored object, or against
/// nothing when there is none, before the resourceVersion: a Conflict quoting the storage error.
fn check_uid_precondition(
    state: &State,
    info: &ResourceInfo,
    namespace: Option<&str>,
    name: &str,
    body: &Value,
) -> Result<(), ApiStatus> {
    let sent = object::meta_str(body, "uid");
    let stored = state.object(info, namespace, name);
    let stored = stored.as_deref().map_or("", object::uid);
    if sent.is_empty() || sent == stored {
        return Ok(());
    }
    let key = etcd_key(info, namespace, name);
    let why = format!(
        "StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: {sent}, UID in object meta: {stored}"
    );
    Err(ApiStatus::conflict(info, name, &why))
}

/// A write may carry a resourceVersion (`sent`, empty when it does not): it must be the
/// stored one.
pub(crate) fn check_resource_version(
    info: &ResourceInfo,
    name: &str,
    sent: &str,
    old: &Value,
) -> Result<(), ApiStatus> {
    if !sent.is_empty() && sent != object::resource_version(old) {
        return Err(ApiStatus::stale(info, name));
    }
    Ok(())
}

/// The shared tail of update, patch and apply: `new` replaces `old` after the server's rules.
pub(crate) fn commit_update(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    old: Arc<Value>,
    new: Value,
    subresource: Option<&str>,
    opts: &WriteOpts,
    ownership: Ownership,
) -> Result<Arc<Value>, ApiStatus> {
    let name = object::name(&old).to_owned();
    if !new.is_object() {
        return Err(ApiStatus::bad_request("the request body must be a JSON object"));
    }
    if let Some(requester) = &opts.requester {
        escalation::check_write(state, requester, info, &new, Some(&old))?;
    }
    // What the field manager compares: the write as sent, less the fields the strategy resets
    // (spec for `/status`). kube-apiserver records managed fields before the status strategy
    // copies the old object back, so a `/status` writer owns the labels it sent even though
    // they are not kept.
    let minor = state.options.minor();
    let typeable = managed_fields::is_typeable(info, &new, minor) && managed_fields::is_typeable(info, &old, minor);
    // A patch's field manager has already met its owner references as patched (and failed on
    // repeats up to 1.29: `typeable`); only then are they deduplicated.
    let mut new = new;
    if ownership == Ownership::Patched {
        opts.warnings
            .extend(owner_references::dedup(&mut new, Moment::AfterAdmission));
    }
    let (mut new, mut field_view) = prepare_update(info, &old, new, subresource, ownership, state.options.minor());
    // The field manager sees the write decoded and encoded again (a pod's `podIP` already won).
    if let Some(view) = field_view.as_mut() {
        defaults::decoded(info, view);
    }
    defaults::apply(info, &mut new, state.options.minor())?;
    check_identity_unchanged(info, &old, &new)?;
    preserve_system_fields(&old, &mut new);
    lifecycle::mutate_update(info, &mut new, &old, subresource);
    builtin_validation::check(info, &new, Some(&old), subresource, state.options.minor())?;
    encoded(info, &mut new);
    if let Some(view) = field_view.as_mut() {
        encoded(info, view);
    }
    if object::is_deleting(&old) {
        let before = object::finalizers(&old);
        let added: Vec<String> = object::finalizers(&new)
            .into_iter()
            .filter(|f| !before.contains(f))
            .collect();
        if !added.is_empty() {
            let message = format!(
                "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers {}",
                names::go_strings(&added)
            );
            // kube-apiserver checks the metadata update twice (its common checks and the
            // strategy's), and answers with both causes.
            let cause = ("metadata.finalizers".to_owned(), message);
            return Err(ApiStatus::invalid(info, &name, &[cause.clone(), cause]));
        }
    }
    let scope = if subresource == Some("status") {
        Scope::Status {
            minor: state.options.minor(),
        }
    } else {
        Scope::Object
    };
    let mut ratcheted = Vec::new();
    let admitted = schema::admit(info, &mut new, scope, Some(&old), state.options.minor(), &mut ratcheted);
    opts.warnings.extend(ratcheted);
    admitted?;
    // `WarningsOnUpdate`, once the object validated (a custom resource's by its schema).
    opts.warnings
        .extend(strategy_warnings::on_update(info, &new, &old, subresource, minor));
    if subresource == Some("status") && !info.builtin {
        // A custom resource's status strategy copies the old object over the decoded one
        // (`statusStrategy.PrepareForUpdate`, after decoding defaulted it): what decoding
        // defaulted outside status is not kept.
        keep_all_but_status(&old, &mut new);
    }
    if strategy::moves_generation(info, &old, &new, subresource, state.options.minor()) {
        meta_mut(&mut new).insert("generation".to_owned(), json!(object::generation(&old) + 1));
    }
    let mut admitting = Admitting {
        dry_run: opts.dry_run,
        user: opts.requester.as_deref(),
        warnings: Vec::new(),
    };
    let admitted = lifecycle::admit_update(state, info, &mut new, &old, subresource, &mut admitting);
    opts.warnings.extend(admitting.warnings);
    let defined = admitted?;
    // The field manager's `decodeLiveOrNew`: a client that sends `[]` or `[{}]` resets the
    // managed fields, and as an object without any is not tracked by updates
    // (`skipNonAppliedManager`), the write leaves none; other managed fields than the stored
    // ones replace them (kubectl does so when it migrates client-side apply to server-side
    // apply); an omitted list keeps them.
    let given = new.pointer("/metadata/managedFields");
    let reset = subresource.is_none() && given.is_some_and(managed_fields::is_reset);
    let replaced = reset || (given.is_some() && given != old.pointer("/metadata/managedFields"));
    if reset {
        meta_mut(&mut new).remove("managedFields");
    }
    // kube-apiserver 1.28 records no managed fields for an ephemeral containers write.
    let tracked = subresource != Some("ephemeralcontainers");
    if ownership != Ownership::Applied
        && !replaced
        && tracked
        && let Some(manager) = &opts.manager
    {
        // What the field manager sees must also type in every other version managing fields.
        let convertible = managed_versions::convertible(info, &old, &new, minor)
            && field_view
                .as_ref()
                .is_none_or(|view| managed_versions::convertible(info, &old, view, minor));
        match field_view {
            _ if !typeable || !convertible => {
                meta_mut(&mut new).remove("managedFields");
            }
            Some(mut view) => {
                managed_fields::record_update(Some(&old), &mut view, info, manager, subresource, &object::now());
                let managed = view.pointer("/metadata/managedFields").cloned();
                let meta = meta_mut(&mut new);
                match managed {
                    Some(managed) => meta.insert("managedFields".to_owned(), managed),
                    None => meta.remove("managedFields"),
                };
            }
            None => managed_fields::record_update(Some(&old), &mut new, info, manager, subresource, &object::now()),
        }
    }
    if unchanged(&old, &new) {
        // A no-op write changes nothing, not even the resourceVersion, and tells no watch.
        return Ok(old);
    }
    if opts.dry_run {
        return Ok(Arc::new(new));
    }
    if object::is_deleting(&new) && object::finalizers(&new).is_empty() && lifecycle::may_remove_on_update(info, &new) {
        // kube-apiserver deletes the stored object instead of writing the update, and answers
        // with the update as sent: it keeps the resourceVersion it had.
        delete::finish_delete(state, info, (*old).clone());
        meta_mut(&mut new).insert("resourceVersion".to_owned(), json!(object::resource_version(&old)));
        return Ok(Arc::new(new));
    }
    let stored = state.store.put(&info.storage_key(), versions::to_storage(info, new));
    lifecycle::after_update(state, info, &stored, &old, defined);
    Ok(stored)
}

/// Every top-level field of `new` but `metadata` and `status` as `old` has it.
fn keep_all_but_status(old: &Value, new: &mut Value) {
    let (Some(old), Some(new)) = (old.as_object(), new.as_object_mut()) else {
        return;
    };
    new.retain(|key, _| key == "metadata" || key == "status" || old.contains_key(key));
    for (key, value) in old {
        if key != "metadata" && key != "status" {
            new.insert(key.clone(), value.clone());
        }
    }
}
