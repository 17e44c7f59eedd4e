#!/usr/bin/env bash
# Ingest of N ConfigMaps (~1.5 KB) by this crate's informer, kube-runtime's reflector and plain
# decoding, run alternately (A B C A B C ...) against one seeded fake API server in its own
# process, so the numbers compare within one run on a noisy machine.
#   hack/bench-informer.sh [objects=100000] [rounds=3]
set -euo pipefail
cd "$(dirname "$0")/.."
objects=${1:-100000}
rounds=${2:-3}
cargo build --release -q -p codegen-runtime --example fake_apiserver --example informer_ingest
dir=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT
target/release/examples/fake_apiserver --kubeconfig "$dir/kubeconfig" --seed-configmaps "$objects" >"$dir/server.log" &
server=$!
for _ in $(seq 600); do [ -s "$dir/kubeconfig" ] && break; sleep 0.1; done
[ -s "$dir/kubeconfig" ] || { echo "the fake API server did not start: $(cat "$dir/server.log")" >&2; exit 1; }
for round in $(seq "$rounds"); do
  for mode in informer reflector decode; do
    echo "round=$round $(target/release/examples/informer_ingest "$mode" "$dir/kubeconfig")"
  done
done
