#!/usr/bin/env bash
# CI for the Python package: lint its Rust, build the binary wheel once (build-wheel.sh: abi3,
# manylinux_2_17, checked by maturin's auditwheel and by auditwheel), then install that wheel
# with pip, with the test dependencies from PyPI, into a fresh virtual environment that cannot
# see cargo or rustc (as on a user's machine without Rust), and run the Python tests there.
# The tests compare with the `meshcast` command, built here first when the workspace has not
# built it yet. CI tests the wheel, not `pip install ./bindings/python` (which runs the same
# maturin build through pip, with the same pyproject.toml, so building twice would add minutes).
set -euo pipefail
cd "$(dirname "$0")"
repo="$(cd ../.. && pwd)"

echo "== python package: cargo fmt and clippy"
cargo fmt --manifest-path Cargo.toml -- --check
cargo clippy --manifest-path Cargo.toml --all-targets -- -D warnings

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "== python package: build the wheel"
# Into target/wheels, where it stays after the run: the wheel CI tested. Without the release
# profile's fat LTO and single codegen unit: the same code and the same answers, minutes
# sooner on CI's two cores (a release wheel is built by build-wheel.sh alone, with the profile).
wheel="$(CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 ./build-wheel.sh)"
echo "wheel: $(basename "$wheel")"

# The tests' reference, while cargo is still on PATH (after `cargo test --workspace` it is
# there already, as target/debug/meshcast).
if [[ ! -e $repo/target/release/meshcast && ! -e $repo/target/debug/meshcast ]]; then
    echo "== python package: build the meshcast command the tests compare with"
    (cd "$repo" && cargo build -p meshcast-cli)
fi

# PATH without the folders that hold cargo or rustc (rustup's ~/.cargo/bin, or a system one).
venv="$work/venv"
no_rust_path="$venv/bin"
IFS=: read -ra folders <<<"$PATH"
for folder in "${folders[@]}"; do
    if [[ -z $folder || -e $folder/cargo || -e $folder/rustc ]]; then
        continue
    fi
    no_rust_path="$no_rust_path:$folder"
done
no_rust() { env -u CARGO -u RUSTC -u RUSTUP_TOOLCHAIN PATH="$no_rust_path" "$@"; }

# The interpreter itself, not a launcher (a pyenv shim) that may look for things on PATH.
PYTHON="$("${PYTHON:-python3}" -c 'import sys; print(sys.executable)')"
echo "== python package: install the wheel in a fresh virtual environment without Rust ($venv)"
no_rust "$PYTHON" -m venv "$venv"
no_rust "$venv/bin/python" -m pip install --quiet --upgrade pip
no_rust "$venv/bin/python" -m pip install --quiet "$wheel[test]"
no_rust "$venv/bin/python" - <<'EOF'
import shutil
import meshcast

missing = {tool: shutil.which(tool) for tool in ("cargo", "rustc")}
assert all(path is None for path in missing.values()), f"Rust is on PATH: {missing}"
print("meshcast", meshcast.__version__, "from", meshcast.__file__, "(no cargo, no rustc on PATH)")
EOF

echo "== python package: tests (without Rust on PATH)"
# Outside the source folder, so that the installed package is the one imported.
cd tests
no_rust "$venv/bin/python" -m pytest -q -p no:cacheprovider .
