//! Reading the input tree: `<group>/<version>.rs` (or `<group>/<version>/mod.rs`) files, parsed,
//! with warnings for plain `// +tag` comments that no front end can see.

use std::path::{Path, PathBuf};

use codegen::Source;
use codegen::names::is_version;

/// A problem that stops generation, already located.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The input directory is missing or unreadable.
    #[error("cannot read input directory {path}: {source} (pass --input <dir> holding <group>/<version>.rs files)")]
    Directory {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A source file could not be read.
    #[error("{path}: cannot read: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// A parsed source and the file it came from.
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// Its text, for the plain-comment scan.
    pub text: String,
    /// The parsed version module.
    pub source: Source,
}

/// Every version module under `root`, sorted by path; files that do not parse as Rust are
/// reported as `path:line:col: message` and skipped.
pub fn read_tree(root: &Path) -> Result<(Vec<Input>, Vec<String>), InputError> {
    let directory = |path: &Path| {
        std::fs::read_dir(path).map_err(|source| InputError::Directory {
            path: path.to_owned(),
            source,
        })
    };
    let mut candidates = Vec::new();
    for group in directory(root)? {
        let group = group
            .map_err(|source| InputError::Directory {
                path: root.to_owned(),
                source,
            })?
            .path();
        if !group.is_dir() {
            continue;
        }
        for entry in directory(&group)? {
            let path = entry
                .map_err(|source| InputError::Directory {
                    path: group.clone(),
                    source,
                })?
                .path();
            let (version, file) = if path.is_dir() {
                (
                    path.file_name().map(|n| n.to_string_lossy().into_owned()),
                    path.join("mod.rs"),
                )
            } else if path.extension().is_some_and(|e| e == "rs") {
                (path.file_stem().map(|n| n.to_string_lossy().into_owned()), path.clone())
            } else {
                continue;
            };
            if let Some(version) = version.filter(|v| is_version(v)).filter(|_| file.is_file()) {
                let group_dir = group
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                candidates.push((file, group_dir, version));
            }
        }
    }
    candidates.sort();
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for (path, group_dir, version) in candidates {
        let text = std::fs::read_to_string(&path).map_err(|source| InputError::File {
            path: path.clone(),
            source,
        })?;
        match syn::parse_file(&text) {
            Ok(file) => inputs.push(Input {
                path,
                text,
                source: Source {
                    group_dir,
                    version,
                    file,
                },
            }),
            Err(error) => {
                let start = error.span().start();
                errors.push(format!(
                    "{}:{}:{}: not valid Rust: {error}",
                    path.display(),
                    start.line,
                    start.column + 1
                ));
            }
        }
    }
    Ok((inputs, errors))
}

/// `path: warning` for each out-of-line `mod x;` in a version module: only the version file is
/// read, so types in such a module would be missing from the generated code.
pub fn out_of_line_module_warnings(input: &Input) -> Vec<String> {
    input
        .source
        .file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) if m.content.is_none() => Some(format!(
                "{}:{}: warning: types in `mod {};` are not read; keep tagged API types in the version module itself",
                input.path.display(),
                m.ident.span().start().line,
                m.ident
            )),
            _ => None,
        })
        .collect()
}

/// `path:line: warning` for each `// +tag` comment: Rust drops plain comments before either
/// front end sees them, so such a tag silently does nothing.
pub fn plain_comment_warnings(input: &Input) -> Vec<String> {
    input
        .text
        .lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let trimmed = line.trim_start();
            let rest = trimmed.strip_prefix("//")?;
            // `///` and `//!` are doc comments; `////` and longer are plain again, as in Rust.
            let doc = (rest.starts_with('/') && !rest.starts_with("//")) || rest.starts_with('!');
            if doc {
                return None;
            }
            let tag = rest.trim_start().strip_prefix('+')?;
            let tag = tag.split_whitespace().next().unwrap_or_default();
            Some(format!(
                "{}:{}: warning: `// +{tag}` is a plain comment, which neither the derive nor the CLI can see; write `/// +{tag}` (or `//! +{tag}` for the module)",
                input.path.display(),
                index + 1
            ))
        })
        .collect()
}
