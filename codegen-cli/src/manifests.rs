//! The manifest subcommands: `manifests` writes Kubernetes objects given as JSON on stdin (the
//! CRDs a crate's generated `custom_resource_definitions()` builds) as one YAML file each, and
//! `rbac` writes the roles of the `+kubebuilder:rbac` markers in a crate's `//!` docs. Both
//! write only what changed, delete stale generated files and check with `--check`, like the code.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use codegen::kube_version::{KubeVersion, crd_features_newer_than};
use serde_json::Value;

use crate::error::Error;
use crate::output::{YAML_HEADER, write_or_check};

/// The subcommands.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Writes the Kubernetes objects of a JSON array read from stdin as YAML files, one per
    /// object: `<group>_<plural>.yaml` for a CRD (controller-gen's names), else `<kind>_<name>.yaml`.
    Manifests {
        /// Directory for the YAML files.
        #[arg(long)]
        output: PathBuf,
        /// The oldest Kubernetes the CRDs must install on: a CRD using a newer feature is refused.
        #[arg(long, default_value_t = KubeVersion::OLDEST_SUPPORTED)]
        min_kube_version: KubeVersion,
        /// Write nothing; exit 1 with a diff when the output is not current.
        #[arg(long)]
        check: bool,
    },
    /// Writes the ClusterRole (and a Role per `namespace=`) of the `+kubebuilder:rbac` markers
    /// in the `//!` docs of the Rust files under `--input`.
    Rbac {
        /// Directory of the controller's sources.
        #[arg(long)]
        input: PathBuf,
        /// The YAML file to write.
        #[arg(long)]
        output: PathBuf,
        /// The roles' name.
        #[arg(long, default_value = "kube-codegen-controller")]
        role_name: String,
        /// Write nothing; exit 1 with a diff when the output is not current.
        #[arg(long)]
        check: bool,
    },
}

/// Runs a subcommand.
pub fn run(command: Command) -> Result<ExitCode, Error> {
    match command {
        Command::Manifests {
            output,
            min_kube_version,
            check,
        } => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(Error::Stdin)?;
            let wanted = manifest_files(&text, min_kube_version)?;
            write_or_check(&output, &wanted, YAML_HEADER, check)
        }
        Command::Rbac {
            input,
            output,
            role_name,
            check,
        } => rbac(&input, &output, &role_name, check),
    }
}

/// Writes (or checks) the roles of the `+kubebuilder:rbac` markers in the Rust files under
/// `input`; every unparsable file and bad marker is reported, and then nothing is written.
fn rbac(input: &Path, output: &Path, role_name: &str, check: bool) -> Result<ExitCode, Error> {
    let mut paths = Vec::new();
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in rust_files(input)? {
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Read {
            path: path.clone(),
            source,
        })?;
        match syn::parse_file(&text) {
            Ok(file) => {
                paths.push(path);
                files.push(file);
            }
            Err(e) => errors.push(format!("{}: not valid Rust: {e}", path.display())),
        }
    }
    let roles = match codegen::rbac::roles(&files, role_name) {
        Ok(roles) => roles,
        Err(problems) => {
            errors.extend(problems.iter().map(|(index, d)| {
                let start = d.span.start();
                format!(
                    "{}:{}:{}: {}",
                    paths[*index].display(),
                    start.line,
                    start.column + 1,
                    d.text()
                )
            }));
            Vec::new()
        }
    };
    if !errors.is_empty() {
        return Err(report(&errors));
    }
    if roles.is_empty() {
        return Err(Error::NoRbacMarkers(input.to_owned()));
    }
    let (Some(directory), Some(name)) = (output.parent(), output.file_name()) else {
        return Err(Error::NotAFile(output.to_owned()));
    };
    let wanted = BTreeMap::from([(PathBuf::from(name), yaml_documents(&roles)?)]);
    write_or_check(directory, &wanted, YAML_HEADER, check)
}

/// Prints every problem; the error that ends the run.
fn report(errors: &[String]) -> Error {
    for error in errors {
        eprintln!("{error}");
    }
    Error::Problems(errors.len())
}

/// The YAML files for a JSON array of objects, by file name.
fn manifest_files(json: &str, min_kube_version: KubeVersion) -> Result<BTreeMap<PathBuf, String>, Error> {
    let objects: Vec<Value> = serde_json::from_str(json).map_err(Error::NotObjects)?;
    if objects.is_empty() {
        return Err(Error::NoObjects);
    }
    let too_new = too_new_features(&objects, min_kube_version);
    if !too_new.is_empty() {
        for problem in &too_new {
            eprintln!("error: {problem}");
        }
        return Err(Error::Problems(too_new.len()));
    }
    let mut files = BTreeMap::new();
    for object in &objects {
        let text = |pointer: &str| object.pointer(pointer).and_then(Value::as_str).unwrap_or_default();
        let name = match text("/kind") {
            "CustomResourceDefinition" => format!("{}_{}.yaml", text("/spec/group"), text("/spec/names/plural")),
            "" => return Err(Error::NoKind(object.clone())),
            kind => format!("{}_{}.yaml", kind.to_lowercase(), text("/metadata/name")),
        };
        let yaml = yaml_documents(std::slice::from_ref(object))?;
        if files.insert(PathBuf::from(&name), yaml).is_some() {
            return Err(Error::SameFile(name));
        }
    }
    Ok(files)
}

/// Every use of a CRD feature newer than `min` in the CRDs among `objects`, each with the fix:
/// a CRD that 1.28 refuses is refused here, before it is written.
fn too_new_features(objects: &[Value], min: KubeVersion) -> Vec<String> {
    let crds = objects
        .iter()
        .filter(|o| o.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition"));
    let mut problems = Vec::new();
    for crd in crds {
        let name = crd
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        for (at, feature) in crd_features_newer_than(crd, min) {
            let (problem, fix) = (feature.problem(min), feature.fix());
            problems.push(format!("CustomResourceDefinition {name}: {at}: {problem}; {fix}"));
        }
    }
    problems
}

/// Objects as a YAML stream under the generated header.
fn yaml_documents(objects: &[Value]) -> Result<String, Error> {
    let mut text = format!("{YAML_HEADER}\n");
    for object in objects {
        let mut object = object.clone();
        whole_numbers(&mut object);
        let yaml = serde_saphyr::to_string(&object).map_err(Error::Yaml)?;
        text.push_str("---\n");
        text.push_str(&yaml);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    Ok(text)
}

/// The `.rs` files under `root`, sorted.
fn rust_files(root: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    let entries = std::fs::read_dir(root).map_err(|source| Error::SourceDirectory {
        path: root.to_owned(),
        source,
    })?;
    for entry in entries {
        let path = entry
            .map_err(|source| Error::Read {
                path: root.to_owned(),
                source,
            })?
            .path();
        if path.is_dir() {
            found.extend(rust_files(&path)?);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// Writes whole floating-point numbers as integers (`minimum: 1`, not `1.0`), as controller-gen
/// does: `JSONSchemaProps` keeps bounds as floats, and the value is the same either way.
fn whole_numbers(value: &mut Value) {
    match value {
        Value::Number(number) => {
            if let Some(float) = number
                .as_f64()
                .filter(|f| number.is_f64() && f.fract() == 0.0 && f.abs() < 1e15)
            {
                *value = Value::from(float as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers),
        Value::Object(map) => map.values_mut().for_each(whole_numbers),
        _ => {}
    }
}
