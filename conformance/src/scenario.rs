//! The scenario file: request sequences, the variables they use, and how each step is compared.
//!
//! The format is the recorder's (see `corpus/README.md`); unknown keys are refused, as the
//! recorder refuses them, so a scenario cannot silently mean something else here.

use std::collections::HashMap;
use std::path::Path as FsPath;

use regex::Regex;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::node::Node;
use crate::path::scalar_text;

/// Why a scenario file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a scenario list.
    #[error("{path} is not a scenario file: {source}")]
    Parse {
        /// The file.
        path: String,
        /// The cause.
        source: Box<serde_saphyr::Error>,
    },
    /// Two scenarios share a name (transcripts are keyed by it).
    #[error("{path}: scenario name {name:?} is used twice; names key the transcripts, rename one")]
    Duplicate {
        /// The file.
        path: String,
        /// The name.
        name: String,
    },
}

/// One scenario: a namespace of its own (unless `namespace: false`), steps, cleanup.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The name, unique in the corpus.
    pub name: String,
    /// The category the report groups by.
    #[serde(default = "uncategorized")]
    pub category: String,
    /// What the scenario checks, for its readers.
    pub note: Option<String>,
    /// Whether a fresh namespace `{ns}` is created first and deleted after.
    #[serde(default = "yes")]
    pub namespace: bool,
    /// Variables available to every step.
    pub vars: Option<Node>,
    /// The compared steps.
    pub steps: Vec<Step>,
    /// Steps run after, not compared.
    #[serde(default)]
    pub cleanup: Vec<Step>,
}

fn uncategorized() -> String {
    "uncategorized".to_owned()
}

fn yes() -> bool {
    true
}

/// One request, and how its answer is captured, awaited and compared.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Step {
    /// The step's name, unique in its scenario (cleanup steps default to `cleanup`).
    pub name: Option<String>,
    /// The HTTP method (default GET).
    pub method: Option<String>,
    /// The request path, with `{var}`s.
    pub path: String,
    /// Query parameters.
    pub query: Option<Node>,
    /// Request headers.
    pub headers: Option<Node>,
    /// `merge`, `json`, `strategic` or `apply`: the patch content type.
    pub patch_type: Option<String>,
    /// The body: a map or list is sent as JSON, a string raw.
    pub body: Option<Node>,
    /// Values to capture from the response body: variable → dotted path.
    pub capture: Option<Node>,
    /// Watch instead of a single request.
    pub watch: Option<Node>,
    /// Poll until a condition holds.
    pub until: Option<Node>,
    /// `false`: recorded, not compared.
    pub diff: Option<bool>,
    /// Paths not compared.
    pub ignore: Option<Vec<String>>,
    /// Compare only this part of the body.
    pub select: Option<String>,
    /// Compare only the body's key set.
    pub keys: Option<bool>,
    /// Seconds to wait before sending.
    pub sleep: Option<f64>,
    /// Free text.
    pub note: Option<String>,
}

impl Step {
    /// The comparison settings as the transcript records them (`spec`).
    pub fn spec(&self) -> Value {
        let mut spec = Map::new();
        if let Some(diff) = self.diff {
            spec.insert("diff".into(), diff.into());
        }
        if let Some(ignore) = &self.ignore {
            spec.insert("ignore".into(), ignore.clone().into());
        }
        if let Some(select) = &self.select {
            spec.insert("select".into(), select.clone().into());
        }
        if let Some(keys) = self.keys {
            spec.insert("keys".into(), keys.into());
        }
        for (key, node) in [
            ("watch", &self.watch),
            ("until", &self.until),
            ("capture", &self.capture),
        ] {
            if let Some(node) = node {
                spec.insert(key.into(), node.to_value());
            }
        }
        Value::Object(spec)
    }

    /// The content type a `patchType` stands for.
    pub fn patch_content_type(&self) -> Option<&'static str> {
        Some(match self.patch_type.as_deref()? {
            "merge" => "application/merge-patch+json",
            "json" => "application/json-patch+json",
            "strategic" => "application/strategic-merge-patch+json",
            "apply" => "application/apply-patch+yaml",
            _ => return None,
        })
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ScenarioFile {
    List(Vec<Scenario>),
    Document { scenarios: Vec<Scenario> },
}

/// Reads a scenario file (a list, or a map with `scenarios`).
pub fn load(path: &FsPath) -> Result<Vec<Scenario>, LoadError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read {
        path: shown.clone(),
        source,
    })?;
    // PyYAML, which recorded the corpus, reads `y`/`n` as strings: YAML 1.2 booleans only. The
    // CRD scenarios vary one base definition through many aliases and merge keys: a file of our
    // own, so the alias-to-anchor ratio guard against alias bombs is off.
    let options = serde_saphyr::options! {
        strict_booleans: true,
        budget: serde_saphyr::budget! { enforce_alias_anchor_ratio: false },
    };
    let file: ScenarioFile =
        serde_saphyr::from_str_with_options(&text, options).map_err(|source| LoadError::Parse {
            path: shown.clone(),
            source: Box::new(source),
        })?;
    let scenarios = match file {
        ScenarioFile::List(list) | ScenarioFile::Document { scenarios: list } => list,
    };
    let mut seen = std::collections::HashSet::new();
    for scenario in &scenarios {
        if !seen.insert(scenario.name.clone()) {
            return Err(LoadError::Duplicate {
                path: shown,
                name: scenario.name.clone(),
            });
        }
    }
    Ok(scenarios)
}

/// The variables of a running scenario.
pub type Env = HashMap<String, Node>;

fn var_pattern() -> &'static Regex {
    static PATTERN: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    PATTERN.get_or_init(|| Regex::new(r"\{([A-Za-z_][A-Za-z0-9_]*)\}").expect("a valid pattern"))
}

/// Replaces `{var}`s: a string that is exactly one known `{var}` becomes the value (with its JSON
/// type), any other string gets the values' text; map keys are substituted too.
pub fn substitute(node: &Node, env: &Env) -> Node {
    match node {
        Node::String(s) => {
            if let Some(caps) = var_pattern().captures(s)
                && caps.get(0).is_some_and(|m| m.len() == s.len())
                && let Some(value) = env.get(&caps[1])
            {
                return value.clone();
            }
            Node::String(substitute_text(s, env))
        }
        Node::List(items) => Node::List(items.iter().map(|item| substitute(item, env)).collect()),
        Node::Map(entries) => {
            let mut out: Vec<(String, Node)> = Vec::new();
            for (key, value) in entries {
                let key = match substitute(&Node::String(key.clone()), env) {
                    Node::String(s) => s,
                    other => scalar_text(&other.to_value()),
                };
                let value = substitute(value, env);
                match out.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = value,
                    None => out.push((key, value)),
                }
            }
            Node::Map(out)
        }
        other => other.clone(),
    }
}

/// Replaces every known `{var}` in `text` by its value's text.
pub fn substitute_text(text: &str, env: &Env) -> String {
    var_pattern()
        .replace_all(text, |caps: &regex::Captures| match env.get(&caps[1]) {
            Some(value) => scalar_text(&value.to_value()),
            None => caps[0].to_owned(),
        })
        .into_owned()
}
