#!/usr/bin/env bash
# Builds the Python package's binary wheel for Linux: one abi3 wheel (every CPython from 3.9,
# pyo3's `abi3-py39`) tagged manylinux_2_17 (manylinux2014: glibc 2.17 or later, so pip installs
# it on any mainstream Linux of the last ten years without a Rust toolchain).
#
#     bindings/python/build-wheel.sh [OUT_DIR]      # default OUT_DIR: bindings/python/target/wheels
#
# It needs Rust, Python 3.9+ with pip and access to PyPI, nothing else (no docker): maturin and
# zig (the `ziglang` package) are installed into a virtual environment of their own under
# target/ (kept, so that a second build reuses the first one's compiled crates). zig links the
# extension against glibc 2.17's symbols, whatever glibc this machine has; maturin's built-in
# auditwheel check then refuses the wheel if it needs anything newer than manylinux_2_17
# allows, and `auditwheel show` checks it again. The last line printed is the wheel's path.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$(mkdir -p "${1:-$here/target/wheels}" && cd "${1:-$here/target/wheels}" && pwd)"
PYTHON="${PYTHON:-python3}"

# The tools' virtual environment stays at one path: maturin hands its interpreter to pyo3's
# build script, and a new path each time would rebuild every crate.
tools="$here/target/wheel-tools"
staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
echo "== wheel: maturin and zig in a virtual environment of their own ($tools/venv)" >&2
if [[ ! -x $tools/venv/bin/python ]]; then
    "$PYTHON" -m venv --clear "$tools/venv"
    "$tools/venv/bin/python" -m pip install --quiet --upgrade pip
fi
# The versions this was last checked with (maturin 1.16.0, ziglang 0.17.1, auditwheel 6.8.2),
# up to the next release that may break the zig link.
"$tools/venv/bin/python" -m pip install --quiet "maturin~=1.16" "ziglang~=0.17.1" "auditwheel~=6.8"
# maturin runs zig as `python -m ziglang`, with the `python` it finds on PATH.
export PATH="$tools/venv/bin:$PATH"

echo "== wheel: maturin build --release --zig --compatibility manylinux_2_17" >&2
start=$SECONDS
(cd "$here" && maturin build --release --zig --compatibility manylinux_2_17 --out "$staging" >&2)
echo "== wheel: built in $((SECONDS - start)) s" >&2

wheels=("$staging"/*.whl)
if [[ ${#wheels[@]} -ne 1 || ! -f ${wheels[0]} ]]; then
    echo "error: expected one wheel from maturin, found: ${wheels[*]}" >&2
    exit 1
fi
wheel="${wheels[0]}"
name="$(basename "$wheel")"
case "$name" in
    meshcast-*-cp39-abi3-*manylinux_2_17_*.whl) ;;
    *)
        echo "error: $name is not a cp39-abi3 manylinux_2_17 wheel" >&2
        exit 1
        ;;
esac
# A second opinion on the glibc symbols, from auditwheel itself.
report="$(auditwheel show "$wheel" 2>&1)"
echo "$report" >&2
if ! tr -s ' \n' '  ' <<<"$report" | grep -q 'consistent with the following platform tag: "manylinux_2_17_'; then
    echo "error: auditwheel does not find $name consistent with manylinux_2_17" >&2
    exit 1
fi
mv -f "$wheel" "$out/$name"
echo "$out/$name"
