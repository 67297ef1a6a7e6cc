#!/usr/bin/env bash
# Runs the peer comparison and writes BENCHMARKS.md and benches/peers/chart.png.
# Installs Embree (Debian's libembree-dev) when it is missing and this is root with apt-get;
# otherwise runs without the Embree rows, saying so. Extra arguments go to the benchmark,
# e.g. `benches/peers/run.sh --rays 65536 --rounds 1 --meshes bunny` for a quick run.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

have_embree() {
    [ -f /usr/include/embree3/rtcore.h ] && ldconfig -p 2>/dev/null | grep -q 'libembree3\.so'
}

if ! have_embree && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "run.sh: installing libembree-dev" >&2
    apt-get update -qq >&2 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libembree-dev >&2 || true
fi

features=()
if have_embree; then
    features=(--features embree)
else
    echo "run.sh: Embree 3 (libembree-dev) is not installed and could not be installed; running without Embree" >&2
fi

exec cargo run --release --manifest-path benches/peers/Cargo.toml "${features[@]}" -- --write "$@"
