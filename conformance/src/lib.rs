//! The conformance corpus replayed: kube-apiserver's recorded answers against ours.
//!
//! `corpus/` holds request sequences (`scenarios.yaml`) and the answers a real kube-apiserver
//! v1.28.7 gave to them (`real/`, one transcript per scenario). [`replay`] runs every scenario
//! against a server through a `kube::Client` ([`runner`]), normalizes both sides by the corpus
//! rules ([`normalize`]) and compares them step by step ([`compare`]). [`expect`] reads what the
//! project accepts: the allowlist of differences that cannot be removed, each with its reason, and
//! the pending file of known gaps, which may only shrink.

pub mod compare;
pub mod expect;
pub mod node;
pub mod normalize;
pub mod path;
pub mod report;
pub mod runner;
pub mod scenario;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::compare::StepResult;
use crate::runner::Recorder;
use crate::scenario::{LoadError, Scenario};

/// The kube-apiserver version the corpus was recorded on.
pub const RECORDED_VERSION: &str = "v1.28.7";

/// The in-memory server set to answer as the recorded kube-apiserver's minor does, with
/// authentication and RBAC on as the recording cluster had them (its clients send the admin's
/// token, as the recorder sent the cluster admin's).
pub fn corpus_server() -> fake_apiserver::FakeApiServer {
    corpus_server_at(RECORDED_VERSION)
}

/// The in-memory server set to answer as kube-apiserver `version` does, authenticating as the
/// recording clusters did.
pub fn corpus_server_at(version: &str) -> fake_apiserver::FakeApiServer {
    fake_apiserver::FakeApiServer::builder()
        .kube_version(version)
        .authentication(true)
        .build()
}

/// This crate's directory: `allowlist.yaml` and `pending.txt` are here.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The corpus directory of this crate.
pub fn corpus_dir() -> PathBuf {
    crate_dir().join("corpus")
}

/// Why the corpus cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The scenario file is unreadable or malformed.
    #[error(transparent)]
    Scenarios(#[from] LoadError),
    /// A recorded transcript is unreadable or malformed.
    #[error("recorded transcript {path}: {reason}")]
    Transcript {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// The scenarios and kube-apiserver's transcripts of them, by scenario name.
pub struct Corpus {
    /// The scenarios in file order.
    pub scenarios: Vec<Scenario>,
    /// The recorded transcripts, by scenario name.
    pub recorded: HashMap<String, Value>,
}

impl Corpus {
    /// Reads `dir/scenarios.yaml` and `dir/real/*.json`.
    pub fn load(dir: &Path) -> Result<Self, CorpusError> {
        Self::load_recorded(dir, "real")
    }

    /// Reads the scenarios recorded in `dir/<folder>/*.json` (`real-v1.31.2`: the same scenarios
    /// on another minor), with their transcripts; the others are left out.
    pub fn load_recorded(dir: &Path, folder: &str) -> Result<Self, CorpusError> {
        let mut corpus = Self::read(dir, folder)?;
        corpus.scenarios.retain(|s| corpus.recorded.contains_key(&s.name));
        Ok(corpus)
    }

    fn read(dir: &Path, folder: &str) -> Result<Self, CorpusError> {
        let scenarios = scenario::load(&dir.join("scenarios.yaml"))?;
        let mut recorded = HashMap::new();
        let real = dir.join(folder);
        let entries = std::fs::read_dir(&real).map_err(|e| transcript_error(&real, e))?;
        for entry in entries {
            let path = entry.map_err(|e| transcript_error(&real, e))?.path();
            if path.extension().is_none_or(|ext| ext != "json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).map_err(|e| transcript_error(&path, e))?;
            let transcript: Value = serde_json::from_str(&text).map_err(|e| transcript_error(&path, e))?;
            let name = transcript["scenario"]
                .as_str()
                .ok_or_else(|| transcript_error(&path, "no `scenario` name"))?;
            recorded.insert(name.to_owned(), transcript);
        }
        Ok(Corpus { scenarios, recorded })
    }
}

fn transcript_error(path: &Path, reason: impl ToString) -> CorpusError {
    CorpusError::Transcript {
        path: path.display().to_string(),
        reason: reason.to_string(),
    }
}

/// Runs every scenario (whose name `only` accepts) in file order through `recorder` and compares
/// each with its recorded transcript; returns the step results and our transcripts.
pub async fn replay(
    corpus: &Corpus,
    recorder: &Recorder,
    only: impl Fn(&str) -> bool,
) -> (Vec<StepResult>, Vec<Value>) {
    let run_id = runner::random_id(6);
    let (mut results, mut transcripts) = (Vec::new(), Vec::new());
    for scenario in corpus.scenarios.iter().filter(|s| only(&s.name)) {
        let recorded = corpus.recorded.get(&scenario.name);
        let ours = recorder.replay(scenario, "scenarios.yaml", &run_id, recorded).await;
        match recorded {
            Some(real) => results.extend(compare::compare(real, &ours)),
            None => results.extend(compare::unrecorded(scenario)),
        }
        transcripts.push(ours);
    }
    (results, transcripts)
}
