#!/usr/bin/env bash
# Runs the fuzz targets with cargo fuzz on the stable toolchain: each for SECONDS (default
# 25), one after the other, from corpus/<target>/ (filled by seed.sh, growing from run to
# run). Stops at the first crash and says how to reproduce it. Installs cargo-fuzz if needed.
#
# Usage: fuzz/run.sh [SECONDS] [TARGET...]
#   fuzz/run.sh                # every target, 25 seconds each (what CI runs)
#   fuzz/run.sh 600 obj ply    # ten minutes on the OBJ and PLY readers
#
# Without nightly there is no AddressSanitizer (`--sanitizer none`); meshcast's crates are
# safe Rust, so panics, overflow and debug assertions (on here), timeouts and memory blow-ups
# are what the targets catch.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${1:-25}
shift || true
if (($# > 0)); then
    targets=("$@")
else
    targets=(obj gltf ply stl cache detect cli_rays cli_points)
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

# Optimised, with debug assertions and overflow checks; no sanitizer, so no nightly flag.
flags=(--release --debug-assertions --sanitizer none)
# A slow input (over 10 s) or one that allocates over 1 GiB is a finding too.
limits=(-timeout=10 -rss_limit_mb=1024 -print_final_stats=1)
# FUZZ_SEED fixes libFuzzer's random seed (CI sets one, so that its runs repeat); unset, each
# run takes a new seed.
if [[ -n ${FUZZ_SEED:-} ]]; then
    limits+=(-seed="$FUZZ_SEED")
fi

./seed.sh
echo "== building the fuzz targets"
cargo fuzz build "${flags[@]}"

summary=()
for target in "${targets[@]}"; do
    dict=()
    case $target in
        obj | ply | stl | gltf) dict=(-dict="dict/$target.dict") ;;
        cli_rays | cli_points) dict=(-dict=dict/cli.dict) ;;
    esac
    log=artifacts/$target.log
    mkdir -p artifacts
    echo "== fuzzing $target for $seconds s"
    if ! cargo fuzz run "${flags[@]}" "$target" "corpus/$target" -- \
        -max_total_time="$seconds" "${limits[@]}" "${dict[@]}" >"$log" 2>&1; then
        # The log without libFuzzer's dump of the input's bytes.
        awk 'length($0) < 400' "$log" | tail -n 40
        echo "fuzz target $target failed (log: fuzz/$log); the input is in fuzz/artifacts/$target/."
        echo "Reproduce: cargo fuzz run ${flags[*]} $target fuzz/artifacts/$target/<file>"
        echo "(from fuzz/); shrink it with cargo fuzz tmin, fix the bug with a regression test"
        echo "named for it, and add the input to fuzz/seeds/$target/."
        exit 1
    fi
    # libFuzzer's last status line: runs, coverage (edges), features, corpus size, speed.
    done_line=$(grep -aE '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)
    summary+=("$(printf '%-10s runs %s' "$target" "${done_line#\#}")")
done

echo "== fuzzing summary ($seconds s each)"
printf '%s\n' "${summary[@]}"
