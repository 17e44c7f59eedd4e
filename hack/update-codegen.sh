#!/usr/bin/env bash
# Regenerates everything derived from the sources, as sample-controller's hack/update-codegen.sh
# runs code-generator: generated-example's code from its tagged API types, the CRDs in
# deploy/crds/ from those types' schemas and markers, and deploy/rbac/role.yaml from the
# controller's +kubebuilder:rbac markers. Pass --check to compare instead of writing
# (hack/verify-codegen.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run -q -p codegen-cli -- \
  --input generated-example/src/apis \
  --output generated-example/src/generated \
  --api-module crate::apis "$@"
# The CRDs are built by the (just regenerated) code itself, so they are what clients use.
crds="$(cargo run -q -p generated-example --example crdgen)"
cargo run -q -p codegen-cli -- manifests --output deploy/crds "$@" <<<"$crds"

cargo run -q -p codegen-cli -- rbac --input controller/src --output deploy/rbac/role.yaml "$@"
