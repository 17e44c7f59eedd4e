#!/usr/bin/env bash
# Wall time and peak RSS of codegen-cli (release) on generated-example and on a synthetic API of
# 100 groups x 5 kinds, each run 5 times into a scratch directory (--check is not used: every
# run generates and writes).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p codegen-cli
cli=target/release/codegen-cli
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for g in $(seq -w 0 99); do
  mkdir -p "$dir/apis/group$g"
  {
    printf '//! +groupName=group%s.example.dev\n//! +k8s:deepcopy-gen=package\n\n' "$g"
    for k in 1 2 3 4 5; do
      printf '/// Kind%s of group %s.\n///\n/// +genclient\npub struct Kind%s {\n    pub metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,\n    pub spec: Kind%sSpec,\n    pub status: Option<Kind%sStatus>,\n}\n\n' "$k" "$g" "$k" "$k" "$k"
      printf '/// Spec.\npub struct Kind%sSpec {\n    pub replicas: i32,\n    pub image: String,\n}\n\n/// Status.\npub struct Kind%sStatus {\n    pub ready: i32,\n}\n\n' "$k" "$k"
    done
  } > "$dir/apis/group$g/v1.rs"
done
measure() {
  local name=$1; shift
  for round in 1 2 3 4 5; do
    rm -rf "$dir/out"
    /usr/bin/time -f "$name round=$round wall_s=%e peak_rss_kib=%M" "$cli" "$@" --output "$dir/out" 2>&1 >/dev/null | grep round=
  done
}
measure generated-example --input generated-example/src/apis --api-module crate::apis
measure synthetic-100x5 --input "$dir/apis" --api-module crate::apis
