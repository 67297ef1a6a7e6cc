#!/bin/sh
# Issue 72's large mesh: a height field with detail as binary PLY and binary STL, made by
# benches/examples/large_mesh.rs (built as users build: --release, no target-cpu flags).
#
#   benches/large_mesh.sh 100M /tmp/big        # /tmp/big.ply (1.9 GB), /tmp/big.stl (5 GB)
#   benches/large_mesh.sh 10M /tmp/mid ply     # the PLY only
#   benches/large_mesh.sh 10k /tmp/small       # a quick check
#
# Not committed: regenerate it; the same arguments give the same bytes.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 TRIANGLES OUT_PREFIX [ply|stl|both]" >&2
    exit 2
fi
cd "$(dirname "$0")/.."
exec cargo run --release --quiet -p meshcast-benches --example large_mesh -- "$@"
