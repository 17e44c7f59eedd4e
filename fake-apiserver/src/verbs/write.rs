//! The write path's create: the real server's checks of a new object (system fields, schema,
//! strategies, admission, namespaces); the update path is `verbs::update`'s.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::auth::{UserInfo, escalation};
use crate::lifecycle::{self, Admitting};
use crate::semantics::apparmor_strategy;
use crate::semantics::decoding::{self, Decoded};
use crate::semantics::endpointslice_strategy;
use crate::semantics::lease_strategy;
use crate::semantics::omit_empty::{self, Empty};
use crate::semantics::pod_affinity_strategy;
use crate::semantics::pod_gates;
use crate::semantics::schema::{self, Scope};
use crate::semantics::shape::Shape;
use crate::semantics::strategy_warnings;
use crate::semantics::validation::{check_type_meta, set_namespace};
use crate::semantics::{
    apps_set_strategy, builtin_validation, claim_strategy, core_strategies, csr, defaults, hpa_strategy, job_strategy,
    managed_fields, names, quantity_fields, typed, versions, volume_strategy, zero,
};
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object::{self, meta_mut};
use crate::storage::resource::ResourceInfo;
use crate::verbs::options::{Ownership, WriteOpts};
use crate::verbs::owner_references::{self, Moment};
pub(crate) use crate::verbs::update::{check_resource_version, commit_update, create_on_update, update};

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

/// The registered resource of a seed object and the namespace it goes in (`default` when it
/// names none).
fn seed_target(state: &State, value: &Value) -> Result<(Arc<ResourceInfo>, Option<String>), ApiStatus> {
    let api_version = value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or_default();
    let info = state.registry.by_kind(api_version, kind).cloned().ok_or_else(|| {
        ApiStatus::bad_request(format!(
            "no resource is registered for apiVersion {api_version:?} kind {kind:?}: register its CRD or type first"
        ))
    })?;
    let namespace = object::namespace(value).to_owned();
    let namespace = (info.namespaced).then(|| {
        if namespace.is_empty() {
            "default".to_owned()
        } else {
            namespace
        }
    });
    Ok((info, namespace))
}

/// Stores a seed object over the stored one of its name, as it is (`tracker.Update`).
pub(crate) fn replace_seed(state: &mut State, value: Value) -> Result<Arc<Value>, ApiStatus> {
    let (info, namespace) = seed_target(state, &value)?;
    let current = crate::verbs::read::get(state, &info, namespace.as_deref(), object::name(&value))?;
    let mut value = value;
    set_namespace(&mut value, &info, namespace.as_deref())?;
    commit_update(
        state,
        &info,
        current,
        value,
        None,
        &WriteOpts::default(),
        Ownership::Update,
    )
}

/// Stores a seed object of any registered kind.
pub(crate) fn seed(state: &mut State, value: Value) -> Result<Arc<Value>, ApiStatus> {
    let (info, namespace) = seed_target(state, &value)?;
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
pub(crate) struct Checked(pub(super) Value);

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
    if typing == Typing::Decoded {
        if let Some(why) = typed::decode_error(info, &body.value) {
            return Err(decoding::cannot_handle(info)(why));
        }
        quantity_fields::decode(info, &mut body.value).map_err(|why| decoding::cannot_handle(info)(why.to_string()))?;
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
    // Before the field manager sees the body.
    opts.warnings.extend(owner_references::dedup(&mut body, Moment::AsSent));
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
    let changeable = strategy_changes
        || pod_gates::concerns(info)
        || lease_strategy::concerns(info)
        || lifecycle::mutates_on_create(info);
    let sent = changeable.then(|| body.clone());
    lifecycle::await_admission_inputs(state, info, &body);
    lifecycle::mutate_create(state, info, &mut body)?;
    pod_gates::drop_disabled(info, &mut body, None, state.options.minor());
    lease_strategy::drop_disabled(info, &mut body, None);
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
    // `WarningsOnCreate`, once the object validated (a custom resource's by its schema).
    opts.warnings
        .extend(strategy_warnings::on_create(info, &body, state.options.minor()));
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
    let mut admitting = Admitting {
        dry_run: opts.dry_run,
        user: opts.requester.as_deref(),
        warnings: Vec::new(),
    };
    let admitted = lifecycle::admit_create(state, info, &mut body, &mut admitting);
    opts.warnings.extend(admitting.warnings);
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

/// A validated built-in object as its Go type encodes it and its storage keeps it: without its
/// empty `omitempty` slices and maps (the scalars went when it was decoded), its other empty
/// ones nil.
pub(super) fn encoded(info: &ResourceInfo, object: &mut Value) {
    if info.builtin {
        omit_empty::drop_empty(object, Shape::of(info), Empty::All);
        // The apiextensions and aggregator servers store their objects as JSON.
        if !matches!(info.group.as_str(), "apiextensions.k8s.io" | "apiregistration.k8s.io") {
            omit_empty::null_empty_collections(object, Shape::of(info));
        }
        quantity_fields::encode(info, object);
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
