//! Tests of `registry`: `registry_test.go`'s synthetic registries, `checks_test.go`'s
//! validation of the real ones (`validateChecks`), and the order each minor runs its checks in.

use std::collections::BTreeMap;

use serde_json::Value;

use super::*;
use crate::semantics::pod_security::checks::CheckResult;

fn pass(_meta: &Value, _spec: &Value) -> CheckResult {
    None
}

const fn at(minimum: u32) -> VersionedCheck {
    VersionedCheck::new(minimum, pass)
}

const fn check(id: &'static str, level: Level, versions: &'static [VersionedCheck]) -> Check {
    Check { id, level, versions }
}

fn level_version(level: Level, version: &str) -> LevelVersion {
    let version = match version.strip_prefix("v1.") {
        Some(minor) => Version::Minor(minor.parse().unwrap_or_else(|_| panic!("{version}"))),
        None => Version::Latest,
    };
    LevelVersion { level, version }
}

/// `registryTestCase.Run`: the selected revisions as `id:v1.<minimum>`.
fn assert_selects(checks: &[Check], level: Level, version: &str, want: &[&str]) {
    let got: Vec<String> = select(checks, level_version(level, version))
        .into_iter()
        .map(|(id, revision)| format!("{id}:v1.{}", revision.minimum))
        .collect();
    assert_eq!(got, want, "{level}:{version}");
}

const A: Check = check("a", Level::Baseline, &[at(0)]);
const B: Check = check("b", Level::Baseline, &[at(10)]);
const C: Check = check("c", Level::Baseline, &[at(0), at(5), at(10)]);
const D: Check = check("d", Level::Baseline, &[at(11), at(15), at(20)]);
const E: Check = check("e", Level::Restricted, &[at(0)]);
const F: Check = check("f", Level::Restricted, &[at(12), at(16), at(21)]);
const G: Check = check("g", Level::Restricted, &[at(10).overriding(&["a"])]);
const H: Check = check("h", Level::Restricted, &[at(0).overriding(&["b"])]);
const I: Check = check(
    "i",
    Level::Restricted,
    &[at(10).overriding(&["c"]), at(21).overriding(&["d"])],
);

#[test]
fn check_registry() {
    let checks = [A, B, C, D, E, F, G, H, I];
    let cases: &[(Level, &str, &[&str])] = &[
        (Level::Privileged, "v1.0", &[]),
        (Level::Privileged, "latest", &[]),
        (Level::Baseline, "v1.0", &["a:v1.0", "c:v1.0"]),
        (Level::Baseline, "v1.4", &["a:v1.0", "c:v1.0"]),
        (Level::Baseline, "v1.5", &["a:v1.0", "c:v1.5"]),
        (Level::Baseline, "v1.10", &["a:v1.0", "b:v1.10", "c:v1.10"]),
        (Level::Baseline, "v1.11", &["a:v1.0", "b:v1.10", "c:v1.10", "d:v1.11"]),
        (Level::Baseline, "latest", &["a:v1.0", "b:v1.10", "c:v1.10", "d:v1.20"]),
        (Level::Restricted, "v1.0", &["a:v1.0", "c:v1.0", "e:v1.0", "h:v1.0"]),
        (Level::Restricted, "v1.4", &["a:v1.0", "c:v1.0", "e:v1.0", "h:v1.0"]),
        (Level::Restricted, "v1.5", &["a:v1.0", "c:v1.5", "e:v1.0", "h:v1.0"]),
        (Level::Restricted, "v1.10", &["e:v1.0", "g:v1.10", "h:v1.0", "i:v1.10"]),
        (
            Level::Restricted,
            "v1.11",
            &["d:v1.11", "e:v1.0", "g:v1.10", "h:v1.0", "i:v1.10"],
        ),
        (
            Level::Restricted,
            "latest",
            &["c:v1.10", "e:v1.0", "f:v1.21", "g:v1.10", "h:v1.0", "i:v1.21"],
        ),
        (
            Level::Restricted,
            "v1.10000",
            &["c:v1.10", "e:v1.0", "f:v1.21", "g:v1.10", "h:v1.0", "i:v1.21"],
        ),
    ];
    for (level, version, want) in cases {
        assert_selects(&checks, *level, version, want);
    }
}

#[test]
fn check_registry_without_baseline_checks() {
    let checks = [E, F, G, H];
    let cases: &[(Level, &str, &[&str])] = &[
        (Level::Privileged, "v1.0", &[]),
        (Level::Privileged, "latest", &[]),
        (Level::Baseline, "v1.0", &[]),
        (Level::Baseline, "v1.10", &[]),
        (Level::Baseline, "latest", &[]),
        (Level::Restricted, "v1.0", &["e:v1.0", "h:v1.0"]),
        (Level::Restricted, "v1.10", &["e:v1.0", "g:v1.10", "h:v1.0"]),
        (Level::Restricted, "latest", &["e:v1.0", "f:v1.21", "g:v1.10", "h:v1.0"]),
        (
            Level::Restricted,
            "v1.10000",
            &["e:v1.0", "f:v1.21", "g:v1.10", "h:v1.0"],
        ),
    ];
    for (level, version, want) in cases {
        assert_selects(&checks, *level, version, want);
    }
}

#[test]
fn check_registry_without_restricted_checks_or_any() {
    let checks = [A, B, C, D];
    let cases: &[(&str, &[&str])] = &[
        ("v1.0", &["a:v1.0", "c:v1.0"]),
        ("v1.4", &["a:v1.0", "c:v1.0"]),
        ("v1.5", &["a:v1.0", "c:v1.5"]),
        ("v1.10", &["a:v1.0", "b:v1.10", "c:v1.10"]),
        ("v1.11", &["a:v1.0", "b:v1.10", "c:v1.10", "d:v1.11"]),
        ("latest", &["a:v1.0", "b:v1.10", "c:v1.10", "d:v1.20"]),
    ];
    for (version, want) in cases {
        // Restricted runs exactly the baseline checks.
        assert_selects(&checks, Level::Baseline, version, want);
        assert_selects(&checks, Level::Restricted, version, want);
    }
    for level in [Level::Privileged, Level::Baseline, Level::Restricted] {
        assert_selects(&[], level, "latest", &[]);
    }
}

/// `TestValidChecks` (`validateChecks`): unique IDs, strictly increasing versions, overrides
/// only on restricted checks and only of existing baseline checks.
#[test]
fn each_minor_registers_valid_checks() {
    for minor in [28, 31] {
        let levels: BTreeMap<&str, Level> = checks(minor).iter().map(|check| (check.id, check.level)).collect();
        assert_eq!(levels.len(), checks(minor).len(), "1.{minor}: duplicate IDs");
        assert_eq!(levels.len(), 17);
        for check in checks(minor) {
            assert_ne!(check.level, Level::Privileged, "{}", check.id);
            assert!(!check.versions.is_empty(), "{}", check.id);
            assert!(
                check.versions.windows(2).all(|pair| pair[0].minimum < pair[1].minimum),
                "{}",
                check.id
            );
            for revision in check.versions.iter().filter(|revision| !revision.overrides.is_empty()) {
                assert_eq!(check.level, Level::Restricted, "{} overrides", check.id);
                for id in revision.overrides {
                    assert_eq!(levels.get(id), Some(&Level::Baseline), "{} overrides {id}", check.id);
                }
            }
        }
    }
}

fn ids(level: Level, version: &str, minor: u32) -> Vec<String> {
    select(checks(minor), level_version(level, version))
        .into_iter()
        .map(|(id, revision)| format!("{id}@{}", revision.minimum))
        .collect()
}

#[test]
fn restricted_latest_runs_baseline_then_restricted_checks_by_id() {
    let order_1_28 = [
        "appArmorProfile@0",
        "hostNamespaces@0",
        "hostPorts@0",
        "privileged@0",
        "procMount@0",
        "seLinuxOptions@0",
        "sysctls@27",
        "windowsHostProcess@0",
        "allowPrivilegeEscalation@25",
        "capabilities_restricted@25",
        "restrictedVolumes@0",
        "runAsNonRoot@0",
        "runAsUser@23",
        "seccompProfile_restricted@25",
    ];
    assert_eq!(ids(Level::Restricted, "latest", 28), order_1_28);
    // 1.31's newer revisions of SELinux and sysctls; the order is the same.
    let order_1_31 = order_1_28.map(|id| match id {
        "seLinuxOptions@0" => "seLinuxOptions@31",
        "sysctls@27" => "sysctls@29",
        other => other,
    });
    assert_eq!(ids(Level::Restricted, "latest", 31), order_1_31);
    // Versions newer than the build knows are clamped to its newest.
    assert_eq!(ids(Level::Restricted, "v1.31", 28), order_1_28);
    assert_eq!(ids(Level::Restricted, "v1.99", 31), order_1_31);
}

#[test]
fn versions_pick_revisions_and_overrides() {
    let baseline_latest = [
        "appArmorProfile@0",
        "capabilities_baseline@0",
        "hostNamespaces@0",
        "hostPathVolumes@0",
        "hostPorts@0",
        "privileged@0",
        "procMount@0",
        "seLinuxOptions@0",
        "seccompProfile_baseline@19",
        "sysctls@27",
        "windowsHostProcess@0",
    ];
    assert_eq!(ids(Level::Baseline, "latest", 28), baseline_latest);
    assert_eq!(
        ids(Level::Baseline, "v1.30", 31)[7..10],
        ["seLinuxOptions@0", "seccompProfile_baseline@19", "sysctls@29"]
    );
    assert_eq!(ids(Level::Baseline, "v1.28", 31)[9], "sysctls@27");
    assert_eq!(
        ids(Level::Baseline, "v1.18", 28)[8..10],
        ["seccompProfile_baseline@0", "sysctls@0"]
    );
    // Before 1.19 and 1.22 no restricted revision overrides the baseline seccomp and capability
    // checks; before 1.8 and 1.23 allowPrivilegeEscalation and runAsUser do not run.
    let restricted_1_7 = ids(Level::Restricted, "v1.7", 28);
    assert_eq!(
        restricted_1_7,
        [
            "appArmorProfile@0",
            "capabilities_baseline@0",
            "hostNamespaces@0",
            "hostPorts@0",
            "privileged@0",
            "procMount@0",
            "seLinuxOptions@0",
            "seccompProfile_baseline@0",
            "sysctls@0",
            "windowsHostProcess@0",
            "restrictedVolumes@0",
            "runAsNonRoot@0",
        ]
    );
    let restricted_1_21 = ids(Level::Restricted, "v1.21", 31);
    assert!(restricted_1_21.contains(&"capabilities_baseline@0".to_owned()));
    assert!(!restricted_1_21.contains(&"seccompProfile_baseline@19".to_owned()));
    assert!(restricted_1_21.contains(&"seccompProfile_restricted@19".to_owned()));
    assert!(restricted_1_21.contains(&"allowPrivilegeEscalation@8".to_owned()));
    assert!(!restricted_1_21.iter().any(|id| id.starts_with("runAsUser")));
    assert!(ids(Level::Privileged, "latest", 31).is_empty());
}
