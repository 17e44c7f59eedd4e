//! Why a run stops: one error type for the whole command line, each message naming what is
//! wrong and, where it can, what to pass instead.

use std::path::PathBuf;

use crate::source::InputError;

/// A problem that ends the run with `error: <message>`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The code generator needs both directories.
    #[error("--input and --output are required")]
    MissingPaths,
    /// A flag that names a Rust path does not hold one.
    #[error("--{flag} {value:?} is not a Rust path: {source}")]
    NotAPath {
        /// The flag, without its dashes.
        flag: &'static str,
        /// What was passed.
        value: String,
        /// Why it does not parse.
        source: syn::Error,
    },
    /// A `--plural-exceptions` entry without its `:`.
    #[error("--plural-exceptions entry {0:?} must look like Type:plural")]
    PluralException(String),
    /// Generated files would land among the API sources.
    #[error(
        "--output {} overlaps --input {}: generated files would replace the API sources; use a separate directory",
        output.display(),
        input.display()
    )]
    Overlap {
        /// The input directory, resolved.
        input: PathBuf,
        /// The output directory, resolved.
        output: PathBuf,
    },
    /// The input tree could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The input tree holds no version module.
    #[error("no <group>/<version>.rs API modules under {}", .0.display())]
    NoSources(PathBuf),
    /// A wanted path holds a file someone wrote by hand.
    #[error(
        "refusing to overwrite {}: it has no `{header}` header, so it was not generated; move it or choose another --output",
        path.display()
    )]
    NotGenerated {
        /// The file.
        path: PathBuf,
        /// The header generated files start with.
        header: &'static str,
    },
    /// A file or directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The output directory could not be compared with what is wanted.
    #[error("cannot read {}: {source}", output.display())]
    Compare {
        /// The output directory.
        output: PathBuf,
        /// What went wrong comparing.
        source: Box<Error>,
    },
    /// The output could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The output directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Standard input could not be read.
    #[error("cannot read stdin: {0}")]
    Stdin(#[source] std::io::Error),
    /// Standard input is not the JSON the `manifests` subcommand takes.
    #[error("stdin is not a JSON array of Kubernetes objects: {0}")]
    NotObjects(#[source] serde_json::Error),
    /// Standard input holds an empty array.
    #[error("stdin holds no objects; nothing to write")]
    NoObjects,
    /// An object without `kind`, which names its file.
    #[error("an object on stdin has no kind: {0}")]
    NoKind(serde_json::Value),
    /// Two objects that would share a file.
    #[error("two objects on stdin would both be written to {0}")]
    SameFile(String),
    /// An object that cannot be written as YAML.
    #[error("cannot write YAML: {0}")]
    Yaml(#[source] serde_saphyr::SerializeError),
    /// The `rbac` subcommand's source directory could not be read.
    #[error("cannot read input directory {}: {source} (pass --input <crate>/src)", path.display())]
    SourceDirectory {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The sources hold no `+kubebuilder:rbac` marker.
    #[error("no +kubebuilder:rbac markers in the //! docs under {}", .0.display())]
    NoRbacMarkers(PathBuf),
    /// The `rbac` subcommand writes one file.
    #[error("--output {} is not a file path", .0.display())]
    NotAFile(PathBuf),
    /// Problems already printed, one a line.
    #[error("{0} problem(s); nothing was written")]
    Problems(usize),
}
