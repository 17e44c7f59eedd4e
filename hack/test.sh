#!/usr/bin/env bash
# Every check CI runs, in the order that fails fastest: formatting, lints, docs, checked-in
# generated code, then all tests (unit, snapshots, integration through kube::Client, kubectl
# against the served in-memory API server).
set -euo pipefail
cd "$(dirname "$0")/.."

hack/install-test-deps.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
hack/verify-codegen.sh
cargo test --workspace --locked
