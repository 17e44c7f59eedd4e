//! Rules across packages, which neither a package's model nor one type can see: group
//! directories that are Rust modules, one Go name per group, one storage version per kind. Both
//! front ends call them: `generate` for the command line, `clientset!` for the derive.

use std::collections::BTreeMap;

use proc_macro2::Span;

use crate::diag::Diagnostic;
use crate::model::{Package, RootType, roots_by_crd};
use crate::source::{Source, SourceDiagnostic};

/// A group whose Go name an earlier group already has: their accessors would collide.
pub struct GoNameClash<'a> {
    /// The index the later package was given with.
    pub index: usize,
    /// The earlier group.
    pub first: &'a str,
    /// The later package.
    pub package: &'a Package,
}

impl GoNameClash<'_> {
    /// What is wrong, for either front end to add its own fix to.
    pub fn message(&self) -> String {
        format!(
            "groups {} and {} both have the Go name {}",
            self.first, self.package.group, self.package.group_go_name
        )
    }
}

/// Every package, after the first of its Go name, whose group differs from that first one's:
/// accessors are named after the Go name, so two groups may not share one.
pub fn go_name_clashes<'a>(packages: impl IntoIterator<Item = (usize, &'a Package)>) -> Vec<GoNameClash<'a>> {
    let mut first: BTreeMap<&str, &str> = BTreeMap::new();
    let mut clashes = Vec::new();
    for (index, package) in packages {
        match first.get(package.group_go_name.as_str()) {
            Some(group) if *group != package.group => clashes.push(GoNameClash {
                index,
                first: group,
                package,
            }),
            _ => {
                first.insert(&package.group_go_name, &package.group);
            }
        }
    }
    clashes
}

/// Group directories whose names are not Rust modules: the generated tree names them as such.
pub fn group_dirs(sources: &[Source]) -> Vec<SourceDiagnostic> {
    sources
        .iter()
        .enumerate()
        .filter(|(_, source)| syn::parse_str::<syn::Ident>(&source.group_dir).is_err())
        .map(|(index, source)| {
            let message = format!("group directory {:?} is not a Rust module name", source.group_dir);
            let help = "rename it to a lowercase identifier (the API group comes from +groupName)";
            (index, Diagnostic::new(Span::call_site(), message).help(help))
        })
        .collect()
}

/// Kinds served in several versions without exactly one `+kubebuilder:storageversion`, each
/// reported at the source of its first version.
pub fn storage_versions(roots: &[RootType<'_>]) -> Vec<SourceDiagnostic> {
    roots_by_crd(roots)
        .into_iter()
        .filter(|(_, versions)| versions.len() > 1)
        .filter_map(|(name, versions)| {
            let stored: Vec<&str> = versions
                .iter()
                .filter(|r| r.def.crd.as_ref().is_some_and(|c| c.storage_version))
                .map(|r| r.package.version.as_str())
                .collect();
            let all: Vec<&str> = versions.iter().map(|r| r.package.version.as_str()).collect();
            let why = match stored.len() {
                1 => return None,
                0 => format!(
                    "is served in {} and none has +kubebuilder:storageversion",
                    all.join(", ")
                ),
                _ => format!("has +kubebuilder:storageversion in {}", stored.join(" and ")),
            };
            let diagnostic = Diagnostic::new(Span::call_site(), format!("{name} {why}"))
                .help("mark the storage version's type with +kubebuilder:storageversion, and only that one");
            Some((versions[0].source, diagnostic))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(group: &str, go_name: &str) -> Package {
        Package {
            group: group.to_owned(),
            group_go_name: go_name.to_owned(),
            version: "v1".to_owned(),
            markers: Vec::new(),
            types: Vec::new(),
            enums: Vec::new(),
        }
    }

    #[test]
    fn go_name_clashes_should_name_the_first_group_of_the_go_name() {
        let packages = [
            package("example.dev", "Example"),
            package("example.dev", "Example"),
            package("example.io", "Example"),
            package("other.dev", "Other"),
            package("example.com", "Example"),
        ];
        let clashes = go_name_clashes(packages.iter().enumerate());
        let found: Vec<(usize, String)> = clashes.iter().map(|c| (c.index, c.message())).collect();
        assert_eq!(
            found,
            [
                (
                    2,
                    "groups example.dev and example.io both have the Go name Example".to_owned()
                ),
                (
                    4,
                    "groups example.dev and example.com both have the Go name Example".to_owned()
                ),
            ]
        );
    }
}
