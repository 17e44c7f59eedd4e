#!/usr/bin/env bash
# Runs kube-rs 5.0's own cluster tests (the `#[ignore]`d library tests of kube-client,
# kube-runtime and kube, as kube-rs's CI runs them with `-- --ignored`) against a cluster:
# a real kube-apiserver (`../shared/realapi/`) or this project's served in-memory server.
#
#   hack/kube-rs-cluster-tests.sh --kubeconfig /tmp/realapi/kubeconfig
#   hack/kube-rs-cluster-tests.sh --served        # starts `fake-apiserver` on loopback
#
# The tests are kube-rs's, unchanged: their sources come from cargo's registry (the versions
# this workspace depends on). Features are every one kube-rs's CI enables but the two TLS
# back-ends that need system libraries or cmake (`openssl-tls`, `aws-lc-rs`); `rustls-tls`
# with `ring` is used. Prints one `PASS`/`FAIL` line per test and a summary; exits non-zero
# only when the harness itself fails.
set -euo pipefail

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

kubeconfig=""
served=false
while [[ $# -gt 0 ]]; do
    case "$1" in
        --kubeconfig) kubeconfig="$2"; shift 2 ;;
        --served) served=true; shift ;;
        -h|--help) usage ;;
        *) echo "unknown argument: $1" >&2; usage ;;
    esac
done
if [[ -z "$kubeconfig" && "$served" == false ]]; then
    echo "give --kubeconfig FILE or --served" >&2
    usage
fi

root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(cargo metadata --format-version 1 --manifest-path "$root/Cargo.toml" \
    | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="kube-client"))')"
registry="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ | head -1)"
work="${KUBE_RS_TESTS_DIR:-${TMPDIR:-/tmp}/kube-rs-cluster-tests}"
mkdir -p "$work"

# A workspace of the three crates, copied from the registry, with one target directory.
for crate in kube-client kube-runtime kube; do
    src="$registry/$crate-$version"
    if [[ ! -d "$src" ]]; then
        echo "$crate $version is not in cargo's registry: run 'cargo fetch' in $root first" >&2
        exit 1
    fi
    rm -rf "$work/$crate"
    cp -r "$src" "$work/$crate"
done
# Publishing drops the path dev-dependency on `kube` that kube-rs's own workspace gives
# kube-client and kube-runtime; it is put back, and the registry's copies patched to these.
printf '\n[dev-dependencies.kube]\npath = "../kube"\nfeatures = ["derive", "client", "ws"]\n' >> "$work/kube-client/Cargo.toml"
printf '\n[dev-dependencies.kube]\npath = "../kube"\nfeatures = ["derive", "client", "runtime"]\n' >> "$work/kube-runtime/Cargo.toml"
cat > "$work/Cargo.toml" <<EOF
[workspace]
members = ["kube-client", "kube-runtime", "kube"]
resolver = "2"

[patch.crates-io]
kube-client = { path = "kube-client" }
kube-runtime = { path = "kube-runtime" }
kube = { path = "kube" }
EOF

server_pid=""
cleanup() { [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true; }
trap cleanup EXIT
if [[ "$served" == true ]]; then
    kubeconfig="$work/served.kubeconfig"
    rm -f "$kubeconfig"
    cargo build -q --manifest-path "$root/Cargo.toml" -p fake-apiserver
    "$root/target/debug/fake-apiserver" --kubeconfig "$kubeconfig" > "$work/served.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do [[ -s "$kubeconfig" ]] && break; sleep 0.1; done
    [[ -s "$kubeconfig" ]] || { echo "fake-apiserver did not start: $(cat "$work/served.log")" >&2; exit 1; }
fi

features_client="ws,oauth,oidc,gzip,jsonpatch,admission,http-proxy,socks5,kubelet-debug,unstable-client,rustls-tls,ring,webpki-roots"
features_kube="$features_client,runtime,derive,cel,unstable-runtime"
run() {
    local crate="$1" features="$2"
    (cd "$work" && KUBECONFIG="$kubeconfig" cargo test -p "$crate" --lib --features "$features" \
        -- --ignored --test-threads=1 2>&1 || true) | tee "$work/$crate.log" \
        | sed -n 's/^test \(.*\) \.\.\. \(ok\|FAILED\)$/\2 \1/p' | sed 's/^ok /PASS '"$crate"' /; s/^FAILED /FAIL '"$crate"' /'
}
{
    run kube-client "$features_client"
    run kube-runtime "unstable-runtime"
    run kube "$features_kube"
} | tee "$work/results.txt"
echo "$(grep -c '^PASS' "$work/results.txt") passed, $(grep -c '^FAIL' "$work/results.txt") failed (logs in $work)"
