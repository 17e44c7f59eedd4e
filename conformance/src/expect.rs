//! What the project accepts from a replay: the allowlist and the pending file.
//!
//! - `allowlist.yaml`: differences that cannot be removed, each naming its step, the differing
//!   paths it covers and why (no nodes, no scheduler, no webhooks). A step whose every hard
//!   difference is covered counts as *allowed*.
//! - `pending.txt`: known gaps of the in-memory server, one `scenario / step: verdict` per line.
//!   A step may not do worse than its line says (or than `identical` without one), and a line
//!   that no longer describes the step is stale: the file only shrinks.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

use crate::compare::{StepResult, Verdict};

/// Why an expectation file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ExpectError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The allowlist is not a list of entries.
    #[error("{path}: {source}")]
    Allowlist {
        /// The file.
        path: String,
        /// The cause.
        source: Box<serde_saphyr::Error>,
    },
    /// A pending line is not `scenario / step: verdict`.
    #[error("{path}:{line}: expected `scenario / step: identical|soft|differ`, found {text:?}")]
    Pending {
        /// The file.
        path: String,
        /// The line number.
        line: usize,
        /// The line.
        text: String,
    },
}

/// One allowed difference.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Allowance {
    /// The scenario.
    pub scenario: String,
    /// The step.
    pub step: String,
    /// Path prefixes of the hard differences this covers.
    pub paths: Vec<String>,
    /// Why the in-memory server cannot answer as kube-apiserver does here.
    pub why: String,
}

impl Allowance {
    /// Whether this entry covers every hard difference of `result`.
    pub fn covers(&self, result: &StepResult) -> bool {
        self.scenario == result.scenario
            && self.step == result.step
            && result
                .hard
                .iter()
                .all(|d| self.paths.iter().any(|p| d.path.starts_with(p.as_str())))
    }
}

/// The allowlist and the pending gaps.
#[derive(Debug, Default)]
pub struct Expectations {
    /// Differences that cannot be removed.
    pub allowlist: Vec<Allowance>,
    /// Known gaps: the verdict each listed step may have at worst.
    pub pending: HashMap<(String, String), Verdict>,
}

/// How one step fared against the expectations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Identical, or soft where allowed by the pending file.
    Met,
    /// Every hard difference allowlisted.
    Allowed,
    /// Worse than expected.
    Regressed,
    /// Better than its pending line: the line is stale.
    Improved,
}

impl Expectations {
    /// Reads `allowlist.yaml` and `pending.txt` from `dir` (a missing file is empty).
    pub fn load(dir: &Path) -> Result<Self, ExpectError> {
        Self::load_with(dir, "pending.txt")
    }

    /// Reads `allowlist.yaml` and the pending file `pending` (one per recorded minor) from
    /// `dir`.
    pub fn load_with(dir: &Path, pending: &str) -> Result<Self, ExpectError> {
        let allow_path = dir.join("allowlist.yaml");
        let allowlist = match read_optional(&allow_path)? {
            Some(text) if !text.trim().is_empty() => {
                serde_saphyr::from_str(&text).map_err(|source| ExpectError::Allowlist {
                    path: allow_path.display().to_string(),
                    source: Box::new(source),
                })?
            }
            _ => Vec::new(),
        };
        let pending_path = dir.join(pending);
        let mut pending = HashMap::new();
        for (i, line) in read_optional(&pending_path)?.unwrap_or_default().lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = || ExpectError::Pending {
                path: pending_path.display().to_string(),
                line: i + 1,
                text: line.to_owned(),
            };
            let (step, verdict) = line.rsplit_once(": ").ok_or_else(bad)?;
            let (scenario, step) = step.split_once(" / ").ok_or_else(bad)?;
            let verdict = Verdict::parse(verdict.trim()).ok_or_else(bad)?;
            pending.insert((scenario.trim().to_owned(), step.trim().to_owned()), verdict);
        }
        Ok(Expectations { allowlist, pending })
    }

    /// The verdict `result` may have at worst.
    pub fn expected(&self, result: &StepResult) -> Verdict {
        let key = (result.scenario.clone(), result.step.clone());
        self.pending.get(&key).copied().unwrap_or(Verdict::Identical)
    }

    /// Whether an allowlist entry covers `result`'s hard differences.
    pub fn allowed(&self, result: &StepResult) -> bool {
        result.verdict == Verdict::Differ && self.allowlist.iter().any(|a| a.covers(result))
    }

    /// How `result` fares.
    pub fn judge(&self, result: &StepResult) -> Outcome {
        let actual = if self.allowed(result) {
            Verdict::Identical
        } else {
            result.verdict
        };
        let expected = self.expected(result);
        if actual > expected {
            Outcome::Regressed
        } else if actual < expected {
            Outcome::Improved
        } else if self.allowed(result) {
            Outcome::Allowed
        } else {
            Outcome::Met
        }
    }

    /// Allowlist entries that cover no step of `results`.
    pub fn unused_allowances<'a>(&'a self, results: &[StepResult]) -> Vec<&'a Allowance> {
        self.allowlist
            .iter()
            .filter(|a| !results.iter().any(|r| r.verdict == Verdict::Differ && a.covers(r)))
            .collect()
    }
}

fn read_optional(path: &Path) -> Result<Option<String>, ExpectError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ExpectError::Read {
            path: path.display().to_string(),
            source,
        }),
    }
}

/// The pending file that describes `results` (the worse verdict where a step appears twice, as
/// in process and served): every step that is neither identical nor allowed.
pub fn pending_file(expectations: &Expectations, results: &[StepResult]) -> String {
    let mut worst: Vec<((String, String), Verdict)> = Vec::new();
    for result in results {
        let verdict = if expectations.allowed(result) {
            Verdict::Identical
        } else {
            result.verdict
        };
        let key = (result.scenario.clone(), result.step.clone());
        match worst.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = (*v).max(verdict),
            None => worst.push((key, verdict)),
        }
    }
    let mut out = String::from(
        "# Known gaps of the in-memory API server against the recorded kube-apiserver answers:\n\
         # `scenario / step: verdict`, the worst a step may do. The replay test fails when a step does\n\
         # worse, and when it does better than its line (delete the line). Regenerate with\n\
         # CONFORMANCE_BLESS=1 cargo test -p conformance --test integration replay::; this file only shrinks.\n",
    );
    for ((scenario, step), verdict) in worst.into_iter().filter(|(_, v)| *v != Verdict::Identical) {
        let _ = writeln!(out, "{scenario} / {step}: {}", verdict.name());
    }
    out
}
