#!/usr/bin/env bash
# Every check CI runs, in the order that fails fastest: formatting, lints, docs, checked-in
# generated code, then all tests (unit, snapshots, integration through kube::Client, kubectl
# against the served in-memory API server), then the benchmarks in their quick form.
set -euo pipefail
cd "$(dirname "$0")/.."
# A one-shot build gains nothing from incremental compilation, and its caches were a third of the
# target directory (gigabytes): CI builds without them.
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi

hack/install-test-deps.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# The controller as the image builds it: without the in-memory API server.
cargo clippy -p controller --no-default-features --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
hack/verify-codegen.sh
# The replay test writes the table of how the served in-memory API server answers against
# kube-apiserver's recorded answers (it enforces allowlist.yaml and pending.txt); printed below.
summary="$PWD/target/conformance-summary.txt"
rm -f "$summary"
CONFORMANCE_SUMMARY="$summary" cargo test --workspace --locked
cat "$summary"
# Every benchmark suite, small: no speed assertions, only their correctness checks (store sizes,
# final resourceVersions, every Foo converged, generated code equal to the checked-in code).
cargo run -q -p bench --locked -- all --quick
