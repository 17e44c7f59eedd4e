//! The Pod Security Standards' levels, versions and a namespace's policy as its labels give it,
//! following `k8s.io/pod-security-admission/api` (`helpers.go`: `ParseLevel`, `ParseVersion`,
//! `PolicyToEvaluate`, `CompareLevels`; `constants.go`: the label names).

use std::collections::BTreeMap;
use std::fmt;

use crate::semantics::field_error::{BadValue, FieldError};

/// The prefix of the namespace labels that set a policy.
const LABEL_PREFIX: &str = "pod-security.kubernetes.io/";

/// A Pod Security Standard, from the least to the most strict (`api.Level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    Privileged,
    Baseline,
    Restricted,
}

impl Level {
    /// `ParseLevel`: an unknown level is restricted, with the error.
    fn parse(text: &str) -> Result<Self, Self> {
        match text {
            "privileged" => Ok(Self::Privileged),
            "baseline" => Ok(Self::Baseline),
            "restricted" => Ok(Self::Restricted),
            _ => Err(Self::Restricted),
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Privileged => "privileged",
            Self::Baseline => "baseline",
            Self::Restricted => "restricted",
        })
    }
}

/// The version of a standard (`api.Version`): `v1.<minor>`, or the newest (`latest`), which
/// is newer than every numbered version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Version {
    Minor(u32),
    Latest,
}

impl Version {
    /// `ParseVersion`: `latest` or `v1.<n>` (no leading zero); anything else is the latest
    /// version, with the error.
    fn parse(text: &str) -> Result<Self, Self> {
        if text == "latest" {
            return Ok(Self::Latest);
        }
        let minor = text.strip_prefix("v1.").filter(|digits| {
            !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && (digits.len() == 1 || !digits.starts_with('0'))
        });
        minor
            .and_then(|digits| digits.parse().ok())
            .map(Self::Minor)
            .ok_or(Self::Latest)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Minor(minor) => write!(f, "v1.{minor}"),
            Self::Latest => f.write_str("latest"),
        }
    }
}

/// A level at a version (`api.LevelVersion`), written `level:version`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct LevelVersion {
    pub(crate) level: Level,
    pub(crate) version: Version,
}

impl LevelVersion {
    /// `privileged:latest`, what a namespace without labels gets from kube-apiserver's
    /// default configuration.
    pub(crate) const PRIVILEGED: Self = Self {
        level: Level::Privileged,
        version: Version::Latest,
    };
}

impl fmt::Display for LevelVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.level, self.version)
    }
}

/// A namespace's policy in the three modes (`api.Policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Policy {
    pub(crate) enforce: LevelVersion,
    pub(crate) audit: LevelVersion,
    pub(crate) warn: LevelVersion,
}

impl Policy {
    /// kube-apiserver's default `PodSecurityConfiguration`: every mode `privileged:latest`.
    pub(crate) const DEFAULT: Self = Self {
        enforce: LevelVersion::PRIVILEGED,
        audit: LevelVersion::PRIVILEGED,
        warn: LevelVersion::PRIVILEGED,
    };

    /// `FullyPrivileged`: no mode checks anything.
    pub(crate) fn fully_privileged(&self) -> bool {
        [self.enforce, self.audit, self.warn]
            .iter()
            .all(|mode| mode.level == Level::Privileged)
    }

    /// `PolicyToEvaluate` over the default policy: a namespace's `labels` set each mode's level
    /// and version. A label that does not parse is an error (`metadata.labels[<label>]`), and its
    /// mode still gets a value: restricted or latest for enforce, privileged for audit and warn.
    /// Warn follows an explicitly set, stricter enforce level (and its version, unless set).
    pub(crate) fn from_labels(labels: &BTreeMap<String, String>) -> (Self, Vec<FieldError>) {
        let mut policy = Self::DEFAULT;
        let mut errors = Vec::new();
        let label = |mode: &str| {
            let key = format!("{LABEL_PREFIX}{mode}");
            labels.get(&key).map(|value| (key, value.as_str()))
        };
        let level = |mode: &str, fallback: Option<Level>, errors: &mut Vec<FieldError>| {
            let (key, value) = label(mode)?;
            Some(Level::parse(value).unwrap_or_else(|strict| {
                errors.push(invalid(&key, value, "must be one of privileged, baseline, restricted"));
                fallback.unwrap_or(strict)
            }))
        };
        let enforce_level = level("enforce", None, &mut errors);
        // Only an enforce label that parsed raises warn (`hasEnforceLevel`): it is the first
        // label read, so it parsed when it left no error.
        let enforce_parsed = enforce_level.is_some() && errors.is_empty();
        let version = |mode: &str, errors: &mut Vec<FieldError>| {
            let key = format!("{LABEL_PREFIX}{mode}-version");
            let value = labels.get(&key)?;
            Some(Version::parse(value).unwrap_or_else(|latest| {
                errors.push(invalid(&key, value, "must be \"latest\" or \"v1.x\""));
                latest
            }))
        };
        if let Some(parsed) = enforce_level {
            policy.enforce.level = parsed;
        }
        if let Some(parsed) = version("enforce", &mut errors) {
            policy.enforce.version = parsed;
        }
        // Audit and warn fail open.
        if let Some(parsed) = level("audit", Some(Level::Privileged), &mut errors) {
            policy.audit.level = parsed;
        }
        if let Some(parsed) = version("audit", &mut errors) {
            policy.audit.version = parsed;
        }
        let warn_level = level("warn", Some(Level::Privileged), &mut errors);
        if let Some(parsed) = warn_level {
            policy.warn.level = parsed;
        }
        let warn_version = version("warn", &mut errors);
        if let Some(parsed) = warn_version {
            policy.warn.version = parsed;
        }
        if warn_level.is_none() && enforce_parsed && policy.enforce.level > policy.warn.level {
            policy.warn.level = policy.enforce.level;
            if warn_version.is_none() {
                policy.warn.version = policy.enforce.version;
            }
        }
        (policy, errors)
    }
}

/// `appendErr`: a label value that does not parse.
fn invalid(key: &str, value: &str, detail: &str) -> FieldError {
    FieldError::invalid(
        format!("metadata.labels[{key}]"),
        BadValue::Str(value.to_owned()),
        detail,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (format!("{LABEL_PREFIX}{k}"), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn versions_parse_as_go_does() {
        assert_eq!(Version::parse("latest"), Ok(Version::Latest));
        assert_eq!(Version::parse("v1.0"), Ok(Version::Minor(0)));
        assert_eq!(Version::parse("v1.27"), Ok(Version::Minor(27)));
        for bad in ["v1.x", "v1.01", "v2.1", "1.2", "v1.", ""] {
            assert_eq!(Version::parse(bad), Err(Version::Latest), "{bad}");
        }
        assert!(Version::Minor(99) < Version::Latest);
    }

    #[test]
    fn only_a_policy_privileged_in_every_mode_is_fully_privileged() {
        assert!(Policy::DEFAULT.fully_privileged());
        let (policy, _) = Policy::from_labels(&labels(&[("audit", "baseline")]));
        assert!(!policy.fully_privileged());
    }

    #[test]
    fn warn_follows_a_stricter_enforce_level() {
        let (policy, errors) = Policy::from_labels(&labels(&[("enforce", "baseline"), ("enforce-version", "v1.25")]));
        assert!(errors.is_empty());
        assert_eq!(policy.warn.to_string(), "baseline:v1.25");
        assert_eq!(policy.audit, LevelVersion::PRIVILEGED);
        let (policy, _) = Policy::from_labels(&labels(&[("enforce", "baseline"), ("warn", "privileged")]));
        assert_eq!(policy.warn.level, Level::Privileged);
    }

    #[test]
    fn bad_labels_fail_closed_for_enforce_and_open_for_warn() {
        let (policy, errors) = Policy::from_labels(&labels(&[
            ("enforce", "strict"),
            ("warn", "loud"),
            ("audit-version", "x"),
        ]));
        assert_eq!(policy.enforce.level, Level::Restricted);
        assert_eq!(policy.warn.level, Level::Privileged);
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "metadata.labels[pod-security.kubernetes.io/enforce]",
                "metadata.labels[pod-security.kubernetes.io/audit-version]",
                "metadata.labels[pod-security.kubernetes.io/warn]",
            ]
        );
    }
}
