#!/usr/bin/env bash
# Writes the Go type tables the in-memory server prints Go values with (core/v1's PodTemplateSpec,
# whose hash names ReplicaSets; the Endpoints and EndpointSlice ports and subsets, sorted by their
# hashes) into fake-apiserver/src/semantics/go_types/, from Kubernetes source trees as
# shared/realapi/build.sh extracts them (vendor/ included; no network):
#   hack/go-types.sh /tmp/k8s-src 28 && hack/go-types.sh /tmp/k8s-src-v1.31.2 31
set -euo pipefail
src=${1:?usage: hack/go-types.sh KUBERNETES_SOURCE_TREE MINOR}
minor=${2:?usage: hack/go-types.sh KUBERNETES_SOURCE_TREE MINOR}
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$src/go.mod" ] || { echo "$src is not a Kubernetes source tree (no go.mod)" >&2; exit 1; }
go=$(ls -d /usr/lib/go-1.2*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$go" ] || { echo "no Go toolchain under /usr/lib/go-1.2*: run shared/realapi/build.sh first" >&2; exit 1; }
export PATH=$go:$PATH GOFLAGS=-mod=vendor GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 GOWORK=off
[ -f "$src/go.work" ] && export GOWORK=$src/go.work
dir=$src/cmd/kube-codegen-go-types
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir" && cp "$here/go-types/main.go" "$dir/"
for table in pod_template endpoints; do
  out=$here/../fake-apiserver/src/semantics/go_types/${table}_v1_$minor.json
  (cd "$src" && go run ./cmd/kube-codegen-go-types "$table") > "$out.tmp"
  mv "$out.tmp" "$out"
  echo "wrote $out"
done
