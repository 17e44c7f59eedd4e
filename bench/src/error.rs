//! Why a benchmark did not run, or ran and found a wrong result.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

/// A benchmark's error: what it could not do, or which of its checks failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A file or directory could not be read or written.
    #[error("{}: {source}", path.display())]
    File {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A program, a socket or a system call failed to start or answer.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: io::Error,
    },
    /// A program ran and failed; its output's end, when it is worth showing.
    #[error("{program} failed ({status}){}", shown(.output))]
    Failed {
        /// The program and its arguments.
        program: String,
        /// How it ended.
        status: ExitStatus,
        /// The end of its output, or nothing.
        output: String,
    },
    /// A program printed something else than its caller reads.
    #[error("{program} printed {printed:?}, not {expected}")]
    Output {
        /// The program.
        program: String,
        /// What it printed.
        printed: String,
        /// What was expected.
        expected: String,
    },
    /// The benchmark server's URL did not parse.
    #[error("bad server URL {url}: {source}")]
    Url {
        /// The URL.
        url: String,
        /// Why.
        source: http::uri::InvalidUri,
    },
    /// A request to the benchmark server failed.
    #[error(transparent)]
    Kube(#[from] kube::Error),
    /// A reflector's writer went away before its store was ready.
    #[error("a reflector store was dropped before its first list: {0}")]
    StoreDropped(#[from] kube::runtime::reflector::store::WriterDropped),
    /// The controller's in-memory API server did not start.
    #[error(transparent)]
    Embedded(#[from] controller::embedded::EmbeddedError),
    /// The controller under measurement stopped on an error.
    #[error("the controller failed: {0}")]
    Controller(#[from] controller::RunError),
    /// A task of the benchmark panicked.
    #[error("a benchmark task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// A result could not be printed or read as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A parser under evaluation refused a body (`bench parsers`).
    #[cfg(feature = "json-parsers")]
    #[error("{parser}: {source}")]
    Parser {
        /// The parser.
        parser: &'static str,
        /// Its error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A result is wrong or incomplete: the check that failed, in words.
    #[error("{0}")]
    Check(String),
}

/// A failed program's output, after a colon, or nothing.
fn shown(output: &str) -> String {
    if output.is_empty() {
        String::new()
    } else {
        format!(":\n{output}")
    }
}

impl BenchError {
    /// The error of an operation on `path`.
    pub fn file(path: &Path) -> impl FnOnce(io::Error) -> Self + '_ {
        move |source| Self::File {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The error of doing `what`.
    pub fn io(what: impl Into<String>) -> impl FnOnce(io::Error) -> Self {
        let what = what.into();
        move |source| Self::Io { what, source }
    }

    /// A failed check, described.
    pub fn check(what: impl Into<String>) -> Self {
        Self::Check(what.into())
    }
}
