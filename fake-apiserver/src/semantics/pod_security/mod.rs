//! The Pod Security Standards (`k8s.io/pod-security-admission`): a namespace's policy from its
//! labels (`policy`) and the checks of each level and version a pod (or a pod template) is
//! evaluated against (`policy/registry.go`, `policy/checks.go`, `policy/check_*.go`).

pub(crate) mod checks;
pub(crate) mod checks_host;
pub(crate) mod checks_kernel;
pub(crate) mod checks_lsm;
pub(crate) mod checks_privilege;
pub(crate) mod checks_restricted;
pub(crate) mod checks_seccomp;
pub(crate) mod pod_view;
pub(crate) mod policy;
pub(crate) mod registry;

use serde_json::Value;

pub(crate) use checks::Aggregate;
pub(crate) use policy::{Level, LevelVersion, Policy};

/// The checks of `level_version` that `spec` (with `meta`) fails, on Kubernetes 1.`minor`:
/// `Evaluator.EvaluatePod` then `AggregateCheckResults`. `meta` is the pod's or the template's
/// metadata (null when absent) and `spec` the defaulted v1 pod spec, both as JSON.
pub(crate) fn evaluate(level_version: LevelVersion, meta: &Value, spec: &Value, minor: u32) -> Aggregate {
    let running = registry::select(registry::checks(minor), level_version);
    Aggregate::of(running.into_iter().map(|(_, revision)| (revision.run)(meta, spec)))
}

#[cfg(test)]
mod tests;
