//! The restricted checks on who a pod runs as and what it mounts: `check_runAsNonRoot.go`,
//! `check_runAsUser.go` and `check_restrictedVolumes.go`. (1.31's relaxation of the first two
//! for pods in a user namespace sits behind the `UserNamespacesPodSecurityStandards` alpha
//! gate, which is off, so both minors run the same code.)

use std::collections::BTreeSet;

use serde_json::Value;

use super::checks::{Check, CheckResult, Forbidden, VersionedCheck};
use super::checks_host::HOST_PATH_VOLUMES;
use super::pod_view::{
    bad_setters, containers, flag, items, join_quote, name, named, object, pluralize, security_context,
};
use super::policy::Level;

/// `CheckRunAsNonRoot`.
pub(crate) const RUN_AS_NON_ROOT: Check = Check {
    id: "runAsNonRoot",
    level: Level::Restricted,
    versions: &[VersionedCheck::new(0, run_as_non_root_1_0)],
};

/// `CheckRunAsUser`: from 1.23.
pub(crate) const RUN_AS_USER: Check = Check {
    id: "runAsUser",
    level: Level::Restricted,
    versions: &[VersionedCheck::new(23, run_as_user_1_23)],
};

/// `CheckRestrictedVolumes`: it refuses host paths among others, so it replaces the baseline
/// host path check.
pub(crate) const RESTRICTED_VOLUMES: Check = Check {
    id: "restrictedVolumes",
    level: Level::Restricted,
    versions: &[VersionedCheck::new(0, restricted_volumes_1_0).overriding(&[HOST_PATH_VOLUMES.id])],
};

/// The volume sources a restricted pod may use: none reaches outside the pod's own data.
const ALLOWED_VOLUME_SOURCES: [&str; 8] = [
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
];

/// The restricted volume sources, in the order Go tests for them (a volume setting several is
/// reported by the first); the names are the v1 JSON field names, as Go's details spell them.
const RESTRICTED_VOLUME_SOURCES: [&str; 21] = [
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "nfs",
    "iscsi",
    "glusterfs",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "fc",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "storageos",
];

fn run_as_non_root_1_0(_meta: &Value, spec: &Value) -> CheckResult {
    let pod = security_context(spec).and_then(|context| flag(context, "runAsNonRoot"));
    let (mut explicitly_bad, mut implicitly_bad) = (Vec::new(), Vec::new());
    for container in containers(spec) {
        match security_context(container).and_then(|context| flag(context, "runAsNonRoot")) {
            Some(false) => explicitly_bad.push(name(container)),
            Some(true) => {}
            // A container that does not say inherits the pod's `true`, and nothing else.
            None if pod != Some(true) => implicitly_bad.push(name(container)),
            None => {}
        }
    }
    let setters = bad_setters(pod == Some(false), &explicitly_bad);
    if !setters.is_empty() {
        let detail = format!(
            "{} must not set securityContext.runAsNonRoot=false",
            setters.join(" and ")
        );
        return Some(Forbidden::new("runAsNonRoot != true", detail));
    }
    if implicitly_bad.is_empty() {
        return None;
    }
    let detail = format!(
        "pod or {} must set securityContext.runAsNonRoot=true",
        named("container", "containers", &implicitly_bad)
    );
    Some(Forbidden::new("runAsNonRoot != true", detail))
}

/// `securityContext.runAsUser` of the pod spec or a container is 0.
fn runs_as_root(holder: &Value) -> bool {
    security_context(holder)
        .and_then(|context| context.get("runAsUser"))
        .and_then(Value::as_i64)
        == Some(0)
}

fn run_as_user_1_23(_meta: &Value, spec: &Value) -> CheckResult {
    let bad: Vec<&str> = containers(spec)
        .filter(|container| runs_as_root(container))
        .map(name)
        .collect();
    let setters = bad_setters(runs_as_root(spec), &bad);
    if setters.is_empty() {
        return None;
    }
    let detail = format!("{} must not set runAsUser=0", setters.join(" and "));
    Some(Forbidden::new("runAsUser=0", detail))
}

fn restricted_volumes_1_0(_meta: &Value, spec: &Value) -> CheckResult {
    let mut bad = Vec::new();
    let mut kinds = BTreeSet::new();
    for volume in items(spec, "volumes") {
        let set = |source: &&str| object(volume, source).is_some();
        if ALLOWED_VOLUME_SOURCES.iter().any(set) {
            continue;
        }
        bad.push(name(volume));
        // A source Go does not know (or none at all) is "unknown".
        kinds.insert(RESTRICTED_VOLUME_SOURCES.into_iter().find(set).unwrap_or("unknown"));
    }
    if bad.is_empty() {
        return None;
    }
    let kinds: Vec<&str> = kinds.into_iter().collect();
    let detail = format!(
        "{} {} {} {}",
        named("volume", "volumes", &bad),
        pluralize("uses", "use", bad.len()),
        pluralize("restricted volume type", "restricted volume types", kinds.len()),
        join_quote(&kinds)
    );
    Some(Forbidden::new("restricted volume types", detail))
}

#[cfg(test)]
#[path = "checks_restricted_tests.rs"]
mod tests;
