//! Suite 5, compile cost: a crate of 20 kinds (4 groups × 5, each with a spec and a status)
//! using our derive for every per-type artifact (clientset, listers, informers, deepcopy, CRD,
//! apply configurations), the same crate with its types tagged out of apply configurations, and
//! the same 20 kinds with kube's `#[derive(CustomResource)]`. The crates have the same
//! dependencies, built once; each round cleans one crate and rebuilds it alone
//! (`CARGO_INCREMENTAL=0`), alternating, in dev and release.

use std::path::Path;

use crate::error::BenchError;
use crate::process::{cargo, workspace_root};
use crate::stats::{Table, verdict};

const GROUPS: usize = 4;
const KINDS: usize = 5;

/// One group's version module with our derive.
fn ours(group: usize) -> String {
    ours_module(group, "")
}

/// The same module with every type tagged out of apply configurations, as a crate that never
/// applies can write it.
fn ours_without_apply(group: usize) -> String {
    ours_module(group, "///\n/// +k8s:applyconfiguration-gen=false\n")
}

/// One group's version module with our derive, `extra` tags on every type.
fn ours_module(group: usize, extra: &str) -> String {
    let mut text = String::from(
        "use codegen_macros::Codegen;\nuse k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;\n\
         use schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n\n",
    );
    for k in 1..=KINDS {
        text.push_str(&format!(
            r#"/// Kind{k} of group {group}.
///
/// +genclient
/// +groupName=group{group}.example.dev
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
{extra}#[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Kind{k} {{
    /// The API version, always written.
    #[serde(rename = "apiVersion")]
    pub api_version: ::codegen_runtime::ApiVersion<Self>,
    /// The kind, always written.
    pub kind: ::codegen_runtime::Kind<Self>,
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// The desired state.
    pub spec: Kind{k}Spec,
    /// The observed state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Kind{k}Status>,
}}

/// The desired state of Kind{k}.
///
/// +k8s:deepcopy-gen=true
{extra}#[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Kind{k}Spec {{
    /// Replicas.
    pub replicas: i32,
    /// Image.
    pub image: String,
}}

/// The observed state of Kind{k}.
///
/// +k8s:deepcopy-gen=true
{extra}#[derive(Codegen, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Kind{k}Status {{
    /// Ready replicas.
    pub ready: i32,
}}

"#
        ));
    }
    text
}

/// The same group with kube-derive.
fn kube(group: usize) -> String {
    let mut text =
        String::from("use kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n\n");
    for k in 1..=KINDS {
        text.push_str(&format!(
            r#"/// The desired state of Kind{k}.
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(group = "group{group}.example.dev", version = "v1", kind = "Kind{k}", namespaced, status = "Kind{k}Status")]
pub struct Kind{k}Spec {{
    /// Replicas.
    pub replicas: i32,
    /// Image.
    pub image: String,
}}

/// The observed state of Kind{k}.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Kind{k}Status {{
    /// Ready replicas.
    pub ready: i32,
}}

"#
        ));
    }
    text
}

/// Writes crate `bench-compile-<name>` under `dir`: its own workspace, the workspace's lock.
fn write_crate(dir: &Path, name: &str, module: fn(usize) -> String) -> Result<(), BenchError> {
    let root = workspace_root();
    let write = |path: &Path, text: &str| -> Result<(), BenchError> {
        std::fs::create_dir_all(path.parent().expect("a file in a directory"))
            .and_then(|()| std::fs::write(path, text))
            .map_err(BenchError::file(path))
    };
    let root = root.display();
    write(
        &dir.join("Cargo.toml"),
        &format!(
            r#"[package]
name = "bench-compile-{name}"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
codegen-macros = {{ path = "{root}/codegen-macros" }}
codegen-runtime = {{ path = "{root}/codegen-runtime" }}
k8s-openapi = {{ version = "0.29", features = ["latest"] }}
kube = {{ version = "5", default-features = false, features = ["client", "runtime", "derive"] }}
schemars = "1"
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
"#
        ),
    )?;
    std::fs::copy(format!("{root}/Cargo.lock"), dir.join("Cargo.lock"))
        .map_err(BenchError::io("copying Cargo.lock"))?;
    let mut lib = String::from("//! Twenty kinds.\n#![allow(missing_docs)]\n\npub mod apis {\n");
    for g in 0..GROUPS {
        lib.push_str(&format!("    pub mod group{g} {{\n        pub mod v1;\n    }}\n"));
        write(&dir.join(format!("src/apis/group{g}/v1.rs")), &module(g))?;
    }
    lib.push_str("}\n");
    if name.starts_with("ours") {
        lib.push_str("\n/// The clientset.\npub mod client {\n    codegen_macros::clientset! {\n");
        for g in 0..GROUPS {
            lib.push_str(&format!(
                "        \"group{g}.example.dev\" => crate::apis::group{g}::v1 {{ Kind1, Kind2, Kind3, Kind4, Kind5 }},\n"
            ));
        }
        lib.push_str("    }\n}\n");
    }
    write(&dir.join("src/lib.rs"), &lib)
}

const OURS: &str = "our derive (clientset, listers, informers, deepcopy, CRD, apply configurations)";
const OURS_WITHOUT_APPLY: &str = "our derive, every type tagged +k8s:applyconfiguration-gen=false";
const KUBE: &str = "kube-derive CustomResource";

/// Runs the suite in `profiles` (`dev`, `release`).
pub fn suite(profiles: &[&str], rounds: usize) -> Result<(), BenchError> {
    let base = workspace_root().join("target/bench-compile");
    let target = base.join("target");
    let crates = ["ours", "ours-without-apply", "kube"];
    write_crate(&base.join("ours"), "ours", ours)?;
    write_crate(
        &base.join("ours-without-apply"),
        "ours-without-apply",
        ours_without_apply,
    )?;
    write_crate(&base.join("kube"), "kube", kube)?;
    let target = target.to_string_lossy();
    let env = [("CARGO_TARGET_DIR", &*target), ("CARGO_INCREMENTAL", "0")];
    let mut table = Table::default();
    for profile in profiles {
        let release: &[&str] = if *profile == "release" { &["--release"] } else { &[] };
        for name in crates {
            eprintln!("compile: building bench-compile-{name}'s dependencies ({profile})");
            cargo(&base.join(name), &[&["build", "-q"], release].concat(), &env)?;
        }
        for round in 1..=rounds {
            for name in crates {
                let package = format!("bench-compile-{name}");
                cargo(
                    &base.join(name),
                    &[&["clean", "-q", "-p", &package], release].concat(),
                    &env,
                )?;
                let took = cargo(&base.join(name), &[&["build", "-q"], release].concat(), &env)?;
                eprintln!(
                    "compile: round {round} {package} {profile}: {:.2} s",
                    took.as_secs_f64()
                );
                let program = match name {
                    "ours" => OURS,
                    "ours-without-apply" => OURS_WITHOUT_APPLY,
                    _ => KUBE,
                };
                table.record(program, &format!("{profile} s"), took.as_secs_f64());
            }
        }
    }
    println!("\n### Compile cost: 20 kinds, crate alone, CARGO_INCREMENTAL=0, {rounds} rounds\n");
    print!("{table}");
    println!();
    for profile in profiles {
        let ratio = table.ratio(OURS, KUBE, &format!("{profile} s"));
        println!(
            "{}",
            verdict(
                &format!("{profile} build"),
                format!("{ratio:.2}× kube-derive's"),
                "≤ 1.5×",
                ratio <= 1.5
            )
        );
        let without = table.ratio(OURS_WITHOUT_APPLY, KUBE, &format!("{profile} s"));
        println!("- {profile} build, apply configurations tagged out: {without:.2}× kube-derive's");
    }
    Ok(())
}
