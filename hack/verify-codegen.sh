#!/usr/bin/env bash
# Fails, with a diff and the command to run, when generated-example's checked-in generated code
# is not what the generator makes of its API types now.
set -euo pipefail
cd "$(dirname "$0")/.."
exec hack/update-codegen.sh --check
