//! Which checks a level at a version runs, and in what order, on Kubernetes 1.`minor`:
//! `policy/registry.go` (`NewEvaluator`, `populate`, `inflateVersions`, `EvaluatePod`) over the
//! checks each minor registers (`DefaultChecks`, from every `check_*.go`'s `init`).
//!
//! Go inflates each check's revisions into a table per version; a revision applies from its
//! minimum version up to the next revision's, and a version newer than the newest minimum of
//! any check is clamped to it. Picking, for the clamped version, the newest revision whose
//! minimum is not newer gives the same answer without the table.

use std::collections::BTreeSet;

use super::checks::{Check, VersionedCheck};
use super::checks_host::{HOST_NAMESPACES, HOST_PATH_VOLUMES, HOST_PORTS, WINDOWS_HOST_PROCESS};
use super::checks_kernel::{PROC_MOUNT, SYSCTLS_1_28, SYSCTLS_1_31};
use super::checks_lsm::{APP_ARMOR_PROFILE_1_28, APP_ARMOR_PROFILE_1_31, SE_LINUX_OPTIONS_1_28, SE_LINUX_OPTIONS_1_31};
use super::checks_privilege::{ALLOW_PRIVILEGE_ESCALATION, CAPABILITIES_BASELINE, CAPABILITIES_RESTRICTED, PRIVILEGED};
use super::checks_restricted::{RESTRICTED_VOLUMES, RUN_AS_NON_ROOT, RUN_AS_USER};
use super::checks_seccomp::{SECCOMP_PROFILE_BASELINE, SECCOMP_PROFILE_RESTRICTED};
use super::policy::{Level, LevelVersion, Version};

/// Kubernetes 1.28's checks (its newest check version is 1.27, the sysctls').
const CHECKS_1_28: &[Check] = &[
    ALLOW_PRIVILEGE_ESCALATION,
    APP_ARMOR_PROFILE_1_28,
    CAPABILITIES_BASELINE,
    CAPABILITIES_RESTRICTED,
    HOST_NAMESPACES,
    HOST_PATH_VOLUMES,
    HOST_PORTS,
    PRIVILEGED,
    PROC_MOUNT,
    RESTRICTED_VOLUMES,
    RUN_AS_NON_ROOT,
    RUN_AS_USER,
    SE_LINUX_OPTIONS_1_28,
    SECCOMP_PROFILE_BASELINE,
    SECCOMP_PROFILE_RESTRICTED,
    SYSCTLS_1_28,
    WINDOWS_HOST_PROCESS,
];

/// Kubernetes 1.31's checks (its newest check version is 1.31, SELinux's).
const CHECKS_1_31: &[Check] = &[
    ALLOW_PRIVILEGE_ESCALATION,
    APP_ARMOR_PROFILE_1_31,
    CAPABILITIES_BASELINE,
    CAPABILITIES_RESTRICTED,
    HOST_NAMESPACES,
    HOST_PATH_VOLUMES,
    HOST_PORTS,
    PRIVILEGED,
    PROC_MOUNT,
    RESTRICTED_VOLUMES,
    RUN_AS_NON_ROOT,
    RUN_AS_USER,
    SE_LINUX_OPTIONS_1_31,
    SECCOMP_PROFILE_BASELINE,
    SECCOMP_PROFILE_RESTRICTED,
    SYSCTLS_1_31,
    WINDOWS_HOST_PROCESS,
];

/// The checks kube-apiserver 1.`minor` registers: 1.31's from 1.31 on, 1.28's before.
pub(crate) fn checks(minor: u32) -> &'static [Check] {
    if minor >= 31 { CHECKS_1_31 } else { CHECKS_1_28 }
}

/// `EvaluatePod`'s choice: the revisions `level_version` runs among `checks`, with their check
/// IDs — nothing for privileged; baseline checks sorted by ID, then (for restricted) restricted
/// checks sorted by ID, leaving out the baseline checks a running restricted revision overrides.
/// IDs sort as Go sorts strings, bytewise, so `seLinuxOptions` precedes `seccompProfile_baseline`.
pub(crate) fn select(checks: &[Check], level_version: LevelVersion) -> Vec<(&'static str, &VersionedCheck)> {
    if level_version.level == Level::Privileged {
        return Vec::new();
    }
    let Some(newest) = checks
        .iter()
        .filter_map(|check| check.versions.last())
        .map(|v| v.minimum)
        .max()
    else {
        return Vec::new();
    };
    let minor = match level_version.version {
        Version::Minor(minor) => minor.min(newest),
        Version::Latest => newest,
    };
    let running = |level: Level| {
        let mut running: Vec<(&'static str, &VersionedCheck)> = checks
            .iter()
            .filter(|check| check.level == level)
            .filter_map(|check| {
                let revision = check.versions.iter().rev().find(|revision| revision.minimum <= minor)?;
                Some((check.id, revision))
            })
            .collect();
        running.sort_unstable_by_key(|(id, _)| *id);
        running
    };
    let mut selected = running(Level::Baseline);
    if level_version.level == Level::Restricted {
        let restricted = running(Level::Restricted);
        let overridden: BTreeSet<&str> = restricted
            .iter()
            .flat_map(|(_, revision)| revision.overrides.iter().copied())
            .collect();
        selected.retain(|(id, _)| !overridden.contains(id));
        selected.extend(restricted);
    }
    selected
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
