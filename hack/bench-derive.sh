#!/usr/bin/env bash
# Incremental compile time (dev profile) of a user crate with 20 kinds (4 groups x 5 kinds,
# each with a spec and a status) in three forms, each edited and rebuilt 5 times:
#   derive     #[derive(Codegen)] on every type and clientset! over them;
#   generated  plain types and the code codegen-cli writes (the edit reruns the CLI too);
#   baseline   the plain types alone, no generated code (the floor).
# An edit changes one field's doc comment in one kind, as a user's edit to a tagged type would.
# The crates share the workspace's Cargo.lock and target/, so dependencies are built once.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=${1:-5}
cargo build -q -p codegen-cli
cli=$root/target/debug/codegen-cli
bench=$root/target/bench-derive
rm -rf "$bench"
mkdir -p "$bench"

# kinds <group> <derive?>: the version module of one group.
kinds() {
  local g=$1 derive=$2 attr=""
  if [ "$derive" = yes ]; then
    printf 'use codegen_macros::Codegen;\n'
    attr="Codegen, "
  else
    printf '//! +groupName=group%s.example.dev\n//! +k8s:deepcopy-gen=package\n\n' "$g"
  fi
  printf 'use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;\nuse serde::{Deserialize, Serialize};\n\n'
  for k in 1 2 3 4 5; do
    local group_tag="" deepcopy_tag=""
    if [ "$derive" = yes ]; then
      group_tag="/// +groupName=group$g.example.dev"
      deepcopy_tag="///
/// +k8s:deepcopy-gen=true"
    fi
    cat <<EOF
/// Kind$k of group $g.
///
/// +genclient
$group_tag
#[derive(${attr}Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Kind$k {
    /// Standard object metadata.
    pub metadata: ObjectMeta,
    /// The desired state. EDIT-$k
    pub spec: Kind${k}Spec,
    /// The observed state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Kind${k}Status>,
}

/// The desired state of Kind$k.
$deepcopy_tag
#[derive(${attr}Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Kind${k}Spec {
    /// Replicas.
    pub replicas: i32,
    /// Image.
    pub image: String,
}

/// The observed state of Kind$k.
$deepcopy_tag
#[derive(${attr}Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Kind${k}Status {
    /// Ready replicas.
    pub ready: i32,
}

EOF
  done
}

# crate <name> <derive?>: a crate of 4 groups, its own workspace.
make_crate() {
  local name=$1 derive=$2 dir=$bench/$1
  mkdir -p "$dir/src/apis"
  cat > "$dir/Cargo.toml" <<EOF
[package]
name = "bench-$name"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
codegen-macros = { path = "$root/codegen-macros" }
codegen-runtime = { path = "$root/codegen-runtime" }
k8s-openapi = { version = "*", features = ["latest"] }
kube = { version = "*", default-features = false, features = ["client", "runtime", "derive"] }
serde = { version = "1", features = ["derive"] }
EOF
  cp "$root/Cargo.lock" "$dir/Cargo.lock"
  printf '//! Twenty kinds.\n#![allow(missing_docs)]\npub mod apis;\n' > "$dir/src/lib.rs"
  : > "$dir/src/apis/mod.rs"
  for g in 0 1 2 3; do
    printf 'pub mod group%s;\n' "$g" >> "$dir/src/apis/mod.rs"
    mkdir -p "$dir/src/apis/group$g"
    printf 'pub mod v1;\n' > "$dir/src/apis/group$g/mod.rs"
    kinds "$g" "$derive" > "$dir/src/apis/group$g/v1.rs"
  done
  case $name in
    derive)
      {
        printf '/// The clientset.\npub mod client {\n    codegen_macros::clientset! {\n'
        for g in 0 1 2 3; do
          printf '        "group%s.example.dev" => crate::apis::group%s::v1 { Kind1, Kind2, Kind3, Kind4, Kind5 },\n' "$g" "$g"
        done
        printf '    }\n}\n'
      } >> "$dir/src/lib.rs"
      ;;
    generated)
      printf 'pub mod generated;\n' >> "$dir/src/lib.rs"
      ;;
  esac
}

generate() {
  [ "$1" = generated ] || return 0
  "$cli" --input "$bench/generated/src/apis" --output "$bench/generated/src/generated" --api-module crate::apis >/dev/null
}

make_crate derive yes
make_crate generated no
make_crate baseline no
for name in derive generated baseline; do
  generate "$name"
  (cd "$bench/$name" && CARGO_TARGET_DIR=$root/target cargo build -q --offline)
done
for round in $(seq 1 "$rounds"); do
  for name in derive generated baseline; do
    sed -i "s/EDIT-3.*/EDIT-3 round $round/" "$bench/$name/src/apis/group2/v1.rs"
    start=$(date +%s%N)
    generate "$name"
    (cd "$bench/$name" && CARGO_TARGET_DIR=$root/target cargo build -q --offline)
    end=$(date +%s%N)
    printf '%s round=%s wall_s=%s\n' "$name" "$round" "$(echo "scale=2; ($end - $start) / 1000000000" | bc)"
  done
done
