#!/usr/bin/env bash
# Installs the programs the tests drive besides cargo: kubectl, from Debian's packages.
set -euo pipefail

if ! command -v kubectl >/dev/null 2>&1; then
  echo "hack/install-test-deps.sh: installing kubectl from Debian's packages" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubectl >/dev/null
fi
kubectl version --client >/dev/null
