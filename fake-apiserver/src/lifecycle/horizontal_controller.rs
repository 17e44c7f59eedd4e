//! kube-controller-manager's horizontal pod autoscaler (`pkg/controller/podautoscaler/horizontal.go`
//! of v1.28 and v1.31: `enqueueHPA`/`updateHPA` with `rate_limiters.go`'s fixed interval,
//! `processNextWorkItem`, `reconcileKey`, `reconcileAutoscaler`, `scaleForResourceMappings`,
//! `computeReplicasForMetrics`, `computeReplicasForMetric` and its `computeStatusFor*Metric`,
//! `getUnableComputeReplicaCountCondition`, `validateAndParseSelector`, `setStatus`,
//! `setCurrentReplicasInStatus` (1.29+: `setCurrentReplicasAndMetricsInStatus`),
//! `updateStatusIfNeeded`, `setConditionInList`; the errors of `replica_calculator.go` and
//! `metrics/client.go`) on a cluster that serves no metrics API. Every metric fetch fails, so no
//! replica count ever comes from metrics: the recommendation stabilization, the behaviors'
//! scaling rules and `groupPods` (where `missing request for cpu` would come from, after metrics
//! were fetched) are never reached and not ported; nor are other HPAs' selectors
//! (`AmbiguousSelector`).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::lifecycle::bootstrap::CONTROLLER_MANAGER;
use crate::lifecycle::events;
use crate::lifecycle::horizontal_metrics::{Failure, invalid_metrics_error, list, metric_failure};
use crate::lifecycle::horizontal_scale::{get_scale, write_scale};
use crate::lifecycle::writes::Writes;
use crate::semantics::selector::LabelSelector;
use crate::storage::State;
use crate::storage::object;
use crate::storage::pending::{Pending, Timer};
use crate::storage::resource::ResourceInfo;

const COMPONENT: &str = "horizontal-pod-autoscaler";
/// `--horizontal-pod-autoscaler-sync-period`: every add of a key waits this long (`AddRateLimited`).
const RESYNC: Duration = Duration::from_secs(15);
const ABLE_TO_SCALE: &str = "AbleToScale";
const SCALING_ACTIVE: &str = "ScalingActive";

/// The informer's `AddFunc`/`UpdateFunc`: the key waits the rate limiter's fixed interval, so a
/// write (the controller's own status write too) merges with the resync already queued.
pub(super) fn on_change(info: &ResourceInfo, object: &Value) -> Option<Pending> {
    let concerned = info.builtin && info.group == "autoscaling" && info.plural == "horizontalpodautoscalers";
    (concerned && !object::is_deleting(object)).then(|| queued(object::namespace(object), object::name(object)))
}

fn queued(namespace: &str, name: &str) -> Pending {
    let (namespace, name) = (namespace.to_owned(), name.to_owned());
    let due = SystemTime::now() + RESYNC;
    Pending::Deadline {
        timer: Timer::Autoscaler,
        namespace,
        name,
        due,
    }
}

/// `processNextWorkItem`: `reconcileKey`, then the key again after the resync period unless the
/// HPA is gone; a failed reconcile comes back no sooner.
pub(super) fn sync(state: &mut State, namespace: &str, name: &str) {
    let info = state.info("autoscaling", "v2", "horizontalpodautoscalers");
    let Some(hpa) = state.object(&info, Some(namespace), name) else {
        return;
    };
    let status = hpa["status"].clone();
    let mut reconcile = Reconcile {
        state,
        info,
        hpa,
        status,
    };
    reconcile.run();
    reconcile.state.pending.push(queued(namespace, name));
}

/// One `reconcileAutoscaler`: the HPA as the lister holds it, and the status it turns into.
struct Reconcile<'a> {
    state: &'a mut State,
    info: Arc<ResourceInfo>,
    hpa: Arc<Value>,
    status: Value,
}

impl Reconcile<'_> {
    fn run(&mut self) {
        let spec = self.hpa["spec"].clone();
        let scale = match get_scale(self.state, object::namespace(&self.hpa), &spec["scaleTargetRef"]) {
            Ok(scale) => scale,
            Err(error) => {
                self.event("Warning", "FailedGetScale", &error);
                let message = format!("the HPA controller was unable to get the target's current scale: {error}");
                self.condition(ABLE_TO_SCALE, "False", "FailedGetScale", &message);
                return self.update_status_if_needed();
            }
        };
        let message = "the HPA controller was able to get the target's current scale";
        self.condition(ABLE_TO_SCALE, "True", "SucceededGetScale", message);
        let current = scale.replicas;
        let min = spec["minReplicas"].as_i64().unwrap_or(1);
        match decide(current, min, spec["maxReplicas"].as_i64().unwrap_or(0)) {
            Decision::Disabled => {
                let message = "scaling is disabled since the replica count of the target is zero";
                self.condition(SCALING_ACTIVE, "False", "ScalingDisabled", message);
                self.status = set_status(&self.status, current, current, Value::Null, false);
            }
            Decision::Rescale(desired, reason) => {
                if let Err(error) = write_scale(self.state, &scale, desired) {
                    let message = format!("New size: {desired}; reason: {reason}; error: {error}");
                    self.event("Warning", "FailedRescale", &message);
                    let message = format!("the HPA controller was unable to update the target scale: {error}");
                    self.condition(ABLE_TO_SCALE, "False", "FailedUpdateScale", &message);
                    self.set_current_replicas(current, None);
                    return self.update_status_if_needed();
                }
                let message = format!("the HPA controller was able to update the target scale to {desired}");
                self.condition(ABLE_TO_SCALE, "True", "SucceededRescale", &message);
                let message = format!("New size: {desired}; reason: {reason}");
                self.event("Normal", "SuccessfulRescale", &message);
                self.status = set_status(&self.status, current, desired, Value::Null, true);
            }
            Decision::Metrics => {
                // v2 defaulting always leaves a metric; without one Go would go on to its
                // normalization, which is not ported.
                let failed = self.compute_replicas_for_metrics(&scale.selector, list(&spec["metrics"]));
                let Some((error, statuses)) = failed else {
                    return self.update_status_if_needed();
                };
                self.set_current_replicas(current, statuses);
                self.update_status_if_needed();
                return self.event("Warning", "FailedComputeMetricsReplicas", &error);
            }
        }
        self.update_status_if_needed();
    }

    /// `computeReplicasForMetrics` when every metric fails: an event for each
    /// (`getUnableComputeReplicaCountCondition`), the first one's condition, the errors summed
    /// up; with the metric statuses filled (`None` when it stopped at the selector).
    fn compute_replicas_for_metrics(
        &mut self,
        selector: &str,
        metrics: &[Value],
    ) -> Option<(String, Option<Vec<Value>>)> {
        if let Err(error) = self.validate_selector(selector) {
            return Some((error, None));
        }
        let namespace = object::namespace(&self.hpa).to_owned();
        let failures: Vec<Failure> = metrics.iter().map(|m| metric_failure(m, &namespace)).collect();
        for failure in &failures {
            self.event("Warning", &failure.reason, &failure.cause);
        }
        let (first, error) = (failures.first()?, invalid_metrics_error(&failures)?);
        let message = format!("the HPA was unable to compute the replica count: {}", first.cause);
        self.condition(SCALING_ACTIVE, "False", &first.reason, &message);
        // `make([]MetricStatus, len(metricSpecs))`: a failed metric's status stays zero.
        Some((error, Some(vec![json!({"type": ""}); failures.len()])))
    }

    /// `validateAndParseSelector`, short of the pods' HPAs (not tracked).
    fn validate_selector(&mut self, selector: &str) -> Result<(), String> {
        if selector.is_empty() {
            self.event("Warning", "SelectorRequired", "selector is required");
            let message = "the HPA target's scale is missing a selector";
            self.condition(SCALING_ACTIVE, "False", "InvalidSelector", message);
            return Err("selector is required".to_owned());
        }
        let Err(parse) = LabelSelector::parse(selector) else {
            return Ok(());
        };
        let error = format!("couldn't convert selector into a corresponding internal selector object: {parse}");
        self.event("Warning", "InvalidSelector", &error);
        self.condition(SCALING_ACTIVE, "False", "InvalidSelector", &error);
        Err(error)
    }

    /// `setCurrentReplicasInStatus` keeps the metric statuses the HPA had; from 1.29 (#121039,
    /// `setCurrentReplicasAndMetricsInStatus`) this sync's replace them, `null` when none.
    fn set_current_replicas(&mut self, current: i64, statuses: Option<Vec<Value>>) {
        let desired = self.status["desiredReplicas"].as_i64().unwrap_or(0);
        let metrics = match self.state.options.minor() {
            29.. => statuses.map_or(Value::Null, Value::Array),
            _ => self.status["currentMetrics"].clone(),
        };
        self.status = set_status(&self.status, current, desired, metrics, false);
    }

    /// `updateStatusIfNeeded`: `/status` is written only when the status changed.
    fn update_status_if_needed(&mut self) {
        if same_status(&self.hpa["status"], &self.status) {
            return;
        }
        let (info, hpa, manager) = (self.info.clone(), self.hpa.clone(), Some(CONTROLLER_MANAGER));
        let mut updated = (*hpa).clone();
        updated["status"] = self.status.clone();
        if let Err(status) = self.state.update_object(&info, hpa, updated, manager, Some("status")) {
            self.event("Warning", "FailedUpdateStatus", &status.message);
        }
    }

    fn event(&mut self, kind: &str, reason: &str, message: &str) {
        events::record(self.state, &self.info, &self.hpa, kind, reason, message, COMPONENT);
    }

    /// `setCondition`, at the time of the call (`metav1.Now()`).
    fn condition(&mut self, kind: &str, truth: &str, reason: &str, message: &str) {
        set_condition(&mut self.status, kind, truth, reason, message, &object::now());
    }
}

/// The branches of `reconcileAutoscaler` before any metric is asked for.
#[derive(Debug, PartialEq, Eq)]
enum Decision {
    /// The target has no replicas and the minimum is not zero.
    Disabled,
    /// Out of `[min, max]`: rescaled to the bound, for this reason (no `ScalingLimited`: only
    /// the metrics path's normalization sets it).
    Rescale(i64, &'static str),
    Metrics,
}

fn decide(current: i64, min: i64, max: i64) -> Decision {
    if current == 0 && min != 0 {
        Decision::Disabled
    } else if current > max {
        Decision::Rescale(max, "Current number of replicas above Spec.MaxReplicas")
    } else if current < min {
        Decision::Rescale(min, "Current number of replicas below Spec.MinReplicas")
    } else {
        Decision::Metrics
    }
}

/// `setConditionInList`: the condition of `kind` added if missing; its transition time moves
/// only when its status changes.
fn set_condition(status: &mut Value, kind: &str, truth: &str, reason: &str, message: &str, now: &str) {
    if !status["conditions"].is_array() {
        status["conditions"] = json!([]);
    }
    let Value::Array(conditions) = &mut status["conditions"] else {
        return;
    };
    let found = conditions.iter().position(|c| c["type"] == kind);
    let index = found.unwrap_or_else(|| {
        conditions.push(json!({"type": kind}));
        conditions.len() - 1
    });
    let condition = &mut conditions[index];
    if condition["status"] != truth {
        condition["lastTransitionTime"] = json!(now);
    }
    condition["status"] = json!(truth);
    condition["reason"] = json!(reason);
    condition["message"] = json!(message);
}

/// `setStatus`: the status made anew from the replica counts and metric statuses, keeping the
/// last scale time (now, after a rescale) and the conditions; the observed generation goes.
/// Written as Go encodes it: `currentMetrics` has no `omitempty`.
fn set_status(status: &Value, current: i64, desired: i64, metrics: Value, rescaled: bool) -> Value {
    let mut rebuilt = json!({"desiredReplicas": desired, "currentMetrics": metrics});
    let last_scale = rescaled.then(|| json!(object::now()));
    if let Some(last_scale) = last_scale.or_else(|| object::present(status, "lastScaleTime").cloned()) {
        rebuilt["lastScaleTime"] = last_scale;
    }
    if current != 0 {
        rebuilt["currentReplicas"] = json!(current);
    }
    if !list(&status["conditions"]).is_empty() {
        rebuilt["conditions"] = status["conditions"].clone();
    }
    rebuilt
}

/// `apiequality.Semantic.DeepEqual` of two statuses in JSON: a field left out is its zero value
/// and an empty list a nil one, but a list's entries count however empty they are; the observed
/// generation is a pointer, set or not.
fn same_status(old: &Value, new: &Value) -> bool {
    let generation = |status: &Value| object::present(status, "observedGeneration").cloned();
    // Wrapped, so that a zero status is dropped like any zero field.
    let canonical_status = |status: &Value| canonical(&json!({ "status": status }));
    canonical_status(old) == canonical_status(new) && generation(old) == generation(new)
}

/// A value with the zero values (`null`, `0`, `""`, `false`, `[]`, `{}`) left out of its maps.
fn canonical(value: &Value) -> Value {
    let zero = |v: &Value| match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_i64() == Some(0),
        Value::String(s) => s.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
    };
    match value {
        Value::Object(map) => {
            let kept = map.iter().map(|(key, v)| (key.clone(), canonical(v)));
            Value::Object(kept.filter(|(_, v)| !zero(v)).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_keeps_its_transition_time_while_its_status_holds() {
        let mut status = json!({"conditions": [{"type": ABLE_TO_SCALE, "status": "True", "lastTransitionTime": "T0"}]});
        set_condition(&mut status, ABLE_TO_SCALE, "True", "SucceededRescale", "m1", "T1");
        assert_eq!(status["conditions"][0]["lastTransitionTime"], "T0");
        assert_eq!(status["conditions"][0]["reason"], "SucceededRescale");
        set_condition(&mut status, ABLE_TO_SCALE, "False", "FailedGetScale", "m2", "T2");
        assert_eq!(status["conditions"][0]["lastTransitionTime"], "T2");
        let mut fresh = Value::Null;
        set_condition(&mut fresh, SCALING_ACTIVE, "False", "ScalingDisabled", "m3", "T3");
        let added = json!({"type": SCALING_ACTIVE, "status": "False", "lastTransitionTime": "T3", "reason": "ScalingDisabled", "message": "m3"});
        assert_eq!(fresh, json!({"conditions": [added]}));
    }

    #[test]
    fn replicas_out_of_bounds_rescale_to_the_bound_before_any_metric() {
        assert_eq!(decide(0, 1, 5), Decision::Disabled);
        assert_eq!(decide(0, 0, 5), Decision::Metrics);
        assert_eq!(
            decide(7, 1, 5),
            Decision::Rescale(5, "Current number of replicas above Spec.MaxReplicas")
        );
        assert_eq!(
            decide(1, 2, 5),
            Decision::Rescale(2, "Current number of replicas below Spec.MinReplicas")
        );
        assert_eq!(decide(3, 1, 5), Decision::Metrics);
    }

    #[test]
    fn a_status_is_written_only_when_it_changed_semantically() {
        let stored = json!({"desiredReplicas": 0, "currentMetrics": null});
        assert!(same_status(&stored, &set_status(&stored, 0, 0, Value::Null, false)));
        assert!(same_status(&Value::Null, &json!({"desiredReplicas": 0})));
        assert!(!same_status(&stored, &set_status(&stored, 1, 0, Value::Null, false)));
        assert!(!same_status(
            &stored,
            &set_status(&stored, 0, 0, json!([{"type": ""}]), false)
        ));
        assert!(!same_status(&json!({"observedGeneration": 0}), &json!({})));
    }
}
