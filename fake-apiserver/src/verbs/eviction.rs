//! `pods/<name>/eviction`: a pod deleted the way `kubectl drain` asks for it, within its
//! disruption budgets (`pkg/registry/core/pod/storage/eviction.go`: `EvictionREST.Create`,
//! `propagateDryRun`, `canIgnorePDB`, `shouldEnforceResourceVersion`,
//! `addConditionAndDeletePod`, `getPodDisruptionBudgets`, `checkAndDecrement`). A pod that
//! is pending, finished or already deleting goes at once; a running one only when the one
//! budget that selects it allows a disruption, which the eviction takes from the budget.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::lifecycle::{APISERVER_MANAGER, Writes, budgets_selecting, is_pod_ready, set_disruption_allowed};
use crate::semantics::pod_condition::update_pod_condition;
use crate::status::ApiStatus;
use crate::storage::State;
use crate::storage::object;
use crate::storage::resource::ResourceInfo;
use crate::verbs::delete;
use crate::verbs::options::DeleteOpts;

/// More disrupted pods than this in a budget's status and evictions stop (`MaxDisruptedPodSize`).
const MAX_DISRUPTED_PODS: usize = 2000;

/// POST of an Eviction for the pod `name`; `dry_run` is the request's `dryRun=All`.
pub(crate) fn evict(
    state: &mut State,
    namespace: &str,
    name: &str,
    body: &[u8],
    dry_run: bool,
) -> Result<(u16, Value), ApiStatus> {
    let eviction = decode(body)?;
    if eviction
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        != name
    {
        return Err(ApiStatus::bad_request(
            "name in URL does not match name in Eviction object",
        ));
    }
    let options = delete_options(&eviction, dry_run)?;
    let pods = state.info("", "v1", "pods");
    let pod = state
        .object(&pods, Some(namespace), name)
        .ok_or_else(|| ApiStatus::not_found(&pods, name))?;
    let phase = pod.pointer("/status/phase").and_then(Value::as_str).unwrap_or_default();
    let deleting = object::is_deleting(&pod);
    if matches!(phase, "Succeeded" | "Failed" | "Pending") || deleting {
        // `canIgnorePDB`: the pod disrupts nothing more by going.
        let enforce = !(matches!(phase, "Succeeded" | "Failed") || deleting);
        delete_pod(state, &pods, &pod, options, enforce)?;
        return Ok(success());
    }
    let budgets = budgets_selecting(state, &pod);
    let budget = match &budgets[..] {
        [] => None,
        [one] => Some(one.clone()),
        _ => {
            let message =
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.";
            return Ok((
                500,
                json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "code": 500}),
            ));
        }
    };
    let mut pin = false;
    if let Some(budget) = budget {
        let int = |pointer: &str| budget.pointer(pointer).and_then(Value::as_i64).unwrap_or_default();
        let always_allow = budget
            .pointer("/spec/unhealthyPodEvictionPolicy")
            .and_then(Value::as_str)
            == Some("AlwaysAllow");
        let healthy_enough =
            int("/status/currentHealthy") >= int("/status/desiredHealthy") && int("/status/desiredHealthy") > 0;
        if !is_pod_ready(&pod) && (always_allow || healthy_enough) {
            // An unready pod is not guarded: it goes if it has not become ready since.
            pin = true;
        } else {
            take_disruption(state, &budget, name, options.dry_run)?;
        }
    }
    delete_pod(state, &pods, &pod, options, pin)?;
    Ok(success())
}

/// The body as an `policy/v1` (or `v1beta1`) Eviction.
fn decode(body: &[u8]) -> Result<Value, ApiStatus> {
    let eviction: Value = serde_json::from_slice(body)
        .ok()
        .filter(Value::is_object)
        .ok_or_else(|| ApiStatus::bad_request("the request body must be a JSON object"))?;
    let kind = eviction.get("kind").and_then(Value::as_str).unwrap_or("Eviction");
    let version = eviction
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("policy/v1");
    if kind != "Eviction" || !matches!(version, "policy/v1" | "policy/v1beta1") {
        let short = version.rsplit('/').next().unwrap_or_default();
        return Err(ApiStatus::bad_request(format!(
            "{kind} in version {short:?} cannot be handled as a Eviction: no kind {kind:?} is registered for version {version:?}"
        )));
    }
    Ok(eviction)
}

/// `propagateDryRun`: the eviction's own delete options, with the request's dry run unless
/// they name one of their own, which must then be the same.
fn delete_options(eviction: &Value, dry_run: bool) -> Result<DeleteOpts, ApiStatus> {
    let body = eviction.get("deleteOptions").filter(|o| o.is_object());
    let sent: Vec<&str> = body
        .and_then(|b| b.get("dryRun"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !sent.is_empty() && dry_run && sent != ["All"] {
        return Err(ApiStatus::new(
            500,
            "",
            format!(
                "Non-matching dry-run options in request and content: [All] and [{}]",
                sent.join(" ")
            ),
        ));
    }
    Ok(DeleteOpts::parse(body, None, dry_run))
}

/// `addConditionAndDeletePod`: the `DisruptionTarget` condition written first (not on a dry
/// run), then the delete with the eviction's options; `pin` holds the delete to the pod's
/// resourceVersion, moved past the condition's write.
fn delete_pod(
    state: &mut State,
    pods: &Arc<ResourceInfo>,
    pod: &Value,
    mut options: DeleteOpts,
    pin: bool,
) -> Result<(), ApiStatus> {
    let name = object::name(pod).to_owned();
    let namespace = object::namespace(pod).to_owned();
    if pin && options.resource_version.is_none() {
        options.resource_version = Some(object::resource_version(pod).to_owned());
    }
    if !options.dry_run {
        if let Some(why) = delete::precondition_mismatch(&options, pod) {
            return Err(ApiStatus::conflict(&pods_kind(), &name, &why));
        }
        let mut marked = pod.clone();
        update_pod_condition(
            &mut marked,
            json!({"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting"}),
        );
        let stored = state.store.put(&pods.storage_key(), marked);
        if options.resource_version.is_some() {
            options.resource_version = Some(object::resource_version(&stored).to_owned());
        }
    }
    // The pod is deleted without admission: the eviction itself was admitted.
    options.skip_admission = true;
    delete::delete(state, pods, Some(&namespace), &name, &options)?;
    Ok(())
}

/// The resource a precondition conflict of the condition's write names: Go builds it from the
/// kind (`schema.GroupResource{Resource: "Pod"}`).
fn pods_kind() -> ResourceInfo {
    ResourceInfo::builtin("", "v1", "Pod", "Pod")
}

/// `checkAndDecrement`: the budget must be current and allow a disruption, which the eviction
/// takes, recording the pod among the disrupted ones (not on a dry run).
fn take_disruption(state: &mut State, budget: &Arc<Value>, pod: &str, dry_run: bool) -> Result<(), ApiStatus> {
    let name = object::name(budget).to_owned();
    let int = |pointer: &str| budget.pointer(pointer).and_then(Value::as_i64).unwrap_or_default();
    if int("/status/observedGeneration") < int("/metadata/generation") {
        return Err(too_many_requests(
            10,
            &format!("The disruption budget {name} is still being processed by the server."),
        ));
    }
    let forbidden = |why: &str| {
        let mut status = ApiStatus::forbidden(format!("poddisruptionbudget.policy {name:?} is forbidden: {why}"));
        status.details = Some(json!({"name": name, "group": "policy", "kind": "poddisruptionbudget"}));
        status
    };
    let allowed = int("/status/disruptionsAllowed");
    if allowed < 0 {
        return Err(forbidden("pdb disruptions allowed is negative"));
    }
    let disrupted = budget
        .pointer("/status/disruptedPods")
        .and_then(Value::as_object)
        .map_or(0, |m| m.len());
    if disrupted > MAX_DISRUPTED_PODS {
        return Err(forbidden(
            "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
        ));
    }
    if allowed == 0 {
        let why = format!(
            "The disruption budget {name} needs {} healthy pods and has {} currently",
            int("/status/desiredHealthy"),
            int("/status/currentHealthy")
        );
        return Err(too_many_requests(0, &why));
    }
    if dry_run {
        return Ok(());
    }
    let mut updated = (**budget).clone();
    updated["status"]["disruptionsAllowed"] = json!(allowed - 1);
    if allowed == 1 {
        set_disruption_allowed(&mut updated);
    }
    updated["status"]["disruptedPods"][pod] = json!(object::now());
    let info = state
        .registry
        .find("policy", "v1", "poddisruptionbudgets")
        .cloned()
        .ok_or_else(ApiStatus::no_route)?;
    // The registry writes through its loopback client, whose user agent names the manager.
    state.update_object(&info, budget.clone(), updated, Some(APISERVER_MANAGER), Some("status"))?;
    Ok(())
}

/// `errors.NewTooManyRequests` with the disruption budget's cause.
fn too_many_requests(retry_after: i64, why: &str) -> ApiStatus {
    let mut status = ApiStatus::new(
        429,
        "TooManyRequests",
        "Cannot evict pod as it would violate the pod's disruption budget.",
    );
    let mut details = json!({"causes": [{"reason": "DisruptionBudget", "message": why}]});
    if retry_after > 0 {
        details["retryAfterSeconds"] = json!(retry_after);
    }
    status.details = Some(details);
    status
}

/// The answer of an eviction that went through.
fn success() -> (u16, Value) {
    (
        201,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dry_run_in_the_body_must_match_the_request() {
        let eviction = json!({"deleteOptions": {"dryRun": ["Other"]}});
        assert_eq!(delete_options(&eviction, true).unwrap_err().code, 500);
        assert!(delete_options(&eviction, false).is_ok());
        assert!(
            delete_options(&json!({"deleteOptions": {"dryRun": ["All"]}}), false)
                .unwrap()
                .dry_run
        );
    }

    #[test]
    fn only_evictions_decode_as_evictions() {
        assert!(decode(br#"{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}}"#).is_ok());
        assert_eq!(decode(br#"{"apiVersion":"v1","kind":"Pod"}"#).unwrap_err().code, 400);
    }

    #[test]
    fn a_budget_without_disruptions_refuses_with_its_numbers() {
        let refused = too_many_requests(0, "The disruption budget b needs 2 healthy pods and has 1 currently");
        assert_eq!(refused.code, 429);
        assert!(
            refused
                .details
                .as_ref()
                .is_some_and(|d| d.get("retryAfterSeconds").is_none())
        );
    }
}
