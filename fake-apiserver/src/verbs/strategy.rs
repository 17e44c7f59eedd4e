//! What the strategies' `PrepareForUpdate` keep of an update, by the path it took: the main
//! resource keeps its stored status (when the kind has a `/status`), `/status` keeps the
//! stored object but its status, a CertificateSigningRequest's `/approval` keeps everything but
//! its conditions, and `pods/ephemeralcontainers` everything but the ephemeral containers
//! (`dropNonEphemeralContainerUpdates`); and what the field manager compares, the write as sent
//! less the fields the strategy resets (`GetResetFields`), recorded before the strategy copies
//! the old object back.

use serde_json::{Value, json};

use crate::semantics::apps_set_strategy;
use crate::semantics::claim_strategy;
use crate::semantics::defaults;
use crate::semantics::endpointslice_strategy;
use crate::semantics::hpa_strategy;
use crate::semantics::job_strategy;
use crate::semantics::lease_strategy;
use crate::semantics::pod_gates;
use crate::semantics::priorityclass;
use crate::semantics::service_strategy;
use crate::semantics::status_metadata;
use crate::semantics::validation::preserve_system_fields;
use crate::semantics::volume_strategy;
use crate::semantics::{core_strategies, csr};
use crate::storage::object::{keep_stored, meta_mut, same_spec};
use crate::storage::resource::ResourceInfo;
use crate::verbs::options::Ownership;

/// Whether the strategy's `PrepareForUpdate` moves the generation of `old` written as `new`
/// through `subresource`: its spec changed (everything but metadata, and status where the kind
/// has a `/status`), for a Deployment its annotations too, which its replica sets copy
/// (`pkg/registry/apps/deployment/strategy.go`), for an EndpointSlice its labels; never for a
/// PriorityClass; a CSIDriver's as its strategy decides by minor.
pub(crate) fn moves_generation(
    info: &ResourceInfo,
    old: &Value,
    new: &Value,
    subresource: Option<&str>,
    minor: u32,
) -> bool {
    if info.builtin && info.group == "storage.k8s.io" && info.kind == "CSIDriver" {
        return csi_driver_moves_generation(old, new, minor);
    }
    let annotations_changed = info.builtin
        && info.group == "apps"
        && info.kind == "Deployment"
        && subresource != Some("status")
        && old.pointer("/metadata/annotations") != new.pointer("/metadata/annotations");
    // A PriorityClass's `PrepareForUpdate` does nothing: its generation stays 1.
    info.has_generation
        && !priorityclass::concerns(info)
        && (!same_spec(old, new, !info.status_subresource)
            || annotations_changed
            || endpointslice_strategy::labels_move_generation(info, old, new))
}

/// The CSIDriver strategy's `PrepareForUpdate` (`pkg/registry/storage/csidriver/strategy.go`),
/// which sets no generation on create: 1.28 moves it when the token requests, republishing or
/// SELinux mount changed (the fields that may change), 1.31 when anything in the spec did.
fn csi_driver_moves_generation(old: &Value, new: &Value, minor: u32) -> bool {
    if minor >= 31 {
        return old.get("spec") != new.get("spec");
    }
    let field = |o: &Value, key: &str| o.pointer(&format!("/spec/{key}")).filter(|v| !v.is_null()).cloned();
    // Semantic equality: an empty list of token requests is none.
    let requests = |o: &Value| field(o, "tokenRequests").filter(|r| r.as_array().is_none_or(|l| !l.is_empty()));
    requests(old) != requests(new)
        || ["requiresRepublish", "seLinuxMount"]
            .iter()
            .any(|key| field(old, key) != field(new, key))
}

/// The object an update of `old` to `new` through `subresource` stores on the Kubernetes
/// `minor`, and the view of it the field manager compares when that is not the object itself.
pub(crate) fn prepare_update(
    info: &ResourceInfo,
    old: &Value,
    mut new: Value,
    subresource: Option<&str>,
    ownership: Ownership,
    minor: u32,
) -> (Value, Option<Value>) {
    let mut field_view: Option<Value> = None;
    if core_strategies::prepare_update(info, old, &mut new, subresource) {
        return (new, None);
    }
    if let Some(view) = apps_set_strategy::prepare_update(info, old, &mut new, subresource, minor) {
        return (new, view);
    }
    match subresource {
        Some(sub @ ("status" | "approval")) => {
            // `/status` changes status alone (and the managed fields that record it): the new
            // object is the old one with the status sent, and what was sent becomes the view.
            // A CSR's `/approval` changes its conditions alone.
            let status = if sub == "approval" {
                let mut kept = old.get("status").cloned().unwrap_or_else(|| json!({}));
                kept["conditions"] = new.pointer("/status/conditions").cloned().unwrap_or(Value::Null);
                Some(kept)
            } else {
                new.get("status").cloned()
            };
            let managed = new
                .pointer("/metadata/managedFields")
                .filter(|_| ownership == Ownership::Applied)
                .cloned();
            let mut view = std::mem::replace(&mut new, old.clone());
            keep_stored(&mut view, old, "spec");
            preserve_system_fields(old, &mut view);
            if csr::concerns(info) {
                csr::reset_in_view(&mut view, old, sub);
            }
            if info.builtin && sub == "status" && !csr::concerns(info) {
                // A built-in kind's status strategy resets spec and what `status_metadata`
                // names, and keeps the rest of what was sent: labels and annotations written
                // through `/status` are stored (a custom resource's strategy keeps none).
                status_metadata::reset(info, old, &mut view);
                let stored_managed = old.pointer("/metadata/managedFields").cloned();
                new = view.clone();
                match managed.or(stored_managed) {
                    Some(managed) => meta_mut(&mut new).insert("managedFields".to_owned(), managed),
                    None => meta_mut(&mut new).remove("managedFields"),
                };
                field_view = Some(view);
            } else {
                field_view = Some(view);
                match status {
                    Some(status) => new["status"] = status,
                    None => {
                        if let Some(fields) = new.as_object_mut() {
                            fields.remove("status");
                        }
                    }
                }
                if let Some(managed) = managed {
                    meta_mut(&mut new).insert("managedFields".to_owned(), managed);
                }
            }
        }
        Some("ephemeralcontainers") => {
            // `dropNonEphemeralContainerUpdates`: the stored pod with the ephemeral containers
            // sent, and nothing else of what was sent.
            let sent = new.pointer("/spec/ephemeralContainers").cloned();
            new = old.clone();
            if let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) {
                match sent {
                    Some(containers) => spec.insert("ephemeralContainers".to_owned(), containers),
                    None => spec.remove("ephemeralContainers"),
                };
            }
        }
        _ if info.status_subresource => keep_stored(&mut new, old, "status"),
        _ => endpointslice_strategy::prepare_update(info, old, &mut new),
    }
    if claim_strategy::concerns(info) {
        // Go's field manager records the claim as sent, before its data sources are normalized.
        if subresource.is_none() && field_view.is_none() {
            field_view = Some(new.clone());
        }
        claim_strategy::prepare_update(info, old, &mut new, subresource, minor);
    }
    volume_strategy::prepare_update(info, old, &mut new, subresource, minor);
    hpa_strategy::prepare_update(info, old, &mut new, subresource);
    if pod_gates::concerns(info) && subresource.is_none() {
        // The field manager records the object as sent, with the fields the gates drop.
        let sent = new.clone();
        pod_gates::drop_disabled(info, &mut new, Some(old), minor);
        if field_view.is_none() && sent != new {
            field_view = Some(sent);
        }
    }
    if lease_strategy::concerns(info) {
        // As for the pod gates: the field manager records the Lease as sent.
        let sent = new.clone();
        lease_strategy::drop_disabled(info, &mut new, Some(old));
        if field_view.is_none() && sent != new {
            field_view = Some(sent);
        }
    }
    if job_strategy::concerns(info) && subresource.is_none() && field_view.is_none() {
        // Go's field manager records the job as sent, before the strategy drops the fields of
        // gates that are off.
        field_view = Some(new.clone());
    }
    job_strategy::prepare_update(info, old, &mut new, subresource, minor);
    if csr::concerns(info) {
        csr::prepare_update(&mut new, old, subresource);
    }
    if subresource.is_none() && info.builtin && info.group.is_empty() && info.kind == "Service" {
        // The field manager sees the Service as sent and defaulted, not what the storage
        // keeps or allocates for it.
        let mut view = new.clone();
        if defaults::apply(info, &mut view, minor).is_ok() {
            field_view = Some(view);
        }
        service_strategy::prepare_update(&mut new, old, minor);
    }
    (new, field_view)
}
