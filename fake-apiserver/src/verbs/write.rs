//! The write path: create and update with the real server's checks
//! (conflicts, system fields, status subresource, generation, finalizers, schema, managed fields).

use std::sync::Arc;

use serde_json::{Value, json};

use crate::auth::{UserInfo, escalation};
use crate::lifecycle;
use crate::semantics::apparmor_strategy;
use crate::semantics::decoding::{self, Decoded};
use crate::semantics::endpointslice_strategy;
use crate::semantics::omit_empty::{self, Empty};
use crate::semantics::pod_affinity_strategy;
use crate::semantics::pod_gates;
use crate::semantics::schema::{self, Scope};
use crate::semantics::shape::Shape;
use crate::semantics::strategy_warnings;
use crate::semantics::validation::{
    check_identity_unchanged, check_name, check_type_meta, preserve_system_fields, set_namespace, unchanged,
};
use crate::semantics::{
    apps_set_strategy, builtin_validation, claim_strategy, core_strategies, csr, defaults, hpa_strategy, job_strategy,
    managed_fields, managed_versions, names, typed, versions, volume_strategy, zero,
};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object::{self, meta_mut};
use crate::storage::resource::ResourceInfo;
use crate::verbs::delete;
use crate::verbs::options::{Ownership, WriteOpts};
use crate::verbs::read;
use crate::verbs::strategy::{self, prepare_update};

/// Creates namespace `name` if it does not exist.
pub(crate) fn ensure_namespace(state: &mut State, name: &str) -> Result<(), ApiStatus> {
    let info = state.info("", "v1", "namespaces");
    if state.object(&info, None, name).is_none() {
        let namespace = json!({ "apiVersion": "v1", "kind": "Namespace", "metadata": { "name": name } });
        let opts = WriteOpts::default();
        let checked = check(&info, namespace, &opts, state.options.minor())?;
        create(state, &info, None, checked, &opts)?;
    }
    Ok(())
}

/// Stores a seed object of any registered kind.
pub(crate) fn seed(state: &mut State, value: Value) -> Result<Arc<Value>, ApiStatus> {
    let api_version = value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or_default();
    let info = state.registry.by_kind(api_version, kind).cloned().ok_or_else(|| {
        ApiStatus::bad_request(format!(
            "no resource is registered for apiVersion {api_version:?} kind {kind:?}: register its CRD or type first"
        ))
    })?;
    let namespace = object::namespace(&value).to_owned();
    let namespace = (info.namespaced).then(|| {
        if namespace.is_empty() {
            "default".to_owned()
        } else {
            namespace
        }
    });
    if let Some(ns) = &namespace {
        ensure_namespace(state, ns)?;
    }
    let opts = WriteOpts::default();
    create(
        state,
        &info,
        namespace.as_deref(),
        check_as(&info, value, &opts, Typing::AsStored, state.options.minor())?,
        &opts,
    )
}

/// The object a create or update sent, once its type meta and its strict-decoding findings
/// (duplicate and unknown fields) passed as kube-apiserver's decoder passes them.
pub(crate) struct Checked(Value);

impl Checked {
    /// The checked object.
    pub(crate) fn into_value(self) -> Value {
        self.0
    }
}

/// Checks what a create or update sent as the decoder of kube-apiserver 1.`minor` does. It
/// needs nothing stored, so the server runs it before it takes its lock.
pub(crate) fn check(
    info: &ResourceInfo,
    body: impl Into<Decoded>,
    opts: &WriteOpts,
    minor: u32,
) -> Result<Checked, ApiStatus> {
    check_as(info, body, opts, Typing::Decoded, minor)
}

/// Whether a written body must fit the kind's type: a request's must, a seeded object (what
/// the store already holds, as client-go's `tracker.Add` takes it) need not.
#[derive(Clone, Copy, PartialEq)]
enum Typing {
    Decoded,
    AsStored,
}

fn check_as(
    info: &ResourceInfo,
    body: impl Into<Decoded>,
    opts: &WriteOpts,
    typing: Typing,
    minor: u32,
) -> Result<Checked, ApiStatus> {
    let mut body = body.into();
    check_type_meta(&mut body, info)?;
    if typing == Typing::Decoded
        && let Some(why) = typed::decode_error(info, &body.value)
    {
        return Err(decoding::cannot_handle(info)(why));
    }
    let findings = decoding::strict_findings(info, &mut body, minor);
    decoding::enforce(findings, opts, decoding::cannot_handle(info))?;
    Ok(Checked(body.value))
}

/// POST: create an object in `namespace` (`None` for cluster-scoped resources).
pub(crate) fn create(
    state: &mut State,
    info: &Arc<ResourceInfo>,
    namespace: Option<&str>,
    Checked(mut body): Checked,
    opts: &WriteOpts,
) -> Result<Arc<Value>, ApiStatus> {
    defaults::apply(info, &mut body, state.options.minor())?;
    // The field manager sees the object as sent, before the strategy drops its status.
    let typeable = managed_fields::is_typeable(info, &body, state.options.minor());
    set_namespace(&mut body, info, namespace)?;
    if let Some(ns) = namespace {
        check_namespace_open(state, info, object::name(&body), ns)?;
    }
    if let Some(requester) = &opts.requester {
        escalation::check_write(state, requester, info, &body, None)?;
    }
    let meta = meta_mut(&mut body);
    let name = meta.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
    let name = if name.is_empty() {
        let prefix = meta.get("generateName").and_then(Value::as_str).unwrap_or_default();
        if prefix.is_empty() {
            let causes = [(
                "metadata.name".to_owned(),
                "Required value: name or generateName is required".to_owned(),
            )];
            return Err(ApiStatus::invalid(info, "", &causes));
        }
        let generated = format!("{prefix}{}", names::generated_suffix());
        meta.insert("name".to_owned(), json!(generated));
        generated
    } else {
        name
    };
    if !meta
        .get("resourceVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .is_empty()
    {
        return Err(ApiStatus::internal(
            "resourceVersion should not be set on objects to be created",
        ));
    }
    for field in ["deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"] {
        meta.remove(field);
    }
    if opts.manager.is_some() {
        // Managed fields are the server's to write; without a manager (seeding, apply) they
        // are kept as given.
        meta.remove("managedFields");
    }
    meta.insert("uid".to_owned(), json!(uuid::Uuid::new_v4().to_string()));
    meta.insert("creationTimestamp".to_owned(), json!(object::now()));
    if info.has_generation {
        meta.insert("generation".to_owned(), json!(1));
    }
    // What the field manager saw is the object as sent. What mutating admission adds
    // (kube-apiserver runs it after the field manager recorded the request: a pod's service
    // account, priority and tolerations, a claim's or an Ingress's default class), the fields
    // of gates that are off, a pod's affinity expressions and the strategy's own changes before
    // validation (a Job's generated selector) are nobody's.
    let strategy_changes = job_strategy::concerns(info)
        || apps_set_strategy::concerns(info)
        || claim_strategy::concerns(info)
        || volume_strategy::concerns(info)
        || hpa_strategy::changes_on_create(info);
    // Only the kinds something may change before validation pay for the copy.
    let changeable = strategy_changes || pod_gates::concerns(info) || lifecycle::mutates_on_create(info);
    let sent = changeable.then(|| body.clone());
    lifecycle::mutate_create(state, info, &mut body)?;
    pod_gates::drop_disabled(info, &mut body, None, state.options.minor());
    pod_affinity_strategy::prepare_create(info, &mut body, state.options.minor());
    opts.warnings.extend(apparmor_strategy::prepare_create(
        info,
        &mut body,
        state.options.minor(),
    ));
    let before_strategy = sent.filter(|sent| strategy_changes || *sent != body);
    apps_set_strategy::prepare_create(info, &mut body);
    endpointslice_strategy::prepare_create(info, &mut body);
    claim_strategy::prepare_create(info, &mut body, state.options.minor());
    volume_strategy::prepare_create(info, &mut body, state.options.minor());
    hpa_strategy::prepare_create(info, &mut body);
    job_strategy::prepare_create(info, &mut body, state.options.minor());
    builtin_validation::check(info, &body, None, None, state.options.minor())?;
    encoded(info, &mut body);
    opts.warnings
        .extend(strategy_warnings::on_create(info, &body, state.options.minor()));
    if info.status_subresource && !info.create_keeps_status() {
        // Status is the controllers' to write: kube-apiserver's strategies reset it on create, to
        // the Go zero value a built-in kind encodes (`{}` for a Deployment) and to nothing for a
        // custom resource.
        reset_status(info, &mut body);
    }
    // A create has nothing to ratchet, so nothing to warn of.
    schema::admit(
        info,
        &mut body,
        Scope::Object,
        None,
        state.options.minor(),
        &mut Vec::new(),
    )?;
    if state.object(info, namespace, &name).is_some() {
        return Err(ApiStatus::already_exists(info, &name));
    }
    // Managed fields are recorded before the strategy's own changes (a namespace's phase and
    // finalizer, a CRD's cleanup finalizer): nobody owns those.
    if let Some(manager) = &opts.manager {
        let keeps_status = info.status_subresource && info.create_keeps_status();
        let resets_spec = csr::concerns(info);
        if typeable && (keeps_status || resets_spec || before_strategy.is_some()) {
            // The status a node registers with is kept, but it is among the fields the
            // strategy resets for the main resource (a CSR's spec too): nobody owns them, nor
            // what the strategy generated.
            let mut view = before_strategy.unwrap_or_else(|| body.clone());
            reset_status(info, &mut view);
            if resets_spec && let Some(fields) = view.as_object_mut() {
                fields.remove("spec");
            }
            managed_fields::record_update(None, &mut view, info, manager, None, &object::now());
            let managed = view.pointer("/metadata/managedFields").cloned();
            let meta = meta_mut(&mut body);
            match managed {
                Some(managed) => meta.insert("managedFields".to_owned(), managed),
                None => meta.remove("managedFields"),
            };
        } else if typeable {
            managed_fields::record_update(None, &mut body, info, manager, None, &object::now());
        } else {
            meta_mut(&mut body).remove("managedFields");
        }
    }
    if csr::concerns(info) {
        let requester = opts.requester.as_deref().cloned().unwrap_or_else(UserInfo::admin);
        csr::prepare_create(&mut body, &requester);
    }
    core_strategies::prepare_create(info, &mut body);
    let mut admission_warnings = Vec::new();
    let admitted = lifecycle::admit_create(state, info, &mut body, opts.dry_run, &mut admission_warnings);
    opts.warnings.extend(admission_warnings);
    let defined = admitted?;
    if opts.dry_run {
        return Ok(Arc::new(body));
    }
    let stored = state.store.put(&info.storage_key(), versions::to_storage(info, body));
    lifecycle::after_create(state, info, &stored, defined);
    Ok(stored)
}

/// Sets an object's status to its kind's zero value (none for a custom resource).
fn reset_status(info: &ResourceInfo, object: &mut Value) {
    if let Some(map) = object.as_object_mut() {
        match zero::zero_object(info).get_mut("status").map(Value::take) {
            Some(zero) => map.insert("status".to_owned(), zero),
            None => map.remove("status"),
        };
    }
}

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
    set_namespace(&mut body, info, namespace)?;
    check_name(&body, name)?;
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
    create(state, info, namespace, Checked(body), opts)
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
    let (mut new, mut field_view) = prepare_update(info, &old, new, subresource, ownership, state.options.minor());
    defaults::apply(info, &mut new, state.options.minor())?;
    check_identity_unchanged(info, &old, &new)?;
    preserve_system_fields(&old, &mut new);
    lifecycle::mutate_update(info, &mut new, &old, subresource);
    builtin_validation::check(info, &new, Some(&old), subresource, state.options.minor())?;
    encoded(info, &mut new);
    if let Some(view) = field_view.as_mut() {
        encoded(info, view);
    }
    opts.warnings
        .extend(strategy_warnings::on_update(info, &new, &old, subresource, minor));
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
    if subresource == Some("status") && !info.builtin {
        // A custom resource's status strategy copies the old object over the decoded one
        // (`statusStrategy.PrepareForUpdate`, after decoding defaulted it): what decoding
        // defaulted outside status is not kept.
        keep_all_but_status(&old, &mut new);
    }
    if strategy::moves_generation(info, &old, &new, subresource, state.options.minor()) {
        meta_mut(&mut new).insert("generation".to_owned(), json!(object::generation(&old) + 1));
    }
    let mut admission_warnings = Vec::new();
    let admitted = lifecycle::admit_update(
        state,
        info,
        &mut new,
        &old,
        subresource,
        opts.dry_run,
        &mut admission_warnings,
    );
    opts.warnings.extend(admission_warnings);
    let defined = admitted?;
    // A client that sends managed fields other than the stored ones replaces them (kubectl
    // does so when it migrates client-side apply to server-side apply); an omitted list
    // keeps them.
    let given = new.pointer("/metadata/managedFields");
    let replaced = given.is_some() && given != old.pointer("/metadata/managedFields");
    // kube-apiserver 1.28 records no managed fields for an ephemeral containers write.
    let tracked = subresource != Some("ephemeralcontainers");
    if ownership == Ownership::Update
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

/// A validated built-in object as its Go type encodes it: without its empty `omitempty` slices
/// and maps (the scalars went when it was decoded).
fn encoded(info: &ResourceInfo, object: &mut Value) {
    if info.builtin {
        omit_empty::drop_empty(object, Shape::of(info), Empty::All);
    }
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

/// Refuses writes into a namespace that is missing or being deleted.
fn check_namespace_open(state: &mut State, info: &ResourceInfo, name: &str, namespace: &str) -> Result<(), ApiStatus> {
    let namespaces = state.info("", "v1", "namespaces");
    match state.object(&namespaces, None, namespace) {
        Some(ns) if object::is_deleting(&ns) => Err(ApiStatus::namespace_terminating(info, name, namespace)),
        Some(_) => Ok(()),
        // A name no namespace can have is simply a namespace that does not exist.
        None if state.options.auto_create_namespaces && object::is_dns_label(namespace) => {
            ensure_namespace(state, namespace)
        }
        None => Err(ApiStatus::namespace_not_found(namespace)),
    }
}
