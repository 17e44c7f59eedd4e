#!/usr/bin/env bash
# Installs the programs the tests drive besides cargo: kubectl. Machines of this kind ship one;
# elsewhere Debian's own package (kubernetes-client) provides it.
set -euo pipefail

if ! command -v kubectl >/dev/null 2>&1; then
  echo "hack/install-test-deps.sh: installing kubectl (Debian package kubernetes-client)" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubernetes-client >/dev/null
fi
kubectl version --client >/dev/null 2>&1 || {
  echo "hack/install-test-deps.sh: kubectl is installed but does not run: $(command -v kubectl)" >&2
  exit 1
}
