//! The seccomp checks: `check_seccompProfile_baseline.go` (a set profile must be the runtime's
//! default or a node-local one: the alpha annotations up to 1.18, the fields from 1.19) and
//! `check_seccompProfile_restricted.go` (from 1.19 the profile must also be set, replacing the
//! baseline check; Windows pods, which cannot set it, are exempt from 1.25).

use std::collections::BTreeSet;

use serde_json::Value;

use super::checks::{Check, CheckResult, Forbidden, VersionedCheck};
use super::pod_view::{
    annotation, bad_setters, containers, join_quote, name, named, object, pluralize, security_context, text,
    windows_pod,
};
use super::policy::Level;
use crate::semantics::field_error::go_quote;

/// `CheckSeccompBaseline`.
pub(crate) const SECCOMP_PROFILE_BASELINE: Check = Check {
    id: "seccompProfile_baseline",
    level: Level::Baseline,
    versions: &[
        VersionedCheck::new(0, seccomp_profile_baseline_1_0),
        VersionedCheck::new(19, seccomp_profile_baseline_1_19),
    ],
};

/// `CheckSeccompProfileRestricted`.
pub(crate) const SECCOMP_PROFILE_RESTRICTED: Check = Check {
    id: "seccompProfile_restricted",
    level: Level::Restricted,
    versions: &[
        VersionedCheck::new(19, seccomp_profile_restricted_1_19).overriding(&[SECCOMP_PROFILE_BASELINE.id]),
        VersionedCheck::new(25, seccomp_profile_restricted_1_25).overriding(&[SECCOMP_PROFILE_BASELINE.id]),
    ],
};

/// `annotationKeyPod`.
const POD_ANNOTATION: &str = "seccomp.security.alpha.kubernetes.io/pod";

/// `annotationKeyContainerPrefix`, followed by the container's name.
const CONTAINER_ANNOTATION_PREFIX: &str = "container.seccomp.security.alpha.kubernetes.io/";

/// `validSeccomp`: the profile types the standards allow.
fn allowed_type(kind: &str) -> bool {
    matches!(kind, "Localhost" | "RuntimeDefault")
}

/// `validSeccompAnnotationValue`.
fn allowed_annotation_value(profile: &str) -> bool {
    profile == "runtime/default" || profile == "docker/default" || profile.starts_with("localhost/")
}

/// The `securityContext.seccompProfile.type` of the pod spec or a container, when the profile
/// is set; a profile without a type has the empty type.
fn profile_type(holder: &Value) -> Option<&str> {
    let profile = security_context(holder).and_then(|context| object(context, "seccompProfile"))?;
    Some(text(profile, "type"))
}

fn seccomp_profile_baseline_1_0(meta: &Value, spec: &Value) -> CheckResult {
    // The pod's annotation, then each container's (by name); a set, so sorted and each once.
    let keys = std::iter::once(POD_ANNOTATION.to_owned())
        .chain(containers(spec).map(|container| format!("{CONTAINER_ANNOTATION_PREFIX}{}", name(container))));
    let forbidden: BTreeSet<String> = keys
        .filter_map(|key| {
            let profile = annotation(meta, &key)?;
            (!allowed_annotation_value(profile)).then(|| format!("{key}={}", go_quote(profile)))
        })
        .collect();
    if forbidden.is_empty() {
        return None;
    }
    let forbidden: Vec<String> = forbidden.into_iter().collect();
    let detail = format!(
        "forbidden {} {}",
        pluralize("annotation", "annotations", forbidden.len()),
        forbidden.join(", ")
    );
    Some(Forbidden::new("seccompProfile", detail))
}

/// The seccomp profiles of the pod and its containers sorted out, as both the baseline (1.19)
/// and the restricted checks read them.
struct Profiles<'v> {
    /// The pod sets an allowed type, which containers that set none inherit.
    pod_allowed: bool,
    /// The pod sets a type that is not allowed.
    pod_bad: bool,
    /// Containers that set a type that is not allowed.
    bad_containers: Vec<&'v str>,
    /// Containers that set no profile.
    unset_containers: Vec<&'v str>,
    /// The types not allowed, sorted and each once.
    bad_types: BTreeSet<&'v str>,
}

impl<'v> Profiles<'v> {
    fn of(spec: &'v Value) -> Self {
        let pod = profile_type(spec);
        let mut bad_types: BTreeSet<&str> = pod.filter(|kind| !allowed_type(kind)).into_iter().collect();
        let (mut bad_containers, mut unset_containers) = (Vec::new(), Vec::new());
        for container in containers(spec) {
            match profile_type(container) {
                Some(kind) if !allowed_type(kind) => {
                    bad_containers.push(name(container));
                    bad_types.insert(kind);
                }
                Some(_) => {}
                None => unset_containers.push(name(container)),
            }
        }
        Self {
            pod_allowed: pod.is_some_and(allowed_type),
            pod_bad: pod.is_some_and(|kind| !allowed_type(kind)),
            bad_containers,
            unset_containers,
            bad_types,
        }
    }

    /// The refusal of the pod or containers that set a type not allowed.
    fn explicitly_bad(&self) -> CheckResult {
        let setters = bad_setters(self.pod_bad, &self.bad_containers);
        if setters.is_empty() {
            return None;
        }
        let types: Vec<&str> = self.bad_types.iter().copied().collect();
        let detail = format!(
            "{} must not set securityContext.seccompProfile.type to {}",
            setters.join(" and "),
            join_quote(&types)
        );
        Some(Forbidden::new("seccompProfile", detail))
    }
}

fn seccomp_profile_baseline_1_19(_meta: &Value, spec: &Value) -> CheckResult {
    Profiles::of(spec).explicitly_bad()
}

fn seccomp_profile_restricted_1_19(_meta: &Value, spec: &Value) -> CheckResult {
    let profiles = Profiles::of(spec);
    if let Some(refusal) = profiles.explicitly_bad() {
        return Some(refusal);
    }
    // Containers that set nothing are only covered by an allowed pod-level profile.
    if profiles.pod_allowed || profiles.unset_containers.is_empty() {
        return None;
    }
    let detail = format!(
        r#"pod or {} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost""#,
        named("container", "containers", &profiles.unset_containers)
    );
    Some(Forbidden::new("seccompProfile", detail))
}

fn seccomp_profile_restricted_1_25(meta: &Value, spec: &Value) -> CheckResult {
    // Pod validation refuses seccomp profiles on a Windows pod, so such a pod cannot set one.
    if windows_pod(spec) {
        return None;
    }
    seccomp_profile_restricted_1_19(meta, spec)
}

#[cfg(test)]
#[path = "checks_seccomp_tests.rs"]
mod tests;
