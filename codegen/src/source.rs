//! The generator's input: the version modules of a source tree, and diagnostics about them.

use crate::diag::Diagnostic;

/// One version module of the input: `<group>/<version>.rs`.
pub struct Source {
    /// The group directory's name, also the group's default API name.
    pub group_dir: String,
    /// The version, the file's name.
    pub version: String,
    /// The parsed file.
    pub file: syn::File,
}

/// A diagnostic and the source it is about (index into the sources).
pub type SourceDiagnostic = (usize, Diagnostic);
