//! Suite 4, codegen: wall time and peak memory of `codegen-cli` (built in this benchmark's
//! profile) regenerating generated-example and a synthetic API of 100 groups × 5 kinds, each
//! into a fresh directory, alternately.

use std::path::{Path, PathBuf};

use crate::error::BenchError;
use crate::process::{cargo, is_release, measure, profile_dir, workspace_root};
use crate::stats::{Table, verdict};

/// Writes a synthetic API of `groups` groups × 5 kinds (each with a spec and a status) under
/// `dir/apis`, as a user's `apis` module would be laid out.
fn synthetic_api(dir: &Path, groups: usize) -> Result<PathBuf, BenchError> {
    let apis = dir.join("apis");
    for g in 0..groups {
        let group = apis.join(format!("group{g:02}"));
        std::fs::create_dir_all(&group).map_err(BenchError::file(&group))?;
        let mut text = format!("//! +groupName=group{g:02}.example.dev\n//! +k8s:deepcopy-gen=package\n\n");
        for k in 1..=5 {
            text.push_str(&format!(
                "/// Kind{k} of group {g}.\n///\n/// +genclient\n#[serde(rename_all = \"camelCase\")]\npub struct Kind{k} {{\n    \
                 pub api_version: codegen_runtime::ApiVersion<Self>,\n    pub kind: codegen_runtime::Kind<Self>,\n    \
                 pub metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,\n    \
                 pub spec: Kind{k}Spec,\n    pub status: Option<Kind{k}Status>,\n}}\n\n\
                 /// Spec.\npub struct Kind{k}Spec {{\n    pub replicas: i32,\n    pub image: String,\n}}\n\n\
                 /// Status.\npub struct Kind{k}Status {{\n    pub ready: i32,\n}}\n\n"
            ));
        }
        let file = group.join("v1.rs");
        std::fs::write(&file, text).map_err(BenchError::file(&file))?;
    }
    Ok(apis)
}

/// Every file under `dir`, relative, with its contents.
fn tree(dir: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>, BenchError> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).map_err(BenchError::file(&next))? {
            let path = entry.map_err(BenchError::file(&next))?.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let contents = std::fs::read(&path).map_err(BenchError::file(&path))?;
                files.push((path.strip_prefix(dir).expect("under dir").to_path_buf(), contents));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Runs the suite; fails unless the regenerated generated-example equals the checked-in code.
pub fn suite(groups: usize, rounds: usize) -> Result<(), BenchError> {
    let root = workspace_root();
    let mut build = vec!["build", "-q", "-p", "codegen-cli"];
    if is_release() {
        build.push("--release");
    }
    cargo(&root, &build, &[])?;
    let cli = profile_dir()?.join("codegen-cli");
    let scratch = tempfile::tempdir().map_err(BenchError::io("cannot create a scratch directory"))?;
    let synthetic = synthetic_api(scratch.path(), groups)?;
    let example = root.join("generated-example/src/apis");
    let inputs = [
        ("generated-example", example.clone()),
        (&*format!("synthetic {groups} groups × 5 kinds"), synthetic),
    ]
    .map(|(name, input)| (name.to_owned(), input));
    let mut table = Table::default();
    for round in 0..rounds {
        for (name, input) in &inputs {
            let output = scratch.path().join(format!("out-{round}-{}", name.len()));
            let args = [
                "--input".to_owned(),
                input.display().to_string(),
                "--output".to_owned(),
                output.display().to_string(),
                "--api-module".to_owned(),
                "crate::apis".to_owned(),
            ];
            let cost = measure(&cli, &args)?;
            table.record(name, "wall ms", cost.wall.as_secs_f64() * 1e3);
            table.record(name, "peak RSS MiB", cost.peak_rss_mib);
            if *input == example && tree(&output)? != tree(&root.join("generated-example/src/generated"))? {
                return Err(BenchError::check(
                    "codegen-cli's output differs from generated-example/src/generated: run hack/update-codegen.sh",
                ));
            }
        }
    }
    let profile = if is_release() {
        "release"
    } else {
        "dev (not representative)"
    };
    println!("\n### Codegen: codegen-cli ({profile}), {rounds} rounds\n");
    print!("{table}");
    println!();
    for ((name, _), limit) in inputs.iter().zip([100.0, 1000.0]) {
        let wall = table.samples(name, "wall ms").median();
        println!(
            "{}",
            verdict(name, format!("{wall:.0} ms"), &format!("< {limit:.0} ms"), wall < limit)
        );
    }
    Ok(())
}
