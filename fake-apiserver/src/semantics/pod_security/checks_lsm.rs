//! The baseline checks on the Linux security modules' profiles: `check_appArmorProfile.go` and
//! `check_seLinuxOptions.go`, each as Kubernetes 1.28 and 1.31 have it. 1.31 reads the AppArmor
//! fields (not only the beta annotations) and words the detail anew, under the same version
//! 1.0; it also adds SELinux version 1.31, which allows `container_engine_t`.

use std::collections::BTreeSet;

use serde_json::Value;

use super::checks::{Check, CheckResult, Forbidden, VersionedCheck};
use super::pod_view::{
    annotations, bad_setters, containers, join_quote, name, named, object, pluralize, security_context, text,
};
use super::policy::Level;
use crate::semantics::field_error::go_quote;

/// `CheckAppArmorProfile` as Kubernetes 1.28 registers it.
pub(crate) const APP_ARMOR_PROFILE_1_28: Check = Check {
    id: "appArmorProfile",
    level: Level::Baseline,
    versions: &[VersionedCheck::new(0, app_armor_profile_1_0_on_1_28)],
};

/// `CheckAppArmorProfile` as Kubernetes 1.31 registers it.
pub(crate) const APP_ARMOR_PROFILE_1_31: Check = Check {
    id: "appArmorProfile",
    level: Level::Baseline,
    versions: &[VersionedCheck::new(0, app_armor_profile_1_0_on_1_31)],
};

/// `CheckSELinuxOptions` as Kubernetes 1.28 registers it.
pub(crate) const SE_LINUX_OPTIONS_1_28: Check = Check {
    id: "seLinuxOptions",
    level: Level::Baseline,
    versions: &[VersionedCheck::new(0, se_linux_options_1_0)],
};

/// `CheckSELinuxOptions` as Kubernetes 1.31 registers it.
pub(crate) const SE_LINUX_OPTIONS_1_31: Check = Check {
    id: "seLinuxOptions",
    level: Level::Baseline,
    versions: &[
        VersionedCheck::new(0, se_linux_options_1_0),
        VersionedCheck::new(31, se_linux_options_1_31),
    ],
};

/// `corev1.AppArmorBetaContainerAnnotationKeyPrefix` (1.31: `Deprecated…`).
const APP_ARMOR_ANNOTATION_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";

/// `selinux_allowed_types_1_0`; the empty type leaves the runtime's choice.
const SE_LINUX_TYPES_1_0: &[&str] = &["", "container_t", "container_init_t", "container_kvm_t"];

/// `selinuxAllowedTypes1_31`.
const SE_LINUX_TYPES_1_31: &[&str] = &[
    "",
    "container_t",
    "container_init_t",
    "container_kvm_t",
    "container_engine_t",
];

/// The AppArmor annotations whose profile is neither the runtime's default nor a node-local
/// one, as `key="value"` (`%s=%q`), sorted (`allowedProfile`, 1.31 `allowedAnnotationValue`).
fn forbidden_app_armor_annotations(meta: &Value) -> Vec<String> {
    let mut forbidden: Vec<String> = annotations(meta)
        .filter(|(key, _)| key.starts_with(APP_ARMOR_ANNOTATION_PREFIX))
        .filter(|(_, profile)| {
            !(profile.is_empty() || *profile == "runtime/default" || profile.starts_with("localhost/"))
        })
        .map(|(key, profile)| format!("{key}={}", go_quote(profile)))
        .collect();
    forbidden.sort_unstable();
    forbidden
}

fn app_armor_profile_1_0_on_1_28(meta: &Value, _spec: &Value) -> CheckResult {
    let forbidden = forbidden_app_armor_annotations(meta);
    if forbidden.is_empty() {
        return None;
    }
    let reason = pluralize(
        "forbidden AppArmor profile",
        "forbidden AppArmor profiles",
        forbidden.len(),
    );
    Some(Forbidden::new(reason, forbidden.join(", ")))
}

/// The `securityContext.appArmorProfile.type` of the pod spec or a container, when the profile
/// is set; a profile without a type has the empty type.
fn app_armor_type(holder: &Value) -> Option<&str> {
    let profile = security_context(holder).and_then(|context| object(context, "appArmorProfile"))?;
    Some(text(profile, "type"))
}

fn app_armor_profile_1_0_on_1_31(meta: &Value, spec: &Value) -> CheckResult {
    let allowed = |profile: &str| matches!(profile, "RuntimeDefault" | "Localhost");
    let mut bad_types = BTreeSet::new();
    let pod_type = app_armor_type(spec).filter(|profile| !allowed(profile));
    bad_types.extend(pod_type);
    let mut bad = Vec::new();
    for container in containers(spec) {
        if let Some(profile) = app_armor_type(container).filter(|profile| !allowed(profile)) {
            bad.push(name(container));
            bad_types.insert(profile);
        }
    }
    let mut setters = bad_setters(pod_type.is_some(), &bad);
    // The sorted bad types, then the sorted bad annotations: Go appends one list to the other.
    let mut values: Vec<String> = bad_types.into_iter().map(str::to_owned).collect();
    let forbidden = forbidden_app_armor_annotations(meta);
    if !forbidden.is_empty() {
        setters.push(pluralize("annotation", "annotations", forbidden.len()).to_owned());
        values.extend(forbidden);
    }
    if setters.is_empty() {
        return None;
    }
    let reason = pluralize(
        "forbidden AppArmor profile",
        "forbidden AppArmor profiles",
        values.len(),
    );
    let detail = format!(
        "{} must not set AppArmor profile type to {}",
        setters.join(" and "),
        join_quote(&values)
    );
    Some(Forbidden::new(reason, detail))
}

fn se_linux_options_1_0(_meta: &Value, spec: &Value) -> CheckResult {
    se_linux_options(spec, SE_LINUX_TYPES_1_0)
}

fn se_linux_options_1_31(_meta: &Value, spec: &Value) -> CheckResult {
    se_linux_options(spec, SE_LINUX_TYPES_1_31)
}

/// What the bad `seLinuxOptions` of the pod and its containers set, together.
#[derive(Default)]
struct SeLinuxFindings<'v> {
    types: BTreeSet<&'v str>,
    user: bool,
    role: bool,
}

impl<'v> SeLinuxFindings<'v> {
    /// `validSELinuxOptions`: whether the `seLinuxOptions` of `holder` (if set) are allowed,
    /// noting what is not.
    fn allows(&mut self, holder: &'v Value, allowed_types: &[&str]) -> bool {
        let Some(options) = security_context(holder).and_then(|context| object(context, "seLinuxOptions")) else {
            return true;
        };
        let mut valid = true;
        let kind = text(options, "type");
        if !allowed_types.contains(&kind) {
            valid = false;
            self.types.insert(kind);
        }
        if !text(options, "user").is_empty() {
            valid = false;
            self.user = true;
        }
        if !text(options, "role").is_empty() {
            valid = false;
            self.role = true;
        }
        valid
    }
}

fn se_linux_options(spec: &Value, allowed_types: &[&str]) -> CheckResult {
    let mut findings = SeLinuxFindings::default();
    let pod_bad = !findings.allows(spec, allowed_types);
    let bad: Vec<&str> = containers(spec)
        .filter(|container| !findings.allows(container, allowed_types))
        .map(name)
        .collect();
    let setters = bad_setters(pod_bad, &bad);
    if setters.is_empty() {
        return None;
    }
    let mut data = Vec::new();
    if !findings.types.is_empty() {
        let types: Vec<&str> = findings.types.into_iter().collect();
        data.push(named("type", "types", &types));
    }
    if findings.user {
        data.push("user may not be set".to_owned());
    }
    if findings.role {
        data.push("role may not be set".to_owned());
    }
    let detail = format!(
        "{} set forbidden securityContext.seLinuxOptions: {}",
        setters.join(" and "),
        data.join("; ")
    );
    Some(Forbidden::new("seLinuxOptions", detail))
}

#[cfg(test)]
#[path = "checks_lsm_tests.rs"]
mod tests;
