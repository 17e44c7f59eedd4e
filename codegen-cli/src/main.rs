//! `codegen-cli`: generates checked-in clientsets, listers, informers, registration and `Clone`
//! impls from tagged API types, writes CRD and RBAC manifests, or checks that the checked-in
//! files are current.

mod error;
mod manifests;
mod output;
mod source;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use codegen::kube_version::KubeVersion;
use codegen::model::Options;
use error::Error;

/// Generate kube-codegen output from tagged Rust API types.
///
/// Without a subcommand: generates code from `--input` into `--output`.
#[derive(Parser)]
#[command(version, subcommand_negates_reqs = true, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<manifests::Command>,
    #[command(flatten)]
    args: Args,
}

/// The code generator's arguments.
#[derive(clap::Args)]
struct Args {
    /// Directory holding `<group>/<version>.rs` API modules.
    #[arg(long, required = true)]
    input: Option<PathBuf>,
    /// Directory for generated files (only files with the @generated header are ever replaced or deleted).
    #[arg(long, required = true)]
    output: Option<PathBuf>,
    /// Rust path of the input directory's module, e.g. `crate::apis`.
    #[arg(long, default_value = "crate::apis")]
    api_module: String,
    /// Rust path of the runtime crate in generated code.
    #[arg(long, default_value = "::codegen_runtime")]
    runtime: String,
    /// Plural exceptions as `Type:plural`, comma-separated (client-gen's --plural-exceptions).
    #[arg(long, value_delimiter = ',')]
    plural_exceptions: Vec<String>,
    /// The oldest Kubernetes the CRDs must install on: markers that need a newer one are refused.
    #[arg(long, default_value_t = KubeVersion::OLDEST_SUPPORTED)]
    min_kube_version: KubeVersion,
    /// Write nothing; exit 1 with a diff when the output is not current.
    #[arg(long)]
    check: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(command) => manifests::run(command),
        None => run(cli.args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The output must not be, contain or lie inside the input: generated files are laid out like
/// the input and would replace the API sources.
fn check_disjoint(input: &std::path::Path, output: &std::path::Path) -> Result<(), Error> {
    let canonical = |path: &std::path::Path| {
        // The output may not exist yet: resolve its nearest existing ancestor.
        let mut probe = path.to_path_buf();
        let mut tail = Vec::new();
        while !probe.exists() {
            let Some(name) = probe.file_name().map(|n| n.to_owned()) else {
                break;
            };
            tail.push(name);
            probe.pop();
        }
        let mut resolved = probe.canonicalize().unwrap_or(probe);
        resolved.extend(tail.into_iter().rev());
        resolved
    };
    let (input, output) = (canonical(input), canonical(output));
    if input.starts_with(&output) || output.starts_with(&input) {
        return Err(Error::Overlap { input, output });
    }
    Ok(())
}

fn run(args: Args) -> Result<ExitCode, Error> {
    let (Some(input), Some(output)) = (args.input, args.output) else {
        return Err(Error::MissingPaths);
    };
    let path = |flag: &'static str, value: String| {
        syn::parse_str::<syn::Path>(&value).map_err(|source| Error::NotAPath { flag, value, source })
    };
    let api_module = path("api-module", args.api_module)?;
    let runtime = path("runtime", args.runtime)?;
    let mut options = Options {
        min_kube_version: args.min_kube_version,
        ..Options::default()
    };
    for exception in &args.plural_exceptions {
        let (singular, plural) = exception
            .split_once(':')
            .ok_or_else(|| Error::PluralException(exception.clone()))?;
        options.plural_exceptions.insert(singular.to_owned(), plural.to_owned());
    }
    check_disjoint(&input, &output)?;
    let (inputs, errors) = source::read_tree(&input)?;
    // (path, line, column, message): sorted as numbers, not text.
    let mut errors: Vec<(String, usize, usize, String)> =
        errors.into_iter().map(|e| (String::new(), 0, 0, e)).collect();
    let warnings = inputs.iter().flat_map(|i| {
        source::plain_comment_warnings(i)
            .into_iter()
            .chain(source::out_of_line_module_warnings(i))
    });
    for warning in warnings {
        eprintln!("{warning}");
    }
    let paths: Vec<PathBuf> = inputs.iter().map(|i| i.path.clone()).collect();
    let sources: Vec<codegen::Source> = inputs.into_iter().map(|i| i.source).collect();
    let config = codegen::Config { runtime };
    let files = match codegen::generate(&sources, &api_module, &options, &config) {
        Ok(files) if errors.is_empty() => files,
        Ok(_) => BTreeMap::new(),
        Err(problems) => {
            for (index, diagnostic) in problems {
                let start = diagnostic.span.start();
                let path = paths[index].display();
                errors.push((path.to_string(), start.line, start.column + 1, diagnostic.text()));
            }
            BTreeMap::new()
        }
    };
    if !errors.is_empty() {
        errors.sort();
        for (path, line, column, message) in &errors {
            if path.is_empty() {
                eprintln!("{message}");
            } else {
                eprintln!("{path}:{line}:{column}: {message}");
            }
        }
        eprintln!("error: {} problem(s); nothing was written", errors.len());
        return Ok(ExitCode::FAILURE);
    }
    if sources.is_empty() {
        return Err(Error::NoSources(input));
    }
    let wanted = output::render(files);
    output::write_or_check(&output, &wanted, output::HEADER, args.check)
}
