#!/usr/bin/env bash
# Fails, with a diff and the command to run, when generated-example's checked-in generated code,
# deploy/crds/ or deploy/rbac/role.yaml is not what the generator makes of the sources now.
set -euo pipefail
cd "$(dirname "$0")/.."
exec hack/update-codegen.sh --check
