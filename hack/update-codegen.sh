#!/usr/bin/env bash
# Regenerates generated-example's checked-in code from its tagged API types, as
# sample-controller's hack/update-codegen.sh runs code-generator.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run -q -p codegen-cli -- \
  --input generated-example/src/apis \
  --output generated-example/src/generated \
  --api-module crate::apis "$@"
