#!/usr/bin/env bash
# CI for the Python package: lint its Rust, build the wheel with pip in a fresh virtual
# environment (as `pip install ./bindings/python` does on a user's machine), install the test
# dependencies from PyPI, and run the Python tests. The tests compare with the `meshcast`
# command, built here when the workspace has not built it yet.
set -euo pipefail
cd "$(dirname "$0")"

echo "== python package: cargo fmt and clippy"
cargo fmt --manifest-path Cargo.toml -- --check
cargo clippy --manifest-path Cargo.toml --all-targets -- -D warnings

venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
PYTHON="${PYTHON:-python3}"
echo "== python package: build and install the wheel in a fresh virtual environment ($venv)"
"$PYTHON" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet ".[test]"
"$venv/bin/python" -c "import meshcast; print('meshcast', meshcast.__version__, 'from', meshcast.__file__)"

echo "== python package: tests"
# Outside the source folder, so that the installed package is the one imported.
cd tests
"$venv/bin/python" -m pytest -q -p no:cacheprovider .
